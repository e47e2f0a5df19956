package main

// These tests run the CLI against LangGraph servers, send a decision through
// it, and assert what reached the graph. Each runs on every target: the
// embedded demo server (demo.New(), always), and the real LangGraph dev
// servers that scripts/test starts (internal/realserver): langgraphjs dev
// with the graphs of testserver/, langgraph dev (Python) with those of
// testserver/python/, the same graph ids: the real human-in-the-loop
// middleware and interrupt() calls of every shape. Where the servers'
// graphs differ, each test says what each one shows.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/internal/realserver"
	"github.com/hitl-sh/hitl/present"
)

// target is one LangGraph server under test: the graph that plays each role
// there, and how its graphs record what they received.
type target struct {
	name string
	url  string
	// peer is where a second reviewer decides: langhost's second replica
	// (same database); elsewhere url.
	peer string
	// kind is the real server's kind, "" for the embedded one.
	kind realserver.Kind
	// real: a real server running the test graphs (testserver/graphs on
	// langgraphjs dev, testserver/python/graphs on langgraph dev), which
	// log what each node received.
	real bool
	// js: the langgraphjs dev server. Its agent has LangChain's JavaScript
	// middleware: camelCase, and a reject among an interrupt's decisions
	// runs none of its calls. The Python server's agent has the Python
	// middleware, and the embedded server's agents follow it: snake_case,
	// and the approved calls run beside the rejected one.
	js bool
	// graphs names this server's graph for each role (see server.graph).
	graphs map[string]string
	// record is the thread's record of the resume values its graph
	// received, as compact JSON to search (server.got).
	record func(s *server, thread string) string
}

// targets starts the embedded server for this test and adds the real ones
// scripts/test runs; under CI both real ones are required.
func targets(t *testing.T) []target { return targetsOf(t, false) }

// withLanghost is eachServer with langhost too (its replica A: the tests
// that run there, docs/servers.md).
func withLanghost(t *testing.T, f func(t *testing.T, s *server)) {
	t.Helper()
	eachOf(t, langhostTargets(t), realserver.Hold, f)
}

// withLanghostShared is withLanghost as eachServerShared shares.
func withLanghostShared(t *testing.T, f func(t *testing.T, s *server)) {
	t.Helper()
	eachOf(t, langhostTargets(t), realserver.Share, f)
}

func langhostTargets(t *testing.T) []target {
	t.Helper()
	var tgs []target
	for _, tg := range targetsOf(t, true) {
		if tg.kind != realserver.Aegra {
			tgs = append(tgs, tg)
		}
	}
	return tgs
}

// targetsOf adds, with production, the production-shaped servers
// (langhost's two replicas, aegra), which serve the Python test graphs.
func targetsOf(t *testing.T, production bool) []target {
	t.Helper()
	srv := demo.New()
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	out := []target{{name: "embedded", url: srv.URL(), record: (*server).runResumes, graphs: map[string]string{
		"email": "support", "ops": "ops", "refund": "support", "questions": "planner", "prompt": "asker",
		"inbox": "inbox", "parallel": "parallel", "breakpoint": "release", "fanout": "fanout"}}}
	out[0].peer = out[0].url
	servers := realserver.All(t)
	if production {
		servers = realserver.Everywhere(t)
	}
	for _, rs := range servers {
		out = append(out, target{name: rs.Name(), url: rs.URL, peer: rs.Peer, kind: rs.Kind, real: true, js: rs.Kind == realserver.JS,
			record: (*server).log, graphs: map[string]string{
				"email": "agent", "ops": "agent", "refund": "agent", "questions": "questions", "prompt": "prompt",
				"inbox": "inbox", "parallel": "parallel", "breakpoint": "breakpoint", "fanout": "fanout"}})
	}
	return out
}

type server struct {
	t *testing.T
	target
}

// eachServer runs f once per target, each with its own state directory and
// no config file. The test and each of its targets run in parallel with
// the others; on a real server, one test at a time (realserver.Hold: they
// list what the whole server holds), while the other servers serve other
// tests.
func eachServer(t *testing.T, f func(t *testing.T, s *server)) {
	t.Helper()
	eachOf(t, targets(t), realserver.Hold, f)
}

// eachServerShared is eachServer for a test that touches only the threads
// it starts and finds them in a listing by their ids
// (realserver.Share): it runs beside the other such tests on the same
// server, never beside one that holds it.
func eachServerShared(t *testing.T, f func(t *testing.T, s *server)) {
	t.Helper()
	eachOf(t, targets(t), realserver.Share, f)
}

// everyServer is eachServer with the production-shaped servers too.
func everyServer(t *testing.T, f func(t *testing.T, s *server)) {
	t.Helper()
	eachOf(t, targetsOf(t, true), realserver.Hold, f)
}

// everyServerShared is everyServer as eachServerShared shares.
func everyServerShared(t *testing.T, f func(t *testing.T, s *server)) {
	t.Helper()
	eachOf(t, targetsOf(t, true), realserver.Share, f)
}

// eachOf runs f on each target, taking each real server with take
// (realserver.Hold or realserver.Share).
func eachOf(t *testing.T, tgs []target, take func(testing.TB, string), f func(t *testing.T, s *server)) {
	t.Helper()
	t.Parallel()
	for _, tg := range tgs {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			if tg.name != "embedded" {
				take(t, tg.url)
			}
			isolate(t)
			f(t, &server{t: t, target: tg})
		})
	}
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
	resp, err := realserver.Client.Do(req)
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

// graph is this server's graph for a role: "email", "ops" and "refund" are
// scenarios of an agent with the HITL middleware; "questions", "prompt",
// "inbox", "parallel", "breakpoint" and "fanout" are the graphs of those
// names in testserver/graphs.
func (s *server) graph(role string) string {
	s.t.Helper()
	g, ok := s.graphs[role]
	if !ok {
		s.t.Fatalf("%s has no graph for %q", s.name, role)
	}
	return g
}

// start creates a thread of the role's graph and runs it until it pauses.
func (s *server) start(role string, input any) string {
	s.t.Helper()
	for try := 1; ; try++ {
		var th struct {
			ThreadID string `json:"thread_id"`
		}
		json.Unmarshal(s.do("POST", "/threads", map[string]any{}), &th)
		s.do("POST", "/threads/"+th.ThreadID+"/runs/wait", map[string]any{"assistant_id": s.graph(role), "input": input})
		if s.kind != realserver.Langhost || !realserver.Settle(s.t, s.url, th.ThreadID) || try == 3 {
			return th.ThreadID
		}
		s.t.Logf("langhost lost thread %s's interrupted status (idle, its interrupt still there: docs/servers.md); starting the graph again on a new thread", th.ThreadID)
	}
}

// agent starts a middleware agent on a scenario: its first message names it.
func (s *server) agent(scenario string) string {
	s.t.Helper()
	return s.start(scenario, map[string]any{"messages": []any{map[string]string{"role": "user", "content": scenario}}})
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

// pyEditNote is how LangChain's Python middleware (langchain 1.4.7) opens
// the result of an edited call: it tells the model that a reviewer replaced
// its call, then gives the tool's own response.
const pyEditNote = "Note: a human reviewer replaced this tool call before it ran."

// toolMessages are the thread's tool results: name -> content. An edited
// call's result on the Python server is the tool's own response, after the
// middleware's note to the model (which TestRealMiddlewareEdit checks).
func (s *server) toolMessages(thread string) map[string]string {
	out := s.rawToolMessages(thread)
	for name, c := range out {
		if _, resp, ok := strings.Cut(c, "\n\nTool response:\n"); ok && strings.HasPrefix(c, pyEditNote) {
			out[name] = resp
		}
	}
	return out
}

// rejected is the result of a call rejected with a reason, as the server's
// middleware words it: the reason itself (JS, embedded), or a sentence
// around it (Python).
func (s *server) rejected(tool, reason string) string {
	if s.kind == realserver.Python || s.kind == realserver.Langhost || s.kind == realserver.Aegra {
		return "User rejected the tool call for `" + tool + "` with reason: " + reason
	}
	return reason
}

// rawToolMessages are the thread's tool results as the graph wrote them.
func (s *server) rawToolMessages(thread string) map[string]string {
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

// sortedKeys writes each line of got (JSON) again with every object's keys
// sorted: langhost keeps a thread's state in JSONB, which orders keys by
// their length (docs/servers.md), so a test that compares what the graph
// received as text compares it so.
func sortedKeys(got string) string {
	lines := strings.Split(got, "\n")
	for i, l := range lines {
		var v any
		if json.Unmarshal([]byte(l), &v) != nil {
			continue
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			lines[i] = strings.TrimSuffix(b.String(), "\n")
		}
	}
	return strings.Join(lines, "\n")
}

// got is what the thread's graph received, as compact JSON to search: on
// the real server, the test graphs' log (each node's answer); on the
// embedded one, each run's resume, keyed by interrupt id (how its agents
// react is tested in package demo).
func (s *server) got(thread string) string {
	s.t.Helper()
	return s.record(s, thread)
}

// runResumes are the resume values of the thread's runs, one run a line.
func (s *server) runResumes(thread string) string {
	var runs []struct {
		Kwargs struct {
			Command *struct {
				Resume json.RawMessage `json:"resume"`
			} `json:"command"`
		} `json:"kwargs"`
	}
	json.Unmarshal(s.do("GET", "/threads/"+thread+"/runs?limit=1000", nil), &runs)
	var out bytes.Buffer
	for _, r := range runs {
		if r.Kwargs.Command != nil {
			json.Compact(&out, r.Kwargs.Command.Resume)
			out.WriteByte('\n')
		}
	}
	return out.String()
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
	code := run(ctx, args, strings.NewReader(stdin), &out, &errb, envOf(t).getenv)
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
	withLanghostShared(t, func(t *testing.T, s *server) {
		th := s.agent("email")
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
		// The Python middleware (langhost serves the same graphs) tells
		// the model that a reviewer replaced its call; the JS one does not.
		if note := strings.HasPrefix(s.rawToolMessages(th)["send_email"], pyEditNote); note != (s.kind == realserver.Python || s.kind == realserver.Langhost) {
			t.Errorf("the edited call's result: %q", s.rawToolMessages(th)["send_email"])
		}
		// A second attempt sends nothing and says why.
		before := s.runs(th)
		must(t, s.hitl("", "approve", it.ID), 3, "already handled")
		if s.runs(th) != before {
			t.Fatal("a second attempt started a run")
		}
		// The audit log has the exact value sent, in the middleware's casing.
		edit := `"edited_action"`
		if s.js {
			edit = `"editedAction"`
		}
		h := s.hitl("", "history", "--json")
		if !strings.Contains(h.stdout, edit) || !strings.Contains(h.stdout, it.ID) {
			t.Fatalf("history: %s", h.stdout)
		}
		// What the agent did next, by 8 characters of the thread's id.
		must(t, s.hitl("", "conversation", s.threadRef(th)), 0, "jane@example.com")
	})
}

func TestRealMiddlewareMixedDecisions(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		th := s.agent("ops")
		it := s.onlyPending(th)
		if len(it.Actions) != 2 || strings.Join(it.Actions[0].Allowed, ",") != "approve,reject" {
			t.Fatalf("listed %+v", it)
		}
		// delete_records allows no edit: refused before anything is sent.
		before := s.runs(th)
		must(t, s.hitl(`{"table":"x","where":"1=1"}`, "edit", it.ID, "--args", "-", "--action", "1", "--others", "approve"), 4, `"edit" is not allowed here; allowed: approve, reject (hitl --url `+s.url+` show `+it.ID[:8]+` says how to answer it)`)
		// Said before --others is asked for: no flag would make it allowed.
		must(t, s.hitl(`{"table":"x","where":"1=1"}`, "edit", it.ID, "--args", "-", "--action", "1"), 4, `action 1: "edit" is not allowed here; allowed: approve, reject`)
		// Without --action, the actions that allow an edit are named.
		must(t, s.hitl(`{"text":"x"}`, "edit", it.ID, "--args", "-"), 2, "say which one with --action N (edit is allowed for action 2)")
		if s.runs(th) != before || len(s.pending(th)) != 1 {
			t.Fatal("a refused decision reached the server")
		}
		// Approve notify, reject the deletion with a reason.
		r := s.hitl("", "approve", it.ID, "--action", "2", "--others", "reject:not during business hours")
		must(t, r, 0, "the run finished")
		tools := s.toolMessages(th)
		if tools["delete_records"] != s.rejected("delete_records", "not during business hours") {
			t.Errorf("delete_records: %q", tools["delete_records"])
		}
		const note = "does not run the approved or edited calls"
		if s.js {
			// The JS middleware then runs neither: it returns the rejection
			// to the model (observed), and hitl says so before sending.
			must(t, r, 0, note)
			if _, ran := tools["notify"]; ran {
				t.Errorf("notify ran: %q", tools["notify"])
			}
			return
		}
		// The Python middleware runs the approved call beside the rejected one.
		if strings.Contains(r.stdout+r.stderr, note) {
			t.Errorf("a JS-only warning on a snake_case interrupt:\n%s%s", r.stdout, r.stderr)
		}
		if !strings.HasPrefix(tools["notify"], "ran notify ") {
			t.Errorf("notify: %q", tools["notify"])
		}
	})
}

func TestRealMiddlewareApproveOneEditOther(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		th := s.agent("ops")
		it := s.onlyPending(th)
		r := s.hitl(`{"channel":"#ops-quiet","text":"Pruned"}`, "edit", it.ID, "--action", "2", "--others", "approve", "--args", "-")
		must(t, r, 0, "the run finished")
		tools := s.toolMessages(th)
		if tools["delete_records"] != `ran delete_records {"table":"sessions","where":"last_seen < now() - interval '90 days'"}` ||
			tools["notify"] != `ran notify {"channel":"#ops-quiet","text":"Pruned"}` {
			t.Errorf("tools: %q", tools)
		}
	})
}

func TestRealMiddlewareArgsSchema(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		th := s.agent("refund")
		it := s.onlyPending(th)
		if s.kind == realserver.Python || s.kind == realserver.Langhost {
			// LangChain's Python middleware (1.4.7) sends a tool's
			// args_schema in per-call mode only (as the response schema):
			// a batched interrupt has none, so nothing checks an edit
			// before it is sent, and the tool runs with what was typed.
			must(t, s.hitl(`{"order_id":"A-1001","amount":150,"currency":"EUR"}`, "edit", it.ID, "--args", "-"), 0, "finished")
			if got := s.toolMessages(th)["issue_refund"]; got != `ran issue_refund {"order_id":"A-1001","amount":150.0,"currency":"EUR"}` {
				t.Fatalf("tool ran with %q", got)
			}
			return
		}
		must(t, s.hitl(`{"order_id":"A-1001","amount":150,"currency":"EUR"}`, "edit", it.ID, "--args", "-"), 2, "at $.amount: must be at most 100 (got 150)")
		must(t, s.hitl(`{"order_id":"A-1001","amount":99.99,"currency":"EUR"}`, "edit", it.ID, "--args", "-"), 0, "finished")
		if got := s.toolMessages(th)["issue_refund"]; got != `ran issue_refund {"order_id":"A-1001","amount":99.99,"currency":"EUR"}` {
			t.Fatalf("tool ran with %q", got)
		}
	})
}

func TestRealQuestions(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		th := s.start("questions", map[string]any{"topic": "tests"})
		it := s.onlyPending(th)
		if it.Schema != "questions" || len(it.Questions) != 2 {
			t.Fatalf("listed %+v", it)
		}
		must(t, s.hitl("", "respond", it.ID), 2, "needs a message (feedback) for this interrupt: give it with -m TEXT")
		r := s.hitl("", "respond", it.ID, "-m", "Use React and include tests", "--answer", "React", "--answer", "Yes")
		must(t, r, 0, "paused again")
		if got := sortedKeys(s.got(th)); !strings.Contains(got, `:{"answers":["React","Yes"],"decision":"edit","feedback":"Use React and include tests"}`) {
			t.Fatalf("got: %s", got)
		}
		// The edit looped back to the agent, which asked again: a new interrupt.
		again := s.onlyPending(th)
		if again.ID == it.ID {
			t.Fatal("the same interrupt id came back")
		}
		must(t, s.hitl("", "reject", again.ID, "-m", "out of scope"), 0, "finished")
		if got := sortedKeys(s.got(th)); !strings.Contains(got, `:{"decision":"reject","feedback":"out of scope","reason":"out of scope"}`) {
			t.Fatalf("got: %s", got)
		}
	})
}

func TestRealPrompts(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		for _, topic := range []string{"string", "object"} {
			th := s.start("prompt", map[string]any{"topic": topic})
			it := s.onlyPending(th)
			if it.Schema != "prompt" {
				t.Fatalf("%s: listed %+v", topic, it)
			}
			must(t, s.hitl("", "approve", it.ID), 4, "allowed: respond")
			must(t, s.hitl("", "respond", it.ID, "-m", "use the second address"), 0, "finished")
			if got := s.got(th); !strings.Contains(got, `:"use the second address"`) {
				t.Fatalf("%s: got %s", topic, got)
			}
		}
	})
}

func TestRealAgentInbox(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		th := s.start("inbox", map[string]any{"topic": "list"})
		it := s.onlyPending(th)
		if it.Schema != "agent-inbox" || strings.Join(it.Actions[0].Allowed, ",") != "approve,edit,respond,ignore" {
			t.Fatalf("listed %+v", it)
		}
		must(t, s.hitl("", "reject", it.ID), 4, "not allowed")
		must(t, s.hitl(`{"text":"v2.0 is out"}`, "edit", it.ID, "--args", "-"), 0, "finished")
		// A request sent as a list is answered with a list, a bare one with one.
		if got := sortedKeys(s.got(th)); !strings.Contains(got, `:[{"args":{"action":"post_tweet","args":{"text":"v2.0 is out"}},"type":"edit"}]`) {
			t.Fatalf("got %s", got)
		}
		single := s.start("inbox", map[string]any{"topic": "single"})
		must(t, s.hitl("", "ignore", s.onlyPending(single).ID), 0, "finished")
		if got := sortedKeys(s.got(single)); !strings.Contains(got, `:{"args":null,"type":"ignore"}`) {
			t.Fatalf("got %s", got)
		}
	})
}

func TestRealParallelInterruptsAndRaw(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
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
		// The sibling was waiting already: it is not announced as new.
		must(t, s.hitl("", "resume", raw.ID, "--value", `{"approved":true,"limit":50}`), 0, "the run stopped: nothing new to decide; "+prompt.ID[:8]+" still waits as before")
		left := s.onlyPending(th)
		if left.ID != prompt.ID {
			t.Fatalf("after a partial resume %s is pending, want %s", left.ID, prompt.ID)
		}
		must(t, s.hitl("", "respond", prompt.ID, "-m", "eu-west-1"), 0, "finished")
		// Each branch got its own answer: by node on the real server, by
		// interrupt id on the embedded one.
		want := []string{`{"node":"left","value":{"approved":true,"limit":50}}`, `{"node":"right","value":"eu-west-1"}`}
		if !s.real {
			want = []string{`"` + raw.ID + `":{"approved":true,"limit":50}`, `"` + prompt.ID + `":"eu-west-1"`}
		}
		got := sortedKeys(s.got(th))
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Fatalf("got %s, want %s", got, w)
			}
		}
	})
}

func TestRealBreakpoint(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		th := s.start("breakpoint", map[string]any{})
		it := s.onlyPending(th)
		wantTitle := "Paused before deploy"
		if s.real {
			wantTitle = "Paused before act"
		}
		if it.Schema != "breakpoint" || it.Title != wantTitle {
			t.Fatalf("listed %+v", it)
		}
		before := s.runs(th)
		must(t, s.hitl("", "approve", it.ID), 0, "finished")
		if s.runs(th) != before+1 {
			t.Fatalf("%d runs to continue", s.runs(th)-before)
		}
		if s.real && !strings.Contains(s.log(th), `{"node":"act"}`) {
			t.Fatalf("log %s", s.log(th))
		}
		must(t, s.hitl("", "approve", it.ID), 3, "already handled")
		// What was done is a continue, in the history as on the screen.
		r := s.hitl("", "history", "--json")
		must(t, r, 0, `"decision":"continue"`)
		if strings.Contains(r.stdout, `"approve"`) {
			t.Fatalf("history --json calls the continue an approve:\n%s", r.stdout)
		}
		if r = s.hitl("", "history"); !strings.Contains(r.stdout, "continue") || strings.Contains(r.stdout, "approve") {
			t.Fatalf("history:\n%s", r.stdout)
		}
	})
}

func TestRealDryRunSendsNothing(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		th := s.agent("email")
		it := s.onlyPending(th)
		before := s.runs(th)
		r := s.hitl("", "reject", it.ID, "-m", "no", "--dry-run")
		must(t, r, 0, `"type": "reject"`)
		if s.runs(th) != before || len(s.pending(th)) != 1 {
			t.Fatal("--dry-run sent something")
		}
	})
}

func TestRealWatchPrintsEachOnce(t *testing.T) {
	withLanghost(t, func(t *testing.T, s *server) {
		ctx, cancel := context.WithCancel(context.Background())
		out := &syncBuffer{}
		done := make(chan int)
		graph := s.graph("prompt")
		go func() {
			done <- run(ctx, []string{"--url", s.url, "--graph", graph, "watch", "--json", "--interval", "200ms"}, strings.NewReader(""), out, io.Discard, envOf(t).getenv)
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
			if err := json.Unmarshal([]byte(line), &it); err != nil || it.GraphID != graph {
				t.Fatalf("line %q: %v", line, err)
			}
		}
	})
}

func TestRealUnreachableServer(t *testing.T) {
	isolate(t)
	r := hitl(t, "", "--url", "http://127.0.0.1:1", "list")
	must(t, r, 1, "refused the connection: is the server (langgraph dev, or langgraphjs dev) running")
	eachServerShared(t, func(t *testing.T, s *server) {
		must(t, s.hitl("", "--assistant", "no-such-assistant", "list"), 0, "No pending interrupts")
	})
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

// threadRef is how a reviewer names a thread on the command line: as
// hitl shows it (present.ShortThreadID): its first 8 characters, or the
// last 8 of the Python server's UUIDv7 ids, whose first 8 are a clock
// that every thread made in the same minute shares.
func (s *server) threadRef(thread string) string {
	return present.ShortThreadID(thread)
}

// number is how the form graph logs a whole number it got for a float
// field: as sent on the JS server, as a Python float (5.0) on the Python
// one, whose Pydantic model turned the answer into its own types.
func (s *server) number(n string) string {
	if s.kind == realserver.Python {
		return n + ".0"
	}
	return n
}

// A subgraph's interrupt (testserver/python/graphs/subgraph.py: the node
// "delegate" runs a compiled graph that asks) is listed and answered like
// any other; the answer reaches the inner node.
func TestRealSubgraphInterrupt(t *testing.T) {
	t.Parallel()
	isolate(t)
	rs := realserver.Get(t, realserver.Python)
	realserver.Share(t, rs.URL) // its own thread, found by id
	s := &server{t: t, target: target{name: rs.Name(), url: rs.URL, kind: rs.Kind, real: true, record: (*server).log,
		graphs: map[string]string{"subgraph": "subgraph"}}}
	th := s.start("subgraph", map[string]any{"topic": "v2"})
	it := s.onlyPending(th)
	if it.Schema != "raw" || !strings.Contains(string(it.Raw), `"Deploy v2?"`) {
		t.Fatalf("listed %+v", it)
	}
	must(t, s.hitl("", "resume", it.ID, "--value", `{"deploy":true}`), 0, "finished")
	if got := s.got(th); !strings.Contains(got, `{"node":"approve","value":{"deploy":true}}`) {
		t.Fatalf("got %s", got)
	}
}

// A run that fails outside any interrupt (testserver/python/graphs/
// failing.py raises): the thread is listed as failed with the exception,
// which the Python server keeps on the thread.
func TestRealFailingGraph(t *testing.T) {
	t.Parallel()
	isolate(t)
	rs := realserver.Get(t, realserver.Python)
	realserver.Share(t, rs.URL) // its own thread, found by id
	s := &server{t: t, target: target{name: rs.Name(), url: rs.URL, kind: rs.Kind, real: true, record: (*server).log,
		graphs: map[string]string{"failing": "failing"}}}
	th := s.start("failing", map[string]any{"topic": "order 7"})
	r := s.hitl("", "list", "--failed")
	must(t, r, 0, "ValueError: the warehouse API refused the request (order 7)")
	must(t, r, 0, th)
}

// A node that raises after its interrupt returned fails its run with the
// answer taken, and every server that resumes a failed thread keeps that
// answer: answered again, the task runs again with the first one. hitl
// list says so where the server shows that no answer schema refused the
// answer (the dev servers), says it may be so where it shows none
// (langhost), and says no answer can be sent where the server resumes no
// failed thread (aegra); so does the note before one is sent.
func TestRealFailedAfterTheAnswerWasTaken(t *testing.T) {
	everyServerShared(t, func(t *testing.T, s *server) {
		if !s.real {
			t.Skip("the demo's graphs do not fail")
		}
		s.graphs = map[string]string{"failing": "failing"}
		th := s.start("failing", map[string]any{"topic": "charge"})
		it := s.onlyPending(th)
		// aegra cannot confirm whose answer a run took (exit 5).
		code := 1
		if s.kind == realserver.Aegra {
			code = 5
		}
		must(t, s.hitl("", "respond", it.ID, "-m", "yes"), code, "answer was 'yes'")
		r := s.hitl("", "list")
		must(t, r, 0, "still holds "+it.ID[:8]+" [prompt]")
		// This thread's lines (the server holds other tests' threads).
		_, mine, _ := strings.Cut(r.stdout, "thread "+th)
		mine, _, _ = strings.Cut(mine, "\n  thread ")
		var note string
		switch s.kind {
		case realserver.Langhost:
			must(t, r, 0, "answer it again with hitl respond "+it.ID[:8]+" … (used if a schema refused the first answer; if the task failed after taking it, the graph keeps the first: this server shows no schema to tell)")
			note = "note: the last run failed in " + it.ID[:8] + "'s own task, and this server shows no answer schema to tell why"
		case realserver.Aegra:
			must(t, r, 0, "this server resumes no failed thread, so no answer can be sent (start the agent again from its application)")
			note = "note: this server resumes no thread whose last run failed"
		default:
			must(t, r, 0, "the graph keeps the answer it took before failing; a new one is not used (hitl respond "+it.ID[:8]+" … runs the task again with the first)")
			if strings.Contains(mine, "answer it again") {
				t.Fatalf("hitl list suggests an answer that cannot help:\n%s", mine)
			}
			note = "note: the last run failed in " + it.ID[:8] + "'s own task after the graph took its answer, and the graph keeps that answer: a new one is not used"
		}
		var failed []struct {
			ThreadID   string `json:"thread_id"`
			Interrupts []struct {
				ID                string `json:"id"`
				KeptAnswer        bool   `json:"kept_answer"`
				MayKeepAnswer     bool   `json:"may_keep_answer"`
				CannotAnswerAgain bool   `json:"cannot_answer_again"`
			} `json:"interrupts"`
		}
		json.Unmarshal([]byte(s.hitl("", "list", "--failed", "--json").stdout), &failed)
		found := false
		for _, f := range failed {
			if f.ThreadID == th && len(f.Interrupts) == 1 && f.Interrupts[0].ID == it.ID {
				x := f.Interrupts[0]
				found = x.KeptAnswer == (s.kind == realserver.JS || s.kind == realserver.Python) &&
					x.MayKeepAnswer == (s.kind == realserver.Langhost) && x.CannotAnswerAgain == (s.kind == realserver.Aegra)
			}
		}
		if !found {
			t.Fatalf("list --failed --json does not mark %s as %s says: %+v", it.ID, s.name, failed)
		}
		r = s.hitl("", "respond", it.ID[:8], "-m", "charge-offline")
		if s.kind == realserver.Aegra {
			must(t, r, 1, note)
			must(t, r, 1, "not sent: the server refused to resume thread "+th)
			t.Logf("aegra's refusal, as hitl says it:\n%s%s", r.stdout, r.stderr)
			if strings.Contains(r.stdout+r.stderr, "in progress") {
				t.Fatalf("the refusal is told as a busy thread:\n%s%s", r.stdout, r.stderr)
			}
			return
		}
		must(t, r, 1, note)
		// What the note said: the graph ran again with the first answer.
		must(t, r, 1, "answer was 'yes'")
		if strings.Contains(s.log(th), "charge-offline") {
			t.Fatalf("the graph got the new answer after all; the words are wrong: %s", s.log(th))
		}
	})
}

// A tool configured `True` (Python) or `true` (JS) in interrupt_on: the
// Python middleware allows respond too (langchain 1.4.7 and 1.5.2 alike),
// the JS one approve, edit and reject only. hitl offers what each allows,
// and a respond reaches the Python graph as the tool's result.
func TestRealInterruptOnTrue(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		if !s.real {
			t.Skip("the demo has no interrupt_on")
		}
		s.graphs = map[string]string{"lookup": "agent"}
		th := s.agent("lookup")
		it := s.onlyPending(th)
		want := "approve,edit,reject,respond"
		if s.js {
			want = "approve,edit,reject"
		}
		if len(it.Actions) != 1 || it.Actions[0].Name != "lookup_order" || strings.Join(it.Actions[0].Allowed, ",") != want {
			t.Fatalf("listed %+v, want allowed %s", it, want)
		}
		r := s.hitl("", "respond", it.ID, "-m", "A-1001 ships on Monday")
		if s.js {
			must(t, r, 4, "not allowed")
			return
		}
		must(t, r, 0, "Sent respond")
		if got := s.toolMessages(th)["lookup_order"]; got != "A-1001 ships on Monday" {
			t.Fatalf("the tool's result is %q", got)
		}
	})
}
