// Package coord is hitl's coordinator: the server side of the events
// protocol (client/events), for a team. Review clients list, follow and
// answer requests; publishers (an agent's hook, a coordinator) put a
// request up, wait for its answer and withdraw it.
//
//	GET    /hitl/pending            reviewers: what waits, oldest first
//	GET    /hitl/events             reviewers: SSE, hitl_asked | hitl_answered (Last-Event-ID replays)
//	POST   /hitl/respond            approvers: {"request_id","response","decision_id"}
//	                                 200 taken; 202 an approval recorded, more needed (rules);
//	                                 403 not an approver; 404 unknown; 409 answered or withdrawn;
//	                                 422 a response the request does not allow
//	GET    /hitl/requests/{id}      where one request stands; ?wait=30s waits while it is pending
//	POST   /hitl/requests           publishers: {"agent","session_id","data","expires_in"} -> 201 {"request_id",…}
//	                                 (expires_in, seconds: withdrawn then, should the publisher vanish)
//	DELETE /hitl/requests/{id}      its publisher: {"reason"} -> 200 withdrawn; 409 answered (with the answer)
//
// Every call needs Authorization: Bearer TOKEN. Who decided
// (responded_by) is the reviewer the token belongs to, never a name in the
// body. Requests live in memory: a restarted coordinator starts empty.
package coord

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/rules"
	"github.com/hitl-sh/hitl/team"
)

// Team says who a token is, who may decide and which tools need more than
// one approver (rules.Team). *team.Config is one.
type Team interface {
	ByToken(token string) (team.Principal, bool)
	rules.Team
}

// Options configure a Server.
type Options struct {
	Team Team
	// MaxWait caps a long poll (default 30 s).
	MaxWait time.Duration
	// Log, when set, gets one line per request put up, answered or
	// withdrawn (server text in it is not made inert: the caller does).
	Log func(string)
	// Logger, when set, gets the door's refusals (401, 403) as logfmt
	// lines with the caller's address (limits.go).
	Logger *slog.Logger
	// Now is the clock (tests).
	Now func() time.Time
	// Inbox, when set, is more of the hub's inbox served beside the
	// coordinator's own requests: the LangGraph server's interrupts.
	Inbox Inbox
}

// Inbox is the rest of a hub's inbox (inbox.go).
type Inbox interface {
	// Requests lists what waits there, oldest first, as the events
	// protocol lists a request.
	Requests(ctx context.Context) ([]json.RawMessage, error)
	// Owns reports whether id is one of its requests (now or lately).
	Owns(id string) bool
	// Respond takes reviewer's answer to request id: the status code and
	// body of the answer to POST /hitl/respond.
	Respond(ctx context.Context, reviewer string, id string, response json.RawMessage, decisionID string) (int, any)
	// End takes reviewer's ending of the thread's work at request id
	// (POST /hitl/respond with "end" in place of "response").
	End(ctx context.Context, reviewer string, id string, end json.RawMessage, decisionID string) (int, any)
	// Conversation is the messages of session id (GET
	// /hitl/sessions/{id}/conversation).
	Conversation(ctx context.Context, reviewer string, session string) (int, any)
	// Standing is where request id stands (GET /hitl/requests/{id}); ok
	// false when it is unknown.
	Standing(ctx context.Context, id string) (map[string]any, bool)
}

// Server is the coordinator. Its zero value is not usable: see New.
type Server struct {
	opts   Options
	mu     sync.Mutex
	reqs   map[string]*request
	order  []string // pending ids, oldest first
	done   []string // finished ids, oldest first (bounded)
	events stream
}

// MaxBody is the largest request body taken (a Write of a large file).
const MaxBody = 16 << 20

// maxDone is how many finished requests are remembered for lookups.
const maxDone = 10000

// Status is where a request stands.
type Status string

const (
	Pending   Status = "pending"
	Answered  Status = "answered"
	Withdrawn Status = "withdrawn"
)

type request struct {
	ID        string          `json:"request_id"`
	Agent     string          `json:"agent"`
	SessionID string          `json:"session_id"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
	Publisher string          `json:"publisher"`
	// Approval is where a rule's approvals stand (the answer with the most
	// approvers so far), for the reviewers' lists.
	Approval *ApprovalView `json:"approval,omitempty"`

	status      Status
	response    json.RawMessage
	respondedBy string
	decisionID  string
	answeredAt  time.Time
	reason      string
	// payload is the request's data as hitl reads it (client.Parse: every
	// spelling it knows), what the rules decide on.
	payload client.Payload
	lease   *lease        // tied to its publisher's waits (lease.go); nil: not
	changed chan struct{} // closed when the request leaves pending
}

// ApprovalView is a request's pending approval: client.Approval, whose
// rule (client.Count) the coordinator counts by. It lists the decisions
// its value encodes; hitl's clients read them again from the value
// (client.DecisionsOf), never taking them on the coordinator's word.
type ApprovalView = client.Approval

// New returns a coordinator for the team.
func New(opts Options) *Server {
	if opts.MaxWait <= 0 {
		opts.MaxWait = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Server{opts: opts, reqs: map[string]*request{}}
}

// Close ends every event stream.
func (s *Server) Close() { s.events.closeAll() }

func (s *Server) log(format string, a ...any) {
	if s.opts.Log != nil {
		s.opts.Log(fmt.Sprintf(format, a...))
	}
}

// Handler serves the protocol.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hitl/pending", s.auth(reviewers, s.pending))
	mux.HandleFunc("GET /hitl/events", s.auth(reviewers, s.events.serve))
	mux.HandleFunc("POST /hitl/respond", s.auth(approvers, s.respond))
	mux.HandleFunc("GET /hitl/requests/{id}", s.auth(anyone, s.standing))
	mux.HandleFunc("GET /hitl/sessions/{id}/conversation", s.auth(reviewers, s.conversation))
	mux.HandleFunc("POST /hitl/requests", s.auth(publishers, s.publish))
	mux.HandleFunc("DELETE /hitl/requests/{id}", s.auth(publishers, s.withdraw))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, 404, "not a hitl coordinator endpoint (see the events protocol: /hitl/pending, /hitl/events, /hitl/respond, /hitl/requests)")
	})
	return mux
}

type who int

const (
	anyone who = iota
	reviewers
	approvers
	publishers
)

type principalKey struct{}

func principalOf(r *http.Request) team.Principal {
	p, _ := r.Context().Value(principalKey{}).(team.Principal)
	return p
}

// auth admits a request whose bearer token belongs to the team, and whose
// principal may call the endpoint.
func (s *Server) auth(w who, h http.HandlerFunc) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		var p team.Principal
		if ok && s.opts.Team != nil {
			p, ok = s.opts.Team.ByToken(strings.TrimSpace(token))
		}
		if !ok {
			why := "no token"
			if token != "" {
				why = "a token not of the team"
			}
			s.refused(r, 401, "", why)
			rw.Header().Set("WWW-Authenticate", `Bearer realm="hitl"`)
			writeError(rw, 401, "a bearer token of the team is needed (Authorization: Bearer …; hitl reads it from HITL_BEARER_TOKEN)")
			return
		}
		switch {
		case w == reviewers && p.Kind != team.KindReviewer,
			w == approvers && p.Kind != team.KindReviewer:
			s.refused(r, 403, p.Name, "a publisher's token")
			writeError(rw, 403, "this token is a publisher's: it can put requests up and withdraw them, not read or decide them")
			return
		case w == approvers && !p.Role.CanDecide():
			s.refused(r, 403, p.Name, "not an approver")
			writeError(rw, 403, fmt.Sprintf("reviewer %s is a %s: only an approver decides", p.Name, orWord(string(p.Role), "reviewer without a role")))
			return
		case w == publishers && p.Kind != team.KindPublisher:
			s.refused(r, 403, p.Name, "a reviewer's token")
			writeError(rw, 403, "this token is a reviewer's: only a publisher's token puts requests up or withdraws them")
			return
		}
		h(rw, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	}
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (s *Server) pending(w http.ResponseWriter, r *http.Request) {
	var more []json.RawMessage
	if s.opts.Inbox != nil {
		var err error
		if more, err = s.opts.Inbox.Requests(r.Context()); err != nil {
			// One source down hides nothing of the others: the publishers'
			// requests are listed, and the answer says which source is down
			// (SourceDownHeader), as the hub's sessions do.
			w.Header().Set(SourceDownHeader, headerText(err.Error()))
			s.log("listing without the LangGraph server: %v", err)
		}
	}
	s.mu.Lock()
	out := make([]json.RawMessage, 0, len(s.order)+len(more))
	out = append(out, more...) // oldest first: the server's have waited longest, mostly
	for _, id := range s.order {
		b, err := json.Marshal(s.reqs[id])
		if err != nil {
			s.mu.Unlock()
			writeError(w, 500, err.Error())
			return
		}
		out = append(out, b)
	}
	b, err := json.Marshal(out)
	s.mu.Unlock()
	if err != nil {
		writeError(w, 500, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// SourceDownHeader is the header of a GET /hitl/pending answer that lists
// the inbox without one of its sources (the hub's LangGraph server
// cannot be read): it says which, and why. client/events reads it into a
// client.SourceDown.
const SourceDownHeader = "Hitl-Source-Down"

// headerText is s fit for a header value: one line, printable ASCII.
func headerText(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	if len(b) > 500 {
		b = append(b[:500], "..."...)
	}
	return string(b)
}

// Announce publishes an event on the stream (the hub's other interrupts
// coming and going).
func (s *Server) Announce(typ string, v any) { s.events.publish(typ, v) }

func (s *Server) publish(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	var body struct {
		Agent     string          `json:"agent"`
		SessionID string          `json:"session_id"`
		Data      json.RawMessage `json:"data"`
		ExpiresIn float64         `json:"expires_in"`
		// LeaseSeconds ties the request to its publisher's waits
		// (lease.go).
		LeaseSeconds float64 `json:"lease_seconds"`
	}
	if err := decodeBody(w, r, &body); tooLarge(w, err) {
		return
	} else if err != nil {
		writeError(w, 422, "the body is not the JSON of a request ({\"agent\",\"session_id\",\"data\"}): "+err.Error())
		return
	}
	if len(bytes.TrimSpace(body.Data)) == 0 || bytes.Equal(bytes.TrimSpace(body.Data), []byte("null")) {
		writeError(w, 422, "the request needs data: what the reviewer is asked")
		return
	}
	req := &request{ID: "req-" + newID(), Agent: body.Agent, SessionID: body.SessionID, CreatedAt: s.opts.Now().UTC(),
		Data: body.Data, Publisher: p.Name, status: Pending, payload: client.Parse(body.Data), changed: make(chan struct{})}
	if req.Agent == "" {
		req.Agent = p.Name
	}
	s.mu.Lock()
	s.reqs[req.ID] = req
	s.order = append(s.order, req.ID)
	s.startLease(req, body.LeaseSeconds)
	s.events.publish("hitl_asked", req)
	s.mu.Unlock()
	s.log("%s: put up by %s (%s %s)", req.ID, p.Name, req.Agent, strings.Join(req.tools(), ", "))
	if body.ExpiresIn > 0 {
		// A publisher killed outright (kill -9, a runner torn down) cannot
		// withdraw: the request goes when it said it would stop waiting.
		d := time.Duration(min(body.ExpiresIn, 7*24*3600) * float64(time.Second))
		time.AfterFunc(d, func() { s.expire(req, d) })
	}
	writeJSON(w, 201, s.standingOf(req))
}

// standingOf is a request's standing; s.mu is held or the request is final.
func (s *Server) standingOf(r *request) map[string]any {
	out := map[string]any{"request_id": r.ID, "status": r.status, "agent": r.Agent, "session_id": r.SessionID, "created_at": r.CreatedAt}
	switch r.status {
	case Answered:
		out["response"], out["responded_by"], out["decision_id"], out["answered_at"] = r.response, r.respondedBy, r.decisionID, r.answeredAt
	case Withdrawn:
		out["reason"], out["answered_at"] = r.reason, r.answeredAt
	case Pending:
		if r.Approval != nil {
			out["approvals"] = r.Approval.Approvers
		}
		if r.lease != nil {
			out["publisher_waiting"] = r.lease.waiters > 0
		}
	}
	return out
}

func (s *Server) standing(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	id := r.PathValue("id")
	wait, _ := time.ParseDuration(r.URL.Query().Get("wait"))
	wait = min(max(wait, 0), s.opts.MaxWait)
	if p.Kind == team.KindReviewer && s.opts.Inbox != nil && s.opts.Inbox.Owns(id) {
		if st, found := s.opts.Inbox.Standing(r.Context(), id); found {
			writeJSON(w, 200, st)
			return
		}
		writeError(w, 404, "no request "+id)
		return
	}
	s.mu.Lock()
	req, ok := s.reqs[id]
	if ok && p.Kind == team.KindPublisher && req.Publisher != p.Name {
		ok = false // a publisher sees its own requests only
	}
	if !ok {
		s.mu.Unlock()
		writeError(w, 404, "no request "+id)
		return
	}
	changed, status := req.changed, req.status
	s.mu.Unlock()
	defer s.attach(req, p)()
	if status == Pending && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-changed:
		case <-t.C:
		case <-r.Context().Done():
		}
		t.Stop()
	}
	s.mu.Lock()
	out := s.standingOf(req)
	s.mu.Unlock()
	writeJSON(w, 200, out)
}

// finish takes a pending request out of the list; s.mu is held.
func (s *Server) finish(req *request) {
	for i, id := range s.order {
		if id == req.ID {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.endLease(req)
	s.done = append(s.done, req.ID)
	if len(s.done) > maxDone {
		delete(s.reqs, s.done[0])
		s.done = s.done[1:]
	}
	close(req.changed)
}

// expire withdraws a request its publisher stopped waiting for.
func (s *Server) expire(req *request, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.status != Pending {
		return
	}
	reason := fmt.Sprintf("expired: its agent stopped waiting after %s", d.Round(time.Second))
	req.status, req.reason, req.answeredAt = Withdrawn, reason, s.opts.Now().UTC()
	s.finish(req)
	s.events.publish("hitl_answered", map[string]any{"request_id": req.ID, "status": Withdrawn, "reason": reason})
	s.log("%s: withdrawn (%s)", req.ID, reason)
}

func (s *Server) withdraw(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	id := r.PathValue("id")
	var body struct {
		Reason string `json:"reason"`
	}
	if err := decodeBody(w, r, &body); tooLarge(w, err) {
		return
	}
	reason := strings.TrimSpace(body.Reason)
	if reason == "" {
		reason = "withdrawn by " + p.Name
	}
	if r := []rune(reason); len(r) > 300 {
		reason = string(r[:300]) + "…"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.reqs[id]
	if !ok || req.Publisher != p.Name {
		writeError(w, 404, "no request "+id+" of "+p.Name)
		return
	}
	if req.status != Pending {
		// Answered first: the publisher gets the answer, and can act on it.
		writeJSON(w, 409, s.standingOf(req))
		return
	}
	req.status, req.reason, req.answeredAt = Withdrawn, reason, s.opts.Now().UTC()
	s.finish(req)
	s.events.publish("hitl_answered", map[string]any{"request_id": id, "status": Withdrawn, "reason": reason})
	s.log("%s: withdrawn (%s)", id, reason)
	writeJSON(w, 200, s.standingOf(req))
}

// conversation serves a session's messages where the hub's inbox keeps
// them (a LangGraph thread); a publisher's request has none here.
func (s *Server) conversation(w http.ResponseWriter, r *http.Request) {
	if s.opts.Inbox == nil {
		writeError(w, 404, "no conversation is kept here: a publisher's request has its conversation with its agent")
		return
	}
	code, out := s.opts.Inbox.Conversation(r.Context(), principalOf(r).Name, r.PathValue("id"))
	writeJSON(w, code, out)
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	var body struct {
		RequestID  string          `json:"request_id"`
		Response   json.RawMessage `json:"response"`
		End        json.RawMessage `json:"end"`
		DecisionID string          `json:"decision_id"`
	}
	if err := decodeBody(w, r, &body); tooLarge(w, err) {
		return
	} else if err != nil || body.RequestID == "" || (body.Response == nil) == (body.End == nil) {
		writeError(w, 422, "the body needs request_id and either response or end")
		return
	}
	if s.opts.Inbox != nil && s.opts.Inbox.Owns(body.RequestID) {
		// The LangGraph server's interrupt: the hub's one decision path.
		code, out := 0, any(nil)
		if body.End != nil {
			code, out = s.opts.Inbox.End(r.Context(), p.Name, body.RequestID, body.End, body.DecisionID)
		} else {
			code, out = s.opts.Inbox.Respond(r.Context(), p.Name, body.RequestID, body.Response, body.DecisionID)
		}
		writeJSON(w, code, out)
		return
	}
	if body.End != nil {
		writeError(w, 422, "request "+body.RequestID+" has no thread here to end: answer it (a reject), nothing sent")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.reqs[body.RequestID]
	if !ok {
		writeError(w, 404, "no request "+body.RequestID)
		return
	}
	switch req.status {
	case Withdrawn:
		writeJSON(w, 409, map[string]any{"error": "Conflict", "message": "already handled elsewhere: withdrawn (" + req.reason + ")",
			"request_id": req.ID, "status": Withdrawn, "reason": req.reason})
		return
	case Answered:
		writeJSON(w, 409, map[string]any{"error": "Conflict", "message": "already answered by " + req.respondedBy, "request_id": req.ID, "status": Answered})
		return
	}
	ds, err := req.decisions(body.Response)
	if err != nil {
		writeError(w, 422, err.Error())
		return
	}
	// The team's one rule engine: an action a rule names needs its
	// distinct approvers of this exact answer, whatever the decisions on
	// the other actions; an approval counts toward that exact answer, once
	// per approver, and another answer replaces it.
	v, err := rules.Judge(s.rules(), &req.payload, ds, req.Approval, p.Name, body.Response, s.opts.Now())
	if err != nil {
		writeError(w, 403, err.Error())
		return
	}
	tools := v.Need.Tools
	if !v.Send {
		held := func() {
			writeJSON(w, 202, map[string]any{"request_id": req.ID, "status": "awaiting_approvals", "approvals": v.Tally.Next.Approvers, "needed": v.Need.Approvals,
				"message": v.Tally.Message(tools)})
		}
		if v.Tally.Already {
			held()
			return
		}
		req.Approval = v.Tally.Next
		// A change of the list: reviewers refetch.
		s.events.publish("hitl_asked", req)
		s.log("%s: approved by %s (%s)", req.ID, p.Name, v.Tally.Recorded(tools))
		held()
		return
	}
	by := strings.Join(v.Approvers, " + ") // in the order they approved
	req.status, req.response, req.respondedBy, req.decisionID, req.answeredAt = Answered, body.Response, by, body.DecisionID, s.opts.Now().UTC()
	s.finish(req)
	s.events.publish("hitl_answered", map[string]any{"request_id": req.ID, "status": Answered, "responded_by": by, "response": body.Response})
	s.log("%s: answered by %s", req.ID, by)
	out := map[string]any{"request_id": req.ID, "status": "resolved", "responded_by": by}
	if req.lease != nil {
		// Its publisher waits on it, or not right now (lease.go).
		out["publisher_waiting"] = req.lease.waiters > 0
	}
	writeJSON(w, 200, out)
}

// tools are the request's tool calls' names (none: not a tool call).
func (r *request) tools() []string {
	var out []string
	for _, a := range r.payload.Actions {
		out = append(out, a.Name)
	}
	return out
}

// decisions reads an answer to the request back into decisions, refusing
// one it does not allow (a decision its review config does not list, an
// edit that renames the tool, a count of decisions that is not one per
// tool call): client.DecisionsOf, whatever spelling the request came in.
func (r *request) decisions(resp json.RawMessage) ([]client.Decision, error) {
	ds, err := client.DecisionsOf(&r.payload, resp, client.EncodeOptions{})
	if err != nil {
		return nil, fmt.Errorf("the response is not an answer this request allows: %v", err)
	}
	return ds, nil
}

// rules is the team in force as the rule engine asks it.
func (s *Server) rules() rules.Team {
	if s.opts.Team == nil {
		return nil
	}
	return s.opts.Team
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": http.StatusText(code), "message": msg})
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	if err := dec.Decode(v); err != nil && !errors.Is(err, context.Canceled) && err.Error() != "EOF" {
		return err
	}
	return nil
}

// The coordinator in process: the hub's SSH sessions list and answer the
// same requests as its HTTP door (cmd/hitl joins them to the LangGraph
// server's interrupts).

// Request is a pending request as the events protocol lists it.
type Request struct {
	RequestID string          `json:"request_id"`
	Agent     string          `json:"agent"`
	SessionID string          `json:"session_id"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
	Approval  *ApprovalView   `json:"approval,omitempty"`
}

// Pending lists what waits, oldest first.
func (s *Server) Pending() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, 0, len(s.order))
	for _, id := range s.order {
		r := s.reqs[id]
		out = append(out, Request{RequestID: r.ID, Agent: r.Agent, SessionID: r.SessionID, CreatedAt: r.CreatedAt, Data: r.Data, Approval: r.Approval})
	}
	return out
}

// Standing is where one request stands.
type Standing struct {
	Status      Status
	Reason      string
	RespondedBy string
	Response    json.RawMessage
	DecisionID  string
	AnsweredAt  time.Time
}

// Lookup says where request id stands; ok false for an unknown id.
func (s *Server) Lookup(id string) (Standing, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reqs[id]
	if !ok {
		return Standing{}, false
	}
	return Standing{Status: r.status, Reason: r.reason, RespondedBy: r.respondedBy, Response: r.response, DecisionID: r.decisionID, AnsweredAt: r.answeredAt}, true
}

// Errors of Resolve.
var (
	ErrUnknown  = errors.New("no such request")
	ErrHandled  = errors.New("already handled elsewhere")
	ErrNotAllow = errors.New("not allowed")
)

// Resolve answers a pending request on behalf of approvers (whose rule, if
// any, the caller enforced), as the HTTP door does for a complete set of
// approvals.
func (s *Server) Resolve(id string, approvers []string, response json.RawMessage, decisionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.reqs[id]
	switch {
	case !ok:
		return ErrUnknown
	case req.status == Withdrawn:
		return fmt.Errorf("%w: withdrawn (%s)", ErrHandled, req.reason)
	case req.status != Pending:
		return fmt.Errorf("%w: answered by %s", ErrHandled, req.respondedBy)
	}
	if _, err := req.decisions(response); err != nil {
		return fmt.Errorf("%w: %v", ErrNotAllow, err)
	}
	by := strings.Join(approvers, " + ")
	req.status, req.response, req.respondedBy, req.decisionID, req.answeredAt = Answered, response, by, decisionID, s.opts.Now().UTC()
	s.finish(req)
	s.events.publish("hitl_answered", map[string]any{"request_id": req.ID, "status": Answered, "responded_by": by, "response": response})
	s.log("%s: answered by %s", req.ID, by)
	return nil
}

// SetApproval records where a rule's approvals of request id stand (nil
// clears them), as approvals of the HTTP door are: an approver there who
// gives the same answer completes them.
func (s *Server) SetApproval(id string, a *ApprovalView) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.reqs[id]
	if !ok || req.status != Pending {
		return ErrUnknown
	}
	req.Approval = nil
	if a != nil && (len(a.Approvers) > 0 || len(a.Dropped) > 0) {
		v := *a
		req.Approval = &v
	}
	s.events.publish("hitl_asked", req)
	return nil
}

// Changes signals every change of the requests until ctx ends.
func (s *Server) Changes(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	ch := make(chan sseEvent, 64)
	s.events.mu.Lock()
	if s.events.subs == nil {
		s.events.subs = map[chan sseEvent]bool{}
	}
	s.events.subs[ch] = true
	s.events.mu.Unlock()
	go func() {
		defer func() {
			s.events.mu.Lock()
			delete(s.events.subs, ch)
			s.events.mu.Unlock()
			close(out)
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case _, open := <-ch:
				if !open {
					return
				}
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	return out
}

// Prune drops the pending approvals of reviewers who are no longer
// approvers of the team in force (a reload removed them, or made them
// viewers): each approval so changed names them (Dropped), every
// reviewer's list shows it, and they no longer count. It returns how many
// requests changed. The hub calls it after each reload of the team.
func (s *Server) Prune() int {
	t := s.rules()
	if t == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, id := range s.order {
		req := s.reqs[id]
		a, changed := rules.Prune(t, req.Approval)
		if !changed {
			continue
		}
		req.Approval = a
		n++
		s.events.publish("hitl_asked", req)
		s.log("%s: approval of %s dropped: no longer an approver (%s)", req.ID, strings.Join(a.Dropped, ", "), a.Words())
	}
	return n
}
