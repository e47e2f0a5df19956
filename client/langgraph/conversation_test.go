package langgraph

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hitl-sh/hitl/client/transport"
)

// A tool call's arguments are one line of JSON, however the state holds
// them: indent read as \n and runs of spaces.
func TestConversationToolCallArgsOnOneLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"values":{"messages":[{"type":"ai","content":"","tool_calls":[{"name":"send_email","args":{
    "to": "dana@customer.example",
    "cc": ["ops@example.com"]
}}]}]}}`))
	}))
	defer srv.Close()
	b, err := New(Options{Options: transport.Options{URL: srv.URL, ReadRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := b.Conversation(context.Background(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	want := `send_email {"to":"dana@customer.example","cc":["ops@example.com"]}`
	if len(msgs) != 1 || len(msgs[0].ToolCalls) != 1 || msgs[0].ToolCalls[0] != want {
		t.Fatalf("tool calls %q, want %q", msgs[0].ToolCalls, want)
	}
}
