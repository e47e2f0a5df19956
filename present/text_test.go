package present

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
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

func TestSummarySaysWhatARawPayloadHolds(t *testing.T) {
	for _, tt := range []struct {
		raw    string
		schema client.Schema
		title  string
		want   string
	}{
		{`42.5`, client.SchemaRaw, "", "the value 42.5"},
		{`false`, client.SchemaRaw, "", "the value false"},
		{`null`, client.SchemaRaw, "", "null (the interrupt carries no value)"},
		{`[{"question":"ok?"},2]`, client.SchemaRaw, "", "a list of 2: question: ok?"},
		{`{"kind":"budget_check","limits":{}}`, client.SchemaRaw, "", "kind: budget_check"},
		{`{"b":1,"a":2}`, client.SchemaRaw, "", "{a, b}"},
		{`""`, client.SchemaPrompt, "", "(an empty prompt: the agent waits for a reply without saying what it asks)"},
		{`"x"`, client.SchemaPrompt, "## Which region?\n\nThe **replica** needs one.", "Which region? …"},
	} {
		it := client.Interrupt{Raw: json.RawMessage(tt.raw)}
		it.Schema, it.Title = tt.schema, tt.title
		if got := Summary(it); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.raw, got, tt.want)
		}
	}
}

// A list nested 9,000 deep is summed up in a few levels, at once (it was
// re-encoded at every level: quadratic, half a minute).
func TestSummaryOfADeepListIsShortAndQuick(t *testing.T) {
	raw := json.RawMessage(strings.Repeat("[", 9000) + strings.Repeat("]", 9000))
	start := time.Now()
	got := Summary(client.Interrupt{Payload: client.Parse(raw), Raw: raw})
	if got != "a list of 1: a list of 1: a list of 1: a list of 1: …" || time.Since(start) > time.Second {
		t.Fatalf("%q in %s", got, time.Since(start))
	}
}

// A hidden character in a summary is spelled as inert spells it elsewhere
// (the detail, the warnings): \x07, not Go's \a.
func TestSummarySpellsHiddenCharactersOneWay(t *testing.T) {
	raw := json.RawMessage(`{"actionRequests":[{"name":"run","args":{"cmd":"ring\u0007 \"x\" \\ \u001b[2J \u202e"}}],"reviewConfigs":[{"actionName":"run","allowedDecisions":["approve"]}]}`)
	it := client.Interrupt{ID: "i", Payload: client.Parse(raw), Raw: raw}
	if got, want := Summary(it), `run(cmd="ring\u0007 \"x\" \\ \u001b[2J <U+202E>")`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// A breakpoint's continue reads "continue" in the history, also from an
// audit log written before continues were recorded without a decision.
func TestAContinueIsCalledContinue(t *testing.T) {
	old := journal.Entry{InterruptID: "bbbb", Schema: client.SchemaBreakpoint, Decisions: []client.Decision{{Type: client.Approve}}}
	now := journal.Entry{InterruptID: "bbbb", Schema: client.SchemaBreakpoint}
	for _, e := range []journal.Entry{old, now} {
		if got := Decided(e); got != "continue" {
			t.Errorf("Decided(%+v) = %q", e.Decisions, got)
		}
		if x := Exports(e); len(x) != 1 || x[0].Decision != "continue" {
			t.Errorf("Exports(%+v) = %+v", e.Decisions, x)
		}
	}
}
