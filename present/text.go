package present

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/inert"
)

// Stamp is a time as the reviewer reads it, in the local zone ("-" when
// unknown).
func Stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(time.DateTime)
}

// Types lists decision types: "approve, edit, reject" ("nothing" for none).
func Types(ts []client.DecisionType) string {
	if len(ts) == 0 {
		return "nothing"
	}
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// Indent puts prefix before every line of s.
func Indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// JSONText is raw JSON indented for reading (key order and numbers as
// sent, strings decoded but for what is dangerous or invisible), in linear
// time whatever its depth. JSON that does not parse is shown inertly as it
// is.
func JSONText(raw json.RawMessage) string {
	out, err := IndentJSON(raw, JSONOptions{})
	if err != nil {
		return inert.Block(string(raw))
	}
	return out
}

// editableDepth is how deep JSON given to the editor is indented: past it
// the editor gets the value compact, as JSON it can parse back.
const editableDepth = 64

// EditableJSON is raw JSON for the reviewer to edit: indented and decoded
// like JSONText, and always valid JSON meaning the same value (no notes,
// nothing folded).
func EditableJSON(raw json.RawMessage) string {
	var b strings.Builder
	noted := false
	err := FormatJSON(raw, JSONOptions{MaxDepth: editableDepth}, func(k JSONKind, s string) {
		if k == JSONNote {
			noted = true
		}
		b.WriteString(s)
	})
	if err != nil || noted {
		return string(inert.JSON(raw))
	}
	return b.String()
}

// Outcome is an audit entry's outcome in words.
func Outcome(e journal.Entry) string {
	if w, ok := outcomeWords[e.Outcome]; ok {
		return w
	}
	return OutcomeWords(string(e.Outcome))
}

// OutcomeWords is an outcome code ("approval-recorded", a hub's
// "handled-elsewhere") as a row of text says it: words, a space where the
// code has a hyphen ("approval recorded"). The hyphenated code is --json's
// and --outcome's; the rows of hitl history, its --team rows and the TUI
// say the words.
func OutcomeWords(code string) string {
	return strings.ReplaceAll(code, "-", " ")
}

// OutcomeCode is an entry's outcome as the audit log spells it
// ("already-handled"), "unknown" while it has none: what --json prints.
func OutcomeCode(e journal.Entry) string {
	if e.Outcome == "" {
		return "unknown"
	}
	return string(e.Outcome)
}

// outcomeWords are the audit log's outcomes as hitl history and the TUI
// say them, in words ("paused": the run stopped at an interrupt, a new one
// or its thread's others that still wait, as the result said);
// --json and audit.jsonl keep the log's own.
var outcomeWords = map[journal.Outcome]string{
	"":                       "unknown",
	journal.Interrupted:      "paused",
	journal.HandledElsewhere: "already handled",
	journal.Busy:             "thread busy",
	journal.NotSent:          "not sent",
	journal.ApprovalRecorded: "approval recorded",
}

// Decided lists an entry's decisions: "approve", "reject, approve",
// "continue" for a breakpoint, "resume value" for one sent as is.
func Decided(e journal.Entry) string {
	if len(e.Decisions) == 0 || continued(e) {
		if len(e.Resume) == 0 || string(e.Resume) == "null" {
			return "continue"
		}
		return "resume value"
	}
	if end, _ := client.Ends(e.Decisions); end != nil {
		return end.Words()
	}
	kinds := make([]string, len(e.Decisions))
	for i, d := range e.Decisions {
		kinds[i] = string(d.Type)
	}
	return strings.Join(kinds, ", ")
}

// continued: e is a breakpoint's continue. hitl before 2026-11 wrote it
// with the decision it was given in (approve) and no resume value; it is
// written without decisions now.
func continued(e journal.Entry) bool {
	return e.Schema == client.SchemaBreakpoint && (len(e.Resume) == 0 || string(e.Resume) == "null")
}

// HistoryRows are the decisions of the audit log, one line of at most w
// cells each (0: no limit), the same in `hitl history` and the TUI: when,
// which interrupt, what was decided, what became of it, about what (the
// tools), and what the reviewer wrote (Said: a reason, an answer). The
// decided and outcome columns are as wide as the widest of these rows'
// words ("approve" alone leaves the tools room; "rejected and stopped"
// lines up with the rest). What gives way on a short line is the year,
// then the day, then the time where the subjects need its room, then the
// end of the row (marked with …): every row keeps its short id, and "what
// did I approve?" stays answerable at 60 columns.
func HistoryRows(es []journal.Entry, w int) []string {
	decided, outcome := 0, 0
	for _, e := range es {
		decided = max(decided, ansi.StringWidth(Decided(e)))
		outcome = max(outcome, ansi.StringWidth(Outcome(e)))
	}
	layout := time.DateTime
	if w > 0 && w < 100 {
		layout = "01-02 15:04"
	}
	if w > 0 && w < 70 {
		// The id stays (it is what hitl show takes); the time of day
		// stays where every row's subject still fits beside it.
		layout = "15:04"
		for _, e := range es {
			if ansi.StringWidth(historyRow(e, 0, layout, decided, outcome, false)) > w {
				layout = ""
				break
			}
		}
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = historyRow(e, w, layout, decided, outcome, true)
	}
	return out
}

// historyRow is one row; said: with what the reviewer wrote (Said), last,
// the first to give way on a short line.
func historyRow(e journal.Entry, w int, layout string, decided, outcome int, said bool) string {
	var cols []string
	if layout != "" {
		cols = append(cols, e.Time.Local().Format(layout))
	}
	cols = append(cols, inert.Line(ShortID(e.InterruptID)), pad(Decided(e), decided), pad(Outcome(e), outcome), inert.Line(About(e.Title)))
	if s := Said(e.Decisions); said && s != "" {
		cols = append(cols, s)
	}
	row := strings.Join(cols, "  ")
	if w > 0 {
		row = ansi.Truncate(row, w, "…")
	}
	return row
}

// saidWidth is how much of a message a history row shows; a longer one
// ends in "…" (hitl history --json has it whole).
const saidWidth = 72

// Said is what the reviewer wrote with the decisions, on one line: a
// reject's or a dismiss's reason (reject --stop's too: where the
// conversation has no tool call to carry it, the audit log is the only
// place it is kept) and a respond's answer, quoted, inert (a control or hidden character as an
// escape), a long one cut with a visible "…": `reason "not on prod"`.
// "" when they wrote nothing. The same words given to every action (one
// reason for a reject of them all) are said once.
func Said(ds []client.Decision) string {
	var out []string
	for _, d := range ds {
		label := map[client.DecisionType]string{client.Reject: "reason", client.Dismiss: "reason", client.Respond: "answer"}[d.Type]
		if label == "" || strings.TrimSpace(d.Message) == "" {
			continue
		}
		q := strconv.Quote(d.Message)
		text := ansi.Truncate(q[1:len(q)-1], saidWidth, "…")
		out = append(out, label+" \""+inert.Line(text)+"\"")
	}
	if len(out) > 1 && !slices.ContainsFunc(out, func(s string) bool { return s != out[0] }) {
		return out[0]
	}
	return strings.Join(out, "  ")
}

// About is what an interrupt's title is about, without the words every
// tool call's title repeats: "send_email" for "Review tool call
// send_email", "delete_records, notify" for "Review 2 tool calls: …".
func About(title string) string {
	if rest, ok := strings.CutPrefix(title, "Review tool call "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(title, "Review "); ok {
		if _, tools, ok := strings.Cut(rest, " tool calls: "); ok {
			return tools
		}
	}
	return title
}

func pad(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// ActionDescription is an action's description without what repeats the
// action itself: LangChain's middleware writes "…\n\nTool: NAME\nArgs:
// {…}" by default (the JavaScript one the args as JSON, the Python one as
// Python writes a dict), right above the same arguments shown as JSON. Any
// other description is kept whole.
func ActionDescription(a client.Action) string {
	d := a.Description
	i := strings.LastIndex(d, "\n\nTool: "+a.Name)
	if i < 0 {
		return d
	}
	rest := strings.TrimPrefix(d[i+2:], "Tool: "+a.Name)
	switch {
	case strings.TrimSpace(rest) == "":
	case strings.HasPrefix(rest, "\nArgs: ") && sameArgs(strings.TrimPrefix(rest, "\nArgs: "), a.Args):
	default:
		return d
	}
	return strings.TrimRight(d[:i], "\n ")
}

// sameArgs: text says exactly args, as JSON or as Python's str() of them.
func sameArgs(text string, args json.RawMessage) bool {
	if diff.Equal([]byte(text), args) {
		return true
	}
	py, ok := pyRepr(args)
	return ok && py == text
}
