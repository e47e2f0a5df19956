// Package events is the reviewer's client of hitl's small open protocol
// for event-based HITL coordinators (seed 001): agents publish hitl_asked
// / hitl_answered events carrying a request_id on a Server-Sent Events
// stream, list what is pending, and take a response for a request_id. The
// protocol's shapes, and how a listed request is read, are package
// coord/wire's; docs/backends.md documents it with examples; package demo
// serves it, and so does a hub (package coord).
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/coord/wire"
)

// Options configure a Backend.
type Options struct {
	transport.Options
	// Reviewer is sent as responded_by.
	Reviewer string
}

// Backend is an event-stream HITL coordinator.
type Backend struct {
	opts Options
	*transport.Conn

	// What the coordinator's listings said it can do besides answering
	// (a hitl hub's door says it for a LangGraph server's interrupts): the
	// requests whose thread's work it can end, the sessions whose
	// conversation it keeps.
	mu      sync.Mutex
	endable map[string]bool
	talks   map[string]bool
	ends    bool // some request was endable
	// outcomes are how the runs of decisions ended, by decision id, where
	// the coordinator followed them.
	outcomes map[string]client.Outcome
}

// maxKnown bounds what the backend remembers of listed requests.
const maxKnown = 10000

// saw remembers what the listed requests say the coordinator can do.
func (b *Backend) saw(list []wire.Listed) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.endable == nil || len(b.endable)+len(b.talks) > maxKnown {
		b.endable, b.talks = map[string]bool{}, map[string]bool{}
	}
	for _, r := range list {
		if r.Ends {
			b.endable[r.RequestID], b.ends = true, true
		}
		if r.Conversation && r.SessionID != "" {
			b.talks[r.SessionID] = true
		}
	}
}

// New returns a backend for the coordinator at opts.URL.
func New(opts Options) (*Backend, error) {
	if opts.Hint == "" {
		opts.Hint = "is the hub (`hitl serve --http`) or the agent's HITL coordinator running there?"
	}
	c, err := transport.New(opts.Options)
	if err != nil {
		return nil, err
	}
	return &Backend{opts: opts, Conn: c}, nil
}

func (b *Backend) interrupt(r wire.Listed) client.Interrupt { return r.Interrupt(b.Server()) }

// requestList is what /hitl/pending answers, read one request at a time
// (a transport.Decoder, wire.ReadList).
type requestList []wire.Listed

func (l *requestList) DecodeJSON(b []byte) error {
	list, err := wire.ReadList(b)
	*l = list
	return err
}

// Pending lists what waits for a response, newest first. A hub that
// lists its inbox without one of its sources (its LangGraph server is
// down) says so: the listing comes with a client.SourceDown.
func (b *Backend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	out, down, err := b.pending(ctx)
	if err != nil {
		return nil, err
	}
	if down != nil {
		return out, down
	}
	return out, nil
}

func (b *Backend) pending(ctx context.Context) ([]client.Interrupt, *client.SourceDown, error) {
	var list requestList
	resp, err := b.Reads.R().SetContext(ctx).Get("/hitl/pending")
	if err := b.Check(resp, err, "list pending requests", &list); err != nil {
		return nil, nil, err
	}
	b.saw(list)
	out := make([]client.Interrupt, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- { // the coordinator lists oldest first
		out = append(out, b.interrupt(list[i]))
	}
	var down *client.SourceDown
	if why := resp.Header().Get(wire.SourceDownHeader); why != "" {
		down = client.SourceDownOf(b.Redact(why), "one of the hub's sources")
	}
	return out, down, nil
}

// listed is the listing without a source's status: what Standing reads.
func (b *Backend) listed(ctx context.Context) ([]client.Interrupt, error) {
	out, _, err := b.pending(ctx)
	return out, err
}

// Standing: a request still listed as pending is waiting; one that is not
// was answered.
// A coordinator with GET /hitl/requests/{id} says who answered one that is
// gone, or that its agent withdrew it.
func (b *Backend) Standing(ctx context.Context, its []client.Interrupt) ([]client.Standing, error) {
	st, err := client.StandingOf(ctx, b.listed, its)
	if err != nil {
		return nil, err
	}
	for i := range st {
		if st[i].Presence != client.Answered {
			continue
		}
		if req, ok := b.lookup(ctx, st[i].ID); ok {
			switch req.Status {
			case wire.Withdrawn:
				st[i].By = withdrawal(req)
			case wire.Answered:
				st[i].By = &client.Winner{Reviewer: req.RespondedBy, At: req.AnsweredAt, Value: req.Response}
			}
		}
	}
	return st, nil
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// lookup reads one request's standing; ok false when the coordinator has
// no such endpoint or does not answer.
func (b *Backend) lookup(ctx context.Context, id string) (wire.Standing, bool) {
	var req wire.Standing
	resp, err := b.Reads.R().SetContext(ctx).Get("/hitl/requests/" + url.PathEscape(id))
	if err == nil && resp.IsSuccess() && json.Unmarshal(resp.Body(), &req) == nil && req.Status != "" {
		return req, true
	}
	return req, false
}

// Resume responds to one request, once. 404 and 409 mean it was answered
// (or never existed): nothing was taken.
func (b *Backend) Resume(ctx context.Context, s *client.Submission) (client.Receipt, error) {
	it, err := s.One()
	if len(s.Items) == 1 && (s.Items[0].Resume.End != nil || s.Items[0].Resume.Continue && s.Items[0].Interrupt.Schema == client.SchemaBreakpoint) {
		// An ending, or the continue of a breakpoint the coordinator
		// listed (a null response): a hub's door takes them.
		it, err = s.Items[0], nil
	}
	if err != nil {
		return client.Receipt{}, err
	}
	body := wire.Response{RequestID: it.Interrupt.ID, Response: it.Resume.Value, RespondedBy: b.opts.Reviewer, DecisionID: s.DecisionID}
	if len(body.Response) == 0 {
		body.Response = json.RawMessage("null") // a breakpoint's continue
	}
	if end := it.Resume.End; end != nil {
		b.mu.Lock()
		ok := b.endable[it.Interrupt.ID]
		b.mu.Unlock()
		if !ok {
			return client.Receipt{}, &client.RefusedError{Slot: -1, Reason: "the coordinator at " + b.Server() + " cannot end the work of request " + it.Interrupt.ID + ": reject or answer it instead"}
		}
		e, err := json.Marshal(end)
		if err != nil {
			return client.Receipt{}, err
		}
		body.Response, body.End = nil, e
	}
	resp, err := b.Writes.R().SetContext(ctx).SetBody(body).Post("/hitl/respond")
	if err == nil && (resp.StatusCode() == http.StatusConflict || resp.StatusCode() == http.StatusNotFound) {
		return client.Receipt{}, client.ErrAlreadyHandled
	}
	if err == nil && resp.StatusCode() == http.StatusForbidden {
		// A hub refuses an approval its reviewer gave already: nothing
		// recorded, nothing sent (its status says where approvals stand).
		var no wire.Receipt
		if json.Unmarshal(resp.Body(), &no) == nil && no.Status == wire.AwaitingApprovals && no.Message != "" {
			return client.Receipt{Reviewer: no.Reviewer}, &refused{b.Redact(no.Message)}
		}
		// Any other 403 is a refusal too (a viewer's or a publisher's
		// token): nothing taken, and nothing says it was handled, so it
		// is exit 4, not "it broke".
		var p wire.Problem
		if json.Unmarshal(resp.Body(), &p) == nil && p.Message != "" {
			return client.Receipt{}, &refused{"HTTP 403 from " + b.Server() + ": " + b.Redact(p.Message)}
		}
	}
	if cerr := b.Check(resp, err, "respond to request "+it.Interrupt.ID, nil); cerr != nil {
		return client.Receipt{}, &client.SendError{Err: cerr, MaybeSent: transport.MaybeTaken(resp, err)}
	}
	var took wire.Receipt
	_ = json.Unmarshal(resp.Body(), &took) // advice: a coordinator may say nothing
	if resp.StatusCode() == http.StatusAccepted {
		// A team rule wants more approvers: the coordinator recorded this
		// one's approval and sent nothing.
		return client.Receipt{Reviewer: took.Reviewer}, &awaitingApproval{b.Redact(orText(took.Message, "recorded as an approval: nothing is sent until another approver confirms the same decision"))}
	}
	if o := took.Outcome; o != nil && knownStatus(o.Status) {
		// A hub's door followed the run its decision started: Follow says
		// how it ended, as it would against the server itself.
		b.mu.Lock()
		if b.outcomes == nil || len(b.outcomes) > maxKnown {
			b.outcomes = map[string]client.Outcome{}
		}
		b.outcomes[s.DecisionID] = *o
		b.mu.Unlock()
	}
	rc := client.Receipt{Acknowledged: true, RunID: took.RunID, ReasonInConversation: took.ReasonInConversation, Reviewer: took.Reviewer}
	if took.PublisherWaiting != nil && !*took.PublisherWaiting {
		// A hitl hub says how long it keeps the answer.
		rc.Unheard = b.Redact(orText(took.Message, NobodyWaits))
	}
	return rc, nil
}

// NamesReviewer: with a bearer token, the coordinator (a hitl hub) takes
// the token's reviewer as who decides, never the responded_by sent: the
// reviewer hitl knows locally is not who it records (its receipts say who).
func (b *Backend) NamesReviewer() bool { return b.opts.BearerToken != "" }

func knownStatus(s client.OutcomeStatus) bool {
	switch s {
	case client.Finished, client.PausedAgain, client.Failed, client.Running, client.Accepted:
		return true
	}
	return false
}

// EndsThreads: the coordinator listed a request whose thread's work it can
// end (a hitl hub's door, for a LangGraph server's interrupts); Resume
// sends an ending only for such a request.
func (b *Backend) EndsThreads() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ends
}

// EndsThreadOf: the coordinator's listing said it can end this request's
// thread (client.InterruptEnder).
func (b *Backend) EndsThreadOf(it client.Interrupt) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.endable[it.ID]
}

// Conversation reads a session's messages where the coordinator listed it
// as keeping them.
func (b *Backend) Conversation(ctx context.Context, session string) ([]client.Message, error) {
	b.mu.Lock()
	ok := b.talks[session]
	b.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("the coordinator at %s keeps no conversation for session %s (a coding agent's is in its own transcript)", b.Server(), session)
	}
	var msgs []client.Message
	resp, err := b.Reads.R().SetContext(ctx).Get("/hitl/sessions/" + url.PathEscape(session) + "/conversation")
	if err := b.Check(resp, err, "read the conversation of session "+session, &msgs); err != nil {
		return nil, err
	}
	return msgs, nil
}

// NobodyWaits is what an answer to a request whose publisher is not
// waiting on it is told (wire.NobodyWaits).
const NobodyWaits = wire.NobodyWaits

// Verify: an acknowledged response took effect (a second one gets 409). A
// lost answer is looked up with GET /hitl/requests/{id}, which says who
// answered with which decision id; a request still pending was not taken.
func (b *Backend) Verify(ctx context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	if v, ok := client.Acknowledged(s, rc); ok {
		return v, nil
	}
	it := s.Items[0].Interrupt
	v := client.Verdict{ID: it.ID, Took: client.Mine}
	if req, ok := b.lookup(ctx, it.ID); ok {
		switch {
		case req.Status == wire.Pending:
			v.Took = client.NotTaken
		case req.Status == wire.Withdrawn:
			v.Took = client.Theirs
			v.Winner = withdrawal(req)
		case req.DecisionID != s.DecisionID:
			v.Took = client.Theirs
			v.Winner = &client.Winner{Reviewer: req.RespondedBy, At: req.AnsweredAt, Value: req.Response}
		}
		return []client.Verdict{v}, nil
	}
	// A coordinator without the lookup: only "still pending" is certain.
	pending, perr := b.listed(ctx)
	if perr != nil {
		return nil, perr
	}
	for _, p := range pending {
		if p.ID == it.ID {
			v.Took = client.NotTaken
			return []client.Verdict{v}, nil
		}
	}
	return nil, fmt.Errorf("request %s is no longer pending, and the coordinator cannot say who answered it (it has no GET /hitl/requests/{id})", it.ID)
}

// awaitingApproval is a response the coordinator recorded as an approval
// (202) and did not pass on: its rule needs more approvers.
type awaitingApproval struct{ msg string }

func (e *awaitingApproval) Error() string        { return e.msg }
func (e *awaitingApproval) Is(target error) bool { return target == client.ErrAwaitingApproval }

// refused is a response a hitl hub refused and recorded nothing of (403:
// its reviewer approved the same decision already, or may not decide):
// nothing was taken.
type refused struct{ msg string }

func (e *refused) Error() string        { return e.msg }
func (e *refused) Is(target error) bool { return target == client.ErrRefused }

// Follow: how the run ended, where the coordinator followed it (a hitl
// hub's door says so in its answer); otherwise the coordinator reports no
// run to follow.
func (b *Backend) Follow(_ context.Context, s *client.Submission, rc client.Receipt) client.Outcome {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.outcomes[s.DecisionID]; ok {
		delete(b.outcomes, s.DecisionID)
		return o
	}
	return client.Outcome{Status: client.Accepted, Error: rc.Unheard}
}

// Changes follows /hitl/events and signals every hitl_asked and
// hitl_answered, reconnecting with Last-Event-ID until ctx ends.
func (b *Backend) Changes(ctx context.Context) <-chan struct{} {
	return b.Watch(ctx, "/hitl/events", wire.Asked, wire.AnsweredEvent)
}

// withdrawal says who withdrew a request, and why, as far as its
// coordinator tells (withdrawn_by; one without says nothing of who).
func withdrawal(req wire.Standing) *client.Winner {
	w := &client.Winner{Withdrawn: orText(req.Reason, "no reason given")}
	switch req.WithdrawnBy {
	case wire.WithdrawnByHub:
		w.WithdrawnBy = client.WithdrawnByHub
	case wire.WithdrawnByPublisher:
		w.WithdrawnBy = client.WithdrawnByAgent
	}
	return w
}
