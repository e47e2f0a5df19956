package demo_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/demo"
)

// The demo agents react to decisions like real ones: what the reviewer
// decided shows in the thread's conversation.
func TestAgentsReactToDecisions(t *testing.T) {
	srv := startDemo(t)
	srv.Seed(0)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	shapes := map[client.Schema]bool{}
	for _, it := range its {
		shapes[it.Schema] = true
	}
	for _, s := range []client.Schema{client.SchemaMiddleware, client.SchemaAgentInbox, client.SchemaQuestions, client.SchemaPrompt, client.SchemaBreakpoint, client.SchemaRaw} {
		if !shapes[s] {
			t.Errorf("the demo has no %s interrupt", s)
		}
	}
	answer := func(graph string, pick func(client.Interrupt) bool, ds []client.Decision, wantInConversation string) {
		t.Helper()
		its, _ := b.Pending(context.Background())
		for _, it := range its {
			if it.GraphID != graph || !pick(it) {
				continue
			}
			if res := backendtest.Send(t, b, "demo", it, ds...); res.Kind != decide.Sent {
				t.Fatalf("%s: %s", graph, res.Text())
			}
			msgs, _ := b.Conversation(context.Background(), it.ThreadID)
			var all []string
			for _, m := range msgs {
				all = append(all, m.Content)
			}
			if !strings.Contains(strings.Join(all, "\n"), wantInConversation) {
				t.Fatalf("%s: the conversation does not show %q:\n%s", graph, wantInConversation, strings.Join(all, "\n"))
			}
			return
		}
		t.Fatalf("no pending %s interrupt", graph)
	}
	isTool := func(name string) func(client.Interrupt) bool {
		return func(it client.Interrupt) bool { return len(it.Actions) > 0 && it.Actions[0].Name == name }
	}
	anyIt := func(client.Interrupt) bool { return true }
	answer("support", isTool("send_email"), []client.Decision{{Type: client.Edit, Args: json.RawMessage(`{"to":"x@example.com","subject":"s","body":"b"}`)}},
		`ran send_email {"to":"x@example.com","subject":"s","body":"b"}`)
	// Python middleware semantics (unlike the JS test server): the approved
	// call runs beside the rejected one.
	answer("ops", anyIt, []client.Decision{{Type: client.Reject, Message: "not in business hours"}, {Type: client.Approve}},
		"did not run delete_records: not in business hours\n- ran notify")
	answer("planner", anyIt, []client.Decision{{Type: client.Respond, Message: "use Go", Answers: []string{"Go", "yes"}}}, "Answers: Go; yes")
	answer("asker", func(it client.Interrupt) bool { return it.Raw[0] == '"' }, []client.Decision{{Type: client.Respond, Message: "billing@acme.example"}}, "Thanks, I will use: billing@acme.example")
	answer("inbox", anyIt, []client.Decision{{Type: client.Respond, Message: "less hype"}}, "Revising the tweet with your note: less hype")
	answer("release", anyIt, []client.Decision{{Type: client.Approve}}, "Deployed build 1842.")
	answer("sneaky", anyIt, []client.Decision{{Type: client.Reject, Message: "no"}}, "did not run run_command: no")
}

// A decision the tool does not allow fails the run, as on the real server.
func TestDisallowedDecisionFailsTheRun(t *testing.T) {
	srv := startDemo(t)
	thread, _ := srv.Spawn("ops", nil)
	b, _ := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}})
	its, _ := b.Pending(context.Background())
	p := &decide.Pipeline{Backend: b}
	subs, err := p.Prepare([]decide.Draft{{Interrupt: its[0], Resume: &client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"edit","edited_action":{"name":"delete_records","args":{}}},{"type":"approve"}]}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Send(context.Background(), subs[0])
	if res.Kind != decide.Sent || res.Run.Status != client.Failed || !strings.Contains(res.Run.Error, "not allowed for tool 'delete_records'") {
		t.Fatalf("%s %+v", res.Text(), res.Run)
	}
	resp, _ := http.Get(srv.URL() + "/threads/" + thread)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"status":"error"`) {
		t.Fatalf("thread: %s", body)
	}
}

// The README's curl with an assistant the demo does not have, on a thread
// it is asked to create, is refused for the assistant, as the docs say
// (it said "Thread … not found").
func TestUnknownAssistantOnANewThreadSaysSo(t *testing.T) {
	srv := startDemo(t)
	body := `{"assistant_id":"agent","if_not_exists":"create","input":{"messages":[{"role":"user","content":"hi"}]}}`
	resp, err := http.Post(srv.URL()+"/threads/0b9e3c1a-0000-4000-8000-000000000001/runs/wait", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(got), `No assistant found for "agent"`) {
		t.Fatalf("%d %s; want 404 No assistant found", resp.StatusCode, got)
	}
}

// startDemo is a demo server on a free loopback port, with no run delay,
// closed when the test ends.
func startDemo(t *testing.T) *demo.Server {
	t.Helper()
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}
