package main

// These tests run the CLI against the real LangGraph dev server started by
// scripts/test (HITL_TEST_LANGGRAPH_URL), with the graphs of testserver/:
// the real humanInTheLoopMiddleware and interrupt() calls of every shape.
// Each one sends a decision through the CLI and asserts what reached the graph.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type server struct {
	t   *testing.T
	url string
}

// realServer returns the server under test, or skips (fails under CI).
func realServer(t *testing.T) *server {
	t.Helper()
	u := os.Getenv("HITL_TEST_LANGGRAPH_URL")
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("HITL_TEST_LANGGRAPH_URL is not set: run the tests with scripts/test")
		}
		t.Skip("no LangGraph dev server: run scripts/test")
	}
	// Each test gets its own state and no config file.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("HITL_CONFIG", filepath.Join(t.TempDir(), "none.yaml"))
	return &server{t: t, url: u}
}

func (s *server) do(method, path string, body any) []byte {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, b)
	}
	return b
}

// start creates a thread of graph and runs it until it pauses.
func (s *server) start(graph string, input any) string {
	s.t.Helper()
	var th struct {
		ThreadID string `json:"thread_id"`
	}
	json.Unmarshal(s.do("POST", "/threads", map[string]any{}), &th)
	s.do("POST", "/threads/"+th.ThreadID+"/runs/wait", map[string]any{"assistant_id": graph, "input": input})
	return th.ThreadID
}

// values is the thread's state values.
func (s *server) values(thread string) map[string]json.RawMessage {
	s.t.Helper()
	var st struct {
		Values map[string]json.RawMessage `json:"values"`
	}
	json.Unmarshal(s.do("GET", "/threads/"+thread+"/state", nil), &st)
	return st.Values
}

func (s *server) runs(thread string) int {
	var runs []any
	json.Unmarshal(s.do("GET", "/threads/"+thread+"/runs", nil), &runs)
	return len(runs)
}

// toolMessages are the thread's tool results: name -> content.
func (s *server) toolMessages(thread string) map[string]string {
	var msgs []struct {
		Type    string `json:"type"`
		Name    string `json:"name"`
		Content string `json:"content"`
	}
	json.Unmarshal(s.values(thread)["messages"], &msgs)
	out := map[string]string{}
	for _, m := range msgs {
		if m.Type == "tool" {
			out[m.Name] = m.Content
		}
	}
	return out
}

// log is the test graphs' record of every resume value a node received.
func (s *server) log(thread string) string {
	var b bytes.Buffer
	json.Compact(&b, s.values(thread)["log"])
	return b.String()
}

type result struct {
	stdout, stderr string
	code           int
}

func hitl(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	code := run(ctx, args, strings.NewReader(stdin), &out, &errb, os.Getenv)
	return result{out.String(), errb.String(), code}
}

func (s *server) hitl(stdin string, args ...string) result {
	s.t.Helper()
	return hitl(s.t, stdin, append([]string{"--url", s.url}, args...)...)
}

type listed struct {
	ID       string `json:"id"`
	ThreadID string `json:"thread_id"`
	GraphID  string `json:"graph_id"`
	Schema   string `json:"schema"`
	Title    string `json:"title"`
	Actions  []struct {
		Name    string          `json:"name"`
		Args    json.RawMessage `json:"args"`
		Allowed []string        `json:"allowed_decisions"`
	} `json:"actions"`
	Questions []string        `json:"questions"`
	Raw       json.RawMessage `json:"raw"`
}

// pending lists, through the CLI, the interrupts of one thread.
func (s *server) pending(thread string) []listed {
	s.t.Helper()
	r := s.hitl("", "list", "--json")
	if r.code != 0 {
		s.t.Fatalf("list: %d %s", r.code, r.stderr)
	}
	var all []listed
	if err := json.Unmarshal([]byte(r.stdout), &all); err != nil {
		s.t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	var out []listed
	for _, it := range all {
		if it.ThreadID == thread {
			out = append(out, it)
		}
	}
	return out
}

func (s *server) onlyPending(thread string) listed {
	s.t.Helper()
	p := s.pending(thread)
	if len(p) != 1 {
		s.t.Fatalf("thread %s has %d pending interrupts, want 1: %+v", thread, len(p), p)
	}
	return p[0]
}

func must(t *testing.T, r result, code int, out string) {
	t.Helper()
	if r.code != code || !strings.Contains(r.stdout+r.stderr, out) {
		t.Fatalf("exit %d (want %d), output does not say %q:\nstdout: %s\nstderr: %s", r.code, code, out, r.stdout, r.stderr)
	}
}

func TestRealMiddlewareEdit(t *testing.T) {
	s := realServer(t)
	th := s.start("agent", map[string]any{"messages": []any{map[string]string{"role": "user", "content": "email"}}})
	it := s.onlyPending(th)
	if it.Schema != "hitl-middleware" || it.Actions[0].Name != "send_email" || strings.Join(it.Actions[0].Allowed, ",") != "approve,edit,reject" {
		t.Fatalf("listed %+v", it)
	}
	edited := `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi Jane", "cc": []}`
	r := s.hitl(edited, "edit", it.ID[:8], "--args", "-")
	must(t, r, 0, "the run finished")
	if got := s.toolMessages(th)["send_email"]; got != `ran send_email {"to":"jane@example.com","subject":"Your refund","body":"Hi Jane","cc":[]}` {
		t.Fatalf("the tool ran with %q", got)
	}
	// A second attempt sends nothing and says why.
	before := s.runs(th)
	must(t, s.hitl("", "approve", it.ID), 3, "already handled")
	if s.runs(th) != before {
		t.Fatal("a second attempt started a run")
	}
	// The audit log has the exact value sent.
	h := s.hitl("", "history", "--json")
	if !strings.Contains(h.stdout, `"editedAction"`) || !strings.Contains(h.stdout, it.ID) {
		t.Fatalf("history: %s", h.stdout)
	}
}

func TestRealMiddlewareMixedDecisions(t *testing.T) {
	s := realServer(t)
	th := s.start("agent", map[string]any{"messages": []any{map[string]string{"role": "user", "content": "ops"}}})
	it := s.onlyPending(th)
	if len(it.Actions) != 2 || strings.Join(it.Actions[0].Allowed, ",") != "approve,reject" {
		t.Fatalf("listed %+v", it)
	}
	// delete_records allows no edit: refused before anything is sent.
	before := s.runs(th)
	must(t, s.hitl(`{"table":"x","where":"1=1"}`, "edit", it.ID, "--args", "-", "--action", "1", "--others", "approve"), 3, `"edit" is not allowed here; allowed: approve, reject`)
	if s.runs(th) != before || len(s.pending(th)) != 1 {
		t.Fatal("a refused decision reached the server")
	}
	// Approve notify, reject the deletion with a reason. The JS middleware
	// then runs neither: it returns the rejection to the model (observed), and
	// hitl says so before sending.
	r := s.hitl("", "approve", it.ID, "--action", "2", "--others", "reject:not during business hours")
	must(t, r, 0, "the run finished")
	must(t, r, 0, "does not run the approved or edited calls")
	tools := s.toolMessages(th)
	if tools["delete_records"] != "not during business hours" {
		t.Errorf("delete_records: %q", tools["delete_records"])
	}
	if _, ran := tools["notify"]; ran {
		t.Errorf("notify ran: %q", tools["notify"])
	}
}

func TestRealMiddlewareApproveOneEditOther(t *testing.T) {
	s := realServer(t)
	th := s.start("agent", map[string]any{"messages": []any{map[string]string{"role": "user", "content": "ops"}}})
	it := s.onlyPending(th)
	r := s.hitl(`{"channel":"#ops-quiet","text":"Pruned"}`, "edit", it.ID, "--action", "2", "--others", "approve", "--args", "-")
	must(t, r, 0, "the run finished")
	tools := s.toolMessages(th)
	if tools["delete_records"] != `ran delete_records {"table":"sessions","where":"last_seen < now() - interval '90 days'"}` ||
		tools["notify"] != `ran notify {"channel":"#ops-quiet","text":"Pruned"}` {
		t.Errorf("tools: %q", tools)
	}
}

func TestRealMiddlewareArgsSchema(t *testing.T) {
	s := realServer(t)
	th := s.start("agent", map[string]any{"messages": []any{map[string]string{"role": "user", "content": "refund"}}})
	it := s.onlyPending(th)
	must(t, s.hitl(`{"order_id":"A-1001","amount":150,"currency":"EUR"}`, "edit", it.ID, "--args", "-"), 2, "at $.amount: maximum: got 150, want 100")
	must(t, s.hitl(`{"order_id":"A-1001","amount":99.99,"currency":"EUR"}`, "edit", it.ID, "--args", "-"), 0, "finished")
	if got := s.toolMessages(th)["issue_refund"]; got != `ran issue_refund {"order_id":"A-1001","amount":99.99,"currency":"EUR"}` {
		t.Fatalf("tool ran with %q", got)
	}
}

func TestRealQuestions(t *testing.T) {
	s := realServer(t)
	th := s.start("questions", map[string]any{"topic": "tests"})
	it := s.onlyPending(th)
	if it.Schema != "questions" || len(it.Questions) != 2 {
		t.Fatalf("listed %+v", it)
	}
	must(t, s.hitl("", "respond", it.ID), 2, "needs a message")
	r := s.hitl("", "respond", it.ID, "-m", "Use React and include tests", "--answer", "React", "--answer", "Yes")
	must(t, r, 0, "paused again")
	if !strings.Contains(s.log(th), `"response":{"decision":"edit","feedback":"Use React and include tests","answers":["React","Yes"]}`) {
		t.Fatalf("log: %s", s.log(th))
	}
	// The edit looped back to the agent, which asked again: a new interrupt.
	again := s.onlyPending(th)
	if again.ID == it.ID {
		t.Fatal("the same interrupt id came back")
	}
	must(t, s.hitl("", "reject", again.ID, "-m", "out of scope"), 0, "finished")
	if !strings.Contains(s.log(th), `{"decision":"reject","feedback":"out of scope","reason":"out of scope"}`) {
		t.Fatalf("log: %s", s.log(th))
	}
}

func TestRealPrompts(t *testing.T) {
	s := realServer(t)
	for _, topic := range []string{"string", "object"} {
		th := s.start("prompt", map[string]any{"topic": topic})
		it := s.onlyPending(th)
		if it.Schema != "prompt" {
			t.Fatalf("%s: listed %+v", topic, it)
		}
		must(t, s.hitl("", "approve", it.ID), 3, "allowed: respond")
		must(t, s.hitl("", "respond", it.ID, "-m", "use the second address"), 0, "finished")
		if !strings.Contains(s.log(th), `"reply":"use the second address"`) {
			t.Fatalf("%s: log %s", topic, s.log(th))
		}
	}
}

func TestRealAgentInbox(t *testing.T) {
	s := realServer(t)
	th := s.start("inbox", map[string]any{"topic": "list"})
	it := s.onlyPending(th)
	if it.Schema != "agent-inbox" || strings.Join(it.Actions[0].Allowed, ",") != "approve,edit,respond,ignore" {
		t.Fatalf("listed %+v", it)
	}
	must(t, s.hitl("", "reject", it.ID), 3, "not allowed")
	must(t, s.hitl(`{"text":"v2.0 is out"}`, "edit", it.ID, "--args", "-"), 0, "finished")
	if !strings.Contains(s.log(th), `"response":[{"type":"edit","args":{"action":"post_tweet","args":{"text":"v2.0 is out"}}}]`) {
		t.Fatalf("log %s", s.log(th))
	}
	single := s.start("inbox", map[string]any{"topic": "single"})
	must(t, s.hitl("", "ignore", s.onlyPending(single).ID), 0, "finished")
	if !strings.Contains(s.log(single), `"response":{"type":"ignore","args":null}`) {
		t.Fatalf("log %s", s.log(single))
	}
}

func TestRealParallelInterruptsAndRaw(t *testing.T) {
	s := realServer(t)
	th := s.start("parallel", map[string]any{})
	p := s.pending(th)
	if len(p) != 2 {
		t.Fatalf("want two pending interrupts in one thread, got %+v", p)
	}
	var raw, prompt listed
	for _, it := range p {
		switch it.Schema {
		case "raw":
			raw = it
		case "prompt":
			prompt = it
		}
	}
	if raw.ID == "" || prompt.ID == "" || !strings.Contains(string(raw.Raw), `"budget_check"`) {
		t.Fatalf("shapes: %+v", p)
	}
	// Resume one: the other stays pending with the same id.
	must(t, s.hitl("", "resume", raw.ID, "--value", `{"approved":true,"limit":50}`), 0, "paused again")
	left := s.onlyPending(th)
	if left.ID != prompt.ID {
		t.Fatalf("after a partial resume %s is pending, want %s", left.ID, prompt.ID)
	}
	must(t, s.hitl("", "respond", prompt.ID, "-m", "eu-west-1"), 0, "finished")
	log := s.log(th)
	if !strings.Contains(log, `{"node":"left","value":{"approved":true,"limit":50}}`) || !strings.Contains(log, `{"node":"right","value":"eu-west-1"}`) {
		t.Fatalf("log %s", log)
	}
}

func TestRealBreakpoint(t *testing.T) {
	s := realServer(t)
	th := s.start("breakpoint", map[string]any{})
	it := s.onlyPending(th)
	if it.Schema != "breakpoint" || it.Title != "Paused before act" {
		t.Fatalf("listed %+v", it)
	}
	must(t, s.hitl("", "approve", it.ID), 0, "finished")
	if !strings.Contains(s.log(th), `{"node":"act"}`) {
		t.Fatalf("log %s", s.log(th))
	}
	must(t, s.hitl("", "approve", it.ID), 3, "already handled")
}

func TestRealDryRunSendsNothing(t *testing.T) {
	s := realServer(t)
	th := s.start("agent", map[string]any{"messages": []any{map[string]string{"role": "user", "content": "email"}}})
	it := s.onlyPending(th)
	before := s.runs(th)
	r := s.hitl("", "reject", it.ID, "-m", "no", "--dry-run")
	must(t, r, 0, `"type": "reject"`)
	if s.runs(th) != before || len(s.pending(th)) != 1 {
		t.Fatal("--dry-run sent something")
	}
}

func TestRealWatchPrintsEachOnce(t *testing.T) {
	s := realServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--url", s.url, "--graph", "prompt", "watch", "--json", "--interval", "200ms"}, strings.NewReader(""), out, io.Discard, os.Getenv)
	}()
	th := s.start("prompt", map[string]any{"topic": "string"})
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), th) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second) // several more polls
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("watch exited %d", code)
	}
	if n := strings.Count(out.String(), `"thread_id":"`+th+`"`); n != 1 {
		t.Fatalf("the new interrupt was printed %d times:\n%s", n, out.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var it listed
		if err := json.Unmarshal([]byte(line), &it); err != nil || it.GraphID != "prompt" {
			t.Fatalf("line %q: %v", line, err)
		}
	}
}

func TestRealUnreachableServer(t *testing.T) {
	realServer(t)
	r := hitl(t, "", "--url", "http://127.0.0.1:1", "list")
	must(t, r, 1, "refused the connection: is `langgraph dev` running")
	r = hitl(t, "", "--url", os.Getenv("HITL_TEST_LANGGRAPH_URL"), "--assistant", "no-such-assistant", "list")
	must(t, r, 0, "No pending interrupts")
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
