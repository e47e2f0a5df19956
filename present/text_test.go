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

// A history row says what the reviewer wrote with a reject (an ending's
// reason too) or a respond, on its one line and inert: a newline, an
// escape sequence or a hidden character shows as an escape, a long message
// ends in a visible "…". An approve's row says nothing more.
func TestHistoryRowShowsWhatTheReviewerWrote(t *testing.T) {
	at := time.Date(2026, 11, 28, 22, 21, 47, 0, time.Local)
	entry := func(ds ...client.Decision) journal.Entry {
		return journal.Entry{Time: at, InterruptID: "abcd1234abcd1234", Title: "Review tool call post_tweet", Decisions: ds, Outcome: journal.Finished}
	}
	for _, tt := range []struct {
		e    journal.Entry
		want string
	}{
		{entry(client.Decision{Type: client.Reject, Message: "off-brand", Stop: true}), `post_tweet  reason "off-brand"`},
		{entry(client.Decision{Type: client.Respond, Message: "line one\nline two"}), `post_tweet  answer "line one\nline two"`},
		{entry(client.Decision{Type: client.Reject, Message: "x\x1b[2Jy\u202ez"}), `post_tweet  reason "x\x1b[2Jy\u202ez"`},
		{entry(client.Decision{Type: client.Reject, Message: strings.Repeat("too long ", 20)}), `post_tweet  reason "` + strings.Repeat("too long ", 7) + `too long…"`},
		{entry(client.Decision{Type: client.Approve}, client.Decision{Type: client.Reject, Message: "not this one"}), `post_tweet  reason "not this one"`},
		{entry(client.Decision{Type: client.Dismiss, Message: "handled by hand"}), `post_tweet  reason "handled by hand"`},
		// A reject of two actions with one reason: said once.
		{entry(client.Decision{Type: client.Reject, Message: "the table is still read"}, client.Decision{Type: client.Reject, Message: "the table is still read"}), `post_tweet  reason "the table is still read"`},
		{entry(client.Decision{Type: client.Reject, Message: "not prod"}, client.Decision{Type: client.Reject, Message: "not today"}), `post_tweet  reason "not prod"  reason "not today"`},
		{entry(client.Decision{Type: client.Approve}), `post_tweet`},
		{entry(client.Decision{Type: client.Reject, Message: "  "}), `post_tweet`},
	} {
		row := HistoryRows([]journal.Entry{tt.e}, 0)[0]
		if !strings.HasSuffix(row, tt.want) {
			t.Errorf("row %q, want it to end %q", row, tt.want)
		}
		if strings.ContainsAny(row, "\n\x1b\u202e") {
			t.Errorf("row %q reaches the terminal raw", row)
		}
	}
}
