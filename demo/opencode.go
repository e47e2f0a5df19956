package demo

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/coord/wire"
	"github.com/tmaxmax/go-sse"
)

// OpencodeServer serves opencode's permission routes as the real server
// does (anomalyco/opencode: packages/schema/src/permission-v1.ts, the
// server's permission routes): GET /permission, POST
// /permission/{id}/reply, and GET /event (SSE, data {"type","properties"},
// server.connected first, then permission.asked and permission.replied).
// Its agents ask and never run anything; what each reply brought is kept
// for tests (Replies). The real server needs a model to ask anything.
type OpencodeServer struct {
	mu      sync.Mutex
	pending []OpencodeRequest
	allowed map[string][]string // session -> always patterns allowed
	bus     wire.Hub
	listener
	n    int
	last int64 // the last id's time and counter (ids ascend)
	// Replies are the replies received for each request, in order: what
	// reached the agent ({"reply","message"}), and the replies opencode
	// gave others itself (a reject rejects the session's other requests).
	Replies map[string][]OpencodeReply
	// Legacy answers a reply to a request not pending with 200 false, as
	// opencode's older handler did, instead of 404.
	Legacy bool
}

// OpencodeRequest is one permission request.
type OpencodeRequest struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Permission string          `json:"permission"`
	Patterns   []string        `json:"patterns"`
	Metadata   json.RawMessage `json:"metadata"`
	Always     []string        `json:"always"`
	Tool       *OpencodeTool   `json:"tool,omitempty"`
}

// OpencodeTool is the tool call a request asks for.
type OpencodeTool struct {
	MessageID string `json:"messageID"`
	CallID    string `json:"callID"`
}

// OpencodeReply is a reply a request got.
type OpencodeReply struct {
	Reply   string `json:"reply"`
	Message string `json:"message,omitempty"`
	// By is "reviewer" for a reply received, or why opencode replied
	// itself ("rejected with …", "allowed always by …").
	By string `json:"by"`
}

// NewOpencode returns the server with nothing pending.
func NewOpencode() *OpencodeServer {
	return &OpencodeServer{allowed: map[string][]string{}, Replies: map[string][]OpencodeReply{}, bus: wire.Hub{Stream: opencodeStream()}}
}

// opencodeStream is how opencode's GET /event speaks: data alone, no ids
// (a reader gets what happens from when it connects),
// server.connected first, server.heartbeat every 10 s.
func opencodeStream() wire.Stream {
	hello, beat := &sse.Message{}, &sse.Message{}
	hello.AppendData(`{"type":"server.connected","properties":{}}`)
	beat.AppendData(`{"type":"server.heartbeat","properties":{}}`)
	return wire.Stream{Bare: true, Hello: hello, Keepalive: beat, KeepaliveEvery: 10 * time.Second}
}

// Start listens on addr and serves in the background.
func (s *OpencodeServer) Start(addr string) error { return s.listen(addr, s.Handler()) }

// Close stops it, ending every stream.
func (s *OpencodeServer) Close() error {
	s.bus.Close()
	return s.close()
}

// Handler serves the routes.
func (s *OpencodeServer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /permission", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		out := append([]OpencodeRequest{}, s.pending...)
		s.mu.Unlock()
		writeJSON(w, 200, out)
	})
	mux.HandleFunc("POST /permission/{id}/reply", s.reply)
	mux.Handle("GET /event", &s.bus)
	return mux
}

// Ask makes a request of permission for patterns in session, as opencode's
// tools do, and returns its id. always are the patterns an "always" reply
// allows; metadata may be nil.
func (s *OpencodeServer) Ask(session, permission string, patterns, always []string, metadata any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	md, _ := json.Marshal(metadata)
	if metadata == nil {
		md = []byte("{}")
	}
	r := OpencodeRequest{ID: s.newID(), SessionID: session, Permission: permission, Patterns: patterns, Metadata: md,
		Always: always, Tool: &OpencodeTool{MessageID: "msg_" + newID()[:20], CallID: "call_" + newID()[:12]}}
	if r.Patterns == nil {
		r.Patterns = []string{}
	}
	if r.Always == nil {
		r.Always = []string{}
	}
	if covered(r.Patterns, s.allowed[session]) {
		// Allowed for good earlier in the session: opencode does not ask.
		s.Replies[r.ID] = append(s.Replies[r.ID], OpencodeReply{Reply: "once", By: "allowed always"})
		return r.ID
	}
	s.pending = append(s.pending, r)
	s.publish("permission.asked", r)
	return r.ID
}

// newID is an ascending id as opencode makes them: per_, the time in
// milliseconds × 4096 plus a counter as 16 hex digits, then 12 random
// characters.
func (s *OpencodeServer) newID() string {
	v := time.Now().UnixMilli() * 0x1000
	if v <= s.last {
		v = s.last + 1
	}
	s.last = v
	return fmt.Sprintf("per_%016x%s", v, base62(12))
}

// base62 is n random characters of opencode's alphabet.
func base62(n int) string {
	const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = chars[int(b[i])%len(chars)]
	}
	return string(b)
}

func (s *OpencodeServer) reply(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Reply   string  `json:"reply"`
		Message *string `json:"message"`
	}
	if err := decodeBody(req, &body); err != nil || (body.Reply != "once" && body.Reply != "always" && body.Reply != "reject") {
		writeJSON(w, 400, map[string]any{"_tag": "BadRequest", "message": `reply must be "once", "always" or "reject"`})
		return
	}
	id := req.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := -1
	for i, p := range s.pending {
		if p.ID == id {
			idx = i
		}
	}
	if idx < 0 {
		if s.Legacy {
			writeJSON(w, 200, false)
			return
		}
		writeJSON(w, 404, map[string]any{"_tag": "PermissionNotFoundError", "requestID": id, "message": "Permission request " + id + " not found"})
		return
	}
	r := s.pending[idx]
	msg := ""
	if body.Message != nil {
		msg = *body.Message
	}
	s.answer(r, OpencodeReply{Reply: body.Reply, Message: msg, By: "reviewer"})
	switch body.Reply {
	case "reject":
		// opencode rejects the session's other requests with it.
		for _, p := range append([]OpencodeRequest{}, s.pending...) {
			if p.SessionID == r.SessionID {
				s.answer(p, OpencodeReply{Reply: "reject", By: "rejected with " + r.ID})
			}
		}
	case "always":
		s.allowed[r.SessionID] = append(s.allowed[r.SessionID], r.Always...)
		for _, p := range append([]OpencodeRequest{}, s.pending...) {
			if p.SessionID == r.SessionID && covered(p.Patterns, s.allowed[r.SessionID]) {
				s.answer(p, OpencodeReply{Reply: "once", By: "allowed always by " + r.ID})
			}
		}
	}
	writeJSON(w, 200, true)
}

// answer takes r off the pending list, records the reply and announces it.
func (s *OpencodeServer) answer(r OpencodeRequest, rp OpencodeReply) {
	for i, p := range s.pending {
		if p.ID == r.ID {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			break
		}
	}
	s.Replies[r.ID] = append(s.Replies[r.ID], rp)
	s.publish("permission.replied", map[string]string{"sessionID": r.SessionID, "requestID": r.ID, "reply": rp.Reply})
}

// covered says whether every pattern matches one of the allowed wildcards
// (opencode's: * is anything).
func covered(patterns, allowed []string) bool {
	for _, p := range patterns {
		ok := false
		for _, a := range allowed {
			re := "^" + strings.ReplaceAll(regexp.QuoteMeta(a), `\*`, ".*") + "$"
			if m, _ := regexp.MatchString(re, p); m {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return len(patterns) > 0
}

// Answered is the replies request id got (for tests), under the lock.
func (s *OpencodeServer) Answered(id string) []OpencodeReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]OpencodeReply(nil), s.Replies[id]...)
}

func (s *OpencodeServer) publish(typ string, props any) {
	s.bus.Publish("", map[string]any{"type": typ, "properties": props})
}

// opencodeScenarios are what opencode's tools ask, as its bash, edit,
// webfetch and external_directory tools word it.
var opencodeScenarios = []struct {
	permission       string
	patterns, always []string
	metadata         any
}{
	{"bash", []string{"git push --force origin main"}, []string{"git push *"}, nil},
	{"edit", []string{"src/server.ts"}, []string{"*"}, map[string]any{"filepath": "/src/app/src/server.ts",
		"diff": "--- src/server.ts\n+++ src/server.ts\n@@ -1 +1 @@\n-const port = 3000\n+const port = 8080\n"}},
	{"bash", []string{"rm -rf node_modules", "npm ci"}, []string{"rm *", "npm ci *"}, nil},
	{"webfetch", []string{"https://docs.example.com/api"}, []string{"*"}, map[string]any{"url": "https://docs.example.com/api"}},
	{"external_directory", []string{"/etc/*"}, []string{"/etc/*"}, nil},
}

// Seed asks one request of every scenario, plus burst more.
func (s *OpencodeServer) Seed(burst int) {
	for range len(opencodeScenarios) + burst {
		s.askNext()
	}
}

func (s *OpencodeServer) askNext() {
	s.mu.Lock()
	sc := opencodeScenarios[s.n%len(opencodeScenarios)]
	s.n++
	session := fmt.Sprintf("ses_demo%04d", s.n)
	s.mu.Unlock()
	s.Ask(session, sc.permission, sc.patterns, sc.always, sc.metadata)
	time.Sleep(time.Millisecond)
}

// Produce asks a new request every `every` until ctx ends, while fewer
// than upTo wait.
func (s *OpencodeServer) Produce(ctx context.Context, every time.Duration, upTo int) {
	produce(ctx, every, upTo, s.Waiting, s.askNext)
}

// Waiting is how many requests wait for a reply.
func (s *OpencodeServer) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}
