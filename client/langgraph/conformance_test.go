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
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/demo"
)

// target is one server under test and the graphs that play each role there.
type target struct {
	name     string
	url      string
	single   graphInput // one middleware interrupt with one send_email action
	parallel graphInput // two interrupts in one thread: raw + prompt
	bp       graphInput // a static breakpoint
	slow     graphInput // a run that takes a while
}

type graphInput struct {
	graph string
	input any
}

func email() any {
	return map[string]any{"messages": []any{map[string]string{"role": "user", "content": "email"}}}
}

func targets(t *testing.T) []target {
	t.Helper()
	srv := demo.New()
	srv.RunDelay = 300 * time.Millisecond // long enough to see a busy thread
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	out := []target{{name: "embedded", url: srv.URL(),
		single: graphInput{"support", email()}, parallel: graphInput{"parallel", map[string]any{}},
		bp: graphInput{"release", map[string]any{}}, slow: graphInput{"asker", map[string]any{}}}}
	if u := os.Getenv("HITL_TEST_LANGGRAPH_URL"); u != "" {
		out = append(out, target{name: "langgraph-dev", url: u,
			single: graphInput{"agent", email()}, parallel: graphInput{"parallel", map[string]any{}},
			bp: graphInput{"breakpoint", map[string]any{}}, slow: graphInput{"slow", map[string]any{}}})
	} else if os.Getenv("CI") != "" {
		t.Fatal("HITL_TEST_LANGGRAPH_URL is not set: run the tests with scripts/test")
	}
	return out
}

func forEach(t *testing.T, f func(t *testing.T, tg target)) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) { f(t, tg) })
	}
}

func call(t *testing.T, method, url string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// start creates a thread tagged with meta and runs g until it pauses.
func start(t *testing.T, tg target, g graphInput, meta map[string]any) string {
	t.Helper()
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
	return th.ThreadID
}

func backend(t *testing.T, tg target, meta map[string]string, pageSize int) *langgraph.Backend {
	t.Helper()
	b, err := langgraph.New(langgraph.Options{URL: tg.url, Metadata: meta, PageSize: pageSize, Follow: 20 * time.Second})
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
	forEach(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.single, anyMap(meta))
		b := backend(t, tg, meta, 0)
		its := pendingOf(t, b)
		if len(its) != 1 || its[0].Schema != client.SchemaMiddleware || its[0].ThreadID != thread || len(its[0].ID) != 32 {
			t.Fatalf("pending: %+v", its)
		}
		r, err := client.Encode(&its[0].Payload, []client.Decision{{Type: client.Approve}}, client.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := b.Send(context.Background(), its[0], r)
		if err != nil || out.Status != client.Finished {
			t.Fatalf("send: %+v %v", out, err)
		}
		_, body := call(t, "GET", tg.url+"/threads/"+thread+"/state", nil)
		if !bytes.Contains(body, []byte(`ran send_email`)) {
			t.Fatalf("the tool did not run: %s", body)
		}
		if len(pendingOf(t, b)) != 0 {
			t.Fatal("still pending after the resume")
		}
	})
}

func TestConformPartialResumeOfParallelInterrupts(t *testing.T) {
	forEach(t, func(t *testing.T, tg target) {
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
		out, err := b.Send(context.Background(), raw, client.Resume{Value: json.RawMessage(`{"approved":true}`)})
		if err != nil || out.Status != client.PausedAgain || len(out.Pending) != 1 || out.Pending[0] != prompt.ID {
			t.Fatalf("partial resume: %+v %v", out, err)
		}
		left := pendingOf(t, b)
		if len(left) != 1 || left[0].ID != prompt.ID {
			t.Fatalf("the other interrupt changed: %+v", left)
		}
		out, err = b.Send(context.Background(), left[0], client.Resume{Value: json.RawMessage(`"eu-west-1"`)})
		if err != nil || out.Status != client.Finished {
			t.Fatalf("second resume: %+v %v", out, err)
		}
	})
}

func TestConformStaleResume(t *testing.T) {
	forEach(t, func(t *testing.T, tg target) {
		meta := tag(t)
		thread := start(t, tg, tg.single, anyMap(meta))
		b := backend(t, tg, meta, 0)
		it := pendingOf(t, b)[0]
		r, _ := client.Encode(&it.Payload, []client.Decision{{Type: client.Approve}}, client.EncodeOptions{})
		if _, err := b.Send(context.Background(), it, r); err != nil {
			t.Fatal(err)
		}
		// The server itself accepts a resume of an interrupt that is gone.
		code, body := call(t, "POST", tg.url+"/threads/"+thread+"/runs/wait", map[string]any{
			"assistant_id": tg.single.graph, "command": map[string]any{"resume": map[string]any{it.ID: json.RawMessage(r.Value)}}})
		if code != 200 {
			t.Fatalf("stale resume: HTTP %d %s", code, body)
		}
		// hitl does not: it looks first and sends nothing.
		_, before := call(t, "GET", tg.url+"/threads/"+thread+"/runs", nil)
		_, err := b.Send(context.Background(), it, r)
		if !errors.Is(err, client.ErrAlreadyHandled) {
			t.Fatalf("err = %v", err)
		}
		_, after := call(t, "GET", tg.url+"/threads/"+thread+"/runs", nil)
		if countRuns(before) != countRuns(after) {
			t.Fatal("a run was started for a handled interrupt")
		}
	})
}

func countRuns(b []byte) int {
	var runs []any
	json.Unmarshal(b, &runs)
	return len(runs)
}

func TestConformBusyThreadIs422(t *testing.T) {
	forEach(t, func(t *testing.T, tg target) {
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
		if code != http.StatusUnprocessableEntity {
			t.Fatalf("second run on a busy thread: HTTP %d %s", code, b)
		}
	})
}

func TestConformPagingAndSelect(t *testing.T) {
	forEach(t, func(t *testing.T, tg target) {
		meta := tag(t)
		for range 3 {
			start(t, tg, tg.single, anyMap(meta))
		}
		b := backend(t, tg, meta, 2)
		if n := len(pendingOf(t, b)); n != 3 {
			t.Fatalf("paging by 2 found %d of 3", n)
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
	forEach(t, func(t *testing.T, tg target) {
		meta := tag(t)
		start(t, tg, tg.bp, anyMap(meta))
		b := backend(t, tg, meta, 0)
		its := pendingOf(t, b)
		if len(its) != 1 || its[0].Schema != client.SchemaBreakpoint || !strings.HasPrefix(its[0].Title, "Paused before ") {
			t.Fatalf("breakpoint: %+v", its)
		}
		out, err := b.Send(context.Background(), its[0], client.Resume{Continue: true})
		if err != nil || out.Status != client.Finished {
			t.Fatalf("continue: %+v %v", out, err)
		}
		_, body := call(t, "POST", tg.url+"/threads", map[string]any{})
		var th struct {
			ThreadID string `json:"thread_id"`
		}
		json.Unmarshal(body, &th)
		code, body := call(t, "POST", tg.url+"/threads/"+th.ThreadID+"/runs", map[string]any{"assistant_id": "no-such-graph", "input": map[string]any{}})
		if code != 404 || !strings.Contains(string(body), "No assistant found") {
			t.Fatalf("unknown assistant: %d %s", code, body)
		}
	})
}

// TestConformSuite runs the suite every backend passes: against the embedded
// server with injected faults, and against the real server without.
func TestConformSuite(t *testing.T) {
	for _, tg := range targets(t) {
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
			b, err := langgraph.New(langgraph.Options{URL: url, Metadata: meta, ReadRetries: -1, Follow: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			backendtest.Run(t, backendtest.Fixture{
				Backend: b,
				Create:  func(t *testing.T) string { return start(t, tg, tg.single, anyMap(meta)) },
				Decide:  func(client.Interrupt) []client.Decision { return []client.Decision{{Type: client.Approve}} },
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
			})
		})
	}
}
