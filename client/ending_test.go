package client

import (
	"strings"
	"testing"
)

// What an ending tells the reviewer matches what reaches the conversation:
// the reason when one is given, a plain "not run" when none is.
func TestEndingNoteSaysWhatTheConversationGets(t *testing.T) {
	p := Parse([]byte(`{"action_requests":[{"name":"send_email","args":{"to":"a"}}],"review_configs":[{"action_name":"send_email","allowed_decisions":["approve","reject"]}]}`))
	for _, c := range []struct {
		reason, want, not string
	}{
		{"wrong customer", "the reason is put in the conversation", "no reason given"},
		{"  ", "says it was not run (no reason given)", "the reason is put"},
	} {
		note := EndingNote(&p, []Decision{{Type: Dismiss, Message: c.reason}})
		if !strings.Contains(note, c.want) || strings.Contains(note, c.not) {
			t.Errorf("reason %q: %q", c.reason, note)
		}
	}
	q := Parse([]byte(`{"question":"Ship it?"}`))
	if note := EndingNote(&q, []Decision{{Type: Dismiss, Message: "by phone"}}); !strings.Contains(note, "no tool call waits in the conversation, so the reason stays in hitl's audit log only") {
		t.Errorf("no tool call: %q", note)
	}
	// No reason given: none "stays" anywhere.
	if note := EndingNote(&q, []Decision{{Type: Dismiss}}); !strings.Contains(note, "no tool call waits in the conversation, so nothing is written there (no reason given)") || strings.Contains(note, "the reason") {
		t.Errorf("no tool call, no reason: %q", note)
	}
	// An Agent Inbox request proposes an action, not as a tool call.
	in := Parse([]byte(`[{"action_request":{"action":"post_tweet","args":{"text":"hi"}},"config":{"allow_ignore":true,"allow_respond":true,"allow_edit":true,"allow_accept":true},"description":"Tweet?"}]`))
	if note := EndingNote(&in, []Decision{{Type: Dismiss}}); in.Schema != SchemaAgentInbox || !strings.Contains(note, "the request's action is not a tool call waiting in the conversation, so nothing is written there (no reason given)") {
		t.Errorf("inbox (%s): %q", in.Schema, note)
	}
}
