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
	if note := EndingNote(&q, []Decision{{Type: Dismiss}}); !strings.Contains(note, "audit log only") {
		t.Errorf("no tool call: %q", note)
	}
}
