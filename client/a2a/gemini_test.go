package a2a

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// Gemini CLI's task as its agent server (a2a-js, protocol 0.3) returns it
// from tasks/get: input-required with no status message, the tool calls in
// the history's agent messages, each as its latest update says. Only the
// call still awaiting approval is asked; its answer is Gemini's data part
// {callId, outcome} in 0.3's spelling, a reject's reason a text part.
func TestGeminiFromHistory(t *testing.T) {
	b, _ := New(Options{Options: transport.Options{URL: "http://127.0.0.1:1"}})
	call := func(id, status, details string) string {
		s := `{"kind":"data","data":{"request":{"callId":"` + id + `","name":"read_notes","args":{"topic":"q3"}},"status":"` + status + `"`
		if details != "" {
			s += `,"confirmationDetails":` + details
		}
		return s + `,"tool":{"name":"read_notes","displayName":"read_notes (notes MCP Server)"}}}`
	}
	mcp := `{"type":"mcp","title":"Confirm MCP Tool Execution","serverName":"notes","toolName":"read_notes","toolDisplayName":"read_notes"}`
	agentMsg := func(id string, parts ...string) string {
		return `{"kind":"message","role":"agent","messageId":"` + id + `","parts":[` + strings.Join(parts, ",") + `]}`
	}
	raw := `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"input-required","timestamp":"2026-11-28T16:08:32.894Z"},"history":[
	  {"kind":"message","role":"user","messageId":"u1","parts":[{"kind":"text","text":"summarise my notes"}]},
	  ` + agentMsg("a1", call("read_notes__1", "scheduled", ""), call("read_notes__2", "scheduled", "")) + `,
	  ` + agentMsg("a2", call("read_notes__1", "awaiting_approval", mcp)) + `,
	  ` + agentMsg("a3", call("read_notes__2", "awaiting_approval", mcp)) + `,
	  ` + agentMsg("a4", call("read_notes__2", "executing", "")) + `]}`
	tk, _ := decodeTask(json.RawMessage(raw))
	qs := b.questions(tk, "g")
	if len(qs) != 1 {
		t.Fatalf("%d questions, want the one call awaiting approval: %+v", len(qs), qs)
	}
	q := qs[0]
	if q.producer != gemini || q.ref != "read_notes__1" || q.msg != "a2" || q.it.Title != "Approve read_notes?" || len(q.it.Actions) != 1 ||
		q.it.Actions[0].Description != "Confirm MCP Tool Execution\nMCP server notes, tool read_notes" || string(q.it.Actions[0].Args) != `{"topic":"q3"}` ||
		len(q.it.Always) != 0 || client.ShapeOf(&q.it.Payload) != "gemini-tool-call-confirmation" {
		t.Fatalf("%+v", q)
	}
	s := &client.Submission{DecisionID: "d1", ThreadID: "t1", Reviewer: "ana"}
	answer := func(d client.Decision) string {
		t.Helper()
		r, err := client.Encode(&q.it.Payload, []client.Decision{d}, client.EncodeOptions{})
		if err != nil {
			t.Fatalf("%+v: %v", d, err)
		}
		m, err := answerMessage(s, "t1", "c1", q, r.Value, true)
		if err != nil {
			t.Fatal(err)
		}
		if m["taskId"] != "t1" || m["contextId"] != "c1" || m["role"] != "user" {
			t.Errorf("not on the task: %v", m)
		}
		out, _ := json.Marshal(m["parts"])
		return string(out)
	}
	if got := answer(client.Decision{Type: client.Approve}); got != `[{"data":{"callId":"read_notes__1","outcome":"proceed_once"},"kind":"data"}]` {
		t.Errorf("approve: %s", got)
	}
	if got := answer(client.Decision{Type: client.Reject, Message: "not those notes"}); got != `[{"data":{"callId":"read_notes__1","outcome":"cancel"},"kind":"data"},{"kind":"text","text":"not those notes"}]` {
		t.Errorf("reject: %s", got)
	}
	// An MCP call offers no approve for good here: refused, nothing sent.
	if _, err := client.Encode(&q.it.Payload, []client.Decision{{Type: client.Approve, Always: true}}, client.EncodeOptions{}); err == nil {
		t.Error("approve for good of an MCP call was not refused")
	}
	// Answered: the user's message follows, and nothing is asked.
	answered := strings.TrimSuffix(raw, `]}`) + `,{"kind":"message","role":"user","messageId":"hitl-d1","parts":[{"kind":"data","data":{"callId":"read_notes__1","outcome":"proceed_once"}}]}]}`
	tk, _ = decodeTask(json.RawMessage(answered))
	if qs := b.questions(tk, "g"); len(qs) != 0 {
		t.Errorf("an answered call is still asked: %+v", qs)
	}
}

// A tool call in the status message (protocol 1.0's spelling) is read
// there; a shell command's root commands are what an approve for good
// allows, and it is sent as proceed_always only when asked.
func TestGeminiInStatusMessage(t *testing.T) {
	b, _ := New(Options{Options: transport.Options{URL: "http://127.0.0.1:1"}})
	raw := `{"id":"t2","contextId":"c2","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"m2","role":"ROLE_AGENT","parts":[
	  {"data":{"request":{"callId":"run_shell_command__9","name":"run_shell_command","args":{"command":"rm -rf build"}},"status":"awaiting_approval",
	   "confirmationDetails":{"type":"exec","title":"Confirm Shell Command","command":"rm -rf build","rootCommand":"rm","rootCommands":["rm"]}}}]}}}`
	tk, _ := decodeTask(json.RawMessage(raw))
	qs := b.questions(tk, "g")
	if len(qs) != 1 || qs[0].producer != gemini || strings.Join(qs[0].it.Always, ",") != "rm" ||
		qs[0].it.Actions[0].Description != "Confirm Shell Command\nCommand: rm -rf build" {
		t.Fatalf("%+v", qs)
	}
	r, err := client.Encode(&qs[0].it.Payload, []client.Decision{{Type: client.Approve, Always: true}}, client.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := answerMessage(&client.Submission{DecisionID: "d2"}, "t2", "c2", qs[0], r.Value, false)
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(m["parts"]); string(out) != `[{"data":{"callId":"run_shell_command__9","outcome":"proceed_always"}}]` || m["role"] != "ROLE_USER" {
		t.Errorf("approve for good: %s %v", out, m)
	}
}
