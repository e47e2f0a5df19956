package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/coord/wire"
)

// EventsServer serves hitl's event-stream coordinator protocol (see
// docs/backends.md): GET /hitl/pending, GET /hitl/events (SSE with Last-Event-ID
// replay), POST /hitl/respond. Scripted agents ask; a response resolves the
// request and every reviewer is told with hitl_answered.
type EventsServer struct {
	mu      sync.Mutex
	pending []wire.Request
	hub     wire.Hub
	listener
	n int
	// Answers are the responses received, by request id (for tests).
	Answers map[string]json.RawMessage
	// answered is where each answered request stands, for GET
	// /hitl/requests/{id}.
	answered map[string]wire.Standing
}

// NewEvents returns the coordinator with nothing pending. A reader of its
// stream that names no event gets every event.
func NewEvents() *EventsServer {
	return &EventsServer{Answers: map[string]json.RawMessage{}, answered: map[string]wire.Standing{}, hub: wire.Hub{Stream: wire.Stream{FromStart: true}}}
}

// Start listens on addr and serves in the background.
func (s *EventsServer) Start(addr string) error { return s.listen(addr, s.Handler()) }

// Close stops it, ending every stream.
func (s *EventsServer) Close() error {
	s.hub.Close()
	return s.close()
}

// Handler serves the protocol.
func (s *EventsServer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hitl/pending", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		out := append([]wire.Request{}, s.pending...)
		s.mu.Unlock()
		writeJSON(w, 200, out)
	})
	mux.HandleFunc("POST /hitl/respond", s.respond)
	mux.HandleFunc("GET /hitl/requests/{id}", s.request)
	mux.Handle("GET /hitl/events", &s.hub)
	return mux
}

// Ask publishes a request from agent in session and returns its id.
func (s *EventsServer) Ask(agent, session string, data any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(data)
	r := wire.Request{RequestID: "req-" + newID()[:16], Agent: agent, SessionID: session, CreatedAt: time.Now().UTC(), Data: b}
	s.pending = append(s.pending, r)
	s.hub.Publish(wire.Asked, r)
	return r.RequestID
}

func (s *EventsServer) respond(w http.ResponseWriter, req *http.Request) {
	var body wire.Response
	if err := decodeBody(req, &body); err != nil || body.RequestID == "" || body.Response == nil {
		writeError(w, 422, "the body needs request_id and response")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, done := s.Answers[body.RequestID]; done {
		writeError(w, 409, "request "+body.RequestID+" was already answered")
		return
	}
	idx := -1
	for i, p := range s.pending {
		if p.RequestID == body.RequestID {
			idx = i
		}
	}
	if idx < 0 {
		writeError(w, 404, "no pending request "+body.RequestID)
		return
	}
	r := s.pending[idx]
	s.pending = append(s.pending[:idx], s.pending[idx+1:]...)
	s.Answers[r.RequestID] = body.Response
	s.answered[r.RequestID] = wire.Standing{RequestID: r.RequestID, Status: wire.Answered, Response: body.Response,
		DecisionID: body.DecisionID, RespondedBy: body.RespondedBy, AnsweredAt: time.Now().UTC()}
	s.hub.Publish(wire.AnsweredEvent, wire.Change{RequestID: r.RequestID, Status: wire.Answered, RespondedBy: body.RespondedBy, Response: body.Response})
	wire.WriteJSON(w, 200, wire.Receipt{RequestID: r.RequestID, Status: wire.Resolved})
}

// request says where one request stands: pending, or answered by whom with
// which decision id (hitl reads it when the answer to a response was lost).
func (s *EventsServer) request(w http.ResponseWriter, req *http.Request) {
	id := req.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.answered[id]; ok {
		wire.WriteJSON(w, 200, st)
		return
	}
	for _, p := range s.pending {
		if p.RequestID == id {
			wire.WriteJSON(w, 200, wire.Standing{RequestID: id, Status: wire.Pending})
			return
		}
	}
	writeError(w, 404, "no request "+id)
}

// eventScenarios are what the coordinator's agents ask, in every shape hitl reads.
var eventScenarios = []struct {
	agent string
	data  any
}{
	{"deploy-bot", map[string]any{"questions": []any{"Deploy build 1842 to production now?", "Notify #releases?"},
		"allowed_decisions": []any{"approve", "edit", "reject"}, "prompt": "The deploy agent needs your go-ahead:",
		"context": map[string]any{"build": 1842, "tests": "312 passed"}}},
	{"mail-agent", map[string]any{"action_requests": []any{map[string]any{"name": "send_email",
		"args":        ordered{{"to", "cfo@example.com"}, {"subject", "Q3 numbers"}, {"body", "Attached are the Q3 numbers."}},
		"description": "Send the quarterly numbers"}},
		"review_configs": []any{map[string]any{"action_name": "send_email", "allowed_decisions": []any{"approve", "edit", "reject"}}}}},
	{"research-agent", "Two sources disagree on the 2023 revenue (4.1M vs 4.6M). Which should I trust?"},
}

// Seed asks one request of every scenario, plus burst more.
func (s *EventsServer) Seed(burst int) {
	for range len(eventScenarios) + burst {
		s.askNext()
	}
}

func (s *EventsServer) askNext() {
	s.mu.Lock()
	sc := eventScenarios[s.n%len(eventScenarios)]
	s.n++
	session := fmt.Sprintf("session-%d", s.n)
	s.mu.Unlock()
	s.Ask(sc.agent, session, sc.data)
	time.Sleep(time.Millisecond)
}

// Produce asks a new request every `every` until ctx ends, while fewer
// than upTo are open.
func (s *EventsServer) Produce(ctx context.Context, every time.Duration, upTo int) {
	produce(ctx, every, upTo, s.Waiting, s.askNext)
}

// Waiting is how many requests are open.
func (s *EventsServer) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}
