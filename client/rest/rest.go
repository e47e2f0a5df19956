// Package rest speaks the provider-agnostic REST HITL API of seed 004:
// pending approvals at three checkpoints of a run (information, payload and
// response review), decided with POST /api/hitl/run/{run_id}/approve.
//
// No public server implements this API; the shapes hitl reads and sends are
// documented in docs/backends.md and served by the fake in package demo.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// Options configure a Backend.
type Options struct {
	transport.Options
	// UserID selects whose pending approvals are listed (user_id).
	UserID string
	// Follow bounds how long Send watches the run's status afterwards.
	Follow time.Duration
}

// Backend is a REST HITL server.
type Backend struct {
	opts Options
	*transport.Conn
}

// New returns a backend for the server at opts.URL.
func New(opts Options) (*Backend, error) {
	if opts.Follow <= 0 {
		opts.Follow = 30 * time.Second
	}
	if opts.Hint == "" {
		opts.Hint = "is the HITL API server running there?"
	}
	c, err := transport.New(opts.Options)
	if err != nil {
		return nil, err
	}
	return &Backend{opts: opts, Conn: c}, nil
}

// approval is one pending approval as GET /api/hitl/approvals/pending lists it.
type approval struct {
	ApprovalID     string    `json:"approval_id"`
	RunID          string    `json:"run_id"`
	Checkpoint     string    `json:"checkpoint"`
	AllowedActions []string  `json:"allowed_actions"`
	CreatedAt      time.Time `json:"created_at"`
	UserID         string    `json:"user_id"`
	Message        string    `json:"message"`

	// problem says why the entry cannot be read; raw are its bytes.
	problem string
	raw     []byte
}

// pendingApprovals reads the list; it takes a bare array or {"approvals":
// [...]}, one approval at a time: one that cannot be read is one
// unreadable item (its problem set), the others are listed as usual.
func (b *Backend) pendingApprovals(ctx context.Context) ([]approval, error) {
	req := b.Reads.R().SetContext(ctx)
	if b.opts.UserID != "" {
		req.SetQueryParam("user_id", b.opts.UserID)
	}
	resp, err := req.Get("/api/hitl/approvals/pending")
	var list approvalList
	if err := b.Check(resp, err, "list pending approvals", &list); err != nil {
		return nil, err
	}
	return list, nil
}

// approvalList is the pending list (a transport.Decoder).
type approvalList []approval

// DecodeJSON reads a bare array or {"approvals": [...]}, one approval at
// a time.
func (l *approvalList) DecodeJSON(body []byte) error {
	list, err := client.List(body, decodeApproval)
	if err != nil {
		ms, merr := client.Members(body)
		if merr != nil {
			return fmt.Errorf("not a list of approvals: %w", err)
		}
		list = nil
		for _, m := range ms {
			if m.Key == "approvals" {
				if list, err = client.List(m.Value, decodeApproval); err != nil {
					return fmt.Errorf("approvals: %w", err)
				}
			}
		}
	}
	*l = list
	return nil
}

// decodeApproval reads one approval, field by field; one that cannot be
// read says why (problem), named by its approval_id if that can be read.
func decodeApproval(e json.RawMessage) (approval, bool) {
	var a approval
	problems := client.Fields(e, func(key string, v json.RawMessage) error {
		switch key {
		case "approval_id":
			return client.Into(v, &a.ApprovalID)
		case "run_id":
			return client.Into(v, &a.RunID)
		case "checkpoint":
			return client.Into(v, &a.Checkpoint)
		case "allowed_actions":
			return client.Into(v, &a.AllowedActions)
		case "created_at":
			return client.Into(v, &a.CreatedAt)
		case "user_id":
			return client.Into(v, &a.UserID)
		case "message":
			return client.Into(v, &a.Message)
		}
		return nil
	})
	// An approval too deep or too large is unreadable whichever member
	// holds the excess, one hitl does not read included.
	tooMuch := client.ValueProblem(e)
	if a.ApprovalID == "" && len(problems) == 0 {
		problems = append(problems, "no approval_id")
	}
	if len(problems) == 0 && tooMuch == "" {
		return a, true
	}
	if a.ApprovalID == "" {
		a.ApprovalID = client.UnreadableID(e)
	}
	a.problem = client.CannotRead("an approval", problems)
	if tooMuch != "" {
		a.problem = "an approval " + tooMuch
	}
	a.raw = bytes.Clone(e)
	return a, true
}

// Pending lists every pending approval with its run's state, newest first.
// An approval, or a run state, that cannot be read is one unreadable item.
func (b *Backend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	list, err := b.pendingApprovals(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]client.Interrupt, 0, len(list))
	for _, a := range list {
		it := client.Interrupt{ID: a.ApprovalID, ThreadID: a.RunID, GraphID: "hitl-run", AssistantID: a.UserID,
			CreatedAt: a.CreatedAt, UpdatedAt: a.CreatedAt, Server: b.Server()}
		if a.problem != "" {
			it.Payload = client.Unreadable(a.problem)
			it.WithValue(a.raw)
			out = append(out, it)
			continue
		}
		resp, err := b.Reads.R().SetContext(ctx).Get("/api/hitl/run/" + url.PathEscape(a.RunID) + "/state")
		if err := b.Check(resp, err, "read the state of run "+a.RunID, nil); err != nil {
			return nil, err
		}
		raw := resp.Body()
		var st runState
		problem := client.ValueProblem(raw)
		if problem == "" {
			if err := json.Unmarshal(raw, &st); err != nil {
				problem = "that is not a run's state (" + strings.TrimPrefix(err.Error(), "json: ") + ")"
			}
		}
		if problem != "" {
			it.Payload = client.Unreadable("run state " + problem)
			it.WithValue(raw)
			out = append(out, it)
			continue
		}
		p := checkpointPayload(a.ApprovalID, a.Checkpoint, st, a.AllowedActions)
		if a.Message != "" && p.Description == "" {
			p.Description = a.Message
		}
		if st.InformationResult != nil && st.InformationResult.Tool != "" {
			it.GraphID = st.InformationResult.Tool
		}
		it.Payload = p
		it.WithValue(raw)
		out = append(out, it)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out, nil
}

// Standing: an approval still listed as pending is waiting; one that is
// not was decided.
func (b *Backend) Standing(ctx context.Context, its []client.Interrupt) ([]client.Standing, error) {
	return client.StandingOf(ctx, b.Pending, its)
}

// Resume posts the decision once. The body is the encoded decision with the
// decision id added, so that a lost answer can be found in the run's state.
// A 409 means another reviewer decided first.
func (b *Backend) Resume(ctx context.Context, s *client.Submission) (client.Receipt, error) {
	it, err := s.One()
	if err != nil {
		return client.Receipt{}, err
	}
	body, err := withField(it.Resume.Value, "decision_id", s.DecisionID)
	if err != nil {
		return client.Receipt{}, err
	}
	resp, err := b.Writes.R().SetContext(ctx).SetHeader("Content-Type", "application/json").SetBody(body).
		Post("/api/hitl/run/" + url.PathEscape(s.ThreadID) + "/approve")
	if err == nil && resp.StatusCode() == http.StatusConflict {
		return client.Receipt{}, client.ErrAlreadyHandled
	}
	if cerr := b.Check(resp, err, "send the decision for run "+s.ThreadID, nil); cerr != nil {
		return client.Receipt{}, &client.SendError{Err: cerr, MaybeSent: transport.MaybeTaken(resp, err)}
	}
	return client.Receipt{Acknowledged: true}, nil
}

// Verify: an acknowledged decision took effect (the server refuses a second
// one with 409). A lost answer is looked up in the run's state: its
// decisions carry the decision id; an approval still pending was not taken.
func (b *Backend) Verify(ctx context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	if v, ok := client.Acknowledged(s, rc); ok {
		return v, nil
	}
	it := s.Items[0].Interrupt
	v := client.Verdict{ID: it.ID, Took: client.Mine}
	var st struct {
		Decisions []struct {
			ApprovalID string    `json:"approval_id"`
			DecisionID string    `json:"decision_id"`
			ApprovedBy string    `json:"approved_by"`
			Action     string    `json:"action"`
			At         time.Time `json:"at"`
		} `json:"decisions"`
	}
	resp, err := b.Reads.R().SetContext(ctx).Get("/api/hitl/run/" + url.PathEscape(it.ThreadID) + "/state")
	if err := b.Check(resp, err, "read the state of run "+it.ThreadID, &st); err != nil {
		return nil, err
	}
	for _, d := range st.Decisions {
		if d.ApprovalID != it.ID {
			continue
		}
		if d.DecisionID == s.DecisionID {
			return []client.Verdict{v}, nil
		}
		v.Took = client.Theirs
		v.Winner = &client.Winner{Reviewer: d.ApprovedBy, At: d.At, Value: json.RawMessage(fmt.Sprintf("%q", d.Action))}
		return []client.Verdict{v}, nil
	}
	pending, err := b.pendingApprovals(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range pending {
		if a.ApprovalID == it.ID {
			v.Took = client.NotTaken
			return []client.Verdict{v}, nil
		}
	}
	return nil, fmt.Errorf("approval %s is no longer pending, and the run's state does not say who decided it", it.ID)
}

// Follow watches the run's status until it waits again, completes or fails.
func (b *Backend) Follow(ctx context.Context, s *client.Submission, _ client.Receipt) client.Outcome {
	return b.follow(ctx, s.ThreadID)
}

// withField adds key: value to a JSON object.
func withField(obj json.RawMessage, key, value string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, fmt.Errorf("the decision is not a JSON object: %v", err)
	}
	if value == "" {
		return obj, nil
	}
	v, _ := json.Marshal(value)
	// Appended, so that the fields the reviewer saw keep their order.
	trimmed := bytes.TrimRight(bytes.TrimSpace(obj), "}")
	sep := ","
	if len(m) == 0 {
		sep = ""
	}
	return json.RawMessage(string(trimmed) + sep + fmt.Sprintf("%q:", key) + string(v) + "}"), nil
}

type runStatus struct {
	Status      string `json:"status"`
	CurrentStep string `json:"current_step"`
	Error       string `json:"error"`
	Progress    any    `json:"progress"`
}

func (b *Backend) status(ctx context.Context, runID string) (runStatus, error) {
	var st runStatus
	resp, err := b.Reads.R().SetContext(ctx).Get("/api/hitl/run/" + url.PathEscape(runID) + "/status")
	return st, b.Check(resp, err, "read the status of run "+runID, &st)
}

func (b *Backend) follow(ctx context.Context, runID string) client.Outcome {
	ctx, cancel := context.WithTimeout(ctx, b.opts.Follow)
	defer cancel()
	out := client.Outcome{RunID: runID, Status: client.Running}
	for {
		st, err := b.status(ctx, runID)
		if err != nil {
			out.Error = err.Error()
			return out
		}
		switch st.Status {
		case "completed", "succeeded", "success", "cancelled":
			out.Status = client.Finished
			return out
		case "awaiting_human", "paused":
			out.Status = client.PausedAgain
			if list, err := b.pendingApprovals(ctx); err == nil {
				for _, a := range list {
					if a.RunID == runID {
						out.Pending = append(out.Pending, a.ApprovalID)
					}
				}
			}
			return out
		case "failed", "error":
			out.Status, out.Error = client.Failed, b.Redact(st.Error) // the server's words may echo a key
			return out
		}
		select {
		case <-ctx.Done():
			return out
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// ControlRun pauses, resumes or cancels the interrupt's run.
func (b *Backend) ControlRun(ctx context.Context, it client.Interrupt, a client.RunAction) (string, error) {
	path := "/api/hitl/run/" + url.PathEscape(it.ThreadID)
	req := b.Writes.R().SetContext(ctx)
	var resp *resty.Response
	var err error
	if a == client.CancelRun {
		resp, err = req.Delete(path)
	} else {
		resp, err = req.Post(path + "/" + string(a))
	}
	if err := b.Check(resp, err, string(a)+" run "+it.ThreadID, nil); err != nil {
		return "", err
	}
	st, err := b.status(ctx, it.ThreadID)
	if err != nil {
		return "", err
	}
	return st.Status, nil
}

// RunEvents are the event types of the seed's run stream.
var RunEvents = []string{"created", "information_review", "payload_review", "api_call", "response_review", "completed",
	"paused", "resumed", "cancelled", "failed"}

// Changes follows the server's run events (GET /api/hitl/events) when it
// offers them; a server without the stream is polled instead.
func (b *Backend) Changes(ctx context.Context) <-chan struct{} {
	return b.Watch(ctx, "/api/hitl/events", RunEvents...)
}
