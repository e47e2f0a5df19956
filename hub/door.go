package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/coord/wire"
	"github.com/hitl-sh/hitl/decide"
)

// Door is the hub's inbox on its HTTP door (hitl serve --http beside
// --ssh): the shared watcher's interrupts, listed as the events protocol
// lists requests (coord.Inbox), and a decision on one taken by the path a
// session's takes: the reviewer is the token's, the decision goes through
// the decision pipeline (the reviewer's audit log, verification of what
// took effect) to the shared backend's Resume, where the team's roles and
// rules are enforced. `hitl --backend events --url http://HUB` is then a
// reviewer of the whole inbox, bound by the same two-person rule.
type Door struct {
	Shared *Shared
	// Journal is a reviewer's journal (the one their SSH sessions use).
	Journal func(reviewer string) (*journal.Journal, error)
	// Encoding is how the hub spells decisions (its edit dialect).
	Encoding client.EncodeOptions
	// Skip reports the ids the door does not serve: the coordinator's own
	// requests, which the shared listing holds too.
	Skip func(id string) bool
	Log  *slog.Logger

	mu       sync.Mutex
	seen     map[string]client.Interrupt // listed lately, by id
	seenList []string
	answered map[string]doorAnswer // taken through the door, by interrupt id
}

// doorAnswer is a decision the door saw take effect.
type doorAnswer struct {
	decisionID, reviewer string
	value                json.RawMessage
	at                   time.Time
}

// maxSeen bounds what the door remembers of interrupts no longer listed.
const maxSeen = 10000

// requestOf is it as the door lists it, with what a request of the
// server's carries beside its value: the schema of its answer, the
// breakpoint it stands for, and what the hub can do with it besides
// answering (docs/backends.md); f is what the hub offers.
func requestOf(it client.Interrupt, f client.Features) wire.Request {
	// The approval's decisions are listed for every client to show; hitl's
	// read them again from its value (client/events).
	a := it.Approval
	data := presented(it)
	r := wire.Request{RequestID: it.ID, Agent: it.GraphID, SessionID: it.ThreadID, CreatedAt: it.CreatedAt,
		Data: data, ResponseSchema: it.ResponseSchema, Approval: a, Claims: it.Claims,
		Ends: f.Ends() && it.Schema != client.SchemaBreakpoint && it.Problem == "", Conversation: f.Conversational != nil}
	if it.Schema == client.SchemaBreakpoint {
		r.Breakpoint = &wire.Breakpoint{Next: slices.Clip(it.Next)}
		if r.Breakpoint.Next == nil {
			r.Breakpoint.Next = []string{}
		}
	}
	return r
}

// presented is the value the door lists for it: its own, or, for a tool
// approval its backend spells itself (client.Encoder: an A2A agent's, an
// opencode server's), the same actions in the HITL middleware's shape,
// which every client of the door reads as the hub does; the door spells
// the answer back in the source's own words (Respond).
func presented(it client.Interrupt) json.RawMessage {
	if it.Encoder == nil || it.Schema != client.SchemaMiddleware {
		if len(it.Raw) == 0 {
			return json.RawMessage("null")
		}
		return it.Raw
	}
	type request struct {
		Name        string          `json:"name"`
		Args        json.RawMessage `json:"args"`
		Description string          `json:"description,omitempty"`
	}
	type config struct {
		ActionName       string          `json:"action_name"`
		AllowedDecisions []string        `json:"allowed_decisions"`
		ArgsSchema       json.RawMessage `json:"args_schema,omitempty"`
	}
	var v struct {
		ActionRequests []request `json:"action_requests"`
		ReviewConfigs  []config  `json:"review_configs"`
	}
	for _, a := range it.Actions {
		v.ActionRequests = append(v.ActionRequests, request{Name: a.Name, Args: client.OrEmptyObject(a.Args), Description: a.Description})
		c := config{ActionName: a.Name, ArgsSchema: a.ArgsSchema, AllowedDecisions: []string{}}
		for _, t := range a.Allowed {
			c.AllowedDecisions = append(c.AllowedDecisions, string(t))
		}
		v.ReviewConfigs = append(v.ReviewConfigs, c)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return it.Raw
	}
	return b
}

// listed is the shared listing, without what the door does not serve.
func (d *Door) listed(ctx context.Context, fresh bool) ([]client.Interrupt, error) {
	if !fresh {
		ctx = client.WatchedWillDo(ctx) // the watcher's listing: it costs the server nothing
	}
	items, err := d.Shared.Pending(ctx)
	if !usable(err) {
		return nil, err
	}
	out := items[:0]
	for _, it := range items {
		if d.Skip != nil && d.Skip(it.ID) {
			continue
		}
		out = append(out, it)
	}
	d.remember(out)
	return out, err
}

// usable: a listing with no error, or one whose error says only that a
// source is down (client.SourceDown: the rest is listed).
func usable(err error) bool {
	_, partial := client.DownSource(err)
	return err == nil || partial
}

func (d *Door) remember(items []client.Interrupt) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		d.seen = map[string]client.Interrupt{}
	}
	for _, it := range items {
		if _, ok := d.seen[it.ID]; !ok {
			d.seenList = append(d.seenList, it.ID)
		}
		d.seen[it.ID] = it
	}
	for len(d.seenList) > maxSeen {
		delete(d.seen, d.seenList[0])
		delete(d.answered, d.seenList[0])
		d.seenList = d.seenList[1:]
	}
}

// Requests lists the server's interrupts, oldest first. When the server
// cannot be read, the error says so (client.SourceDown), beside the last
// interrupts it listed.
func (d *Door) Requests(ctx context.Context) ([]wire.Request, error) {
	items, err := d.listed(ctx, false)
	if !usable(err) {
		return nil, err
	}
	out := make([]wire.Request, 0, len(items))
	f := d.Shared.Features()
	for i := len(items) - 1; i >= 0; i-- { // listed newest first
		out = append(out, requestOf(items[i], f))
	}
	return out, err
}

// Owns: an interrupt the door listed.
func (d *Door) Owns(id string) bool {
	if d.Skip != nil && d.Skip(id) {
		return false
	}
	d.mu.Lock()
	_, ok := d.seen[id]
	d.mu.Unlock()
	if ok {
		return true
	}
	// Not listed yet to anyone through the door: the shared listing says.
	items, err := d.listed(context.Background(), false)
	return usable(err) && slices.ContainsFunc(items, func(it client.Interrupt) bool { return it.ID == id })
}

// Standing says where an interrupt the door listed stands.
func (d *Door) Standing(ctx context.Context, id string) (wire.Standing, bool) {
	d.mu.Lock()
	it, ok := d.seen[id]
	ans, mine := d.answered[id]
	d.mu.Unlock()
	if !ok {
		return wire.Standing{}, false
	}
	out := wire.Standing{RequestID: id, Agent: it.GraphID, SessionID: it.ThreadID, CreatedAt: it.CreatedAt}
	st, err := d.Shared.Standing(ctx, []client.Interrupt{it})
	if err != nil || len(st) != 1 {
		return wire.Standing{}, false
	}
	switch st[0].Presence {
	case client.Waiting, client.ThreadBusy:
		out.Status = wire.Pending
		if it.Approval != nil {
			out.Approvals = it.Approval.Approvers
		}
	default:
		out.Status = wire.Answered
		if w := st[0].By; w != nil {
			out.RespondedBy, out.Response, out.AnsweredAt = w.Reviewer, w.Value, w.At
		}
		if mine {
			out.DecisionID, out.RespondedBy, out.Response, out.AnsweredAt = ans.decisionID, ans.reviewer, ans.value, ans.at
		}
	}
	return out, true
}

// decisionIDs are what a decision id may look like (a client's own: its
// journal and the run's metadata name it).
var decisionIDs = regexp.MustCompile(`^[0-9A-Za-z_-]{8,64}$`)

// Respond takes reviewer's answer to interrupt id, by the path an SSH
// session's decision takes. A breakpoint is continued with a null
// response.
func (d *Door) Respond(ctx context.Context, reviewer, id string, response json.RawMessage, decisionID string) (int, any) {
	return d.decide(ctx, reviewer, id, decisionID, func(it *client.Interrupt) ([]client.Decision, client.Resume, error) {
		if it.Schema == client.SchemaBreakpoint {
			if v := bytes.TrimSpace(response); len(v) > 0 && !bytes.Equal(v, []byte("null")) {
				return nil, client.Resume{}, errors.New("a breakpoint is continued with a null response (it takes no value)")
			}
			return []client.Decision{{Type: client.Approve}}, client.Resume{Continue: true}, nil
		}
		if it.Encoder != nil && it.Schema == client.SchemaMiddleware {
			// Listed in the middleware's shape (presented): read back as
			// such, and spelled for the source.
			p := client.Parse(presented(*it))
			ds, err := client.DecisionsOf(&p, response, d.Encoding)
			if err != nil {
				return nil, client.Resume{}, err
			}
			r, err := client.Encode(&it.Payload, ds, d.Encoding)
			return ds, r, err
		}
		ds, err := client.DecisionsOf(&it.Payload, response, d.Encoding)
		return ds, client.Resume{Value: response}, err
	})
}

// End takes reviewer's ending of the thread's work at interrupt id (the
// events protocol's "end": {"kind": "dismiss"|"stop", "reason"}), by the
// path an SSH session's dismiss or reject --stop takes.
func (d *Door) End(ctx context.Context, reviewer, id string, end json.RawMessage, decisionID string) (int, any) {
	var e client.Ending
	if err := json.Unmarshal(end, &e); err != nil || (e.Kind != client.EndDismiss && e.Kind != client.EndStop) {
		return d.refuse(reviewer, id, 422, `"end" is {"kind": "dismiss" or "stop", "reason": TEXT}: nothing sent`)
	}
	if !d.Shared.Features().Ends() {
		return d.refuse(reviewer, id, 422, "this hub's server cannot end a thread's work: reject or answer it instead; nothing sent")
	}
	return d.decide(ctx, reviewer, id, decisionID, func(it *client.Interrupt) ([]client.Decision, client.Resume, error) {
		in := make([]decide.Input, it.Slots())
		for i := range in {
			in[i] = decide.Input{Type: client.Dismiss, Text: e.Reason}
			if e.Kind == client.EndStop {
				in[i] = decide.Input{Type: client.Reject, Text: e.Reason, Stop: true}
			}
		}
		ds, err := decide.Decisions(it, in)
		if err != nil {
			return nil, client.Resume{}, err
		}
		ending, err := client.Ends(ds)
		if err != nil {
			return nil, client.Resume{}, err
		}
		// A fan-out branch cannot end its thread alone (as the CLI and the
		// TUI refuse it).
		items, _ := d.listed(ctx, false)
		if err := decide.EndsAlone([]decide.Draft{{Interrupt: *it, Decisions: ds}}, items); err != nil {
			return nil, client.Resume{}, err
		}
		return ds, client.Resume{End: ending}, nil
	})
}

// Conversation is the messages of a thread the door listed (a session of
// the events protocol), as the server keeps them.
func (d *Door) Conversation(ctx context.Context, reviewer, session string) (int, any) {
	c := d.Shared.Features().Conversational
	d.mu.Lock()
	known := false
	for _, it := range d.seen {
		if it.ThreadID == session {
			known = true
			break
		}
	}
	d.mu.Unlock()
	switch {
	case c == nil:
		return 404, wire.ProblemOf(404, "this hub's server keeps no conversation")
	case !known:
		return 404, wire.ProblemOf(404, "no session "+session+" among the requests this door listed")
	}
	msgs, err := c.Conversation(ctx, session)
	if err != nil {
		d.logf("conversation not read", "reviewer", reviewer, "thread", session, "error", err.Error())
		return 502, wire.ProblemOf(502, "the hub cannot read the conversation from its server: "+err.Error())
	}
	if msgs == nil {
		msgs = []client.Message{}
	}
	return 200, msgs
}

func (d *Door) refuse(reviewer, id string, code int, msg string) (int, any) {
	d.logf("decision refused", "reviewer", reviewer, "interrupt", id, "door", "http", "why", msg)
	return code, wire.Problem{Error: statusText(code), Message: msg, RequestID: id}
}

// decide finds interrupt id, has decisions read its decisions and resume
// from the request, and sends them by the path a session's decision takes.
func (d *Door) decide(ctx context.Context, reviewer, id, decisionID string, decisions func(*client.Interrupt) ([]client.Decision, client.Resume, error)) (int, any) {
	refuse := func(code int, msg string) (int, any) { return d.refuse(reviewer, id, code, msg) }
	items, err := d.listed(ctx, false)
	if !usable(err) {
		return refuse(502, "the hub cannot read its sources, so nothing was sent: "+err.Error())
	}
	i := slices.IndexFunc(items, func(it client.Interrupt) bool { return it.ID == id })
	if i < 0 {
		// Not in the watcher's listing (yet, or any more): the server says.
		if items, err = d.listed(ctx, true); usable(err) {
			i = slices.IndexFunc(items, func(it client.Interrupt) bool { return it.ID == id })
		}
	}
	if down, ok := client.DownSource(err); ok {
		if i >= 0 {
			down = d.Shared.downFor(items[i], down)
		}
		if down != nil {
			// Its source is down: listed from before it went down, or not
			// at all. Nothing can be sent to it, nor checked there.
			return refuse(502, "the hub cannot read "+down.Source+", so nothing was sent: "+down.Err.Error())
		}
	}
	if i < 0 {
		if st, ok := d.Standing(ctx, id); ok && st.Status == wire.Answered {
			msg := "already handled elsewhere; nothing sent"
			if st.RespondedBy != "" {
				msg = fmt.Sprintf("already handled elsewhere (by %s); nothing sent", st.RespondedBy)
			}
			return 409, wire.Problem{Error: "Conflict", Message: msg, RequestID: id, Status: wire.Answered, RespondedBy: st.RespondedBy}
		}
		return refuse(404, "no request "+id)
	}
	it := items[i]
	if it.Problem != "" {
		return refuse(422, "this interrupt cannot be read ("+it.Problem+"): nothing sent")
	}
	ds, resume, err := decisions(&it)
	if err != nil {
		return refuse(422, err.Error()+": nothing sent")
	}
	if !decisionIDs.MatchString(decisionID) {
		decisionID = decide.NewID()
	}
	j, err := d.Journal(reviewer)
	if err != nil {
		return refuse(500, "the hub cannot open "+reviewer+"'s audit log, so nothing was sent: tell whoever runs it")
	}
	p := &decide.Pipeline{Backend: d.Shared, Journal: j, Reviewer: reviewer, Encoding: d.Encoding}
	sub := &client.Submission{DecisionID: decisionID, Reviewer: reviewer, ThreadID: it.ThreadID,
		Items: []client.Item{{Interrupt: it, Decisions: ds, Resume: resume}}}
	// A decision that left is followed and recorded whatever the client
	// does meanwhile (it may hang up; the hub may be told to stop).
	sctx, cancel := context.WithTimeout(context.WithValue(context.WithoutCancel(ctx), doorKey{}, "http"), 2*time.Minute)
	defer cancel()
	res := p.Send(sctx, sub)
	// What it changed (an approval recorded, an interrupt answered) is
	// everyone's at once: every session and the door's event stream.
	_, _ = d.listed(sctx, true)
	body := wire.Receipt{RequestID: id, Reviewer: reviewer, Message: res.Text()}
	switch res.Kind {
	case decide.Sent:
		d.mu.Lock()
		if d.answered == nil {
			d.answered = map[string]doorAnswer{}
		}
		d.answered[id] = doorAnswer{decisionID: decisionID, reviewer: reviewer, value: resume.Value, at: time.Now().UTC()}
		d.mu.Unlock()
		body.Status, body.RespondedBy, body.DecisionID, body.RunID = wire.Resolved, reviewer, decisionID, res.Run.RunID
		run := res.Run
		body.Outcome = &run // how the run it started ended, as the hub followed it
		body.Approvers = sub.Approvers
		if resume.End != nil {
			body.Ended = string(resume.End.Kind)
			body.ReasonInConversation = res.ReasonInConversation()
		}
		return 200, body
	case decide.ApprovalRecorded:
		body.Status = wire.AwaitingApprovals
		if cause := errors.Unwrap(res.Err()); cause != nil {
			body.Message = cause.Error()
		}
		return 202, body
	case decide.Refused:
		// Nothing recorded, nothing sent: the approval that stands is
		// the one the message names.
		body.Error, body.Status = "Forbidden", wire.AwaitingApprovals
		if cause := errors.Unwrap(res.Err()); cause != nil {
			body.Message = cause.Error()
		}
		return 403, body
	case decide.NotSent:
		body.Error = "Not sent"
		return 424, body // certain: nothing was taken
	case decide.HandledElsewhere:
		body.Error, body.Status = "Conflict", wire.Answered
		return 409, body
	case decide.Busy:
		body.Error = "Locked"
		return 423, body
	case decide.Lost:
		body.Error = "Not taken"
		return 424, body
	}
	body.Error = "Unknown"
	return 502, body // Unknown: the client looks again (GET /hitl/requests/{id})
}

// Watch announces the shared listing's changes on the door's event stream
// until ctx ends: hitl_asked for an interrupt that came (or whose
// approvals changed), hitl_answered for one that left.
func (d *Door) Watch(ctx context.Context, announce func(typ string, v any)) {
	changes := d.Shared.Changes(ctx)
	prev := map[string]string{}
	look := func(tell bool) {
		items, err := d.listed(ctx, false)
		if !usable(err) {
			return
		}
		now := map[string]string{}
		for _, it := range items {
			key := it.UpdatedAt.String() + "|" + it.Approval.Words()
			now[it.ID] = key
			if old, ok := prev[it.ID]; tell && (!ok || old != key) {
				announce(wire.Asked, requestOf(it, d.Shared.Features()))
			}
		}
		for id := range prev {
			if _, ok := now[id]; !ok && tell {
				announce(wire.AnsweredEvent, wire.Change{RequestID: id, Status: wire.Answered})
			}
		}
		prev = now
	}
	look(false)
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
			look(true)
		}
	}
}

func (d *Door) logf(msg string, args ...any) {
	if d.Log != nil {
		d.Log.Info(msg, args...)
	}
}

func statusText(code int) string {
	switch code {
	case 404:
		return "Not Found"
	case 422:
		return "Unprocessable Entity"
	case 502:
		return "Bad Gateway"
	}
	return "Error"
}
