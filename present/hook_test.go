package present

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

func hookInterrupt(agent, tool, input string) (client.Interrupt, client.Action) {
	v := `{"action_requests":[{"name":` + mustJSON(tool) + `,"args":` + input + `}],` +
		`"review_configs":[{"action_name":` + mustJSON(tool) + `,"allowed_decisions":["approve","reject"]}],` +
		`"agent_hook":{"agent":` + mustJSON(agent) + `,"host":"build-7","cwd":"/src/app","session_id":"s1","permission_mode":"default"}}`
	it := client.Interrupt{ID: "req-1", Payload: client.Parse(json.RawMessage(v))}
	return it, it.Actions[0]
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestToolViews(t *testing.T) {
	for _, c := range []struct {
		tool, input string
		want        ToolView
	}{
		{"Bash", `{"command":"npm ci","description":"Install","timeout":60000}`,
			ToolView{Command: "npm ci", Rest: `{"timeout":60000}`}},
		{"Write", `{"file_path":"/a/NEW.md","content":"hi\n"}`,
			ToolView{Path: "/a/NEW.md", Changes: []TextChange{{Label: "the whole file", After: "hi\n"}}}},
		{"Edit", `{"file_path":"/a/x.go","old_string":"a","new_string":"b","replace_all":true}`,
			ToolView{Path: "/a/x.go", Changes: []TextChange{{Label: "edit, every occurrence", Before: "a", After: "b"}}}},
		{"MultiEdit", `{"file_path":"/a/x.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d","replace_all":true}]}`,
			ToolView{Path: "/a/x.go", Changes: []TextChange{{Label: "edit 1 of 2", Before: "a", After: "b"}, {Label: "edit 2 of 2, every occurrence", Before: "c", After: "d"}}}},
	} {
		it, a := hookInterrupt("claude", c.tool, c.input)
		got, ok := ToolOf(it, a)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v (%v), want %+v", c.tool, got, ok, c.want)
		}
	}
	// Not of the tool's shape, another tool, or not an agent's request:
	// shown as JSON, as any other.
	for _, c := range []struct{ agent, tool, input string }{
		{"claude", "Bash", `{"cmd":"ls"}`},
		{"claude", "Edit", `{"file_path":"/a","old_string":1,"new_string":"b"}`},
		{"codex", "mcp__db__query", `{"sql":"select 1"}`},
	} {
		it, a := hookInterrupt(c.agent, c.tool, c.input)
		if v, ok := ToolOf(it, a); ok {
			t.Errorf("%s %s: read as %+v", c.tool, c.input, v)
		}
	}
	plain := client.Interrupt{Payload: client.Parse(json.RawMessage(`{"action_requests":[{"name":"Bash","args":{"command":"ls"}}]}`))}
	if _, ok := ToolOf(plain, plain.Actions[0]); ok || BadgeOf(plain) != "tool" || OriginLine(plain) != "" {
		t.Error("a middleware interrupt without agent_hook reads as a coding agent's")
	}
}

func TestBadgeAndOrigin(t *testing.T) {
	it, _ := hookInterrupt("codex", "Bash", `{"command":"ls"}`)
	if BadgeOf(it) != "codex" {
		t.Errorf("badge %q", BadgeOf(it))
	}
	if got := OriginLine(it); got != "codex on build-7 in /src/app (session s1, mode default)" {
		t.Errorf("origin %q", got)
	}
	// An agent hitl does not know gets no badge of its own.
	it, _ = hookInterrupt("\x1b[31mevil", "Bash", `{"command":"ls"}`)
	if BadgeOf(it) != "tool" {
		t.Errorf("badge %q", BadgeOf(it))
	}
}
