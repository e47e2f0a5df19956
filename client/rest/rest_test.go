package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/rest"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/demo"
)

type env struct {
	fake   *demo.RESTServer
	url    string
	b      *rest.Backend
	faults *backendtest.Faults
}

func setup(t *testing.T) *env {
	t.Helper()
	fake := demo.NewREST()
	faults := &backendtest.Faults{}
	ts := httptest.NewServer(faults.Wrap(fake.Handler()))
	t.Cleanup(func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }) // streams end first
	b, err := rest.New(rest.Options{Options: transport.Options{URL: ts.URL, ReadRetries: -1}, Follow: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &env{fake: fake, url: ts.URL, b: b, faults: faults}
}

func (e *env) state(t *testing.T, run string) map[string]any {
	t.Helper()
	resp, err := http.Get(e.url + "/api/hitl/run/" + run + "/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st map[string]any
	json.NewDecoder(resp.Body).Decode(&st)
	return st
}

func (e *env) approveDirect(t *testing.T, run, approval string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"approval_id": approval, "action": "approve", "approved_by": "someone else"})
	resp, err := http.Post(e.url+"/api/hitl/run/"+run+"/approve", "application/json", bytes.NewReader(b))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("approve elsewhere: %v %v", err, resp)
	}
	resp.Body.Close()
}

func TestConformance(t *testing.T) {
	e := setup(t)
	other, err := rest.New(rest.Options{Options: transport.Options{URL: e.url, ReadRetries: -1}, Follow: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	backendtest.Run(t, backendtest.Fixture{
		Backend: e.b,
		Other:   other,
		Create:  func(*testing.T) string { return e.fake.Spawn("") },
		Decide:  func(client.Interrupt) []client.Decision { return []client.Decision{{Type: client.Approve}} },
		Verify: func(t *testing.T, it client.Interrupt) {
			hist, _ := e.state(t, it.ThreadID)["step_history"].([]any)
			if len(hist) != 1 || hist[0].(map[string]any)["approved_by"] != "suite" || hist[0].(map[string]any)["action"] != "approve" {
				t.Fatalf("history: %v", hist)
			}
		},
		ResolveElsewhere: func(t *testing.T, it client.Interrupt) { e.approveDirect(t, it.ThreadID, it.ID) },
		Faults:           e.faults,
	})
}

func pendingOf(t *testing.T, b *rest.Backend, run string) client.Interrupt {
	t.Helper()
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		if it.ThreadID == run {
			return it
		}
	}
	t.Fatalf("nothing pending for %s", run)
	return client.Interrupt{}
}

func send(t *testing.T, b *rest.Backend, it client.Interrupt, d client.Decision) client.Outcome {
	t.Helper()
	res := backendtest.Send(t, b, "alice", it, d)
	if res.Kind != decide.Sent {
		t.Fatal(res.Text())
	}
	return res.Run
}

// A run walks through the three checkpoints; edits send only what changed.
func TestThreeCheckpoints(t *testing.T) {
	e := setup(t)
	run := e.fake.Spawn("alice")

	info := pendingOf(t, e.b, run)
	if info.Schema != client.SchemaInformationReview || !strings.Contains(info.Description, "**Confidence**: 0.62") || len(info.Context) == 0 {
		t.Fatalf("information review: %+v", info)
	}
	out := send(t, e.b, info, client.Decision{Type: client.Edit, Args: json.RawMessage(`{"prompt":"A watercolor fox","model":"black-forest-labs/flux-schnell"}`)})
	if out.Status != client.PausedAgain || len(out.Pending) != 1 {
		t.Fatalf("after information review: %+v", out)
	}
	hist := e.state(t, run)["step_history"].([]any)
	if edits, _ := json.Marshal(hist[0].(map[string]any)["edits"]); string(edits) != `{"prompt":"A watercolor fox"}` {
		t.Fatalf("edits sent: %s", edits)
	}

	payload := pendingOf(t, e.b, run)
	if payload.Schema != client.SchemaPayloadReview || len(payload.Actions[0].Example) == 0 || !strings.Contains(payload.Description, "suggested fix: remove it") {
		t.Fatalf("payload review: %+v", payload)
	}
	if !strings.Contains(string(payload.Actions[0].Args), `"prompt":"A watercolor fox"`) {
		t.Fatalf("the edited prompt did not reach the payload: %s", payload.Actions[0].Args)
	}
	send(t, e.b, payload, client.Decision{Type: client.Edit, Args: json.RawMessage(`{"prompt":"A watercolor fox","num_outputs":1,"aspect_ratio":"16:9","output_format":"png"}`)})
	hist = e.state(t, run)["step_history"].([]any)
	if edits, _ := json.Marshal(hist[1].(map[string]any)["edits"]); string(edits) != `{"image_file":null,"num_outputs":1}` && string(edits) != `{"num_outputs":1,"image_file":null}` {
		t.Fatalf("payload edits sent: %s", edits)
	}

	resp := pendingOf(t, e.b, run)
	if resp.Schema != client.SchemaResponseReview || resp.Compare == nil || !strings.Contains(resp.Compare.Left, `"status":"succeeded"`) {
		t.Fatalf("response review: %+v", resp)
	}
	out = send(t, e.b, resp, client.Decision{Type: client.Edit, Args: json.RawMessage(`{"text":"One image of a fox."}`)})
	if out.Status != client.Finished || e.state(t, run)["final_result"] != "One image of a fox." {
		t.Fatalf("after response review: %+v %v", out, e.state(t, run)["final_result"])
	}
}

func TestRejectAndRunControls(t *testing.T) {
	e := setup(t)
	run := e.fake.Spawn("")
	it := pendingOf(t, e.b, run)
	status, err := e.b.ControlRun(context.Background(), it, client.PauseRun)
	if err != nil || status != "paused" {
		t.Fatalf("pause: %q %v", status, err)
	}
	if res := backendtest.Send(t, e.b, "alice", it, client.Decision{Type: client.Approve}); res.Kind != decide.NotSent || !strings.Contains(res.Text(), "the run is paused: resume it first") {
		t.Fatalf("approve while paused: %s", res.Text())
	}
	if status, err = e.b.ControlRun(context.Background(), it, client.ResumeRun); err != nil || status != "awaiting_human" {
		t.Fatalf("resume: %q %v", status, err)
	}
	out := send(t, e.b, it, client.Decision{Type: client.Reject, Message: "wrong model"})
	if out.Status != client.Finished || !strings.Contains(e.state(t, run)["error"].(string), "wrong model") {
		t.Fatalf("reject: %+v", out)
	}
	run2 := e.fake.Spawn("")
	it2 := pendingOf(t, e.b, run2)
	if status, err = e.b.ControlRun(context.Background(), it2, client.CancelRun); err != nil || status != "cancelled" {
		t.Fatalf("cancel: %q %v", status, err)
	}
	if res := backendtest.Send(t, e.b, "alice", it2, client.Decision{Type: client.Approve}); !errors.Is(res.Err(), client.ErrAlreadyHandled) {
		t.Fatalf("decide a cancelled run: %s", res.Text())
	}
}

// The run stream makes a change visible at once; a server without it is polled.
func TestChangesFollowRunEvents(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := e.b.Changes(ctx)
	e.fake.Spawn("")
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no signal for a new run")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/hitl/approvals/pending", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("[]")) })
	plain := httptest.NewServer(mux) // no /api/hitl/events
	defer plain.Close()
	b, _ := rest.New(rest.Options{Options: transport.Options{URL: plain.URL}})
	select {
	case _, open := <-b.Changes(ctx):
		if open {
			t.Fatal("a signal from a server without a stream")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watching a server without a stream did not give up")
	}
}
