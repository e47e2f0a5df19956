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
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
	if r.problem != "" {
		it.Payload = client.Unreadable(r.problem)
	} else {
		it.Payload = client.Parse(r.Data)
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
	out := make([]client.Interrupt, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- { // the coordinator lists oldest first
		out = append(out, b.interrupt(list[i]))
	}
	var down *client.SourceDown
	if why := resp.Header().Get(sourceDownHeader); why != "" {
		down = &client.SourceDown{Source: "the hub's LangGraph server", Err: errors.New(b.Redact(why))}
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
	if err != nil {
		return client.Receipt{}, err
	}
	body := map[string]any{"request_id": it.Interrupt.ID, "response": it.Resume.Value, "responded_by": b.opts.Reviewer, "decision_id": s.DecisionID}
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
		PublisherWaiting *bool `json:"publisher_waiting"`
	}
	rc := client.Receipt{Acknowledged: true}
	if json.Unmarshal(resp.Body(), &took) == nil && took.PublisherWaiting != nil && !*took.PublisherWaiting {
		rc.Unheard = NobodyWaits
	}
	return rc, nil
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

// Follow: the coordinator reports no run to follow.
func (b *Backend) Follow(_ context.Context, _ *client.Submission, rc client.Receipt) client.Outcome {
	return client.Outcome{Status: client.Accepted, Error: rc.Unheard}
}

// Changes follows /hitl/events and signals every hitl_asked and
// hitl_answered, reconnecting with Last-Event-ID until ctx ends.
func (b *Backend) Changes(ctx context.Context) <-chan struct{} {
	return b.Watch(ctx, "/hitl/events", "hitl_asked", "hitl_answered")
}
