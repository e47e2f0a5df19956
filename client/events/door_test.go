package events_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/events"
	"github.com/hitl-sh/hitl/client/transport"
)

// fixtureRequest is a request the way a hitl hub's door lists a LangGraph
// interrupt: the value, and its response_schema, from a captured fixture.
func fixtureRequest(t *testing.T, id, session, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Value          json.RawMessage `json:"value"`
		ResponseSchema json.RawMessage `json:"response_schema"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"request_id": id, "agent": "g", "session_id": session, "created_at": "2026-01-01T00:00:00Z",
		"data": f.Value, "response_schema": f.ResponseSchema, "ends": true, "conversation": true}
}

// A hub's door lists what a LangGraph interrupt is beside its value (the
// schema of its answer, a breakpoint, whether its thread's work can be
// ended, whether its conversation is kept): through it, a form is a form,
// a per-call tool approval allows what its tool allows, a breakpoint is
// continued with a null response, a dismiss is sent as an ending, and the
// conversation is read. A request that says none of it is only answered.
func TestWhatAHubsDoorSaysOfARequest(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]json.RawMessage
	list := []map[string]any{
		fixtureRequest(t, "form1", "t-form", "form-zod"),
		fixtureRequest(t, "call1", "t-call", "percall-js"),
		{"request_id": "bp1", "agent": "g", "session_id": "t-bp", "created_at": "2026-01-01T00:00:00Z", "data": nil, "breakpoint": map[string]any{"next": []string{"deploy"}}},
		{"request_id": "hook1", "agent": "claude", "session_id": "s-hook", "created_at": "2026-01-01T00:00:00Z", "data": "Go on?"},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hitl/pending", func(w http.ResponseWriter, r *http.Request) { json.NewEncoder(w).Encode(list) })
	mux.HandleFunc("POST /hitl/respond", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]json.RawMessage
		json.Unmarshal(b, &body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		w.Write([]byte(`{"status":"resolved","run_id":"r1","reason_in_conversation":true,"outcome":{"run_id":"r1","status":"finished"}}`))
	})
	mux.HandleFunc("GET /hitl/sessions/{id}/conversation", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"role":"human","content":"refund order 42"}]`))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	b, err := events.New(events.Options{Options: transport.Options{URL: ts.URL, ReadRetries: -1}, Reviewer: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if b.Features().Ends() {
		t.Fatal("ends threads before any request said so")
	}
	its, err := b.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]client.Interrupt{}
	for _, it := range its {
		byID[it.ID] = it
	}
	if it := byID["form1"]; it.Schema != client.SchemaForm || len(it.ResponseSchema) == 0 {
		t.Errorf("the form: schema %s, response schema %s", it.Schema, it.ResponseSchema)
	}
	if it := byID["call1"]; it.Schema != client.SchemaMiddleware || len(it.Actions) != 1 ||
		strings.Join(decisionNames(it.Actions[0].Allowed), ",") != "approve,edit,reject,respond" {
		t.Errorf("the per-call approval: %s %+v", it.Schema, it.Actions)
	}
	if it := byID["bp1"]; it.Schema != client.SchemaBreakpoint || it.Title != "Paused before deploy" {
		t.Errorf("the breakpoint: %s %q", it.Schema, it.Title)
	}
	if !b.Features().Ends() {
		t.Fatal("the door said a request's work can be ended; the backend does not end any")
	}

	send := func(it client.Interrupt, r client.Resume) (client.Receipt, error) {
		return b.Resume(ctx, &client.Submission{DecisionID: "d-" + it.ID, ThreadID: it.ThreadID, Items: []client.Item{{Interrupt: it, Resume: r}}})
	}
	// The breakpoint: continued with a null response.
	if _, err := send(byID["bp1"], client.Resume{Continue: true}); err != nil {
		t.Fatal(err)
	}
	// A dismiss: "end" in place of "response"; what the door says of the
	// reason comes back.
	rc, err := send(byID["call1"], client.Resume{End: &client.Ending{Kind: client.EndDismiss, Reason: "by phone"}})
	if err != nil || !rc.ReasonInConversation || rc.RunID != "r1" {
		t.Fatalf("dismiss: %+v %v", rc, err)
	}
	// How the run ended, as the door followed it; once.
	sub := &client.Submission{DecisionID: "d-call1"}
	if o := b.Follow(ctx, sub, rc); o.Status != client.Finished || o.RunID != "r1" {
		t.Fatalf("follow: %+v", o)
	}
	if o := b.Follow(ctx, sub, rc); o.Status != client.Accepted {
		t.Fatalf("follow again: %+v", o)
	}
	// A request that did not say it can be ended: nothing is sent.
	if _, err := send(byID["hook1"], client.Resume{End: &client.Ending{Kind: client.EndStop}}); err == nil || !strings.Contains(err.Error(), "cannot end the work of request hook1") {
		t.Fatalf("an ending of a request that cannot be ended: %v", err)
	}
	mu.Lock()
	if len(bodies) != 2 || string(bodies[0]["response"]) != "null" || bodies[0]["end"] != nil ||
		bodies[1]["response"] != nil || string(bodies[1]["end"]) != `{"kind":"dismiss","reason":"by phone"}` {
		t.Errorf("what reached the coordinator: %s", bodies)
	}
	mu.Unlock()

	// The conversation: where the request said it is kept.
	msgs, err := b.Features().Conversational.Conversation(ctx, "t-call")
	if err != nil || len(msgs) != 1 || msgs[0].Content != "refund order 42" {
		t.Fatalf("conversation: %+v %v", msgs, err)
	}
	if _, err := b.Conversation(ctx, "s-hook"); err == nil || !strings.Contains(err.Error(), "keeps no conversation for session s-hook") {
		t.Fatalf("a session without one: %v", err)
	}
}

func decisionNames(ds []client.DecisionType) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = string(d)
	}
	return out
}
