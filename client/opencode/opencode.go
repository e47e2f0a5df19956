// Package opencode reviews opencode's permission requests: a running
// `opencode serve` (or the TUI's server) asks before a tool runs a command,
// edits a file or leaves the project, and waits for a reply.
//
//	GET  /permission                  -> [{"id":"per_…","sessionID":"ses_…","permission":"bash",
//	                                       "patterns":["git push"],"metadata":{},"always":["git push *"],
//	                                       "tool"?:{"messageID","callID"}}]
//	POST /permission/{id}/reply       {"reply":"once"|"always"|"reject","message"?}
//	                                  -> 200 true; 404 {"_tag":"PermissionNotFoundError",…} when
//	                                     not pending (an older handler answered 200 false)
//	GET  /event                       -> SSE, data {"type","properties"}: permission.asked (a
//	                                     request), permission.replied {sessionID, requestID, reply}
//
// Read from anomalyco/opencode (packages/schema/src/permission-v1.ts, the
// server's permission routes and errors); docs/backends.md says what differs
// from LangGraph.
package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// Options configure a Backend.
type Options struct {
	transport.Options
}

// Backend is an opencode server.
type Backend struct {
	*transport.Conn
	base string // the server's URL, for the event stream
	mu   sync.Mutex
	// seen is when this process first listed a request whose id says no
	// time of its own.
	seen map[string]time.Time
	// sends follow the replies of the decisions sent, by decision id, so
	// that a decision whose answer was lost is found (see Verify).
	sends map[string]*replies
}

// New returns a backend for the opencode server at opts.URL.
func New(opts Options) (*Backend, error) {
	if opts.Hint == "" {
		opts.Hint = "is opencode's server running there (opencode serve --port 4096)?"
	}
	c, err := transport.New(opts.Options)
	if err != nil {
		return nil, err
	}
	return &Backend{Conn: c, base: strings.TrimRight(opts.URL, "/"), seen: map[string]time.Time{}, sends: map[string]*replies{}}, nil
}

// Request is one permission request, as opencode lists it.
type Request struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Permission string          `json:"permission"`
	Patterns   []string        `json:"patterns"`
	Metadata   json.RawMessage `json:"metadata"`
	Always     []string        `json:"always"`
	Tool       *struct {
		MessageID string `json:"messageID"`
		CallID    string `json:"callID"`
	} `json:"tool,omitempty"`

	raw     []byte // the request as the server sent it
	problem string // why it cannot be read
}

type requestList []Request

func (l *requestList) DecodeJSON(b []byte) error {
	list, err := client.List(b, func(e json.RawMessage) (Request, bool) { return decodeRequest(e), true })
	*l = list
	return err
}

func decodeRequest(b []byte) Request {
	r := Request{raw: bytes.Clone(b)}
	problems := client.Fields(b, func(key string, v json.RawMessage) error {
		switch key {
		case "id":
			return client.Into(v, &r.ID)
		case "sessionID":
			return client.Into(v, &r.SessionID)
		case "permission":
			return client.Into(v, &r.Permission)
		case "patterns":
			return client.Into(v, &r.Patterns)
		case "always":
			return client.Into(v, &r.Always)
		case "metadata":
			r.Metadata = client.NullToNil(bytes.Clone(v))
		case "tool":
			return client.Into(v, &r.Tool)
		}
		return nil
	})
	if r.ID == "" && len(problems) == 0 {
		problems = append(problems, "no id")
	}
	if r.Permission == "" && len(problems) == 0 {
		problems = append(problems, "no permission")
	}
	if len(problems) > 0 {
		if r.ID == "" {
			r.ID = client.UnreadableID(b)
		}
		r.problem = client.CannotRead("a permission request", problems)
	}
	return r
}

// interrupt is the request as a reviewer sees it: one action named by the
// permission (bash, edit, webfetch, external_directory, …), its patterns
// and metadata as its input, from opencode in the session; approve (once,
// or always when asked) or reject.
func (b *Backend) interrupt(r Request) client.Interrupt {
	it := client.Interrupt{ID: shownID(r.ID), ThreadID: r.SessionID, GraphID: "opencode", Server: b.Server()}
	it.CreatedAt = b.askedAt(r.ID)
	it.UpdatedAt = it.CreatedAt
	if r.problem == "" {
		if p := client.ValueProblem(r.raw); p != "" {
			r.problem = "a permission request " + p
		}
	}
	if r.problem != "" {
		it.Payload = client.Unreadable(r.problem)
		it.WithValue(r.raw)
		return it
	}
	args := struct {
		Patterns []string        `json:"patterns"`
		Always   []string        `json:"always,omitempty"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}{Patterns: orEmpty(r.Patterns), Always: r.Always}
	if len(r.Metadata) > 0 && !bytes.Equal(bytes.TrimSpace(r.Metadata), []byte("{}")) {
		args.Metadata = r.Metadata
	}
	value, err := json.Marshal(map[string]any{
		"action_requests": []any{map[string]any{"name": r.Permission, "args": args, "description": ""}},
		"review_configs":  []any{map[string]any{"action_name": r.Permission, "allowed_decisions": []string{"approve", "reject"}}},
		"agent_hook":      map[string]string{"agent": "opencode", "session_id": r.SessionID},
	})
	if err != nil {
		it.Payload = client.Unreadable(err.Error())
		it.WithValue(r.raw)
		return it
	}
	it.Payload = client.Parse(value)
	it.Payload.Encoder = replyEncoder{}
	it.Payload.Always = r.Always
	it.WithValue(r.raw)
	return it
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// shownID is a request's id as hitl shows it: opencode's ascending id
// (per_, 16 hex digits of time, then random characters) with its random
// part first, as hitl names an interrupt by the start of its id and
// requests made within minutes share the first digits of their time
// (per_001a222f2a44f000ce14a93f8fb6 is shown per_ce14a93f8fb6001a222f2a44f000).
// Any other id is shown as it is.
func shownID(id string) string {
	if rest, ok := strings.CutPrefix(id, "per_"); ok && len(rest) > 16 && isHex(rest[:16]) && !isHex(rest[len(rest)-16:]) {
		return "per_" + rest[16:] + rest[:16]
	}
	return id
}

// wireID is opencode's id of a request hitl shows as id (see shownID).
func wireID(id string) string {
	if rest, ok := strings.CutPrefix(id, "per_"); ok && len(rest) > 16 && isHex(rest[len(rest)-16:]) && !isHex(rest[:16]) {
		return "per_" + rest[len(rest)-16:] + rest[:len(rest)-16]
	}
	return id
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// askedAt is when the request was made: opencode's ascending ids begin
// with the time (milliseconds × 4096 + a counter, 16 hex digits), else
// when this process first listed it.
func (b *Backend) askedAt(id string) time.Time {
	if rest, ok := strings.CutPrefix(id, "per_"); ok && len(rest) >= 16 {
		if v, err := strconv.ParseUint(rest[:16], 16, 64); err == nil {
			t := time.UnixMilli(int64(v / 0x1000))
			if t.After(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) && t.Before(time.Now().Add(time.Hour)) {
				return t
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.seen[id]
	if !ok {
		t = time.Now()
		b.seen[id] = t
	}
	return t
}

// replyEncoder spells a decision as opencode's reply body.
type replyEncoder struct{}

// Shape is client.Shaper: show says what opencode sent.
func (replyEncoder) Shape() string { return "opencode-permission" }

func (replyEncoder) Encode(_ *client.Payload, ds []client.Decision, _ client.EncodeOptions) (any, error) {
	d := ds[0]
	switch d.Type {
	case client.Approve:
		if d.Always {
			return map[string]string{"reply": "always"}, nil
		}
		return map[string]string{"reply": "once"}, nil
	case client.Reject:
		if strings.TrimSpace(d.Message) == "" {
			return map[string]string{"reply": "reject"}, nil
		}
		return map[string]string{"reply": "reject", "message": d.Message}, nil
	}
	return nil, &client.RefusedError{Slot: 0, Reason: fmt.Sprintf("opencode takes approve or reject, not %s", d.Type)}
}

// Pending lists the permission requests waiting, newest first.
func (b *Backend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	var list requestList
	resp, err := b.Reads.R().SetContext(ctx).Get("/permission")
	if err := b.Check(resp, err, "list permission requests", &list); err != nil {
		return nil, err
	}
	out := make([]client.Interrupt, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- { // opencode lists them as asked
		out = append(out, b.interrupt(list[i]))
	}
	return out, nil
}

// Standing: a request opencode still lists waits; one it does not was
// replied to (by whom, opencode does not keep).
func (b *Backend) Standing(ctx context.Context, its []client.Interrupt) ([]client.Standing, error) {
	return client.StandingOf(ctx, b.Pending, its)
}

// Resume replies to one request, once. Before it posts, it follows
// opencode's events, so that the reply opencode announces can be matched
// if the answer to the post is lost.
func (b *Backend) Resume(ctx context.Context, s *client.Submission) (client.Receipt, error) {
	it, err := s.One()
	if err != nil {
		return client.Receipt{}, err
	}
	var body struct {
		Reply string `json:"reply"`
	}
	if err := json.Unmarshal(it.Resume.Value, &body); err != nil || body.Reply == "" {
		return client.Receipt{}, fmt.Errorf("the reply to opencode is not one of its replies: %s", it.Resume.Value)
	}
	id := wireID(it.Interrupt.ID)
	b.mu.Lock()
	w := b.follow(id, body.Reply)
	b.sends[s.DecisionID] = w
	b.mu.Unlock()
	w.ready()
	resp, err := b.Writes.R().SetContext(ctx).SetHeader("Content-Type", "application/json").SetBody([]byte(it.Resume.Value)).
		Post("/permission/" + url.PathEscape(id) + "/reply")
	if err == nil && resp.StatusCode() == http.StatusNotFound && notFound(resp.Body()) {
		w.stop()
		return client.Receipt{}, client.ErrAlreadyHandled
	}
	if cerr := b.Check(resp, err, "reply to permission request "+it.Interrupt.ID, nil); cerr != nil {
		maybe := transport.MaybeTaken(resp, err)
		if !maybe {
			w.stop()
		}
		return client.Receipt{}, &client.SendError{Err: cerr, MaybeSent: maybe}
	}
	switch strings.TrimSpace(string(resp.Body())) {
	case "true":
		w.stop()
		return client.Receipt{Acknowledged: true}, nil
	case "false":
		// An older handler's word for "not pending".
		w.stop()
		return client.Receipt{}, client.ErrAlreadyHandled
	}
	return client.Receipt{}, &client.SendError{Err: fmt.Errorf("opencode answered the reply to %s with %s, not true: hitl cannot tell whether it took it", it.Interrupt.ID,
		b.Redact(string(bytes.TrimSpace(resp.Body()[:min(len(resp.Body()), 200)])))), MaybeSent: true}
}

// notFound says whether a 404's body is opencode's PermissionNotFoundError
// (another 404 means the route is not there: not opencode).
func notFound(body []byte) bool {
	var e struct {
		Tag  string `json:"_tag"`
		Name string `json:"name"`
	}
	if json.Unmarshal(body, &e) != nil {
		return false
	}
	return strings.Contains(e.Tag+e.Name, "NotFound")
}

// Verify: a reply opencode answered true took effect (a second one gets
// 404). A lost answer is looked for in the permission.replied events that
// followed the post: the same reply is this decision's; another reply is
// someone else's; none while the request is still listed is not taken.
func (b *Backend) Verify(ctx context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	if v, ok := client.Acknowledged(s, rc); ok {
		return v, nil
	}
	it := s.Items[0].Interrupt
	b.mu.Lock()
	w := b.sends[s.DecisionID]
	b.mu.Unlock()
	v := client.Verdict{ID: it.ID, Took: client.Mine}
	if w != nil {
		if reply, ok := w.replied(0); ok {
			return []client.Verdict{w.verdict(v, reply)}, nil
		}
	}
	pending, err := b.Pending(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range pending {
		if p.ID == it.ID {
			v.Took = client.NotTaken
			return []client.Verdict{v}, nil
		}
	}
	if w != nil {
		// Gone: its replied event may still be on its way.
		if reply, ok := w.replied(3 * time.Second); ok {
			return []client.Verdict{w.verdict(v, reply)}, nil
		}
	}
	return nil, fmt.Errorf("opencode no longer lists permission request %s, and told of no reply to it: hitl cannot tell whether this decision or another took effect", it.ID)
}

// Follow: opencode reports no run to follow; the agent goes on.
func (b *Backend) Follow(context.Context, *client.Submission, client.Receipt) client.Outcome {
	return client.Outcome{Status: client.Accepted}
}

// Changes signals every permission.asked and permission.replied on
// opencode's event stream, reconnecting until ctx ends.
func (b *Backend) Changes(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		for ctx.Err() == nil {
			ok := b.events(ctx, nil, func(typ string, _ json.RawMessage) {
				if typ == "permission.asked" || typ == "permission.replied" {
					select {
					case ch <- struct{}{}:
					default: // one pending signal is enough: the reader lists again
					}
				}
			})
			if !ok {
				return // no event stream: the reader polls
			}
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}()
	return ch
}
