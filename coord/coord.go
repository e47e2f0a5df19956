// Package coord is hitl's coordinator: the server side of the events
// protocol (client/events; its shapes and SSE stream are package
// coord/wire's), for a team. Review clients list, follow and
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
//	GET    /hitl/history            reviewers: the team's audit log, newest first (?reviewer=&source=&tool=&outcome=&request_id=&since=&limit=)
//
// Every call needs Authorization: Bearer TOKEN. Who decided
// (responded_by) is the reviewer the token belongs to, never a name in the
// body. Requests, their approvals and answers, the event log and the audit
// log are kept in the hub's store (package store): a restarted coordinator
// has them all, and so has every hub on one PostgreSQL store.
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
	"github.com/hitl-sh/hitl/coord/wire"
	"github.com/hitl-sh/hitl/rules"
	"github.com/hitl-sh/hitl/store"
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
	// Log, when set, gets one record per request put up, answered or
	// withdrawn, and per refused token (server text in it is not made
	// inert: the caller's handler does).
	Log *slog.Logger
	// Now is the clock (tests).
	Now func() time.Time
	// Inbox, when set, is more of the hub's inbox served beside the
	// coordinator's own requests: the LangGraph server's interrupts.
	Inbox Inbox
	// Store keeps the requests, the event log and the audit log; nil: a
	// store in memory, gone with the process (tests).
	Store *store.Store
	// Hub names this hub among those sharing a store: its own events
	// (what it saw of its LangGraph server) are on its stream only.
	Hub string
	// Retention is how long a finished request stays readable (GET
	// /hitl/requests/{id}) and the event log replays; default
	// DefaultRetention. The audit log is kept.
	Retention time.Duration
}

// DefaultRetention is how long a finished request stays readable.
const DefaultRetention = 7 * 24 * time.Hour

// Inbox is the rest of a hub's inbox (inbox.go).
type Inbox interface {
	// Requests lists what waits there, oldest first.
	Requests(ctx context.Context) ([]wire.Request, error)
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
	Standing(ctx context.Context, id string) (wire.Standing, bool)
}

// Server is the coordinator. Its zero value is not usable: see New.
type Server struct {
	opts     Options
	st       *store.Store
	ownStore bool // opened by New: closed by Close
	closed   chan struct{}
	once     sync.Once
	ctx      context.Context // the background work's: expiry, pruning
	stop     context.CancelFunc
	bg       sync.WaitGroup
	lmu      sync.Mutex
	leases   map[string]*lease // this hub's waits on leased requests (lease.go)
	started  time.Time         // when rearm ran: the hub's start (lease.go)
}

// MaxBody is the largest request body taken (a Write of a large file).
const MaxBody = 16 << 20

// Status is where a request stands.
type Status string

const (
	Pending   Status = store.Pending
	Answered  Status = store.Answered
	Withdrawn Status = store.Withdrawn
)

// request is a stored request as the coordinator decides on it.
type request struct {
	ID        string
	Agent     string
	SessionID string
	CreatedAt time.Time
	Data      json.RawMessage
	Publisher string
	// Approval is where a rule's approvals stand (the answer with the most
	// approvers so far), for the reviewers' lists.
	Approval *ApprovalView

	status      Status
	response    json.RawMessage
	respondedBy string
	decisionID  string
	answeredAt  time.Time
	reason      string
	version     int64
	// payload is the request's data as hitl reads it (client.Parse: every
	// spelling it knows), what the rules decide on.
	payload client.Payload
	lease   time.Duration // tied to its publisher's waits (lease.go); 0: not
}

// requestOf is the stored request r as the protocol speaks of it.
func requestOf(r store.Request) *request {
	out := &request{ID: r.ID, Agent: r.Agent, SessionID: r.SessionID, CreatedAt: r.CreatedAt, Data: r.Data, Publisher: r.Publisher,
		status: Status(r.Status), response: r.Response, respondedBy: r.RespondedBy, decisionID: r.DecisionID, answeredAt: r.AnsweredAt,
		reason: r.Reason, version: r.Version, lease: r.Lease}
	if len(r.Data) > 0 {
		out.payload = client.Parse(r.Data)
	}
	if len(r.Approval) > 0 {
		var a ApprovalView
		if json.Unmarshal(r.Approval, &a) == nil {
			out.Approval = &a
		}
	}
	return out
}

// listed is the request as the protocol lists it.
func (r *request) listed() wire.Request {
	return wire.Request{RequestID: r.ID, Agent: r.Agent, SessionID: r.SessionID, CreatedAt: r.CreatedAt, Data: r.Data,
		Publisher: r.Publisher, Approval: r.Approval}
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
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	st, own := opts.Store, false
	if st == nil {
		var err error
		if st, err = store.Open(context.Background(), store.Memory, ""); err != nil {
			panic("coord: a store in memory: " + err.Error()) // SQLite in memory does not fail
		}
		own = true
	}
	if opts.Hub == "" {
		opts.Hub = "hub-" + newID()[:8]
	}
	s := &Server{opts: opts, st: st, ownStore: own, closed: make(chan struct{}), leases: map[string]*lease{}}
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.rearm() // the leased requests a hub that stopped left waiting
	s.bg.Add(2)
	go s.expiring()
	go s.pruning()
	return s
}

// Close ends every event stream and the coordinator's background work
// (a store given in Options stays open: its opener closes it).
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closed)
		s.stop()
		s.stopLeases()
		s.bg.Wait()
		if s.ownStore {
			_ = s.st.Close()
		}
	})
}

// Store is where the coordinator keeps its state.
func (s *Server) Store() *store.Store { return s.st }

// expiring withdraws each request whose publisher said it would stop
// waiting by then: one timer, set to the next expiry, set again when the
// store changes (this hub's requests, or another hub's).
func (s *Server) expiring() {
	defer s.bg.Done()
	for {
		changed := s.st.Changed()
		now := s.opts.Now()
		if due, err := s.st.Expired(s.ctx, now); err == nil {
			for _, r := range due {
				s.expire(r)
			}
		}
		var wake <-chan time.Time
		var t *time.Timer
		if next, ok, err := s.st.NextExpiry(s.ctx); err == nil && ok {
			t = time.NewTimer(max(next.Sub(s.opts.Now()), 10*time.Millisecond))
			wake = t.C
		}
		select {
		case <-s.ctx.Done():
		case <-changed:
		case <-wake:
		}
		if t != nil {
			t.Stop()
		}
		if s.ctx.Err() != nil {
			return
		}
	}
}

// pruning forgets finished requests and events older than the retention
// period, at start and every hour.
func (s *Server) pruning() {
	defer s.bg.Done()
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		now := s.opts.Now()
		if n, err := s.st.Prune(s.ctx, now.Add(-s.opts.Retention), now.Add(-min(time.Hour, s.opts.Retention))); err != nil && s.ctx.Err() == nil {
			s.log("pruning the store failed", "error", err)
		} else if n > 0 {
			s.log("pruned finished requests", "count", n, "older_than", s.opts.Retention)
		}
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (s *Server) log(msg string, args ...any) {
	if s.opts.Log != nil {
		s.opts.Log.Info(msg, args...)
	}
}

// Handler serves the protocol.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hitl/pending", s.auth(reviewers, s.pending))
	mux.HandleFunc("GET /hitl/events", s.auth(reviewers, s.serveEvents))
	mux.HandleFunc("GET /hitl/history", s.auth(reviewers, s.history))
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

// refused logs a call the door turned away, with where it came from.
func (s *Server) refused(r *http.Request, code int, who, why string) {
	if s.opts.Log != nil {
		s.opts.Log.Warn("door refused a call", "status", code, "addr", r.RemoteAddr, "method", r.Method, "path", r.URL.Path, "principal", who, "why", why)
	}
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (s *Server) pending(w http.ResponseWriter, r *http.Request) {
	var more []wire.Request
	if s.opts.Inbox != nil {
		var err error
		if more, err = s.opts.Inbox.Requests(r.Context()); err != nil {
			// One source down hides nothing of the others: the publishers'
			// requests are listed, and the answer says which source is down
			// (wire.SourceDownHeader), as the hub's sessions do.
			w.Header().Set(wire.SourceDownHeader, headerText(err.Error()))
			s.log("listing without a source that is down", "error", err)
		}
	}
	reqs, err := s.st.Pending(r.Context())
	if err != nil {
		writeError(w, 503, "the hub cannot read its store: "+err.Error())
		return
	}
	out := make([]wire.Request, 0, len(reqs)+len(more))
	out = append(out, more...) // oldest first: the server's have waited longest, mostly
	for _, rq := range reqs {
		out = append(out, requestOf(rq).listed())
	}
	b, err := json.Marshal(out)
	if err != nil {
		writeError(w, 500, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

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
func (s *Server) Announce(typ string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	if err := s.st.Append(s.ctx, store.Event{Type: typ, Hub: s.opts.Hub, Data: b, At: s.opts.Now().UTC()}); err != nil && s.ctx.Err() == nil {
		s.log("the event log did not take an event", "error", err)
	}
}

func (s *Server) publish(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	var body wire.Publish // LeaseSeconds: lease.go
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
	rq := store.Request{ID: ReqPrefix + newID(), Agent: body.Agent, SessionID: body.SessionID, CreatedAt: s.opts.Now().UTC(),
		Data: body.Data, Publisher: p.Name, Source: sourceOf(body.Data), Status: store.Pending, Version: 1,
		Lease: leaseOf(body.LeaseSeconds)}
	if rq.Lease > 0 {
		rq.LeaseUntil = rq.CreatedAt.Add(rq.Lease)
	}
	if rq.Agent == "" {
		rq.Agent = p.Name
	}
	if body.ExpiresIn > 0 {
		// A publisher killed outright (kill -9, a runner torn down) cannot
		// withdraw: the request goes when it said it would stop waiting.
		rq.ExpiresAt = rq.CreatedAt.Add(time.Duration(min(body.ExpiresIn, 7*24*3600) * float64(time.Second)))
	}
	if err := s.st.Publish(r.Context(), rq); err != nil {
		writeError(w, 503, "the hub cannot keep the request in its store, so it is not up: "+err.Error())
		return
	}
	if rq.Lease > 0 {
		s.lmu.Lock()
		s.arm(rq.ID, rq.Lease, rq.LeaseUntil)
		s.lmu.Unlock()
	}
	req := requestOf(rq)
	s.log("request put up", "request", rq.ID, "publisher", p.Name, "agent", rq.Agent, "tools", strings.Join(req.tools(), ","))
	writeJSON(w, 201, s.standingOf(req))
}

// withdrawer says who withdrew a request (wire.WithdrawnBy…): its
// publisher, who is kept as the request's RespondedBy, or else the hub
// (lease, expiry), whose reasons begin with hubWithdrawals' words. A
// request its publisher withdrew before publishers were kept has none, and
// its publisher's words.
func withdrawer(respondedBy, reason string) string {
	if respondedBy != "" {
		return wire.WithdrawnByPublisher
	}
	for _, w := range hubWithdrawals {
		if strings.HasPrefix(reason, w) {
			return wire.WithdrawnByHub
		}
	}
	return wire.WithdrawnByPublisher
}

// hubWithdrawals begin the reasons the hub gives when it withdraws a
// request itself (expire, the lease's).
var hubWithdrawals = []string{"expired: ", "its hook stopped waiting ", "no hook came back for it "}

// ReqPrefix begins the id of every request the coordinator gives out (the
// LangGraph server's interrupts have no such ids).
const ReqPrefix = "req-"

// standingOf is a request's standing.
func (s *Server) standingOf(r *request) wire.Standing {
	out := wire.Standing{RequestID: r.ID, Status: string(r.status), Agent: r.Agent, SessionID: r.SessionID, CreatedAt: r.CreatedAt}
	switch r.status {
	case Answered:
		out.Response, out.RespondedBy, out.DecisionID, out.AnsweredAt = r.response, r.respondedBy, r.decisionID, r.answeredAt
	case Withdrawn:
		out.Reason, out.AnsweredAt, out.RespondedBy = r.reason, r.answeredAt, r.respondedBy
		out.WithdrawnBy = withdrawer(r.respondedBy, r.reason)
	case Pending:
		if r.Approval != nil {
			out.Approvals = r.Approval.Approvers
		}
		if r.lease > 0 {
			_, waiting := s.Waiting(r.ID)
			out.PublisherWaiting = &waiting
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
	t := time.NewTimer(wait)
	defer t.Stop()
	attached := false
	for {
		changed := s.st.RequestChanged(id)
		rq, ok, err := s.st.Standing(r.Context(), id)
		if err != nil {
			writeError(w, 503, "the hub cannot read its store: "+err.Error())
			return
		}
		if ok && p.Kind == team.KindPublisher && rq.Publisher != p.Name {
			ok = false // a publisher sees its own requests only
		}
		if !ok {
			writeError(w, 404, "no request "+id+" (a finished request is kept "+s.opts.Retention.String()+")")
			return
		}
		if !attached {
			// A wait of its publisher holds a leased request up.
			attached = true
			defer s.attach(rq, p, wait)()
		}
		if rq.Status != store.Pending || wait == 0 {
			writeJSON(w, 200, s.standingOf(requestOf(rq)))
			return
		}
		select {
		case <-changed:
			continue
		case <-t.C:
		case <-r.Context().Done():
		case <-s.closed:
		}
		wait = 0 // once more, and answer
	}
}

// finish ends a pending request as read at its version; ok false when it
// changed meanwhile (another decision, another hub): read it again.
func (s *Server) finish(ctx context.Context, req *request, f store.Finish, event wire.Change) (bool, error) {
	f.At = s.opts.Now().UTC()
	f.Event, _ = json.Marshal(event)
	ok, err := s.st.Finish(ctx, req.ID, req.version, f)
	if ok && req.lease > 0 {
		s.endLease(req.ID)
	}
	return ok, err
}

// expire withdraws a request its publisher stopped waiting for.
func (s *Server) expire(r store.Request) {
	d := r.ExpiresAt.Sub(r.CreatedAt)
	reason := fmt.Sprintf("expired: its agent stopped waiting after %s", d.Round(time.Second))
	ok, err := s.finish(s.ctx, requestOf(r), store.Finish{Status: store.Withdrawn, Reason: reason},
		wire.Change{RequestID: r.ID, Status: wire.Withdrawn, Reason: reason})
	if err == nil && ok {
		s.log("request withdrawn", "request", r.ID, "reason", reason)
		s.auditWithdrawal(r, "expiry", reason)
	}
}

func (s *Server) withdraw(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	id := r.PathValue("id")
	var body wire.Withdrawal
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
	for {
		rq, ok, err := s.st.Standing(r.Context(), id)
		if err != nil {
			writeError(w, 503, "the hub cannot read its store: "+err.Error())
			return
		}
		if !ok || rq.Publisher != p.Name {
			writeError(w, 404, "no request "+id+" of "+p.Name)
			return
		}
		req := requestOf(rq)
		if req.status != Pending {
			// Answered first: the publisher gets the answer, and can act on it.
			writeJSON(w, 409, s.standingOf(req))
			return
		}
		done, err := s.finish(r.Context(), req, store.Finish{Status: store.Withdrawn, Reason: reason, RespondedBy: p.Name},
			wire.Change{RequestID: id, Status: wire.Withdrawn, RespondedBy: p.Name, Reason: reason})
		if err != nil {
			writeError(w, 503, "the hub cannot write its store, so the request stands: "+err.Error())
			return
		}
		if !done {
			continue // it changed meanwhile: where does it stand now?
		}
		s.log("request withdrawn", "request", id, "reason", reason, "publisher", p.Name)
		s.auditWithdrawal(rq, "http", reason)
		req.status, req.reason, req.respondedBy, req.answeredAt = Withdrawn, reason, p.Name, s.opts.Now().UTC()
		writeJSON(w, 200, s.standingOf(req))
		return
	}
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
	var body wire.Response // responded_by: the token's reviewer, never the body's
	if err := decodeBody(w, r, &body); tooLarge(w, err) {
		return
	} else if err != nil || body.RequestID == "" || (body.Response == nil) == (body.End == nil) {
		writeError(w, 422, "the body needs request_id and either response or end")
		return
	}
	if s.opts.Inbox != nil && !strings.HasPrefix(body.RequestID, ReqPrefix) && s.opts.Inbox.Owns(body.RequestID) {
		// The LangGraph server's interrupt: the hub's one decision path
		// (which writes its audit entry).
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
	ctx := r.Context()
	entry := store.Entry{Reviewer: p.Name, Role: string(p.Role), Door: "http", Hub: s.opts.Hub, RequestID: body.RequestID,
		Value: body.Response, Decision: decisionTypes(body.Response), DecisionID: body.DecisionID}
	audited := false // the store wrote the entry with the change
	answer := func(code int, v any, msg, outcome string) {
		entry.Outcome = outcome
		if entry.Message == "" {
			entry.Message = msg
		}
		if !audited {
			s.audit(ctx, entry)
		}
		writeJSON(w, code, v)
	}
	refuse := func(code int, p wire.Problem, outcome string) { answer(code, p, p.Message, outcome) }
	// Read, decide, write what was read: a change meanwhile (another
	// reviewer, another hub) makes the write fail, and the request is read
	// again; of two decisions at once, one is taken.
	for attempt := 0; ; attempt++ {
		if attempt > 20 {
			writeError(w, 503, "the request kept changing while it was decided (other decisions at once): nothing was decided; send it again")
			return
		}
		rq, ok, err := s.st.Get(ctx, body.RequestID)
		if err != nil {
			writeError(w, 503, "the hub cannot read its store, so nothing was decided: "+err.Error())
			return
		}
		if !ok {
			writeError(w, 404, "no request "+body.RequestID)
			return
		}
		req := requestOf(rq)
		entry.Source, entry.Tools, entry.ThreadID = rq.Source, req.tools(), req.SessionID
		switch req.status {
		case Withdrawn:
			refuse(409, wire.Problem{Error: "Conflict", Message: "already handled elsewhere: withdrawn (" + req.reason + ")",
				RequestID: req.ID, Status: wire.Withdrawn, Reason: req.reason}, store.OutcomeConflict)
			return
		case Answered:
			refuse(409, wire.Problem{Error: "Conflict", Message: "already answered by " + req.respondedBy, RequestID: req.ID, Status: wire.Answered},
				store.OutcomeConflict)
			return
		}
		ds, err := req.decisions(body.Response)
		if err != nil {
			refuse(http.StatusUnprocessableEntity, wire.ProblemOf(http.StatusUnprocessableEntity, err.Error()), store.OutcomeRefused)
			return
		}
		// The team's one rule engine: an action a rule names needs its
		// distinct approvers of this exact answer, whatever the decisions on
		// the other actions; an approval counts toward that exact answer,
		// once per approver, and another answer replaces it. What it judged
		// on is the request as read at its version: the write below takes
		// effect only if nothing changed it since (else it is judged again).
		v, err := rules.Judge(s.rules(), &req.payload, ds, req.Approval, p.Name, body.Response, s.opts.Now())
		if err != nil {
			refuse(http.StatusForbidden, wire.ProblemOf(http.StatusForbidden, err.Error()), store.OutcomeRefused)
			return
		}
		tools := v.Need.Tools
		if !v.Send {
			held := func(code int, outcome string) {
				entry.Approvers = v.Tally.Next.Approvers
				msg := v.Tally.Message(tools)
				out := wire.Receipt{RequestID: req.ID, Status: wire.AwaitingApprovals, Reviewer: p.Name, Approvals: v.Tally.Next.Approvers, Needed: v.Need.Approvals, Message: msg}
				if code == http.StatusForbidden {
					out.Error = http.StatusText(code)
				}
				answer(code, out, msg, outcome)
			}
			if v.Tally.Already {
				// Nothing new to record: refused (403), naming the
				// approval that stands; it still awaits another approver.
				held(http.StatusForbidden, store.OutcomeRefused)
				return
			}
			// The approval and its audit entry in one transaction.
			rec := entry
			rec.Outcome, rec.Approvers, rec.Message, rec.At = store.OutcomeApproved, v.Tally.Next.Approvers, v.Tally.Message(tools), s.opts.Now().UTC()
			done, err := s.st.SetApproval(ctx, req.ID, req.version, mustJSON(v.Tally.Next), s.opts.Now().UTC(), &rec)
			if err != nil {
				writeError(w, 503, "the hub cannot write its store, so the approval is not recorded: "+err.Error())
				return
			}
			if !done {
				continue
			}
			s.log("approval recorded", "request", req.ID, "reviewer", p.Name, "door", "http", "approvals", fmt.Sprintf("%d/%d", len(v.Tally.Next.Approvers), v.Need.Approvals),
				"approvers", strings.Join(v.Tally.Next.Approvers, ","), "recorded", v.Tally.Recorded(tools))
			audited = true
			held(http.StatusAccepted, store.OutcomeApproved)
			return
		}
		approvers := v.Approvers
		by := strings.Join(approvers, " + ") // in the order they approved
		// Whether its publisher waits on it as it is decided: once taken,
		// the wait ends with the answer (lease.go).
		_, waiting := s.Waiting(req.ID)
		// The decision and its audit entry in one transaction: a hub
		// killed at any moment keeps both or neither.
		sent := entry
		sent.Outcome, sent.Approvers, sent.At = store.OutcomeSent, approvers, s.opts.Now().UTC()
		if req.lease > 0 && !waiting {
			// As the reviewer was told (NobodyWaits).
			sent.Message = "no hook was waiting on it (killed, or cut off from the hub): its agent gets the answer only if its hook asks for it again (the hub keeps the answer for " + wire.Span(s.opts.Retention) + ")"
		}
		done, err := s.finish(ctx, req, store.Finish{Status: store.Answered, Response: body.Response, RespondedBy: by, DecisionID: body.DecisionID, Audit: &sent},
			wire.Change{RequestID: req.ID, Status: wire.Answered, RespondedBy: by, Response: body.Response})
		if err != nil {
			writeError(w, 503, "the hub cannot write its store, so nothing was decided: "+err.Error())
			return
		}
		if !done {
			continue
		}
		s.log("decision sent", "request", req.ID, "reviewer", p.Name, "door", "http", "decisions", decisionTypes(body.Response), "approvers", strings.Join(approvers, ","), "decision_id", body.DecisionID)
		entry.Approvers = approvers
		audited = true
		out := wire.Receipt{RequestID: req.ID, Status: wire.Resolved, Reviewer: p.Name, RespondedBy: by}
		if req.lease > 0 {
			// Its publisher waits on it, or not right now (lease.go).
			out.PublisherWaiting = &waiting
			if !waiting {
				out.Message = s.NobodyWaits()
			}
		}
		answer(200, out, "", store.OutcomeSent)
		return
	}
}

// NobodyWaits is what a reviewer who answers a request whose publisher is
// not waiting on it is told: the request stays answered, and a hook that
// asks again gets the answer while the hub keeps it.
func (s *Server) NobodyWaits() string { return wire.NobodyWaitsFor(s.opts.Retention) }

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

// sourceOf says whose a request is: a coding agent's hook, or another
// publisher's.
func sourceOf(data json.RawMessage) string {
	var d struct {
		Hook json.RawMessage `json:"agent_hook"`
	}
	if json.Unmarshal(data, &d) == nil && len(d.Hook) > 0 {
		return "hook"
	}
	return "publisher"
}

// decisionTypes are a response's decisions' types, "approve,reject".
func decisionTypes(resp json.RawMessage) string {
	var r struct {
		Decisions []struct {
			Type string `json:"type"`
		} `json:"decisions"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return ""
	}
	var out []string
	for _, d := range r.Decisions {
		out = append(out, d.Type)
	}
	return strings.Join(out, ",")
}

// audit appends e to the team's audit log; a failure is logged, never the
// decision's undoing.
func (s *Server) audit(ctx context.Context, e store.Entry) {
	if e.At.IsZero() {
		e.At = s.opts.Now().UTC()
	}
	if _, err := s.st.Audit(context.WithoutCancel(ctx), e); err != nil {
		s.log("the audit log did not take a decision", "request", e.RequestID, "reviewer", e.Reviewer, "error", err)
	}
}

// Audit appends a decision taken elsewhere in the hub (an SSH session, the
// door on the LangGraph server's interrupts) to the team's audit log. Its
// Source, when empty, is the request's when it is one of the
// coordinator's, else "langgraph".
func (s *Server) Audit(ctx context.Context, e store.Entry) {
	if e.Hub == "" {
		e.Hub = s.opts.Hub
	}
	if e.Source == "" {
		e.Source = "langgraph"
		if strings.HasPrefix(e.RequestID, ReqPrefix) {
			if rq, ok, err := s.st.Standing(ctx, e.RequestID); err == nil && ok {
				e.Source = rq.Source
			}
		}
	}
	s.audit(ctx, e)
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func writeJSON(w http.ResponseWriter, code int, v any) { wire.WriteJSON(w, code, v) }

func writeError(w http.ResponseWriter, code int, msg string) { wire.WriteError(w, code, msg) }

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

// Pending lists what waits, oldest first, as the protocol lists it (none
// when the store cannot be read: the log says why).
func (s *Server) Pending() []wire.Request {
	reqs, err := s.st.Pending(s.ctx)
	if err != nil {
		if s.ctx.Err() == nil { // not the hub stopping
			s.log("the store cannot be read", "error", err)
		}
		return nil
	}
	out := make([]wire.Request, 0, len(reqs))
	for _, rq := range reqs {
		out = append(out, requestOf(rq).listed())
	}
	return out
}

// Standing is where one request stands.
type Standing struct {
	Status      Status
	Reason      string
	RespondedBy string // answered: who; withdrawn by its publisher: the publisher
	Response    json.RawMessage
	DecisionID  string
	AnsweredAt  time.Time
	// ByHub: withdrawn by the hub itself (its lease ran out, it expired),
	// not by its publisher.
	ByHub bool
}

// Lookup says where request id stands; ok false for an unknown id.
func (s *Server) Lookup(id string) (Standing, bool) {
	if !strings.HasPrefix(id, ReqPrefix) {
		return Standing{}, false // the LangGraph server's
	}
	r, ok, err := s.st.Standing(s.ctx, id)
	if err != nil || !ok {
		return Standing{}, false
	}
	st := Standing{Status: Status(r.Status), Reason: r.Reason, RespondedBy: r.RespondedBy, Response: r.Response, DecisionID: r.DecisionID, AnsweredAt: r.AnsweredAt}
	if st.Status == Withdrawn {
		st.ByHub = withdrawer(r.RespondedBy, r.Reason) == wire.WithdrawnByHub
	}
	return st, true
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
	rq, ok, err := s.st.Get(s.ctx, id)
	switch {
	case err != nil:
		return err
	case !ok:
		return ErrUnknown
	}
	req := requestOf(rq)
	switch {
	case req.status == Withdrawn:
		return fmt.Errorf("%w: withdrawn (%s)", ErrHandled, req.reason)
	case req.status != Pending:
		return fmt.Errorf("%w: answered by %s", ErrHandled, req.respondedBy)
	}
	if _, err := req.decisions(response); err != nil {
		return fmt.Errorf("%w: %v", ErrNotAllow, err)
	}
	by := strings.Join(approvers, " + ")
	// Not on the version read: an approval recorded meanwhile does not
	// undo a decision its approvers completed; another answer does.
	done, err := s.st.Finish(s.ctx, id, 0, store.Finish{Status: store.Answered, Response: response, RespondedBy: by, DecisionID: decisionID,
		At: s.opts.Now().UTC(), Event: mustJSON(wire.Change{RequestID: id, Status: wire.Answered, RespondedBy: by, Response: response})})
	if err != nil {
		return err
	}
	if !done {
		if r, ok, _ := s.st.Standing(s.ctx, id); ok && r.Status == store.Withdrawn {
			return fmt.Errorf("%w: withdrawn (%s)", ErrHandled, r.Reason)
		} else if ok {
			return fmt.Errorf("%w: answered by %s", ErrHandled, r.RespondedBy)
		}
		return ErrHandled
	}
	s.log("request answered", "request", id, "approvers", strings.Join(approvers, ","), "decision_id", decisionID)
	return nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// SetApproval records where a rule's approvals of request id stand (nil
// clears them), as approvals of the HTTP door are: an approver there who
// gives the same answer completes them.
func (s *Server) SetApproval(id string, a *ApprovalView) error {
	var b []byte
	if a != nil && (len(a.Approvers) > 0 || len(a.Dropped) > 0) {
		b = mustJSON(a)
	}
	for range 20 {
		r, ok, err := s.st.Standing(s.ctx, id)
		if err != nil {
			return err
		}
		if !ok || r.Status != store.Pending {
			return ErrUnknown
		}
		done, err := s.st.SetApproval(s.ctx, id, r.Version, b, s.opts.Now().UTC(), nil)
		if err != nil || done {
			return err
		}
	}
	return errors.New("the request keeps changing: the approval is not recorded")
}

// Changes signals every change of the requests (this hub's, and another
// hub's on a shared store) until ctx ends.
func (s *Server) Changes(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.closed:
				return
			case <-s.st.Changed():
			}
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out
}

// Prune drops the pending approvals of reviewers who are no longer
// approvers of the team in force (a reload removed them, or made them
// viewers): each approval so changed names them (Dropped), every
// reviewer's list shows it, they no longer count, and the team's audit log
// says so (OutcomeDropped, one entry per reviewer dropped). Each change is
// made on the request as read (another hub's decision meanwhile: it is
// read again). It returns how many requests changed. The hub calls it
// after each reload of the team.
func (s *Server) Prune() int {
	t := s.rules()
	if t == nil {
		return 0
	}
	reqs, err := s.st.Pending(s.ctx)
	if err != nil {
		s.log("the store cannot be read, so no approval was pruned", "error", err)
		return 0
	}
	n := 0
	for _, rq := range reqs {
		for range 20 {
			req := requestOf(rq)
			a, changed := rules.Prune(t, req.Approval)
			if !changed {
				break
			}
			done, err := s.st.SetApproval(s.ctx, req.ID, req.version, mustJSON(a), s.opts.Now().UTC(), nil)
			if err != nil {
				s.log("the store did not take a pruned approval", "request", req.ID, "error", err)
				break
			}
			if done {
				n++
				gone := a.Dropped[len(a.Dropped)-(len(req.Approval.Approvers)-len(a.Approvers)):]
				s.log("approval dropped", "request", req.ID, "dropped", strings.Join(gone, ","), "why", "no longer an approver", "approval", a.Words())
				for _, who := range gone {
					s.audit(s.ctx, store.Entry{Reviewer: who, Door: "reload", Hub: s.opts.Hub, Source: rq.Source, RequestID: req.ID, ThreadID: req.SessionID,
						Tools: req.tools(), Approvers: a.Approvers, Outcome: store.OutcomeDropped,
						Message: who + "'s approval dropped: no longer an approver of the team (" + a.Words() + ")"})
				}
				break
			}
			r, ok, err := s.st.Get(s.ctx, rq.ID)
			if err != nil || !ok || r.Status != store.Pending {
				break
			}
			rq = r
		}
	}
	return n
}
