package main

// These tests run the CLI against the real A2A agent scripts/test starts
// (testserver/a2a/: a2a-sdk's server with a scripted executor) and assert
// what the agent received.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/realserver"
)

type a2aAgent struct {
	t   *testing.T
	url string
}

func newA2A(t *testing.T) *a2aAgent {
	t.Helper()
	u := realserver.A2A(t)
	t.Parallel()
	isolate(t)
	return &a2aAgent{t: t, url: u}
}

func (a *a2aAgent) rpc(method string, params any) json.RawMessage {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", a.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Accept", "application/json") // LangGraph's /a2a refuses a request without it
	resp, err := realserver.Client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(out, &env) != nil || env.Error != nil {
		a.t.Fatalf("%s: %s", method, out)
	}
	return env.Result
}

// start starts a task of the scripted agent (text, strands, langgraph,
// form, again, unknown) and returns its id.
func (a *a2aAgent) start(scenario string) string {
	a.t.Helper()
	res := a.rpc("SendMessage", map[string]any{"message": map[string]any{
		"messageId": "start-" + scenario + time.Now().Format("150405.000000000"), "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": scenario}}}})
	var r struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	json.Unmarshal(res, &r)
	if r.Task.ID == "" {
		a.t.Fatalf("start %s: %s", scenario, res)
	}
	return r.Task.ID
}

func (a *a2aAgent) hitl(stdin string, args ...string) result {
	a.t.Helper()
	return hitl(a.t, stdin, append([]string{"--backend", "a2a", "--url", a.url}, args...)...)
}

// one is the only interrupt hitl lists for the task.
func (a *a2aAgent) one(task string) listed {
	a.t.Helper()
	r := a.hitl("", "list", "--json")
	if r.code != 0 {
		a.t.Fatalf("list: %d %s", r.code, r.stderr)
	}
	var all []listed
	if err := json.Unmarshal([]byte(r.stdout), &all); err != nil {
		a.t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	var out []listed
	for _, it := range all {
		if it.ThreadID == task {
			for i := range it.Actions {
				it.Actions[i].Args = compact(it.Actions[i].Args)
			}
			it.Raw = compact(it.Raw)
			out = append(out, it)
		}
	}
	if len(out) != 1 {
		a.t.Fatalf("%d interrupts listed for task %s, want 1: %s", len(out), task, r.stdout)
	}
	return out[0]
}

// received is the parts of every message the task received, as JSON.
func (a *a2aAgent) received(task string) string {
	a.t.Helper()
	resp, err := http.Get(strings.TrimRight(a.url, "/") + "/received/" + url.PathEscape(task))
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var msgs []struct {
		Parts json.RawMessage `json:"parts"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msgs); err != nil {
		a.t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Parts))
	}
	return strings.Join(out, "\n")
}

func TestA2AListAndShow(t *testing.T) {
	a := newA2A(t)
	text, tool, lg, unknown := a.start("text"), a.start("strands"), a.start("langgraph"), a.start("unknown")
	if it := a.one(text); it.Schema != "prompt" || it.Title != "Which region should the replica go to?" {
		t.Errorf("text question: %+v", it)
	}
	if it := a.one(tool); it.Schema != "hitl-middleware" || len(it.Actions) != 1 || it.Actions[0].Name != "send_email" ||
		!strings.Contains(string(it.Actions[0].Args), `"to":"dana@customer.example"`) || strings.Join(it.Actions[0].Allowed, ",") != "approve,reject" {
		t.Errorf("Strands tool approval: %+v", it)
	}
	if it := a.one(lg); it.Schema != "hitl-middleware" || len(it.Actions) != 1 || strings.Join(it.Actions[0].Allowed, ",") != "approve,edit,reject" {
		t.Errorf("LangGraph interrupt: %+v", it)
	}
	it := a.one(unknown)
	if it.Schema != "raw" || !strings.Contains(string(it.Raw), `"kind_of_thing":"mystery"`) {
		t.Errorf("an unknown data part is not shown raw: %+v", it)
	}
	r := a.hitl("", "show", it.ID)
	if r.code != 0 || !strings.Contains(r.stdout, "mystery") {
		t.Errorf("show: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = a.hitl("", "show", a.one(tool).ID)
	if r.code != 0 || !strings.Contains(r.stdout, "send_email") || !strings.Contains(r.stdout, "dana@customer.example") ||
		!strings.Contains(r.stdout, "Shape      strands-interrupt\n") {
		t.Errorf("show: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

func TestA2AApproveAndReject(t *testing.T) {
	a := newA2A(t)
	yes, no := a.start("strands"), a.start("strands")
	if r := a.hitl("", "approve", a.one(yes).ID); r.code != 0 || !strings.Contains(r.stdout, "Sent approve") {
		t.Fatalf("approve: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if id, resp := interruptResponse(t, a.received(yes)); !strings.HasPrefix(id, "v1:before_tool_call:tooluse_send_email_1:") || resp != `"y"` {
		t.Errorf("the agent received %s", a.received(yes))
	}
	if r := a.hitl("", "reject", a.one(no).ID, "-m", "wrong customer"); r.code != 0 {
		t.Fatalf("reject: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, resp := interruptResponse(t, a.received(no)); resp != `"n: wrong customer"` {
		t.Errorf("the agent received %s", a.received(no))
	}
	// The task is answered: a second decision is refused, nothing sent.
	r := a.hitl("", "approve", "--thread", yes)
	if r.code == 0 {
		t.Errorf("a second decision on an answered task: %d %s", r.code, r.stdout)
	}
	if got := a.received(yes); strings.Count(got, "interruptResponse") != 1 {
		t.Errorf("sent twice: %s", got)
	}
}

func TestA2ARespondAndAgain(t *testing.T) {
	a := newA2A(t)
	task := a.start("again")
	first := a.one(task)
	r := a.hitl("", "respond", first.ID, "-m", "eu-west-1")
	if r.code != 0 || !strings.Contains(r.stdout, "Sent respond") {
		t.Fatalf("respond: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if got := a.received(task); got != `[{"text":"eu-west-1"}]` {
		t.Errorf("the agent received %s", got)
	}
	second := a.one(task)
	if second.ID == first.ID || second.Title != "And which day should it ship?" {
		t.Fatalf("the new question is not listed as new: %+v (first %s)", second, first.ID)
	}
}

func TestA2AEditLangGraph(t *testing.T) {
	a := newA2A(t)
	task := a.start("langgraph")
	it := a.one(task)
	r := a.hitl(`{"to":"jane@example.com","subject":"Refund","body":"Hi Jane"}`, "edit", it.ID, "--args", "-")
	if r.code != 0 {
		t.Fatalf("edit: %d %s %s", r.code, r.stdout, r.stderr)
	}
	got := a.received(task)
	if !strings.Contains(got, `{"data":{"resume":{"decisions":[{`) || !strings.Contains(got, `"type":"edit"`) || !strings.Contains(got, `"to":"jane@example.com"`) {
		t.Errorf("the agent received %s", got)
	}
}

func TestA2AHandledElsewhere(t *testing.T) {
	a := newA2A(t)
	task := a.start("strands")
	it := a.one(task)
	a.rpc("SendMessage", map[string]any{"message": map[string]any{"messageId": "elsewhere-" + task, "taskId": task, "role": "ROLE_USER",
		"parts": []any{map[string]any{"data": map[string]any{"interruptResponse": map[string]any{"interruptId": "x", "response": "n"}}}}}})
	r := a.hitl("", "approve", it.ID)
	if r.code != 3 {
		t.Fatalf("approve on a task answered elsewhere: exit %d, want 3: %s %s", r.code, r.stdout, r.stderr)
	}
	if got := a.received(task); strings.Contains(got, `"response":"y"`) {
		t.Errorf("sent anyway: %s", got)
	}
}

func compact(b json.RawMessage) json.RawMessage {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// interruptResponse reads the one Strands answer a task received (the
// agent's server does not keep a data part's key order).
func interruptResponse(t *testing.T, parts string) (id, response string) {
	t.Helper()
	var ps []struct {
		Data struct {
			InterruptResponse struct {
				InterruptID string          `json:"interruptId"`
				Response    json.RawMessage `json:"response"`
			} `json:"interruptResponse"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(parts), &ps); err != nil || len(ps) != 1 {
		t.Fatalf("not one part: %v %s", err, parts)
	}
	return ps[0].Data.InterruptResponse.InterruptID, string(ps[0].Data.InterruptResponse.Response)
}

// TestA2ALangGraphEndpoint reviews the Python LangGraph dev server's
// /a2a/{assistant_id} endpoint on the agent with the real HITL
// middleware. Its tasks carry no interrupt once listed: without the
// LangGraph server's URL hitl says it cannot show the question; with it
// (HITL_LANGGRAPH_URL) the question is read from the thread and answered
// through /a2a with {"resume": …}.
func TestA2ALangGraphEndpoint(t *testing.T) {
	lg := realserver.Get(t, realserver.Python)
	t.Parallel()
	realserver.Hold(t, lg.URL)
	e := isolate(t)
	a := &a2aAgent{t: t}
	var found []struct {
		AssistantID string `json:"assistant_id"`
	}
	s := &server{t: t, target: target{url: lg.URL}}
	if err := json.Unmarshal(s.do("POST", "/assistants/search", map[string]any{"graph_id": "agent", "limit": 1}), &found); err != nil || len(found) != 1 {
		t.Fatalf("assistants: %v %v", err, found)
	}
	a.url = lg.URL + "/a2a/" + found[0].AssistantID
	res := a.rpc("SendMessage", map[string]any{"message": map[string]any{"messageId": "lg-" + time.Now().Format("150405.000000000"),
		"role": "ROLE_USER", "parts": []any{map[string]any{"text": "email"}}}})
	var r struct {
		Task struct {
			ID        string `json:"id"`
			ContextID string `json:"contextId"`
		} `json:"task"`
	}
	if json.Unmarshal(res, &r); r.Task.ID == "" || !strings.HasPrefix(r.Task.ID, r.Task.ContextID+":") {
		t.Fatalf("SendMessage: %s", res)
	}
	if it := a.one(r.Task.ID); it.Schema != "raw" || it.Title != "The agent waits for input; the task does not say what it asks" {
		t.Errorf("without the LangGraph server: %+v", it)
	}
	e.set("HITL_LANGGRAPH_URL", lg.URL)
	it := a.one(r.Task.ID)
	if it.Schema != "hitl-middleware" || len(it.Actions) != 1 || it.Actions[0].Name != "send_email" {
		t.Fatalf("with the LangGraph server: %+v", it)
	}
	if r := a.hitl("", "approve", it.ID); r.code != 0 || !strings.Contains(r.stdout, "Sent approve") {
		t.Fatalf("approve: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if state := s.do("GET", "/threads/"+r.Task.ContextID+"/state", nil); !bytes.Contains(state, []byte("ran send_email")) {
		t.Fatalf("the tool did not run: %s", state)
	}
	if r := a.hitl("", "approve", it.ID); r.code == 0 {
		t.Errorf("approved twice: %s", r.stdout)
	}
}

// TestA2AFormAndReason: LangGraph's interrupt artifact with a
// response_schema is a form (its answer checked against the schema before
// anything is sent); a Strands interrupt whose reason is not a tool call
// is shown as it is and answered with the reviewer's text.
func TestA2AFormAndReason(t *testing.T) {
	a := newA2A(t)
	form, paths := a.start("form"), a.start("paths")
	it := a.one(form)
	if it.Schema != "form" || it.Title != "Where should the replica go?" {
		t.Fatalf("form: %+v", it)
	}
	if r := a.hitl("", "respond", it.ID, "--field", "region=mars-1"); r.code == 0 || !strings.Contains(r.stderr, "nothing sent") {
		t.Fatalf("an answer outside the schema: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if got := a.received(form); got != "" {
		t.Fatalf("sent anyway: %s", got)
	}
	if r := a.hitl("", "respond", it.ID, "--field", "region=eu-west-1", "--field", "replicas=3"); r.code != 0 {
		t.Fatalf("respond: %d %s %s", r.code, r.stdout, r.stderr)
	}
	var got []struct {
		Data struct {
			Resume map[string]any `json:"resume"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(a.received(form)), &got); err != nil || len(got) != 1 ||
		got[0].Data.Resume["region"] != "eu-west-1" || got[0].Data.Resume["replicas"] != float64(3) {
		t.Fatalf("the agent received %s", a.received(form))
	}

	p := a.one(paths)
	r := a.hitl("", "show", p.ID)
	if p.Schema != "raw" || r.code != 0 || !strings.Contains(r.stdout, "/tmp/build") {
		t.Fatalf("a reason that is not a tool call: %+v\n%s", p, r.stdout)
	}
	if r := a.hitl("", "respond", p.ID, "-m", "only /tmp/cache"); r.code != 0 {
		t.Fatalf("respond: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, resp := interruptResponse(t, a.received(paths)); resp != `"only /tmp/cache"` {
		t.Fatalf("the agent received %s", a.received(paths))
	}
}

// TestA2ATaskByID: a task named by its id (as for an agent that cannot
// list its tasks) is shown and answered like a listed one.
func TestA2ATaskByID(t *testing.T) {
	a := newA2A(t)
	task := a.start("strands")
	if r := a.hitl("", "show", task); r.code != 0 || !strings.Contains(r.stdout, "send_email") || !strings.Contains(r.stdout, task) {
		t.Fatalf("show TASK: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := a.hitl("", "approve", task); r.code != 0 || !strings.Contains(r.stdout, "Sent approve") {
		t.Fatalf("approve TASK: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, resp := interruptResponse(t, a.received(task)); resp != `"y"` {
		t.Fatalf("the agent received %s", a.received(task))
	}
	// Named again: nothing sent, and the reviewer is told it was decided
	// here (exit 3), not that it may never have existed.
	if r := a.hitl("", "approve", task); r.code != 3 || !strings.Contains(r.stderr, "task "+task+" no longer waits: it was decided from this machine: approve") {
		t.Fatalf("approved twice: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if got := a.received(task); strings.Count(got, "interruptResponse") != 1 {
		t.Fatalf("sent twice: %s", got)
	}
	// A task answered by someone else, named by its id: nothing sent,
	// exit 3.
	other := a.start("text")
	a.rpc("SendMessage", map[string]any{"message": map[string]any{"messageId": "elsewhere-" + other, "taskId": other, "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "us-east-1"}}}})
	if r := a.hitl("", "respond", other, "-m", "eu-west-1"); r.code != 3 || !strings.Contains(r.stderr, "task "+other+" waits for no answer: it is completed (answered elsewhere, or ended); nothing sent") {
		t.Fatalf("respond to a task answered elsewhere: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if got := a.received(other); got != `[{"text":"us-east-1"}]` {
		t.Fatalf("the agent received %s", got)
	}
}

// TestA2ATwoReviewersRace: two reviewers, each with a machine of their
// own, answer one task at once: one is told sent, the other "already
// handled elsewhere" (exit 3), and the agent takes one answer.
func TestA2ATwoReviewersRace(t *testing.T) {
	a := newA2A(t)
	for round := 0; round < 5; round++ {
		task := a.start("strands")
		id := a.one(task).ID
		var wg sync.WaitGroup
		codes := make([]int, 2)
		outs := make([]string, 2)
		for i, args := range [][]string{{"approve", id}, {"reject", id, "-m", "no"}} {
			home := t.TempDir()
			vars := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state"), "HITL_CONFIG": filepath.Join(home, "none.yaml"),
				"HITL_REVIEWER": []string{"alice", "bob"}[i]}
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out, errb bytes.Buffer
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				codes[i] = run(ctx, append([]string{"--backend", "a2a", "--url", a.url}, args...), strings.NewReader(""), &out, &errb,
					func(k string) string { return vars[k] })
				outs[i] = out.String() + errb.String()
			}()
		}
		wg.Wait()
		sent, elsewhere := 0, 0
		for _, c := range codes {
			switch c {
			case 0:
				sent++
			case 3:
				elsewhere++
			}
		}
		if sent != 1 || elsewhere != 1 {
			t.Fatalf("round %d: exits %v:\n  alice: %s\n  bob: %s", round, codes, outs[0], outs[1])
		}
		// The answer the agent acted on is the one its reviewer was told
		// was sent.
		_, resp := interruptResponse(t, a.received(task))
		if want := map[bool]string{true: `"y"`, false: `"n: no"`}[codes[0] == 0]; resp != want {
			t.Fatalf("round %d: the agent acted on %s, but the reviewer told sent sent %s:\n  alice: %s\n  bob: %s", round, resp, want, outs[0], outs[1])
		}
	}
}

// TestA2ADocsTryIt runs docs/backends.md's "try it by hand" on the test
// agent: the documented message starts a task, and hitl shows it by the
// task's id and approves it.
func TestA2ADocsTryIt(t *testing.T) {
	a := newA2A(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "backends.md"))
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, l := range strings.Split(string(doc), "\n") {
		if i := strings.Index(l, `-d '{"jsonrpc"`); i >= 0 && strings.Contains(l, `"method":"SendMessage"`) {
			body = strings.TrimSuffix(strings.TrimSpace(l[i+len("-d '"):]), "'")
		}
	}
	if body == "" {
		t.Fatal("docs/backends.md does not say how to start a task of the test agent")
	}
	var msg struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatalf("the documented message is not JSON: %v\n%s", err, body)
	}
	var res struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	json.Unmarshal(a.rpc(msg.Method, msg.Params), &res)
	task := res.Task.ID
	if task == "" {
		t.Fatal("the documented message started no task")
	}
	r := a.hitl("", "show", task)
	for _, want := range []string{"send_email", "allowed: approve, reject", task} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("show TASK (exit %d) lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	if r := a.hitl("", "approve", task); r.code != 0 || !strings.Contains(r.stdout, "Sent approve") {
		t.Fatalf("approve TASK: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, resp := interruptResponse(t, a.received(task)); resp != `"y"` {
		t.Fatalf("the agent received %s", a.received(task))
	}
}

// A task named in the profile's tasks: (or --task) that the agent does not
// know is said, with the rest listed: not dropped silently.
func TestA2AUnknownNamedTaskIsSaid(t *testing.T) {
	a := newA2A(t)
	task := a.start("text")
	r := a.hitl("", "list", "--task", "no-such-task-42")
	if r.code != 0 || !strings.Contains(r.stdout, "Which region should the replica go to?") ||
		!strings.Contains(r.stderr, "task no-such-task-42 (named in the profile's tasks: or --task) cannot be listed (the agent at "+strings.TrimRight(a.url, "/")) ||
		!strings.Contains(r.stderr, "knows no such task: check the id, or take it out of the profile's tasks); the rest of the inbox is listed") {
		t.Fatalf("list with an unknown named task: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A known one, named, is listed with no word.
	if r := a.hitl("", "list", "--task", task); r.code != 0 || strings.Contains(r.stderr, "cannot be listed") {
		t.Fatalf("list with a known named task: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
