package present

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
)

// Show prints one interrupt in full, as hitl show does; again is how this
// hitl was called ("hitl --backend events"), for the commands it
// suggests; me names this state folder's claims (journal ID). Fields the
// interrupt leaves empty are left out. A schema (an action's args_schema,
// the response_schema) is summarised (SchemaText), saying how to print it
// in full: ShowSchemas.
func Show(w io.Writer, it client.Interrupt, again, me string) {
	show(w, it, again, me, false)
}

// ShowSchemas is Show with every schema printed in full, as JSON (hitl
// show --schemas).
func ShowSchemas(w io.Writer, it client.Interrupt, again, me string) {
	show(w, it, again, me, true)
}

func show(w io.Writer, it client.Interrupt, again, me string, schemas bool) {
	// inFull closes a schema's summary: what it marks, and how to see the
	// schema whole.
	inFull := fmt.Sprintf("(* required · a summary: %s show %s --schemas prints it in full)", again, line(ShortID(it.ID)))
	fmt.Fprintf(w, "Interrupt  %s\n", line(it.ID))
	fmt.Fprintf(w, "Shape      %s\n", client.ShapeOf(&it.Payload))
	if it.ThreadID != "" {
		fmt.Fprintf(w, "Thread     %s\n", line(it.ThreadID))
	}
	var where []string
	if it.GraphID != "" {
		where = append(where, line(it.GraphID))
	}
	if it.AssistantID != "" {
		where = append(where, "assistant "+line(it.AssistantID))
	}
	if len(where) > 0 {
		fmt.Fprintf(w, "Graph      %s\n", strings.Join(where, "   "))
	}
	fmt.Fprintf(w, "Created    %s   updated %s\n", Stamp(it.CreatedAt), Stamp(it.UpdatedAt))
	if o := OriginLine(it); o != "" {
		fmt.Fprintf(w, "Agent      %s\n", line(o))
	}
	if warn := Warnings(it); warn != 0 {
		fmt.Fprintf(w, "WARNING    this interrupt contains %s, shown below as visible escapes\n", warn)
	}
	// Claims (from a reviewer's TUI) are advice. This machine's own (the
	// TUI with this state folder, me) are told apart by the same rule as
	// the decide path's note: no race with another reviewer.
	now := time.Now()
	if mine := it.Mine(me, now); len(mine) > 0 {
		fmt.Fprintf(w, "Editing    being edited in hitl on this machine (%s)\n", HeldFor(mine[0].Since, now))
	}
	if who := Editing(it.Others(me, now), now); who != "" {
		fmt.Fprintf(w, "Editing    %s: a decision now may race theirs\n", line(who))
	}
	if it.Approval != nil {
		// A team rule's approvals so far (a hub's inbox): an approver who
		// sends the same decision confirms them.
		fmt.Fprintf(w, "Approvals  %s: the same decision from another approver sends it\n", line(ApprovalText(&it, true)))
	}
	fmt.Fprintf(w, "\n%s\n", block(it.Title))
	if it.Description != "" {
		fmt.Fprintf(w, "\n%s\n", indentBy(block(it.Description), "  "))
	}
	if len(it.Questions) > 0 {
		fmt.Fprintln(w, "\nQuestions")
		for i, q := range it.Questions {
			fmt.Fprintf(w, "  %d. %s\n", i+1, block(q))
		}
	}
	for i, a := range it.Actions {
		fmt.Fprintf(w, "\nAction %d of %d: %s   allowed: %s\n", i+1, len(it.Actions), line(a.Name), typesOrNone(a.Allowed))
		// As the TUI: without the middleware's "Tool: NAME / Args: {…}",
		// which the args right below say again (hitl show --raw has all).
		if desc := ActionDescription(a); desc != "" && it.Description != a.Description {
			fmt.Fprintf(w, "%s\n", indentBy(block(desc), "  "))
		}
		printTool(w, it, a)
		fmt.Fprintf(w, "  args:\n%s\n", indentBy(JSONText(a.Args), "    "))
		if len(a.Example) > 0 {
			changes, err := diff.Structural(a.Example, a.Args)
			var parts []string
			for _, c := range changes {
				parts = append(parts, c.String())
			}
			if err == nil && len(parts) > 0 {
				fmt.Fprintf(w, "  against its example: %s\n", line(strings.Join(parts, ", ")))
			}
			fmt.Fprintf(w, "  example:\n%s\n", indentBy(JSONText(a.Example), "    "))
		}
		switch {
		case len(a.ArgsSchema) > 0 && schemas:
			fmt.Fprintf(w, "  args_schema:\n%s\n", indentBy(JSONText(a.ArgsSchema), "    "))
		case len(a.ArgsSchema) > 0:
			fmt.Fprintf(w, "  args_schema:\n%s\n    %s\n", indentBy(block(SchemaText(a.ArgsSchema)), "    "), inFull)
		}
	}
	if len(it.Actions) == 0 {
		fmt.Fprintf(w, "\nAllowed    %s\n", typesOrNone(it.Allowed))
	}
	if len(it.Context) > 0 {
		fmt.Fprintf(w, "\nContext\n%s\n", indentBy(JSONText(it.Context), "  "))
	}
	if c := it.Compare; c != nil {
		fmt.Fprintf(w, "\n%s\n%s\n\n%s\n%s\n", line(c.LeftLabel), indentBy(block(c.Left), "  "), line(c.RightLabel), indentBy(block(c.Right), "  "))
	}
	if it.Schema == client.SchemaRaw || it.Schema == client.SchemaForm {
		fmt.Fprintf(w, "\nValue\n%s\n", indentBy(JSONText(it.Raw), "  "))
	}
	printAnswerSchema(w, it, schemas, inFull)
	fmt.Fprintf(w, "\n%s\n", hitlCommand.ReplaceAllString(Hint(it), again+" $1 "))
}

// hitlCommand is a command hint suggests.
var hitlCommand = regexp.MustCompile(`\bhitl (approve|reject|respond|resume|edit|ignore|decide|show|dismiss) `)

// printAnswerSchema says what answer the interrupt expects: the fields of
// its response schema (the --field flags), or a summary of the schema
// where it is no form; schemas: the schema in full, as JSON; inFull
// closes a summary.
func printAnswerSchema(w io.Writer, it client.Interrupt, schemas bool, inFull string) {
	if len(it.ResponseSchema) == 0 {
		return
	}
	text := func() string {
		if schemas {
			return indentBy(JSONText(it.ResponseSchema), "  ")
		}
		return indentBy(block(SchemaText(it.ResponseSchema)), "  ") + "\n  " + inFull
	}
	if it.Schema == client.SchemaForm {
		f, err := client.FormOf(it.ResponseSchema)
		if err == nil {
			if !schemas {
				// The form's own fields: what --field names.
				fmt.Fprintf(w, "\nAnswer (response_schema)\n%s\n  %s\n", indentBy(block(FormText(f)), "  "), inFull)
				return
			}
			fmt.Fprintf(w, "\nAnswer (response_schema)\n%s\n", text())
			return
		}
		why := strings.TrimPrefix(err.Error(), "no form for this schema: ")
		fmt.Fprintf(w, "\nAnswer (response_schema; no fields, %s: answer with --value JSON)\n%s\n", line(why), text())
		return
	}
	fmt.Fprintf(w, "\nresponse_schema (the answer is checked against it before sending)\n%s\n", text())
}

// Hint says how to answer this interrupt from the shell: only the
// commands its allowed decisions take.
func Hint(it client.Interrupt) string {
	id := ShortID(it.ID)
	if it.Schema == client.SchemaUnreadable {
		return fmt.Sprintf("Not answerable from here: hitl show %s --raw prints the bytes the server sent; hitl resume %s --value JSON sends a value of your own.", line(id), line(id))
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
	// One command a line: alternatives joined by " | " read as a shell
	// pipe, and pasting the line would pipe one decision into the next.
	return "Answer with one of:\n  " + strings.Join(cmds, "\n  ")
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
			out += " --field " + line(x.Name) + "=…"
		}
	}
	if out == "" {
		out = " --field " + line(f.Fields[0].Name) + "=…"
	}
	return out
}

// ForGood is what approving it for good allows (opencode's "always";
// Gemini CLI's proceed_always on a shell command: its root commands), as
// hitl show and the TUI's detail say it: the words, naming how it is done
// (how: "approve --always", "L"), and the list; ok false where it names
// nothing (then nothing is offered for good). The list is the agent's
// text, not yet inert.
func ForGood(it client.Interrupt, how string) (words, allows string, ok bool) {
	if len(it.Always) == 0 {
		return "", "", false
	}
	return "approved for good (" + how + "), allows:", strings.Join(it.Always, ", "), true
}

// printForGood prints what approving it for good allows, if anything.
func printForGood(w io.Writer, it client.Interrupt) {
	if words, allows, ok := ForGood(it, "approve --always"); ok {
		fmt.Fprintf(w, "  %s %s\n", words, line(allows))
	}
}

// printTool prints a coding agent's tool call as its reader knows it: the
// command of a shell call, the file and the line diff of a file edit.
func printTool(w io.Writer, it client.Interrupt, a client.Action) {
	v, ok := ToolOf(it, a)
	if !ok {
		// Not a coding agent's hook request: what an approve for good
		// allows is said all the same (Gemini CLI's A2A tool calls).
		printForGood(w, it)
		return
	}
	if IsShell(a.Name) {
		fmt.Fprintf(w, "  $ %s\n", strings.ReplaceAll(block(v.Command), "\n", "\n    "))
	}
	for _, c := range v.Commands {
		fmt.Fprintf(w, "  $ %s\n", strings.ReplaceAll(block(c), "\n", "\n    "))
	}
	for _, p := range v.Patterns {
		fmt.Fprintf(w, "  · %s\n", line(p))
	}
	printForGood(w, it)
	if v.Path != "" {
		fmt.Fprintf(w, "  file %s\n", line(v.Path))
	}
	for _, c := range v.Changes {
		fmt.Fprintf(w, "  %s:\n", c.Label)
		printLines(w, diff.Lines(block(c.Before), block(c.After)))
	}
	if len(v.Patch) > 0 {
		fmt.Fprintln(w, "  change:")
		lines := make([]diff.Line, len(v.Patch))
		for i, l := range v.Patch {
			l.Text = line(l.Text)
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
