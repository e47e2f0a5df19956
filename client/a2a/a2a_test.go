package a2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/a2a"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/internal/faultproxy"
	"github.com/hitl-sh/hitl/internal/realserver"
)

// rpc posts one JSON-RPC request to the agent, as another client would.
func rpc(t *testing.T, agent, version, method string, params any) json.RawMessage {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", agent, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(out, &env); err != nil || env.Error != nil {
		t.Fatalf("%s: %v %s", method, err, out)
	}
	return env.Result
}

// start asks the scripted agent to start a task of a scenario (its first
// word: text, strands, langgraph, form, again, unknown) and returns the
// task's id once it waits in input-required.
func start(t *testing.T, agent, scenario string) string {
	t.Helper()
	res := rpc(t, agent, "1.0", "SendMessage", map[string]any{"message": map[string]any{
		"messageId": "start-" + time.Now().Format("150405.000000000"), "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": scenario}}}})
	var r struct {
		Task struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"task"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Task.Status.State != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("start %s: %v %s", scenario, err, res)
	}
	return r.Task.ID
}

// received is every message the agent received on a task after it
// started, as it decoded them.
func received(t *testing.T, agent, task string) []map[string]any {
	t.Helper()
	resp, err := http.Get(strings.TrimRight(agent, "/") + "/received/" + url.PathEscape(task))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// partsOf is the parts of the only message a task received, as JSON.
func partsOf(t *testing.T, agent, task string) string {
	t.Helper()
	got := received(t, agent, task)
	if len(got) != 1 {
		t.Fatalf("the agent received %d messages on %s, want 1: %v", len(got), task, got)
	}
	b, _ := json.Marshal(got[0]["parts"])
	return string(b)
}

// faulty is the agent behind backendtest's faults: JSON-RPC reads are
// never lost or dropped (only the answer is, a POST like every read), and
// "poison" puts backendtest.Poison's entries at the head of ListTasks'
// tasks.
func faulty(t *testing.T, agent string) (string, *backendtest.Faults) {
	u, _ := url.Parse(agent)
	proxy := httputil.NewSingleHostReverseProxy(u)
	faults := &backendtest.Faults{}
	wrapped := faults.Wrap(proxy)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Method string `json:"method"`
		}
		json.Unmarshal(body, &req)
		m := faults.Mode()
		read := req.Method != "SendMessage" && req.Method != "message/send"
		switch {
		case m == "poison" && req.Method == "ListTasks":
			rec := httptest.NewRecorder()
			proxy.ServeHTTP(rec, r)
			out := rec.Body.Bytes()
			i := bytes.Index(out, []byte(`"tasks":[`))
			if i < 0 {
				t.Errorf("no tasks in %s", out)
			} else {
				at := i + len(`"tasks":[`)
				sep := ","
				if bytes.HasPrefix(bytes.TrimSpace(out[at:]), []byte("]")) {
					sep = ""
				}
				out = append(append(append([]byte{}, out[:at]...), []byte(strings.Join(backendtest.Poison(), ",")+sep)...), out[at:]...)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(out)
		case read && (m == "lose-answer" || m == "drop-write" || m == "poison"):
			proxy.ServeHTTP(w, r)
		default:
			wrapped.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL, faults
}

func backend(t *testing.T, u string, opts ...func(*a2a.Options)) *a2a.Backend {
	t.Helper()
	o := a2a.Options{Options: transport.Options{URL: u, ReadRetries: -1}, Follow: 10 * time.Second}
	for _, f := range opts {
		f(&o)
	}
	b, err := a2a.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConformance runs the suite every backend passes on the real A2A
// agent (a2a-sdk's server, testserver/a2a/), on a Strands tool approval,
// with the faults between hitl and the agent.
func TestConformance(t *testing.T) {
	agent := realserver.A2A(t)
	u, faults := faulty(t, agent)
	b, other := backend(t, u), backend(t, u)
	backendtest.Run(t, backendtest.Fixture{
		Backend: b,
		Other:   other,
		Create:  func(t *testing.T) string { return start(t, agent, "strands") },
		Decide:  func(client.Interrupt) []client.Decision { return []client.Decision{{Type: client.Approve}} },
		Reject: func(client.Interrupt) []client.Decision {
			return []client.Decision{{Type: client.Reject, Message: "wrong customer"}}
		},
		Verify: func(t *testing.T, it client.Interrupt) {
			parts := partsOf(t, agent, it.ThreadID)
			var ps []struct {
				Data struct {
					InterruptResponse struct {
						InterruptID string          `json:"interruptId"`
						Response    json.RawMessage `json:"response"`
					} `json:"interruptResponse"`
				} `json:"data"`
			}
			json.Unmarshal([]byte(parts), &ps)
			if len(ps) != 1 || !strings.HasPrefix(ps[0].Data.InterruptResponse.InterruptID, "v1:before_tool_call:tooluse_send_email_1:") ||
				string(ps[0].Data.InterruptResponse.Response) != `"y"` {
				t.Fatalf("the agent received %s", parts)
			}
		},
		ResolveElsewhere: func(t *testing.T, it client.Interrupt) {
			rpc(t, agent, "1.0", "SendMessage", map[string]any{"message": map[string]any{
				"messageId": "elsewhere-" + it.ThreadID, "taskId": it.ThreadID, "role": "ROLE_USER",
				"parts": []any{map[string]any{"data": map[string]any{"interruptResponse": map[string]any{"interruptId": "x", "response": "n"}}}}}})
		},
		Faults: faults,
	})
}

// TestProtocol03 speaks 0.3 to the same agent (message/send, tasks/get,
// kind parts, "input-required"): it cannot list, so the task is named.
func TestProtocol03(t *testing.T) {
	agent := realserver.A2A(t)
	named, other := start(t, agent, "text"), start(t, agent, "text")
	b := backend(t, agent, func(o *a2a.Options) { o.Protocol = "0.3"; o.Tasks = []string{named} })
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(its) != 1 || its[0].ThreadID != named || its[0].Schema != client.SchemaPrompt || its[0].Title != "Which region should the replica go to?" {
		t.Fatalf("listed %+v; want only the named task %s (not %s)", its, named, other)
	}
	res := backendtest.Send(t, b, "suite", its[0], client.Decision{Type: client.Respond, Message: "eu-west-1"})
	if res.Kind != decide.Sent || res.Run.Status != client.Finished {
		t.Fatalf("%s: %s", res.Kind, res.Text())
	}
	if got := partsOf(t, agent, named); got != `[{"text":"eu-west-1"}]` {
		t.Fatalf("the agent received %s", got)
	}
	// Answered: a second answer is refused before anything is sent.
	res = backendtest.Send(t, b, "suite", its[0], client.Decision{Type: client.Respond, Message: "again"})
	if res.Kind != decide.HandledElsewhere {
		t.Fatalf("a second answer: %s: %s", res.Kind, res.Text())
	}
	if n := len(received(t, agent, named)); n != 1 {
		t.Fatalf("the agent received %d messages", n)
	}
}

// TestTerminalTask: a message to a finished task (-32004) is already
// handled, never sent again.
func TestTerminalTask(t *testing.T) {
	agent := realserver.A2A(t)
	task := start(t, agent, "strands")
	b := backend(t, agent)
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var it client.Interrupt
	for _, i := range its {
		if i.ThreadID == task {
			it = i
		}
	}
	rpc(t, agent, "1.0", "CancelTask", map[string]any{"id": task})
	res := backendtest.Send(t, b, "suite", it, client.Decision{Type: client.Approve})
	if res.Kind != decide.HandledElsewhere {
		t.Fatalf("%s: %s", res.Kind, res.Text())
	}
	if n := len(received(t, agent, task)); n != 0 {
		t.Fatalf("the agent received %d messages", n)
	}
}

// TestFaultsOnTheSend puts internal/faultproxy between hitl and the real
// agent, on the SendMessage that carries the answer only: each fault is
// told as what became of the answer, and the answer reaches the agent at
// most once.
func TestFaultsOnTheSend(t *testing.T) {
	agent := realserver.A2A(t)
	p, err := faultproxy.New(agent)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	answer := func(body []byte) bool { return bytes.Contains(body, []byte(`"SendMessage"`)) }
	for _, tc := range []struct {
		name  string
		fault faultproxy.Fault
		want  decide.Kind
		got   int // messages the agent received
	}{
		{"reset before the agent", faultproxy.ResetBeforeUpstream(), decide.NotSent, 0},
		{"reset after the agent", faultproxy.ResetAfterUpstream(), decide.Sent, 1},
		{"bad gateway after the agent", faultproxy.BadGatewayAfterUpstream(), decide.Sent, 1},
		{"answer cut short", faultproxy.TruncateAfterUpstream(20), decide.Sent, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := start(t, agent, "text")
			b := backend(t, p.URL())
			its, err := b.Pending(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var it client.Interrupt
			for _, i := range its {
				if i.ThreadID == task {
					it = i
				}
			}
			p.Clear()
			defer p.Clear()
			seen := len(p.Log())
			p.Inject(faultproxy.Rule{Method: "POST", Body: answer, Times: 1, Fault: tc.fault})
			res := backendtest.Send(t, b, "suite", it, client.Decision{Type: client.Respond, Message: "eu-west-1"})
			if res.Kind != tc.want {
				t.Fatalf("%s: %s", res.Kind, res.Text())
			}
			if n := len(received(t, agent, task)); n != tc.got {
				t.Fatalf("the agent received %d messages, want %d", n, tc.got)
			}
			sends := 0
			for _, e := range p.Log()[seen:] {
				if answer(e.Body) {
					sends++
					if e.Fault != tc.fault {
						t.Errorf("the send got %v, want %v", e.Fault, tc.fault)
					}
				}
			}
			if sends != 1 {
				t.Errorf("%d sends went through the proxy, want 1", sends)
			}
		})
	}
}

// TestProtocolFromCard: an agent whose card offers only 0.3 is spoken to
// in 0.3 (its card as an a2a-sdk 0.3 server writes it), one that offers
// 1.0 in 1.0.
func TestProtocolFromCard(t *testing.T) {
	agent := realserver.A2A(t)
	u, _ := url.Parse(agent)
	proxy := httputil.NewSingleHostReverseProxy(u)
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/agent-card.json" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"name":"strands agent","protocolVersion":"0.3.0","url":"` + agent + `","preferredTransport":"JSONRPC"}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(old.Close)
	if got := backend(t, old.URL).Protocol(context.Background()); got != "0.3" {
		t.Errorf("a 0.3 card: %s", got)
	}
	if got := backend(t, agent).Protocol(context.Background()); got != "1.0" {
		t.Errorf("a 1.0 card: %s", got)
	}
	task := start(t, agent, "strands")
	b := backend(t, old.URL, func(o *a2a.Options) { o.Tasks = []string{task} })
	its, err := b.Pending(context.Background())
	if err != nil || len(its) != 1 || its[0].ThreadID != task || its[0].GraphID != "strands agent" {
		t.Fatalf("%v %+v", err, its)
	}
	if res := backendtest.Send(t, b, "suite", its[0], client.Decision{Type: client.Reject}); res.Kind != decide.Sent {
		t.Fatalf("%s: %s", res.Kind, res.Text())
	}
	if got := partsOf(t, agent, task); !strings.Contains(got, `"response":"n"`) {
		t.Fatalf("the agent received %s", got)
	}
}

// A question another reviewer answered through hitl is "already handled
// elsewhere (by alice …)": the task's history carries the answer's
// hitl_reviewer, right after the agent's message that asked it.
func TestHandledElsewhereNamesWho(t *testing.T) {
	agent := realserver.A2A(t)
	task := start(t, agent, "text")
	b := backend(t, agent)
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var it client.Interrupt
	for _, i := range its {
		if i.ThreadID == task {
			it = i
		}
	}
	// alice's hitl answers it first (its message, as hitl writes one).
	rpc(t, agent, "1.0", "SendMessage", map[string]any{"message": map[string]any{"messageId": "hitl-alice-" + task, "taskId": task,
		"role": "ROLE_USER", "parts": []any{map[string]any{"text": "us-east-1"}},
		"metadata": map[string]any{"hitl_decision_id": "alice-" + task, "hitl_reviewer": "alice"}}})
	res := backendtest.Send(t, b, "bob", it, client.Decision{Type: client.Respond, Message: "eu-west-1"})
	if res.Kind != decide.HandledElsewhere || !strings.Contains(res.Text(), `already handled elsewhere; nothing sent (by alice, answer "us-east-1")`) {
		t.Fatalf("%s: %s", res.Kind, res.Text())
	}
	if got := received(t, agent, task); len(got) != 1 {
		t.Fatalf("the agent received %d messages: %v", len(got), got)
	}
}

// geminiAnswer reads the parts a task received as Gemini CLI's agent
// server reads them: the data part's callId and outcome, and any text.
func geminiAnswer(t *testing.T, parts string) (callID, outcome, text string) {
	t.Helper()
	var ps []struct {
		Data *struct {
			CallID  string `json:"callId"`
			Outcome string `json:"outcome"`
		} `json:"data"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(parts), &ps); err != nil {
		t.Fatalf("%v: %s", err, parts)
	}
	for _, p := range ps {
		if p.Data != nil {
			callID, outcome = p.Data.CallID, p.Data.Outcome
		}
		text += p.Text
	}
	return callID, outcome, text
}

// TestGeminiConformance runs the suite on Gemini CLI's tool-call
// confirmation, as the scripted agent replays it (a working-state update
// carrying the call awaiting approval, then input-required with no
// message: the call is read from the history).
func TestGeminiConformance(t *testing.T) {
	agent := realserver.A2A(t)
	u, faults := faulty(t, agent)
	b, other := backend(t, u), backend(t, u)
	backendtest.Run(t, backendtest.Fixture{
		Backend: b,
		Other:   other,
		Create:  func(t *testing.T) string { return start(t, agent, "gemini") },
		Decide:  func(client.Interrupt) []client.Decision { return []client.Decision{{Type: client.Approve}} },
		Reject: func(client.Interrupt) []client.Decision {
			return []client.Decision{{Type: client.Reject, Message: "not on main"}}
		},
		Verify: func(t *testing.T, it client.Interrupt) {
			parts := partsOf(t, agent, it.ThreadID)
			if id, outcome, text := geminiAnswer(t, parts); !strings.HasPrefix(id, "run_shell_command__") || outcome != "proceed_once" || text != "" {
				t.Fatalf("the agent received %s", parts)
			}
		},
		ResolveElsewhere: func(t *testing.T, it client.Interrupt) {
			rpc(t, agent, "1.0", "SendMessage", map[string]any{"message": map[string]any{
				"messageId": "elsewhere-" + it.ThreadID, "taskId": it.ThreadID, "role": "ROLE_USER",
				"parts": []any{map[string]any{"data": map[string]any{"callId": "x", "outcome": "cancel"}}}}})
		},
		Faults: faults,
	})
}

// TestGeminiProtocol03 answers Gemini CLI's confirmation in 0.3 (the
// protocol Gemini CLI's agent server speaks, through a2a-js 0.3): a reject
// is outcome cancel on the call, its reason a text part.
func TestGeminiProtocol03(t *testing.T) {
	agent := realserver.A2A(t)
	task := start(t, agent, "gemini-edit")
	b := backend(t, agent, func(o *a2a.Options) { o.Protocol = "0.3"; o.Tasks = []string{task} })
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(its) != 1 || its[0].ThreadID != task || len(its[0].Actions) != 1 || its[0].Actions[0].Name != "replace" ||
		!strings.Contains(its[0].Actions[0].Description, "+DEBUG = False") {
		t.Fatalf("listed %+v", its)
	}
	res := backendtest.Send(t, b, "suite", its[0], client.Decision{Type: client.Reject, Message: "keep debug on"})
	if res.Kind != decide.Sent || res.Run.Status != client.Finished {
		t.Fatalf("%s: %s", res.Kind, res.Text())
	}
	parts := partsOf(t, agent, task)
	if id, outcome, text := geminiAnswer(t, parts); !strings.HasPrefix(id, "replace__replace_") || outcome != "cancel" || text != "keep debug on" {
		t.Fatalf("the agent received %s", parts)
	}
}
