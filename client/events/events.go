// Package events speaks hitl's small open protocol for event-based HITL
// coordinators (seed 001): agents publish hitl_asked / hitl_answered events
// carrying a request_id on a Server-Sent Events stream, list what is pending,
// and take a response for a request_id. docs/backends.md documents it with
// examples; package demo serves it.
//
//	GET  /hitl/pending   -> [{"request_id","agent","session_id","created_at","data"}]
//	GET  /hitl/events    -> SSE: hitl_asked {request…} | hitl_answered {"request_id",…}
//	                        (ids on every event; Last-Event-ID resumes after one)
//	POST /hitl/respond   {"request_id","response","responded_by"}
//	                        -> 200; 404 unknown request; 409 already answered
package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
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
func (b *Backend) saw(list []Request) {
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
		opts.Hint = "is the agent's HITL coordinator running there?"
	}
	c, err := transport.New(opts.Options)
	if err != nil {
		return nil, err
	}
	return &Backend{opts: opts, Conn: c}, nil
}

// Request is one pending request, as /hitl/pending and hitl_asked carry it.
type Request struct {
	RequestID string          `json:"request_id"`
	Agent     string          `json:"agent"`
	SessionID string          `json:"session_id"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
	// Approval is where a team rule's approvals stand (a hub's
	// coordinator says so), nil when none is asked or given.
	Approval *client.Approval `json:"approval,omitempty"`
	// Claims are the reviewers holding a draft of it (a hub lists them).
	Claims []client.Claim `json:"claims,omitempty"`
	// ResponseSchema is the JSON Schema of the answer (a LangGraph
	// interrupt's response_schema): a form, a per-call tool approval.
	ResponseSchema json.RawMessage `json:"response_schema,omitempty"`
	// Breakpoint: a thread paused at a static breakpoint (Data null),
	// continued with a null response.
	Breakpoint *Breakpoint `json:"breakpoint,omitempty"`
	// Ends: the coordinator can end the thread's work at it (dismiss,
	// reject --stop: "end" in place of "response").
	Ends bool `json:"ends,omitempty"`
	// Conversation: the coordinator keeps the session's conversation
	// (GET /hitl/sessions/{id}/conversation).
	Conversation bool `json:"conversation,omitempty"`
	// problem says why the entry cannot be read (Data then holds its bytes).
	problem string
}

func (b *Backend) interrupt(r Request) client.Interrupt { return interruptOf(r, b.Server()) }

// InterruptOf reads one request, as /hitl/pending lists it (its JSON), as
// the interrupt a reviewer sees; server is where it came from. A request
// that cannot be read is an unreadable interrupt saying why.
func InterruptOf(request []byte, server string) client.Interrupt {
	return interruptOf(decodeRequest(request), server)
}

func interruptOf(r Request, server string) client.Interrupt {
	it := client.Interrupt{ID: r.RequestID, ThreadID: r.SessionID, GraphID: r.Agent, CreatedAt: r.CreatedAt, UpdatedAt: r.CreatedAt,
		Server: server}
	switch {
	case r.problem != "":
		it.Payload = client.Unreadable(r.problem)
	case r.Breakpoint != nil:
		it.Payload = client.Breakpoint(r.Breakpoint.Next)
	default:
		it.Payload = client.ParseWithSchema(r.Data, r.ResponseSchema)
	}
	it.WithValue(r.Data)
	it.Approval, it.Claims = r.Approval, r.Claims
	ApprovedDecisions(&it)
	return it
}

// ApprovedDecisions fills the decisions of the interrupt's pending
// approval from its value: what every client shows as approved (and its
// diff), and what a second approver confirms, encodes that very value
// (client.DecisionsOf checks it does). A value hitl cannot read into the
// interrupt's decisions leaves none: it is shown as it is, and cannot be
// confirmed with one key.
func ApprovedDecisions(it *client.Interrupt) {
	a := it.Approval
	if a == nil {
		return
	}
	v := *a
	v.Decisions = nil
	if ds, err := client.DecisionsOf(&it.Payload, v.Value, client.EncodeOptions{}); err == nil && len(ds) == len(it.Actions) && len(ds) > 0 {
		v.Decisions = ds
	}
	it.Approval = &v
}

// Breakpoint is a request that stands for a thread paused at a static
// breakpoint: Next are the nodes it runs next.
type Breakpoint struct {
	Next []string `json:"next"`
}

// requestList is what /hitl/pending answers, read one request at a time
// (a transport.Decoder): a request that cannot be read (a field of the
// wrong type, data nested too deep for encoding/json, no request_id) is
// one unreadable item, and the others are listed as usual.
type requestList []Request

func (l *requestList) DecodeJSON(b []byte) error {
	list, err := client.List(b, func(e json.RawMessage) (Request, bool) { return decodeRequest(e), true })
	*l = list
	return err
}

func decodeRequest(b []byte) Request {
	var r Request
	problems := client.Fields(b, func(key string, v json.RawMessage) error {
		switch key {
		case "request_id":
			return client.Into(v, &r.RequestID)
		case "agent":
			return client.Into(v, &r.Agent)
		case "session_id":
			return client.Into(v, &r.SessionID)
		case "created_at":
			return client.Into(v, &r.CreatedAt)
		case "data":
			r.Data = bytes.Clone(v) // client.Parse finds data too deep or too large
		case "claims":
			_ = json.Unmarshal(v, &r.Claims) // advice: unreadable, none
		case "response_schema":
			r.ResponseSchema = bytes.Clone(v) // client.ParseWithSchema checks it
		case "breakpoint":
			var bp Breakpoint
			if err := client.Into(v, &bp); err != nil {
				return err
			}
			if string(bytes.TrimSpace(v)) != "null" {
				r.Breakpoint = &bp
			}
		case "ends":
			_ = json.Unmarshal(v, &r.Ends) // unreadable: it cannot
		case "conversation":
			_ = json.Unmarshal(v, &r.Conversation)
		case "approval":
			var a client.Approval
			if json.Unmarshal(v, &a) == nil && (len(a.Approvers) > 0 || len(a.Dropped) > 0) {
				// What was approved is read from its value (interruptOf),
				// never taken from the coordinator's word.
				a.Decisions = nil
				r.Approval = &a
			}
		}
		return nil
	})
	if r.RequestID == "" && len(problems) == 0 {
		problems = append(problems, "no request_id")
	}
	if len(problems) > 0 {
		if r.RequestID == "" {
			r.RequestID = client.UnreadableID(b)
		}
		r.Data = bytes.Clone(b)
		r.problem = client.CannotRead("a request", problems)
	}
	return r
}

// sourceDownHeader is the header of a /hitl/pending answer that lists a
// hub's inbox without one of its sources (coord.SourceDownHeader).
const sourceDownHeader = "Hitl-Source-Down"

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
	if why := resp.Header().Get(sourceDownHeader); why != "" {
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
			case "withdrawn":
				st[i].By = &client.Winner{Withdrawn: orText(req.Reason, "by the agent")}
			case "answered":
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

// requestStanding is GET /hitl/requests/{id}: where one request stands.
type requestStanding struct {
	Status      string          `json:"status"`
	DecisionID  string          `json:"decision_id"`
	RespondedBy string          `json:"responded_by"`
	Response    json.RawMessage `json:"response"`
	AnsweredAt  time.Time       `json:"answered_at"`
	Reason      string          `json:"reason"`
}

// lookup reads one request's standing; ok false when the coordinator has
// no such endpoint or does not answer.
func (b *Backend) lookup(ctx context.Context, id string) (requestStanding, bool) {
	var req requestStanding
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
	body := map[string]any{"request_id": it.Interrupt.ID, "response": it.Resume.Value, "responded_by": b.opts.Reviewer, "decision_id": s.DecisionID}
	if end := it.Resume.End; end != nil {
		b.mu.Lock()
		ok := b.endable[it.Interrupt.ID]
		b.mu.Unlock()
		if !ok {
			return client.Receipt{}, &client.RefusedError{Slot: -1, Reason: "the coordinator at " + b.Server() + " cannot end the work of request " + it.Interrupt.ID + ": reject or answer it instead"}
		}
		delete(body, "response")
		body["end"] = end
	}
	resp, err := b.Writes.R().SetContext(ctx).SetBody(body).Post("/hitl/respond")
	if err == nil && (resp.StatusCode() == http.StatusConflict || resp.StatusCode() == http.StatusNotFound) {
		return client.Receipt{}, client.ErrAlreadyHandled
	}
	if cerr := b.Check(resp, err, "respond to request "+it.Interrupt.ID, nil); cerr != nil {
		return client.Receipt{}, &client.SendError{Err: cerr, MaybeSent: transport.MaybeTaken(resp, err)}
	}
	if resp.StatusCode() == http.StatusAccepted {
		// A team rule wants more approvers: the coordinator recorded this
		// one's approval and sent nothing.
		var held struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(resp.Body(), &held)
		return client.Receipt{}, &awaitingApproval{b.Redact(orText(held.Message, "recorded as an approval: nothing is sent until another approver confirms the same decision"))}
	}
	var took struct {
		PublisherWaiting     *bool           `json:"publisher_waiting"`
		RunID                string          `json:"run_id"`
		ReasonInConversation bool            `json:"reason_in_conversation"`
		Outcome              *client.Outcome `json:"outcome"`
	}
	_ = json.Unmarshal(resp.Body(), &took) // advice: a coordinator may say nothing
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
	rc := client.Receipt{Acknowledged: true, RunID: took.RunID, ReasonInConversation: took.ReasonInConversation}
	if took.PublisherWaiting != nil && !*took.PublisherWaiting {
		rc.Unheard = NobodyWaits
	}
	return rc, nil
}

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
// waiting on it is told.
const NobodyWaits = "no hook is waiting on it right now (killed, or cut off from the hub): its agent gets the answer only if the hook comes back before the hub withdraws the request"

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
		case req.Status == "pending":
			v.Took = client.NotTaken
		case req.Status == "withdrawn":
			v.Took = client.Theirs
			v.Winner = &client.Winner{Withdrawn: orText(req.Reason, "by the agent")}
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
	return b.Watch(ctx, "/hitl/events", "hitl_asked", "hitl_answered")
}
