package langgraph_test

// The backend conformance suite: the same tests run against the embedded
// demo server and against the real LangGraph dev server (scripts/test sets
// HITL_TEST_LANGGRAPH_URL). Both must pass; where they differ, the difference
// is written in the README and tested here.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/internal/realserver"
)

// compact is JSON without insignificant spaces: the Python server writes
// `{"a": 1}` where the JS one writes `{"a":1}`.
func compact(b []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return string(b)
	}
	return out.String()
}

// target is one server under test and the graphs that play each role there.
type target struct {
	name string
	url  string
	// peer is where the decisions go: langhost's second replica (the
	// interrupt raised through one replica, decided through the other);
	// elsewhere url.
	peer     string
	kind     realserver.Kind // "" for the embedded server
	single   graphInput      // one middleware interrupt with one send_email action
	parallel graphInput      // two interrupts in one thread: raw + prompt
	bp       graphInput      // a static breakpoint
	slow     graphInput      // a run that takes a while
	fanout   graphInput      // three Send branches that each interrupt (items a, b, c)
	// branches reads what each fan-out branch received, by item.
	branches func(t *testing.T, thread string) map[string]string
	// slowAnswer makes a fan-out branch's run take a while once answered.
	slowAnswer json.RawMessage
	// longAnswer makes it take longer than a watcher's first look can,
	// however loaded the machine.
	longAnswer json.RawMessage
}

type graphInput struct {
	graph string
	input any
}

func email() any {
	return map[string]any{"messages": []any{map[string]string{"role": "user", "content": "email"}}}
}

// forEachEverywhere runs f on the embedded server, the dev servers,
// langhost and aegra: every conformance test runs on each, asserting each
// server's differences as such (docs/servers.md).
func forEachEverywhere(t *testing.T, f func(t *testing.T, tg target)) {
	forEachOf(t, targetsOf(t, true, true), f)
}

// targetsWithProduction adds langhost (the interrupt raised through one
// replica, decided through the other) and aegra, to the tests that pass
// there (docs/servers.md).
func targetsWithProduction(t *testing.T) []target {
	return targetsOf(t, true, true)
}

func targetsOf(t *testing.T, langhost, aegra bool) []target {
	t.Helper()
	srv := demo.New()
	srv.RunDelay = 300 * time.Millisecond // long enough to see a busy thread
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	out := []target{{name: "embedded", url: srv.URL(),
		single: graphInput{"support", email()}, parallel: graphInput{"parallel", map[string]any{}},
		bp: graphInput{"release", map[string]any{}}, slow: graphInput{"asker", map[string]any{}},
		fanout: graphInput{"fanout", map[string]any{"topic": "a,b,c"}}, slowAnswer: json.RawMessage(`"yes"`), longAnswer: json.RawMessage(`"yes"`)}}
	out[0].branches = func(t *testing.T, thread string) map[string]string {
		_, body := call(t, "GET", out[0].url+"/threads/"+thread+"/state", nil)
		var st struct {
			Values struct {
				Messages []struct {
					Type    string `json:"type"`
					Content string `json:"content"`
				} `json:"messages"`
			} `json:"values"`
		}
		json.Unmarshal(body, &st)
		got := map[string]string{}
		for _, m := range st.Values.Messages {
			if item, v, ok := strings.Cut(m.Content, ": "); ok && m.Type == "human" && len(item) == 1 {
				got[item] = v
			}
		}
		return got
	}
	out[0].peer = out[0].url
	for _, rs := range realserver.Everywhere(t) {
		if (rs.Kind == realserver.Aegra && !aegra) || (rs.Kind == realserver.Langhost && !langhost) {
			continue
		}
		u := rs.URL
		out = append(out, target{name: rs.Name(), url: u, peer: rs.Peer, kind: rs.Kind,
			single: graphInput{"agent", email()}, parallel: graphInput{"parallel", map[string]any{}},
			bp: graphInput{"breakpoint", map[string]any{}}, slow: graphInput{"slow", map[string]any{}},
			fanout: graphInput{"fanout", map[string]any{"topic": "a,b,c"}}, slowAnswer: json.RawMessage(`{"sleep":1500}`),
			// 15 s: at 6 s a CI run on a loaded machine once took its
			// first look after the run had ended, so nothing was joined.
			longAnswer: json.RawMessage(`{"sleep":15000}`),
			branches: func(t *testing.T, thread string) map[string]string {
				_, body := call(t, "GET", u+"/threads/"+thread+"/state", nil)
				var st struct {
					Values struct {
						Log []struct {
							Node  string          `json:"node"`
							Item  string          `json:"item"`
							Value json.RawMessage `json:"value"`
						} `json:"log"`
					} `json:"values"`
				}
				json.Unmarshal(body, &st)
				got := map[string]string{}
				for _, e := range st.Values.Log {
					if e.Node == "branch" {
						got[e.Item] = compact(e.Value)
					}
				}
				return got
			}})
	}
	return out
}

// forEachOf runs f on each of tgs. The test runs in parallel with the
// others; on a real server, one test at a time.
func forEachOf(t *testing.T, tgs []target, f func(t *testing.T, tg target)) {
	t.Parallel()
	for _, tg := range tgs {
		t.Run(tg.name, func(t *testing.T) {
			if tg.name != "embedded" {
				realserver.Hold(t, tg.url)
			}
			f(t, tg)
		})
	}
}

// callClient bounds each of the tests' own requests: a server that never
// answers fails the test, it does not hang the package until go test's
// timeout (the longest wait asked for, a run of 15 s, is well within).
var callClient = &http.Client{Timeout: 2 * time.Minute, Transport: realserver.Client.Transport}

func call(t *testing.T, method, url string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := callClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// start creates a thread tagged with meta and runs g until it pauses (on
// langhost, until the thread settled: realserver.Settle).
func start(t *testing.T, tg target, g graphInput, meta map[string]any) string {
	t.Helper()
	for try := 1; ; try++ {
		code, b := call(t, "POST", tg.url+"/threads", map[string]any{"metadata": meta})
		if code != 200 {
			t.Fatalf("create thread: %d %s", code, b)
		}
		var th struct {
			ThreadID string `json:"thread_id"`
		}
		json.Unmarshal(b, &th)
		if code, b := call(t, "POST", tg.url+"/threads/"+th.ThreadID+"/runs/wait", map[string]any{"assistant_id": g.graph, "input": g.input}); code != 200 {
			t.Fatalf("run: %d %s", code, b)
		}
		if tg.kind != realserver.Langhost || !realserver.Settle(t, tg.url, th.ThreadID) || try == 3 {
			return th.ThreadID
		}
		t.Logf("langhost lost thread %s's interrupted status (idle, its interrupt still there: docs/servers.md); starting the graph again on a new thread", th.ThreadID)
	}
}

func backend(t *testing.T, tg target, meta map[string]string, pageSize int) *langgraph.Backend {
	t.Helper()
	u := tg.peer
	if u == "" {
		u = tg.url
	}
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: u}, Metadata: meta, PageSize: pageSize, Follow: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tag(t *testing.T) map[string]string {
	return map[string]string{"suite": strings.ReplaceAll(t.Name(), "/", "-") + "-" + time.Now().Format("150405.000000000")}
}

func anyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func pendingOf(t *testing.T, b *langgraph.Backend) []client.Interrupt {
	t.Helper()
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return its
}

func TestConformResumeByID(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.single, anyMap(meta))
		b := backend(t, tg, meta, 0)
		its := pendingOf(t, b)
		if len(its) != 1 || its[0].Schema != client.SchemaMiddleware || its[0].ThreadID != thread || len(its[0].ID) != 32 {
			t.Fatalf("pending: %+v", its)
		}
		res := backendtest.Send(t, b, "alice", its[0], client.Decision{Type: client.Approve})
		if tg.kind == realserver.Aegra {
			// aegra keeps neither the run's metadata nor its command, but
			// no other run was started since the interrupt was raised: no
			// other answer could have taken it (docs/servers.md).
			if res.Kind != decide.Sent || res.Run.Status != client.Finished {
				t.Fatalf("send: %s", res.Text())
			}
			_, body := call(t, "GET", tg.url+"/threads/"+thread+"/state", nil)
			if !bytes.Contains(body, []byte(`ran send_email`)) {
				t.Fatalf("the tool did not run: %s", body)
			}
			if len(pendingOf(t, b)) != 0 {
				t.Fatal("still pending after the resume")
			}
			return
		}
		if res.Kind != decide.Sent || res.Run.Status != client.Finished {
			t.Fatalf("send: %s", res.Text())
		}
		// The server records who decided, on the run.
		_, body := call(t, "GET", tg.url+"/threads/"+thread+"/runs?limit=100", nil)
		var runs []struct {
			Metadata map[string]any `json:"metadata"`
		}
		json.Unmarshal(body, &runs)
		stamped := false
		for _, r := range runs {
			stamped = stamped || (r.Metadata["hitl_reviewer"] == "alice" && r.Metadata["hitl_decision_id"] == res.Submission.DecisionID)
		}
		if !stamped {
			t.Fatalf("no run carries the reviewer and decision id: %s", body)
		}
		_, body = call(t, "GET", tg.url+"/threads/"+thread+"/state", nil)
		if !bytes.Contains(body, []byte(`ran send_email`)) {
			t.Fatalf("the tool did not run: %s", body)
		}
		if len(pendingOf(t, b)) != 0 {
			t.Fatal("still pending after the resume")
		}
	})
}

func TestConformPartialResumeOfParallelInterrupts(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		start(t, tg, tg.parallel, anyMap(meta))
		b := backend(t, tg, meta, 0)
		its := pendingOf(t, b)
		if len(its) != 2 {
			t.Fatalf("want 2 pending, got %+v", its)
		}
		var raw, prompt client.Interrupt
		for _, it := range its {
			if it.Schema == client.SchemaRaw {
				raw = it
			} else {
				prompt = it
			}
		}
		res := sendValue(t, b, raw, `{"approved":true}`)
		if res.Kind != decide.Sent || res.Run.Status != client.PausedAgain || len(res.Run.Pending) != 1 || res.Run.Pending[0] != prompt.ID {
			t.Fatalf("partial resume: %s %+v", res.Text(), res.Run)
		}
		left := pendingOf(t, b)
		if len(left) != 1 || left[0].ID != prompt.ID {
			t.Fatalf("the other interrupt changed: %+v", left)
		}
		res = sendValue(t, b, left[0], `"eu-west-1"`)
		if res.Kind != sentAfterAnother(tg) || res.Run.Status != client.Finished {
			t.Fatalf("second resume: %s", res.Text())
		}
	})
}

func TestConformStaleResume(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.single, anyMap(meta))
		b := backend(t, tg, meta, 0)
		it := pendingOf(t, b)[0]
		r, _ := client.Encode(&it.Payload, []client.Decision{{Type: client.Approve}}, client.EncodeOptions{})
		if res := backendtest.Send(t, b, "alice", it, client.Decision{Type: client.Approve}); res.Kind != decide.Sent {
			t.Fatal(res.Text())
		}
		// The server itself accepts a resume of an interrupt that is gone
		// (aegra refuses it: the thread is not interrupted).
		code, body := call(t, "POST", tg.url+"/threads/"+thread+"/runs/wait", map[string]any{
			"assistant_id": tg.single.graph, "command": map[string]any{"resume": map[string]any{it.ID: json.RawMessage(r.Value)}}})
		if want := map[bool]int{true: 400, false: 200}[tg.kind == realserver.Aegra]; code != want {
			t.Fatalf("stale resume: HTTP %d %s", code, body)
		}
		// hitl does not: it looks first and sends nothing.
		_, before := call(t, "GET", tg.url+"/threads/"+thread+"/runs", nil)
		if res := backendtest.Send(t, b, "bob", it, client.Decision{Type: client.Reject}); !errors.Is(res.Err(), client.ErrAlreadyHandled) {
			t.Fatalf("got %s", res.Text())
		}
		_, after := call(t, "GET", tg.url+"/threads/"+thread+"/runs", nil)
		if countRuns(before) != countRuns(after) {
			t.Fatal("a run was started for a handled interrupt")
		}
	})
}

// sentAfterAnother is what a decision is told on a thread where another
// decision of the same reviewer ran first since the interrupts were raised
// (one branch after another): "sent", except where the server shows no
// run's resume (aegra), which cannot tell that run from another reviewer's
// answer to this interrupt.
func sentAfterAnother(tg target) decide.Kind {
	if tg.kind == realserver.Aegra {
		return decide.Unconfirmed
	}
	return decide.Sent
}

func countRuns(b []byte) int {
	var runs []any
	json.Unmarshal(b, &runs)
	return len(runs)
}

// A second run on a busy thread is refused: 422 in plain text on the JS
// server (and the embedded one), 409 with a JSON detail on the Python one.
// hitl takes both as "busy".
func TestConformBusyThread(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		code, b := call(t, "POST", tg.url+"/threads", map[string]any{})
		if code != 200 {
			t.Fatal(string(b))
		}
		var th struct {
			ThreadID string `json:"thread_id"`
		}
		json.Unmarshal(b, &th)
		run := map[string]any{"assistant_id": tg.slow.graph, "input": tg.slow.input, "multitask_strategy": "reject"}
		if code, b := call(t, "POST", tg.url+"/threads/"+th.ThreadID+"/runs", run); code != 200 {
			t.Fatalf("first run: %d %s", code, b)
		}
		code, b = call(t, "POST", tg.url+"/threads/"+th.ThreadID+"/runs", run)
		want := http.StatusUnprocessableEntity
		var detail struct {
			Detail string `json:"detail"`
		}
		switch tg.kind {
		case realserver.Python, realserver.Langhost:
			want = http.StatusConflict
			if json.Unmarshal(b, &detail) != nil || !strings.Contains(detail.Detail, "already running") {
				t.Errorf("the Python server's refusal is not JSON with a detail: %s", b)
			}
		case realserver.Aegra:
			// aegra takes no multitask_strategy: the second run is
			// accepted. A resume on a busy thread is refused all the
			// same (400 "not in interrupted state"):
			// TestConformBusyIsNotHandled.
			var r struct {
				RunID string `json:"run_id"`
			}
			if code != http.StatusOK || json.Unmarshal(b, &r) != nil || r.RunID == "" || langgraph.BusyAnswer(code, b) {
				t.Fatalf("second run on a busy aegra thread: HTTP %d %s", code, b)
			}
			return
		}
		if code != want || !langgraph.BusyAnswer(code, b) {
			t.Fatalf("second run on a busy thread: HTTP %d %s", code, b)
		}
	})
}

func TestConformPagingAndSelect(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		for range 3 {
			start(t, tg, tg.single, anyMap(meta))
		}
		b := backend(t, tg, meta, 2)
		if n := len(pendingOf(t, b)); n != 3 {
			t.Fatalf("paging by 2 found %d of 3", n)
		}
		// A count that falls short (threads made while paging, a gateway)
		// does not end the paging: only a short page does.
		if n := len(pendingOf(t, backend(t, target{url: totalProxy(t, tg.url, "2")}, meta, 2))); n != 3 {
			t.Fatalf("paging by 2 under a count of 2 found %d of 3", n)
		}
		code, body := call(t, "POST", tg.url+"/threads/search", map[string]any{"status": "interrupted", "limit": 2, "metadata": meta,
			"select": []string{"thread_id", "status", "interrupts"}})
		var page []map[string]any
		if code != 200 || json.Unmarshal(body, &page) != nil || len(page) != 2 {
			t.Fatalf("search: %d %s", code, body)
		}
		for _, th := range page {
			if _, has := th["values"]; has {
				t.Fatal("select did not drop values")
			}
		}
	})
}

func TestConformBreakpointAndUnknownAssistant(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.bp, anyMap(meta))
		b := backend(t, tg, meta, 0)
		its := pendingOf(t, b)
		if tg.kind == realserver.Aegra {
			// aegra ends the run at a static breakpoint as any other
			// (success) and leaves the thread idle, its state's next
			// the node it stopped before: nothing says it waits, so
			// hitl lists nothing (docs/servers.md).
			_, th := call(t, "GET", tg.url+"/threads/"+thread, nil)
			_, st := call(t, "GET", tg.url+"/threads/"+thread+"/state", nil)
			if len(its) != 0 || !bytes.Contains(th, []byte(`"status":"idle"`)) || !bytes.Contains(st, []byte(`"next":["act"]`)) {
				t.Fatalf("aegra's breakpoint: listed %+v; thread %.300s; state %.300s", its, th, st)
			}
		} else if len(its) != 1 || its[0].Schema != client.SchemaBreakpoint || !strings.HasPrefix(its[0].Title, "Paused before ") {
			t.Fatalf("breakpoint: %+v", its)
		}
		if tg.kind != realserver.Aegra {
			res := backendtest.Send(t, b, "alice", its[0], client.Decision{Type: client.Approve})
			if res.Kind != decide.Sent || res.Run.Status != client.Finished {
				t.Fatalf("continue: %s", res.Text())
			}
		}
		_, body := call(t, "POST", tg.url+"/threads", map[string]any{})
		var th struct {
			ThreadID string `json:"thread_id"`
		}
		json.Unmarshal(body, &th)
		code, body := call(t, "POST", tg.url+"/threads/"+th.ThreadID+"/runs", map[string]any{"assistant_id": "no-such-graph", "input": map[string]any{}})
		// JS: 404 "No assistant found"; Python (langhost too): 422
		// "Invalid assistant"; aegra: 404 "Assistant '…' not found".
		wantCode, wantText := 404, "No assistant found"
		switch tg.kind {
		case realserver.Python, realserver.Langhost:
			wantCode, wantText = 422, "Invalid assistant: 'no-such-graph'"
		case realserver.Aegra:
			wantText = "Assistant 'no-such-graph' not found"
		}
		if code != wantCode || !strings.Contains(string(body), wantText) {
			t.Fatalf("unknown assistant: %d %s", code, body)
		}
	})
}

// TestConformSuite runs the suite every backend passes: against the embedded
// server with injected faults, and against the real server without.
func TestConformSuite(t *testing.T) {
	t.Parallel()
	for _, tg := range targetsWithProduction(t) {
		t.Run(tg.name, func(t *testing.T) {
			url := tg.url
			var faults *backendtest.Faults
			if tg.name == "embedded" {
				srv := demo.New()
				srv.RunDelay = 0
				faults = &backendtest.Faults{}
				ts := httptest.NewServer(faults.Wrap(srv.Handler()))
				t.Cleanup(ts.Close)
				url = ts.URL
				tg.url = url
			}
			meta := tag(t)
			b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: url, ReadRetries: -1}, Metadata: meta, Follow: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			// The second reviewer decides through the deployment's other
			// replica (langhost), where there is one.
			otherURL := url
			if tg.peer != "" && tg.name != "embedded" {
				otherURL = tg.peer
			}
			other, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: otherURL, ReadRetries: -1}, Metadata: meta, Follow: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			backendtest.Run(t, backendtest.Fixture{
				Backend: b,
				Other:   other,
				Reject: func(client.Interrupt) []client.Decision {
					return []client.Decision{{Type: client.Reject, Message: "no"}}
				},
				Create: func(t *testing.T) string { return start(t, tg, tg.single, anyMap(meta)) },
				Decide: func(client.Interrupt) []client.Decision { return []client.Decision{{Type: client.Approve}} },
				Verify: func(t *testing.T, it client.Interrupt) {
					_, body := call(t, "GET", url+"/threads/"+it.ThreadID+"/state", nil)
					if !bytes.Contains(body, []byte("ran send_email")) {
						t.Fatalf("the tool did not run: %s", body)
					}
				},
				ResolveElsewhere: func(t *testing.T, it client.Interrupt) {
					r, _ := client.Encode(&it.Payload, []client.Decision{{Type: client.Reject, Message: "no"}}, client.EncodeOptions{})
					code, body := call(t, "POST", url+"/threads/"+it.ThreadID+"/runs/wait", map[string]any{
						"assistant_id": tg.single.graph, "command": map[string]any{"resume": map[string]any{it.ID: json.RawMessage(r.Value)}}})
					if code != 200 {
						t.Fatalf("resolve elsewhere: %d %s", code, body)
					}
				},
				Faults: faults,
				// The production-shaped servers race more rounds: there
				// (aegra) the race decides what a reviewer is told.
				Races:         map[bool]int{true: envInt("HITL_SUITE_RACES", 20)}[tg.kind == realserver.Langhost || tg.kind == realserver.Aegra],
				Unconfirmable: tg.kind == realserver.Aegra,
			})
		})
	}
}

// sendValue sends a raw payload's JSON answer through the pipeline.
func sendValue(t *testing.T, b client.Backend, it client.Interrupt, value string) *decide.Result {
	t.Helper()
	return backendtest.Send(t, b, "alice", it, client.Decision{Type: client.Respond, Value: json.RawMessage(value), Message: value})
}

func fanoutOf(t *testing.T, tg target, b *langgraph.Backend, thread string) map[string]client.Interrupt {
	t.Helper()
	out := map[string]client.Interrupt{}
	for _, it := range pendingOf(t, b) {
		if it.ThreadID != thread {
			continue
		}
		var v struct {
			Item string `json:"item"`
		}
		json.Unmarshal(it.Raw, &v)
		out[v.Item] = it
	}
	return out
}

// An answered fan-out branch is never offered again, although the server
// keeps listing it (both servers list the first branch again after the
// second is answered: see answered.go); a decision on it is refused, and
// the branch keeps the first answer.
func TestConformAnsweredBranchesAreNotPending(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.fanout, anyMap(meta))
		b := backend(t, tg, meta, 0)
		branches := fanoutOf(t, tg, b, thread)
		if len(branches) != 3 {
			t.Fatalf("want 3 branches, got %+v", branches)
		}
		if res := sendValue(t, b, branches["a"], `"yes-a"`); res.Kind != decide.Sent {
			t.Fatal(res.Text())
		}
		res := sendValue(t, b, branches["b"], `"yes-b"`)
		if res.Kind != sentAfterAnother(tg) || len(res.Run.Pending) != 1 || res.Run.Pending[0] != branches["c"].ID {
			t.Fatalf("after b: %s %+v (paused again must name c only)", res.Text(), res.Run.Pending)
		}
		if tg.kind != "" && tg.kind != realserver.Aegra { // aegra lists no interrupt on a thread
			// What hitl works around: both servers list branch a again
			// (thread.interrupts is the last run's picture of the step;
			// answered.go).
			if _, body := call(t, "GET", tg.url+"/threads/"+thread, nil); !bytes.Contains(body, []byte(branches["a"].ID)) {
				t.Fatalf("the %s server no longer lists the answered branch a: update answered.go and docs/servers.md: %s", tg.name, body)
			}
		}
		left := fanoutOf(t, tg, b, thread)
		if len(left) != 1 || left["c"].ID != branches["c"].ID {
			t.Fatalf("answered branches are listed: %+v", left)
		}
		st, err := b.Standing(context.Background(), []client.Interrupt{branches["a"]})
		if err != nil || st[0].Presence != client.Answered {
			t.Fatalf("standing of an answered branch: %+v %v", st, err)
		}
		if res := sendValue(t, b, branches["a"], `"NO"`); !errors.Is(res.Err(), client.ErrAlreadyHandled) {
			t.Fatalf("a decision on an answered branch: %s", res.Text())
		}
		if got := tg.branches(t, thread); got["a"] != `"yes-a"` || got["b"] != `"yes-b"` {
			t.Fatalf("the branches got %v", got)
		}
	})
}

// One resume answers every branch: one run, each branch its own value.
func TestConformOneResumeAnswersEveryBranch(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.fanout, anyMap(meta))
		b := backend(t, tg, meta, 0)
		var drafts []decide.Draft
		for item, it := range fanoutOf(t, tg, b, thread) {
			v := json.RawMessage(`"ship-` + item + `"`)
			drafts = append(drafts, decide.Draft{Interrupt: it, Decisions: []client.Decision{{Type: client.Respond, Value: v, Message: string(v)}}})
		}
		_, before := call(t, "GET", tg.url+"/threads/"+thread+"/runs?limit=100", nil)
		p := &decide.Pipeline{Backend: b, Reviewer: "alice"}
		subs, err := p.Prepare(drafts)
		if err != nil || len(subs) != 1 || len(subs[0].Items) != 3 {
			t.Fatalf("want one submission of 3: %v %v", subs, err)
		}
		res := p.Send(context.Background(), subs[0])
		if res.Kind != decide.Sent || res.Run.Status != client.Finished {
			t.Fatalf("%s", res.Text())
		}
		for _, ir := range res.Items {
			if ir.Kind != decide.Sent {
				t.Fatalf("item %s: %s", ir.ID, ir.Kind)
			}
		}
		_, after := call(t, "GET", tg.url+"/threads/"+thread+"/runs?limit=100", nil)
		if countRuns(after) != countRuns(before)+1 {
			t.Fatalf("%d runs for one resume", countRuns(after)-countRuns(before))
		}
		if got := tg.branches(t, thread); got["a"] != `"ship-a"` || got["b"] != `"ship-b"` || got["c"] != `"ship-c"` {
			t.Fatalf("the branches got %v", got)
		}
	})
}

// While a run answers one branch, a decision on another is refused as busy
// (nothing sent, still listed, not handled); one on the branch being
// answered is "handled elsewhere".
func TestConformBusyIsNotHandled(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.fanout, anyMap(meta))
		b := backend(t, tg, meta, 0)
		branches := fanoutOf(t, tg, b, thread)
		done := make(chan *decide.Result)
		go func() {
			done <- backendtest.Send(t, b, "alice", branches["a"], client.Decision{Type: client.Respond, Value: tg.slowAnswer, Message: string(tg.slowAnswer)})
		}()
		// Wait for the thread to be busy.
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, body := call(t, "GET", tg.url+"/threads/"+thread, nil)
			var th struct {
				Status string `json:"status"`
			}
			if json.Unmarshal(body, &th) == nil && th.Status == "busy" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the thread never got busy")
			}
			time.Sleep(10 * time.Millisecond)
		}
		p := &decide.Pipeline{Backend: b, Reviewer: "bob"}
		j, _ := journal.Open(t.TempDir())
		p.Journal = j
		subs, _ := p.Prepare([]decide.Draft{{Interrupt: branches["b"], Decisions: []client.Decision{{Type: client.Respond, Message: "later"}}}})
		if tg.kind == realserver.Aegra {
			// aegra shows neither a busy thread's interrupts nor which
			// one its run answers: hitl waits for the run to end (at
			// most 20 s) and then looks. b still waits, so bob's answer
			// goes after alice's run, never beside it; whose answer b
			// took the server cannot show, as another run (alice's)
			// ran since the branches were raised.
			res := p.Send(context.Background(), subs[0])
			first := <-done
			if first.Kind != decide.Sent || res.Kind != decide.Unconfirmed {
				t.Fatalf("alice: %s; bob, on b: %s", first.Text(), res.Text())
			}
			if left := fanoutOf(t, tg, b, thread); len(left) != 1 || left["c"].ID != branches["c"].ID {
				t.Fatalf("after both runs only c waits: %+v", left)
			}
			return
		}
		res := p.Send(context.Background(), subs[0])
		if res.Kind != decide.Busy || !strings.Contains(res.Text(), "another run is in progress on this thread; nothing sent") || j.IsHandled(branches["b"].ID) {
			t.Fatalf("busy: %s %s", res.Kind, res.Text())
		}
		subs, _ = p.Prepare([]decide.Draft{{Interrupt: branches["a"], Decisions: []client.Decision{{Type: client.Respond, Message: "me too"}}}})
		if res := p.Send(context.Background(), subs[0]); res.Kind != decide.HandledElsewhere || j.IsHandled(branches["a"].ID) {
			t.Fatalf("the branch being answered: %s", res.Text())
		}
		if first := <-done; first.Kind != decide.Sent {
			t.Fatalf("the first decision: %s", first.Text())
		}
		left := fanoutOf(t, tg, b, thread)
		if _, ok := left["b"]; !ok || len(left) != 2 {
			t.Fatalf("after the run, b must wait again: %+v", left)
		}
	})
}

// Once listed, a poll asks what changed since the last one (a page of
// thread ids and times, newest first) and reads only the threads that
// changed: a new interrupt, an answered one, a breakpoint continued.
func TestConformPollAsksOnlyWhatChanged(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		for _, g := range []graphInput{tg.single, tg.bp, tg.fanout} {
			start(t, tg, g, anyMap(meta))
		}
		c := &counter{h: reverseProxy(t, tg.url)}
		hs := httptest.NewServer(c)
		t.Cleanup(hs.Close)
		b := backend(t, target{url: hs.URL}, meta, 0)
		// One tool call, one breakpoint, three branches; aegra shows no
		// breakpoint (TestConformBreakpointAndUnknownAssistant).
		n := 5
		if tg.kind == realserver.Aegra {
			n = 4
		}
		first := pendingOf(t, b)
		if len(first) != n {
			t.Fatalf("first listing: %d interrupts", len(first))
		}
		c.reset()
		if again := pendingOf(t, b); len(again) != n || c.requests.Load() != 1 {
			t.Fatalf("idle poll: %d interrupts, %d requests %v", len(again), c.requests.Load(), c.paths)
		}
		thread := start(t, tg, tg.single, anyMap(meta))
		c.reset()
		its := pendingOf(t, b)
		// The changed thread's ids and times, then the thread; on
		// langhost and aegra its state too: the arguments in the graph's
		// order (langhost's JSONB reorders them), the interrupt itself
		// (aegra lists none on the thread).
		most := int64(2)
		if tg.kind == realserver.Langhost || tg.kind == realserver.Aegra {
			most = 3
		}
		if len(its) != n+1 || its[0].ThreadID != thread || c.requests.Load() > most {
			t.Fatalf("after a new interrupt: %d interrupts (first of %s), %d requests %v", len(its), its[0].ThreadID, c.requests.Load(), c.paths)
		}
		if res := backendtest.Send(t, b, "alice", its[0], client.Decision{Type: client.Approve}); res.Kind != decide.Sent {
			t.Fatalf("send: %s", res.Text())
		}
		for _, it := range pendingOf(t, b) {
			if it.ThreadID == thread {
				t.Fatal("the answered interrupt is still listed")
			}
		}
	})
}

func reverseProxy(t *testing.T, target string) http.Handler {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1
	return p
}

// A watched backend joins the stream of a resumable run in flight and says
// when it pauses, before its next look; the agent's own reader of the run
// loses nothing.
func TestConformChangesJoinResumableRuns(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.fanout, anyMap(meta))
		b := backend(t, tg, meta, 0)
		its := pendingOf(t, b)
		if len(its) != 3 {
			t.Fatalf("fan-out: %d interrupts", len(its))
		}
		code, body := call(t, "POST", tg.url+"/threads/"+thread+"/runs", map[string]any{"assistant_id": tg.fanout.graph,
			"command": map[string]any{"resume": map[string]any{its[0].ID: tg.longAnswer}}, "stream_resumable": true})
		if code != 200 {
			t.Fatalf("resume: %d %s", code, body)
		}
		var r struct {
			RunID string `json:"run_id"`
		}
		json.Unmarshal(body, &r)
		// The Python server queues a run (a second or more on a loaded
		// machine) and the thread turns busy only when it starts: the
		// watcher's one look must find it running, or there is nothing
		// to join.
		// (The embedded server's run is 300 ms long and starts at once.)
		for deadline := time.Now().Add(15 * time.Second); tg.kind != ""; time.Sleep(50 * time.Millisecond) {
			_, body := call(t, "GET", tg.url+"/threads/"+thread, nil)
			var th struct {
				Status string `json:"status"`
			}
			json.Unmarshal(body, &th)
			if th.Status == "busy" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the thread never turned busy: %s", body)
			}
		}
		// Looks an hour apart: the signal can only come from the joined run.
		// aegra's runs carry no kwargs: nothing says a run is resumable,
		// and none is joined; and its busy thread lists no interrupt (it
		// keeps none on the thread, hitl reads the state of a thread that
		// waits): the first look finds nothing to signal. There the
		// watcher sees the pause at its next look, a quarter of a second
		// apart here (docs/servers.md).
		live := time.Hour
		if tg.kind == realserver.Aegra {
			live = 250 * time.Millisecond
		}
		w, ch := watchedWith(t, tg.url, meta, live)
		// The first listing, bounded: a first look that signals nothing
		// would otherwise wait here for the hour (aegra, seen hung here).
		if tg.kind != realserver.Aegra && !signalWithin(t, ch, 30*time.Second) {
			_, th := call(t, "GET", tg.url+"/threads/"+thread, nil)
			t.Fatalf("no first listing in 30 s (listed now: %+v); the thread: %.300s", pendingOf(t, w), th)
		}
		// The agent's client reads the run's stream too.
		done := make(chan []byte, 1)
		go func() { _, b := call(t, "GET", tg.url+"/threads/"+thread+"/runs/"+r.RunID+"/stream", nil); done <- b }()
		// The run's stream says it paused before the server says so of
		// the thread (a loaded Python server, seconds later): a signal
		// may come for a look that still saw the thread busy, and the
		// watcher looks again until it sees the change. Each signal is
		// from the joined run; the test waits for the one that shows
		// the pause.
		var left []client.Interrupt
		signals := 0
		for end := time.After(45 * time.Second); len(left) != 2 || left[0].Busy; {
			select {
			case <-ch:
				signals++
				left = pendingOf(t, w)
			case <-end:
				_, th := call(t, "GET", tg.url+"/threads/"+thread, nil)
				_, runs := call(t, "GET", tg.url+"/threads/"+thread+"/runs", nil)
				t.Fatalf("no signal showed the run paused again (%d signals, the last listing %+v); the thread now: %.300s; its runs: %.600s",
					signals, left, th, runs)
			}
		}
		// On aegra the watcher once in 12 runs (2026-11-28, under load)
		// ended listing in full (Watermark false: a window out of
		// updated_at order, or a search by ids answered with other
		// threads; not looked into): it still saw the pause, which is what
		// this test is for (docs/servers.md).
		if caps := w.Capabilities(context.Background()); (!caps.JoinRuns || !caps.Watermark) && tg.kind != realserver.Aegra {
			t.Errorf("capabilities: %+v", caps)
		}
		select {
		case joined := <-done:
			if !bytes.Contains(joined, []byte("event: values")) {
				t.Errorf("the agent's reader of the run lost its events: %s", joined)
			}
		case <-time.After(30 * time.Second):
			t.Error("the agent's reader of the run did not end")
		}
	})
}

// Both real servers take only UUIDs as thread ids (JS: 400 from its Zod
// check; Python: 422 "must be a UUID", and 422 in a search by ids), and
// make them themselves: the Python server's are UUIDv7 (time first, which
// present.ShortThreadID answers).
func TestConformThreadIDsAreUUIDs(t *testing.T) {
	for _, rs := range realserver.All(t) {
		t.Run(rs.Name(), func(t *testing.T) {
			code, body := call(t, "GET", rs.URL+"/threads/not-a-thread/state", nil)
			want := map[realserver.Kind]int{realserver.JS: 400, realserver.Python: 422}[rs.Kind]
			if code != want {
				t.Fatalf("a thread id that is not a UUID: HTTP %d %s", code, body)
			}
			_, body = call(t, "POST", rs.URL+"/threads", map[string]any{})
			var th struct {
				ThreadID string `json:"thread_id"`
			}
			json.Unmarshal(body, &th)
			if v7 := len(th.ThreadID) == 36 && th.ThreadID[14] == '7'; v7 != (rs.Kind == realserver.Python) {
				t.Fatalf("thread id %s", th.ThreadID)
			}
		})
	}
}

// Strict resume (langgraph 1.2.20) refuses a stale answer: the run fails
// with UnknownInterruptError. A decision whose run was so refused, after
// another client answered with a plain value that names no interrupt, is
// "already handled elsewhere", not "sent, the run failed".
func TestConformStrictRefusalIsHandledElsewhere(t *testing.T) {
	rs := realserver.Get(t, realserver.Python)
	tg := target{name: rs.Name(), url: rs.URL, kind: rs.Kind}
	meta := tag(t)
	thread := start(t, tg, graphInput{"prompt", map[string]any{"topic": "string"}}, anyMap(meta))
	b := backend(t, tg, meta, 0)
	it := pendingOf(t, b)[0]
	// Another client answers with a bare value (no interrupt id).
	if code, body := call(t, "POST", tg.url+"/threads/"+thread+"/runs/wait", map[string]any{"assistant_id": "prompt",
		"command": map[string]any{"resume": "from the agent's own UI"}}); code != 200 {
		t.Fatalf("other answer: %d %s", code, body)
	}
	// This decision's run, in strict mode, is refused.
	code, body := call(t, "POST", tg.url+"/threads/"+thread+"/runs/wait", map[string]any{"assistant_id": "prompt",
		"metadata": map[string]any{"hitl_decision_id": "d-strict"}, "config": map[string]any{"configurable": map[string]any{"__pregel_strict_resume": true}},
		"command": map[string]any{"resume": map[string]any{it.ID: "mine"}}})
	if code != 200 || !strings.Contains(string(body), "UnknownInterruptError") {
		t.Fatalf("strict stale resume: %d %s", code, body)
	}
	s := &client.Submission{DecisionID: "d-strict", ThreadID: thread, Items: []client.Item{{Interrupt: it, Resume: client.Resume{Value: json.RawMessage(`"mine"`)}}}}
	vs, err := b.Verify(context.Background(), s, client.Receipt{})
	if err != nil || len(vs) != 1 || vs[0].Took != client.Theirs {
		t.Fatalf("verdicts %+v %v", vs, err)
	}
	if got := tg.logOf(t, thread); !strings.Contains(got, `"reply":"from the agent's own UI"`) || strings.Contains(got, `"mine"`) {
		t.Fatalf("the graph got %s", got)
	}
}

// logOf is the test graphs' log of what each node received, compact.
func (tg target) logOf(t *testing.T, thread string) string {
	_, body := call(t, "GET", tg.url+"/threads/"+thread+"/state", nil)
	var st struct {
		Values struct {
			Log json.RawMessage `json:"log"`
		} `json:"values"`
	}
	json.Unmarshal(body, &st)
	return compact(st.Values.Log)
}

// envInt is the number in the environment variable, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// The arguments are listed in the order the graph wrote them (to, subject,
// body, cc), on every server: the pg runtime (langhost) keeps
// thread.interrupts in a JSONB column, which reorders an object's keys
// (to, body, subject), and hitl then takes the value from the thread's
// state, which keeps the graph's order. aegra lists no thread.interrupts
// at all: hitl reads the state there anyway.
func TestConformArgumentsInTheGraphsOrder(t *testing.T) {
	forEachOf(t, targetsWithProduction(t), func(t *testing.T, tg target) {
		if tg.kind == "" {
			t.Skip("the embedded server keeps what it is given")
		}
		meta := tag(t)
		thread := start(t, tg, tg.single, anyMap(meta))
		its := pendingOf(t, backend(t, tg, meta, 0))
		if len(its) != 1 || its[0].ThreadID != thread || len(its[0].Actions) != 1 {
			t.Fatalf("listed %+v", its)
		}
		dec := json.NewDecoder(bytes.NewReader(its[0].Actions[0].Args))
		var keys []string
		dec.Token() // {
		for dec.More() {
			k, _ := dec.Token()
			keys = append(keys, k.(string))
			var skip json.RawMessage
			dec.Decode(&skip)
		}
		if got := strings.Join(keys, ", "); got != "to, subject, body, cc" {
			t.Fatalf("the arguments' keys in the order %s, want the graph's: to, subject, body, cc (raw %s)", got, its[0].Raw)
		}
	})
}
