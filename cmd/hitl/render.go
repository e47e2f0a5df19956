package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/redact"
)

// writeJSON prints v as JSON, with characters a terminal would act on or
// hide escaped (the JSON means the same).
func writeJSON(w io.Writer, v any, indent bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := buf.Bytes()
	if indent {
		out = indentJSON(out, maxIndent)
	}
	_, err := w.Write(inert.JSON(out))
	return err
}

// maxIndent is how deep --json output is indented: past it, a value is
// written compact (valid JSON all the same). Indenting every level of a
// value nested 9,000 deep writes 80 million spaces.
const maxIndent = 32

// indentJSON indents compact JSON (as json.Indent with two spaces does) up
// to depth levels, and writes what lies deeper compact: output linear in
// the input's size whatever its depth.
func indentJSON(b []byte, depth int) []byte {
	out := make([]byte, 0, len(b)+len(b)/4)
	level := 0
	newline := func(n int) {
		out = append(out, '\n')
		for range n {
			out = append(out, ' ', ' ')
		}
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:min(j+1, len(b))]...)
			i = j
		case c == '{' || c == '[':
			level++
			out = append(out, c)
			if i+1 < len(b) && (b[i+1] == '}' || b[i+1] == ']') {
				out = append(out, b[i+1])
				level--
				i++
			} else if level <= depth {
				newline(level)
			}
		case c == '}' || c == ']':
			level--
			if level < depth {
				newline(level)
			}
			out = append(out, c)
		case c == ',':
			out = append(out, c)
			if level <= depth {
				newline(level)
			}
		case c == ':':
			out = append(out, c)
			if level <= depth {
				out = append(out, ' ')
			}
		default:
			out = append(out, c)
		}
	}
	return out
}

// safe and safeBlock make backend text printable (one line; lines kept).
var (
	safe      = inert.Line
	safeBlock = inert.Block
)

// oneLine makes s printable on one line and cuts it to width cells.
func oneLine(s string, width int) string {
	return ansi.Truncate(safe(s), width, "…")
}

// printList prints the inbox as a table. On a terminal the rows fit its
// width (the summary gives way, marked …); piped, they are whole. watch
// prints the same rows (printLine), without the header.
func printList(w io.Writer, its []client.Interrupt, now time.Time) {
	if len(its) == 0 {
		fmt.Fprintln(w, "No pending interrupts.")
		return
	}
	fmt.Fprintf(w, "%-8s  %4s  %-14s  %-*s  %s\n", "ID", "AGE", "GRAPH", shapeColumn, "SHAPE", "SUMMARY")
	for _, it := range its {
		printLine(w, it, now)
	}
}

// shapeColumn is the width of the SHAPE column: the widest badge
// ("[unreadable]"), so that every summary starts in one column.
var shapeColumn = func() int {
	n := 0
	for _, s := range []client.Schema{client.SchemaMiddleware, client.SchemaAgentInbox, client.SchemaQuestions,
		client.SchemaPrompt, client.SchemaBreakpoint, client.SchemaForm, client.SchemaInformationReview,
		client.SchemaPayloadReview, client.SchemaResponseReview, client.SchemaUnreadable, client.SchemaRaw} {
		n = max(n, len(present.Badge(s))+2)
	}
	return n
}()

// printLine is one interrupt's row of the list (and of watch): the shape
// as the reviewer's badge ([tool], [questions]), the same on a terminal of
// any width and in a pipe (show and --json give the schema's full name).
func printLine(w io.Writer, it client.Interrupt, now time.Time) {
	badge := ""
	if present.Warnings(it) != 0 {
		badge = "⚠ "
	}
	if d := present.Deadline(&it, now); d != "" {
		badge += "[" + d + "] "
	}
	if a := present.ApprovalText(&it, false); a != "" {
		badge += "[" + a + "] "
	}
	row := fmt.Sprintf("%-8s  %4s  %-14s  %-*s  %s%s", present.ShortID(safe(it.ID)), present.Age(it.UpdatedAt, now),
		oneLine(it.GraphID, 14), shapeColumn, "["+oneLine(present.BadgeOf(it), shapeColumn-2)+"]", badge, safe(present.Summary(it)))
	if width := termWidth(w); width > 0 {
		row = ansi.Truncate(row, width, "…")
	}
	fmt.Fprintln(w, row)
}

// termWidth is the width of the terminal w writes to, or 0 when w is not a
// terminal (a pipe, a file, a test).
func termWidth(w io.Writer) int {
	if o, ok := w.(*termOut); ok {
		return o.width()
	}
	return 0
}

// printShow prints one interrupt in full; again is how this hitl was
// called ("hitl --backend events"), for the commands it suggests; me names
// this state folder's claims (journal ID). Fields the interrupt leaves
// empty are left out.
func printShow(w io.Writer, it client.Interrupt, again, me string) {
	fmt.Fprintf(w, "Interrupt  %s\n", safe(it.ID))
	fmt.Fprintf(w, "Shape      %s\n", client.ShapeOf(&it.Payload))
	if it.ThreadID != "" {
		fmt.Fprintf(w, "Thread     %s\n", safe(it.ThreadID))
	}
	var where []string
	if it.GraphID != "" {
		where = append(where, safe(it.GraphID))
	}
	if it.AssistantID != "" {
		where = append(where, "assistant "+safe(it.AssistantID))
	}
	if len(where) > 0 {
		fmt.Fprintf(w, "Graph      %s\n", strings.Join(where, "   "))
	}
	fmt.Fprintf(w, "Created    %s   updated %s\n", stamp(it.CreatedAt), stamp(it.UpdatedAt))
	if o := present.OriginLine(it); o != "" {
		fmt.Fprintf(w, "Agent      %s\n", safe(o))
	}
	if warn := present.Warnings(it); warn != 0 {
		fmt.Fprintf(w, "WARNING    this interrupt contains %s, shown below as visible escapes\n", warn)
	}
	// Claims (from a reviewer's TUI) are advice. This machine's own (the
	// TUI with this state folder, me) are told apart by the same rule as
	// the decide path's note: no race with another reviewer.
	now := time.Now()
	if mine := it.Mine(me, now); len(mine) > 0 {
		fmt.Fprintf(w, "Editing    being edited in hitl on this machine (%s)\n", present.HeldFor(mine[0].Since, now))
	}
	if who := present.Editing(it.Others(me, now), now); who != "" {
		fmt.Fprintf(w, "Editing    %s: a decision now may race theirs\n", safe(who))
	}
	if it.Approval != nil {
		// A team rule's approvals so far (a hub's inbox): an approver who
		// sends the same decision confirms them.
		fmt.Fprintf(w, "Approvals  %s: the same decision from another approver sends it\n", safe(present.ApprovalText(&it, true)))
	}
	fmt.Fprintf(w, "\n%s\n", safeBlock(it.Title))
	if it.Description != "" {
		fmt.Fprintf(w, "\n%s\n", indent(safeBlock(it.Description), "  "))
	}
	if len(it.Questions) > 0 {
		fmt.Fprintln(w, "\nQuestions")
		for i, q := range it.Questions {
			fmt.Fprintf(w, "  %d. %s\n", i+1, safeBlock(q))
		}
	}
	for i, a := range it.Actions {
		fmt.Fprintf(w, "\nAction %d of %d: %s   allowed: %s\n", i+1, len(it.Actions), safe(a.Name), joinTypes(a.Allowed))
		// As the TUI: without the middleware's "Tool: NAME / Args: {…}",
		// which the args right below say again (hitl show --raw has all).
		if desc := present.ActionDescription(a); desc != "" && it.Description != a.Description {
			fmt.Fprintf(w, "%s\n", indent(safeBlock(desc), "  "))
		}
		printTool(w, it, a)
		fmt.Fprintf(w, "  args:\n%s\n", indent(prettyJSON(a.Args), "    "))
		if len(a.Example) > 0 {
			changes, err := diff.Structural(a.Example, a.Args)
			var parts []string
			for _, c := range changes {
				parts = append(parts, c.String())
			}
			if err == nil && len(parts) > 0 {
				fmt.Fprintf(w, "  against its example: %s\n", safe(strings.Join(parts, ", ")))
			}
			fmt.Fprintf(w, "  example:\n%s\n", indent(prettyJSON(a.Example), "    "))
		}
		if len(a.ArgsSchema) > 0 {
			fmt.Fprintf(w, "  args_schema:\n%s\n", indent(prettyJSON(a.ArgsSchema), "    "))
		}
	}
	if len(it.Actions) == 0 {
		fmt.Fprintf(w, "\nAllowed    %s\n", joinTypes(it.Allowed))
	}
	if len(it.Context) > 0 {
		fmt.Fprintf(w, "\nContext\n%s\n", indent(prettyJSON(it.Context), "  "))
	}
	if c := it.Compare; c != nil {
		fmt.Fprintf(w, "\n%s\n%s\n\n%s\n%s\n", safe(c.LeftLabel), indent(safeBlock(c.Left), "  "), safe(c.RightLabel), indent(safeBlock(c.Right), "  "))
	}
	if it.Schema == client.SchemaRaw || it.Schema == client.SchemaForm {
		fmt.Fprintf(w, "\nValue\n%s\n", indent(prettyJSON(it.Raw), "  "))
	}
	printAnswerSchema(w, it)
	fmt.Fprintf(w, "\n%s\n", hitlCommand.ReplaceAllString(hint(it), again+" $1 "))
	if strings.Contains(again, redact.Mark) {
		fmt.Fprintf(w, "(hitl never prints the URL's credentials: put yours back where it says %s)\n", redact.Mark)
	}
}

// hitlCommand is a command hint suggests.
var hitlCommand = regexp.MustCompile(`\bhitl (approve|reject|respond|resume|edit|ignore|decide|show|dismiss) `)

// again is hitl as this command was called, with the flags that said
// where (--profile, --backend, --url), so that a command it suggests
// works as printed: "hitl --backend events". Userinfo and credential-
// looking parameters of the URL are not repeated (redact.URL).
func (e *env) again() string {
	out := "hitl"
	for _, f := range [][2]string{{"--profile", e.flags.Profile}, {"--backend", e.flags.Backend}, {"--url", redact.URL(e.flags.URL)}} {
		if f[1] != "" {
			out += " " + f[0] + " " + shellWord(safe(f[1]))
		}
	}
	return out
}

// shellWord is s as one word of a POSIX shell: as is when it is plain,
// else in single quotes.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printAnswerSchema says what answer the interrupt expects: the fields of
// its response schema, or the schema itself where it is no form.
func printAnswerSchema(w io.Writer, it client.Interrupt) {
	if len(it.ResponseSchema) == 0 {
		return
	}
	if it.Schema == client.SchemaForm {
		f, err := client.FormOf(it.ResponseSchema)
		if err == nil {
			fmt.Fprintf(w, "\nAnswer (response_schema)\n%s\n", indent(safeBlock(present.FormText(f)), "  "))
			return
		}
		why := strings.TrimPrefix(err.Error(), "no form for this schema: ")
		fmt.Fprintf(w, "\nAnswer (response_schema; no fields, %s: answer with --value JSON)\n%s\n", safe(why), indent(prettyJSON(it.ResponseSchema), "  "))
		return
	}
	fmt.Fprintf(w, "\nresponse_schema (the answer is checked against it before sending)\n%s\n", indent(prettyJSON(it.ResponseSchema), "  "))
}

// hint says how to answer this interrupt from the shell: only the
// commands its allowed decisions take.
func hint(it client.Interrupt) string {
	id := present.ShortID(it.ID)
	if it.Schema == client.SchemaUnreadable {
		return fmt.Sprintf("Not answerable from here: hitl show %s --raw prints the bytes the server sent; hitl resume %s --value JSON sends a value of your own.", safe(id), safe(id))
	}
	if it.Schema == client.SchemaBreakpoint {
		return fmt.Sprintf("Answer: hitl approve %s (continues the run)", id)
	}
	all := func(t client.DecisionType) bool {
		for i := range it.Slots() {
			if !it.Allows(i, t) {
				return false
			}
		}
		return true
	}
	var some []int // actions that allow an edit
	for i := range it.Actions {
		if it.Allows(i, client.Edit) {
			some = append(some, i+1)
		}
	}
	var cmds []string
	if all(client.Approve) {
		cmds = append(cmds, "hitl approve "+id)
	}
	if all(client.Respond) {
		switch {
		case len(it.Questions) > 0:
			answers := ""
			for i := range it.Questions {
				answers += fmt.Sprintf(" --answer A%d", i+1)
			}
			cmds = append(cmds, "hitl respond "+id+" -m FEEDBACK"+answers)
		case it.Schema == client.SchemaRaw:
			cmds = append(cmds, "hitl respond "+id+" -m TEXT", "hitl resume "+id+" --value JSON")
		case it.Schema == client.SchemaForm:
			cmds = append(cmds, "hitl respond "+id+formFields(it), "hitl respond "+id+" --value JSON")
		default:
			cmds = append(cmds, "hitl respond "+id+" -m TEXT")
		}
	}
	if all(client.Reject) {
		cmds = append(cmds, "hitl reject "+id+" -m WHY")
	}
	if all(client.Ignore) {
		cmds = append(cmds, "hitl ignore "+id)
	}
	switch {
	case len(some) > 0 && len(it.Actions) == 1:
		cmds = append(cmds, "hitl edit "+id+" --args FILE")
	case len(some) > 0:
		for _, n := range some {
			cmds = append(cmds, fmt.Sprintf("hitl edit %s --action %d --args FILE --others approve", id, n))
		}
	}
	if len(it.Actions) > 1 {
		cmds = append(cmds, "hitl decide "+id+" --decisions FILE (one decision per action, any mix)")
	}
	if len(cmds) == 0 {
		return "This interrupt allows no decision hitl can send."
	}
	return "Answer: " + strings.Join(cmds, " | ")
}

// formFields is the --field flags the form's required fields take (or its
// first field when none is required).
func formFields(it client.Interrupt) string {
	f, err := client.FormOf(it.ResponseSchema)
	if err != nil {
		return " --value JSON"
	}
	var out string
	for _, x := range f.Fields {
		if x.Required {
			out += " --field " + safe(x.Name) + "=…"
		}
	}
	if out == "" {
		out = " --field " + safe(f.Fields[0].Name) + "=…"
	}
	return out
}

func stamp(t time.Time) string { return present.Stamp(t) }

func joinTypes(ts []client.DecisionType) string {
	if len(ts) == 0 {
		return "(none)"
	}
	return present.Types(ts)
}

// prettyJSON indents JSON for reading, keeping key order and numbers as
// sent, in linear time; strings are decoded but for what a terminal would
// act on or hide (shown as \u001b).
func prettyJSON(raw json.RawMessage) string { return present.JSONText(raw) }

func indent(s, prefix string) string { return present.Indent(strings.TrimRight(s, "\n"), prefix) }

// printRaw prints the interrupt's value as the server sent it (for an
// unreadable one, the bytes of the entry hitl could not read). Into a file
// or a pipe the bytes go out exactly, for jq or a hex dump; a terminal gets
// them inert: the same JSON with what a terminal would act on or hide
// written as \uXXXX escapes (bytes that are not UTF-8 as \xNN).
func printRaw(e *env, it client.Interrupt) error {
	b := it.Bytes
	if b == nil {
		b = it.Raw
	}
	if w := e.stdout.exact(); w != nil {
		if _, err := w.Write(b); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	if utf8.Valid(b) {
		b = inert.JSON(b)
	}
	_, err := fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}

// printTool prints a coding agent's tool call as its reader knows it: the
// command of a shell call, the file and the line diff of a file edit.
func printTool(w io.Writer, it client.Interrupt, a client.Action) {
	v, ok := present.ToolOf(it, a)
	if !ok {
		return
	}
	if present.IsShell(a.Name) {
		fmt.Fprintf(w, "  $ %s\n", strings.ReplaceAll(safeBlock(v.Command), "\n", "\n    "))
	}
	for _, c := range v.Commands {
		fmt.Fprintf(w, "  $ %s\n", strings.ReplaceAll(safeBlock(c), "\n", "\n    "))
	}
	for _, p := range v.Patterns {
		fmt.Fprintf(w, "  · %s\n", safe(p))
	}
	if len(v.Always) > 0 {
		fmt.Fprintf(w, "  approved for good (approve --always), allows: %s\n", safe(strings.Join(v.Always, ", ")))
	}
	if v.Path != "" {
		fmt.Fprintf(w, "  file %s\n", safe(v.Path))
	}
	for _, c := range v.Changes {
		fmt.Fprintf(w, "  %s:\n", c.Label)
		printLines(w, diff.Lines(safeBlock(c.Before), safeBlock(c.After)))
	}
	if len(v.Patch) > 0 {
		fmt.Fprintln(w, "  change:")
		lines := make([]diff.Line, len(v.Patch))
		for i, l := range v.Patch {
			l.Text = safe(l.Text)
			lines[i] = l
		}
		printLines(w, lines)
	}
}

// printLines prints the lines of a diff, marked - and +.
func printLines(w io.Writer, lines []diff.Line) {
	for _, l := range lines {
		mark := "  "
		switch l.Op {
		case diff.Delete:
			mark = "- "
		case diff.Insert:
			mark = "+ "
		}
		fmt.Fprintf(w, "    %s%s\n", mark, l.Text)
	}
}
