package present

import (
	"encoding/json"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

func TestActionDescriptionDropsTheDefaultRepeat(t *testing.T) {
	args := json.RawMessage(`{"to":"a@b.c","n":1}`)
	for _, tt := range []struct{ desc, want string }{
		{"Tool execution pending approval\n\nTool: send_email\nArgs: {\n  \"to\": \"a@b.c\",\n  \"n\": 1\n}", "Tool execution pending approval"},
		{"Tool execution pending approval\n\nTool: send_email", "Tool execution pending approval"},
		// Different args: it says something the JSON does not; kept.
		{"Check this\n\nTool: send_email\nArgs: {\"to\": \"x@y.z\"}", "Check this\n\nTool: send_email\nArgs: {\"to\": \"x@y.z\"}"},
		{"**Destructive**: deletes rows.", "**Destructive**: deletes rows."},
		{"", ""},
	} {
		if got := ActionDescription(client.Action{Name: "send_email", Args: args, Description: tt.desc}); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.desc, got, tt.want)
		}
	}
}
