// Package hostile is a LangGraph server built to attack its client, for
// tests: it wraps the embedded demo server (whose agents stay answerable)
// and adds threads whose every string tries to drive the terminal, an
// interrupt nested 100,000 levels deep, a 10 MB string, threads that are
// not threads; on demand it answers every request with an error whose body
// and headers attack the terminal and echo the API key, redirects every
// request to another origin, or fails the runs of decisions with such an
// error. Dangerous says whether output carries anything of it.
package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hitl-sh/hitl/demo"
)

// Text is every way a server's text can try to act on a terminal or hide
// itself: OSC 0 (window title, BEL-terminated), CSI colours and screen
// clearing, an OSC 8 hyperlink, the C1 CSI U+009B (and as a lone byte, for
// 8-bit terminals), a bidi override, zero-width characters, DEL, CR, NUL,
// an OSC 52 clipboard write.
const Text = "A\x1b]0;pwned title\x07B \x1b[31mred\x1b[0m C \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ " +
	"D\u009b31m E\u202egnp.exe F\u200bG\ufeffH \x1b[2J\x1b[H I\x7f J\rK\x00 L\x9bM N\x1b]52;c;cHduZWQ=\x07O"

// HeaderText is what of Text a header can carry to Go's HTTP client, which
// refuses an answer whose header holds an ASCII control character (ESC,
// BEL, DEL): the C1 CSI, bidi and zero-width characters, the lone byte 0x9b.
var HeaderText = strings.Map(func(r rune) rune {
	if r < 0x20 || r == 0x7f {
		return -1
	}
	return r
}, Text)

// The poisoned interrupts' ids. Each starts with four plain characters, so
// that a reviewer can name it; IDHostile then carries Text's weapons.
const (
	IDHostile = "e5c4\x1b]0;pwned\x07\u202e\u200b\u009b31m-hostile"
	// IDHostile2 shares IDHostile's first characters: "e5c4" is ambiguous.
	IDHostile2 = "e5c4\u202e\x1b[2J-second"
	IDDeep     = "dee90000000000000000000000000001"
	IDHuge     = "b16a0000000000000000000000000002"
	// ThreadHostile, GraphHostile: the hostile interrupt's thread and graph.
	ThreadHostile = "7h4e\x1b[31m\u202ethread\u200b"
	GraphHostile  = "graph\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\u009b2J"
	ThreadDeep    = "thread-deep"
	ThreadHuge    = "thread-huge"
	// ThreadBroken is a thread whose interrupts are not a map (malformed).
	ThreadBroken = "thread-broken"
)

// Mode is how the server answers.
type Mode int

const (
	// Normal: the demo's threads, plus the poisoned ones.
	Normal Mode = iota
	// Errors: every request gets HTTP 500 with Text and the key in the
	// body and in a header.
	Errors
	// NotJSON: every request gets 200 with a body that is not JSON and a
	// Content-Type made of Text.
	NotJSON
	// Redirect: every request gets a 307 to Elsewhere (with the key in the
	// query).
	Redirect
	// RedirectWrites: decisions (POST /threads/{id}/runs) get a 307 to
	// Elsewhere, which would carry their body along; reads are answered.
	RedirectWrites
)

// Options say what the server serves.
type Options struct {
	// Key is the API key the client under test is configured with: the
	// server echoes it in errors and run errors.
	Key string
	// Deep is how deep the deep interrupt nests (0: no such interrupt).
	Deep int
	// Huge is the length of the huge interrupt's string (0: none).
	Huge int
	// Broken adds ThreadBroken, whose interrupts are not a map of tasks.
	Broken bool
}

// Request is a request that reached Elsewhere.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Server is the hostile server.
type Server struct {
	URL string
	// Demo is the embedded server behind: its agents are answerable.
	Demo *demo.Server
	// Elsewhere is another origin: what reaches it is kept (Reached).
	Elsewhere *httptest.Server

	opts  Options
	front *httptest.Server
	back  http.Handler
	start time.Time

	mu       sync.Mutex
	mode     Mode
	failRuns bool
	reached  []Request
	seen     []Request // every request to the front, headers included
}

// New starts the server; Close stops it.
func New(opts Options) *Server {
	s := &Server{opts: opts, Demo: demo.New(), start: time.Now().Add(-time.Hour)}
	s.back = s.Demo.Handler()
	s.Elsewhere = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reached = append(s.reached, Request{r.Method, r.URL.String(), r.Header.Clone(), body})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[]`)
	}))
	s.front = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.front.URL
	return s
}

// Close stops the servers.
func (s *Server) Close() {
	s.front.Close()
	s.Elsewhere.Close()
}

// SetMode changes how the server answers from now on.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
}

// FailRuns makes the runs of decisions on the demo's threads end in an
// error made of Text and the key.
func (s *Server) FailRuns(on bool) {
	s.mu.Lock()
	s.failRuns = on
	s.mu.Unlock()
}

// Reached returns the requests that reached Elsewhere.
func (s *Server) Reached() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reached...)
}

// Seen returns every request the server got.
func (s *Server) Seen() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.seen...)
}

// Agent starts a thread of the demo's support agent (send_email: approve,
// edit, reject) and runs it until it waits for a decision; it returns the
// thread's id.
func (s *Server) Agent() (string, error) {
	var th struct {
		ThreadID string `json:"thread_id"`
	}
	b, err := s.call("POST", "/threads", `{}`)
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(b, &th); err != nil {
		return "", err
	}
	_, err = s.call("POST", "/threads/"+th.ThreadID+"/runs/wait",
		`{"assistant_id":"support","input":{"messages":[{"role":"user","content":"email"}]}}`)
	return th.ThreadID, err
}

func (s *Server) call(method, path, body string) ([]byte, error) {
	rec := httptest.NewRecorder()
	s.back.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	if rec.Code >= 300 {
		return nil, fmt.Errorf("%s %s: HTTP %d: %s", method, path, rec.Code, rec.Body)
	}
	return rec.Body.Bytes(), nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.mu.Lock()
	s.seen = append(s.seen, Request{r.Method, r.URL.String(), r.Header.Clone(), body})
	mode, failRuns := s.mode, s.failRuns
	s.mu.Unlock()
	switch mode {
	case Errors:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Error", HeaderText+" "+s.opts.Key)
		w.WriteHeader(http.StatusInternalServerError)
		msg, _ := json.Marshal(map[string]string{"detail": Text + " (your key: " + s.opts.Key + ")"})
		_, _ = w.Write(msg)
		return
	case NotJSON:
		w.Header().Set("Content-Type", "text/html"+HeaderText+"; key="+s.opts.Key)
		_, _ = io.WriteString(w, "<html>"+Text+"</html>")
		return
	case Redirect:
		http.Redirect(w, r, s.Elsewhere.URL+r.URL.Path+"?api_key="+s.opts.Key, http.StatusTemporaryRedirect)
		return
	case RedirectWrites:
		if r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/runs") {
			http.Redirect(w, r, s.Elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
	}
	switch {
	case r.Method == "POST" && r.URL.Path == "/threads/search":
		s.search(w, r, body)
		return
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/threads/") && strings.HasSuffix(r.URL.Path, "/state"):
		if id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/threads/"), "/state"); s.poisoned(id) {
			s.state(w, id)
			return
		}
	case failRuns && r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/join"):
		rec := httptest.NewRecorder()
		s.back.ServeHTTP(rec, r)
		w.Header().Set("Content-Type", "application/json")
		msg, _ := json.Marshal(map[string]any{"__error__": map[string]string{
			"error": "Hostile\x1b[31mError", "message": Text + " (key " + s.opts.Key + ")"}})
		_, _ = w.Write(msg)
		return
	}
	s.back.ServeHTTP(w, r)
}

// poisoned reports whether id is one of the poisoned threads.
func (s *Server) poisoned(id string) bool {
	for _, t := range s.threads() {
		if t.id == id {
			return true
		}
	}
	return false
}

type poison struct {
	id   string
	json []byte
}

// threads are the poisoned threads, as /threads/search lists them.
func (s *Server) threads() []poison {
	at := s.start.UTC().Format(time.RFC3339Nano)
	thread := func(id, graph, interrupts string) poison {
		head, _ := json.Marshal(map[string]any{"thread_id": id, "created_at": at, "updated_at": at, "status": "interrupted",
			"metadata": map[string]any{"graph_id": graph, "assistant_id": "asst" + Text, "note": Text}})
		return poison{id, append(head[:len(head)-1], []byte(`,"interrupts":`+interrupts+`}`)...)}
	}
	task := func(id string, value []byte) string {
		idJSON, _ := json.Marshal(id)
		return `{"task-1":[{"id":` + string(idJSON) + `,"value":` + string(value) + `}]}`
	}
	second, _ := json.Marshal(Text)
	hostileValue, _ := json.Marshal(map[string]any{
		"action_requests": []any{map[string]any{
			"name":        "send" + Text,
			"args":        map[string]any{"to": Text, "body": "hi " + Text},
			"description": "Send [an email](https://evil.example/) " + Text,
		}},
		"review_configs": []any{map[string]any{"action_name": "send" + Text, "allowed_decisions": []string{"approve", "reject"}}},
	})
	// Two interrupts in the hostile thread's task; the second, a prompt.
	two := strings.TrimSuffix(task(IDHostile, hostileValue), "]}")
	id2, _ := json.Marshal(IDHostile2)
	two += `,{"id":` + string(id2) + `,"value":` + string(second) + `}]}`
	out := []poison{thread(ThreadHostile, GraphHostile, two)}
	if s.opts.Deep > 0 {
		deep := strings.Repeat("[", s.opts.Deep) + strings.Repeat("]", s.opts.Deep)
		out = append(out, thread(ThreadDeep, "deep-graph", task(IDDeep, []byte(deep))))
	}
	if s.opts.Huge > 0 {
		huge := `"` + strings.Repeat("x", s.opts.Huge) + `"`
		out = append(out, thread(ThreadHuge, "huge-graph", task(IDHuge, []byte(huge))))
	}
	if s.opts.Broken {
		notMap, _ := json.Marshal("not a map of tasks " + Text)
		out = append(out, thread(ThreadBroken, "broken-graph", string(notMap)))
	}
	for i := range out {
		// The JSON above holds Text's bytes escaped by encoding/json: the
		// weapons arrive as JSON escapes, and decode to the raw bytes.
		if !json.Valid(out[i].json) && out[i].id != ThreadDeep {
			panic(fmt.Sprintf("hostile: thread %q is not JSON: %.200s", out[i].id, out[i].json))
		}
	}
	return out
}

// search answers /threads/search: the demo's answer with the poisoned
// threads first (on the first page of a search for interrupted threads, or
// a search naming them).
func (s *Server) search(w http.ResponseWriter, r *http.Request, body []byte) {
	var q struct {
		Status string   `json:"status"`
		Offset int      `json:"offset"`
		IDs    []string `json:"ids"`
	}
	_ = json.Unmarshal(body, &q)
	var add []poison
	for _, p := range s.threads() {
		named := false
		for _, id := range q.IDs {
			named = named || id == p.id
		}
		if named || (q.IDs == nil && q.Status == "interrupted" && q.Offset == 0) {
			add = append(add, p)
		}
	}
	rec := httptest.NewRecorder()
	s.back.ServeHTTP(rec, r)
	out := rec.Body.Bytes()
	if rec.Code == 200 && len(add) > 0 {
		var b bytes.Buffer
		b.WriteByte('[')
		for i, p := range add {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(p.json)
		}
		rest := bytes.TrimSpace(out)[1:]
		if !bytes.HasPrefix(bytes.TrimSpace(rest), []byte("]")) {
			b.WriteByte(',')
		}
		b.Write(rest)
		out = b.Bytes()
		if total, err := strconv.Atoi(rec.Header().Get("X-Pagination-Total")); err == nil {
			rec.Header().Set("X-Pagination-Total", strconv.Itoa(total+len(add)))
		}
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	_, _ = w.Write(out)
}

// state answers /threads/{id}/state of a poisoned thread: its interrupt in
// its task, and a conversation of hostile messages.
func (s *Server) state(w http.ResponseWriter, id string) {
	msgs, _ := json.Marshal([]any{
		map[string]any{"type": "human", "content": "hi " + Text},
		map[string]any{"type": "ai", "content": Text, "tool_calls": []any{map[string]any{"name": "tool" + Text, "args": map[string]string{"a": Text}}}},
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"values":{"messages":`+string(msgs)+`},"next":["tools"],"tasks":[],"checkpoint":{"checkpoint_id":"cp-1"}}`)
}

// Dangerous reports the first thing in b that would act on a terminal or
// hide itself there: a control character other than newline and tab (ESC,
// BEL, CR, NUL, DEL), a C1 control (U+0080 to U+009F, or such a byte that
// is not UTF-8), a bidi control, a zero-width or other invisible
// character, or bytes that are not UTF-8. It says where, inertly.
func Dangerous(b []byte) (string, bool) {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if bad(r) || (r == utf8.RuneError && size == 1) {
			lo, hi := max(i-40, 0), min(i+40, len(b))
			return fmt.Sprintf("%U at byte %d, in %+q", r, i, b[lo:hi]), true
		}
		i += size
	}
	return "", false
}

func bad(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true
	case r == 0x00ad || r == 0x034f || r == 0x115f || r == 0x1160 || r == 0x17b4 || r == 0x17b5 || r == 0x180e ||
		(r >= 0x200b && r <= 0x200d) || (r >= 0x2060 && r <= 0x2064) || r == 0x3164 || r == 0xfeff || r == 0xffa0 ||
		(r >= 0xfff9 && r <= 0xfffb) || (r >= 0xe0000 && r <= 0xe007f):
		return true
	}
	return false
}

// isSGR is the length of the Select Graphic Rendition sequence (ESC [
// digits, ';' or ':', m) s starts with, or 0.
func isSGR(s string) int {
	if !strings.HasPrefix(s, "\x1b[") {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// Unstyled removes the SGR sequences (colours, bold, faint, underline,
// reverse) that the TUI's own styles write, and nothing else: any other
// escape sequence stays for Dangerous to find. A server's SGR cannot hide
// in what is removed: the TUI shows a server's ESC as the visible text
// `\u001b`, which tests look for.
func Unstyled(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := isSGR(s[i:]); n > 0 {
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
