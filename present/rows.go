package present

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
)

// line and block make backend text printable (one line; lines kept).
var (
	line  = inert.Line
	block = inert.Block
)

// cut makes s printable on one line and cuts it to width cells.
func cut(s string, width int) string { return ansi.Truncate(line(s), width, "…") }

// indentBy puts prefix before every line of s (its last newline dropped).
func indentBy(s, prefix string) string { return Indent(strings.TrimRight(s, "\n"), prefix) }

// typesOrNone lists decision types, or says there are none.
func typesOrNone(ts []client.DecisionType) string {
	if len(ts) == 0 {
		return "(none)"
	}
	return Types(ts)
}

// List prints the inbox as hitl list does, a table. Within width (a
// terminal's) the rows fit (the summary gives way, marked …); with width 0
// (a pipe), they are whole. hitl watch prints the same rows (Row), without
// the header.
func List(w io.Writer, its []client.Interrupt, now time.Time, width int) {
	if len(its) == 0 {
		fmt.Fprintln(w, "No pending interrupts.")
		return
	}
	fmt.Fprintf(w, "%-8s  %4s  %-14s  %-*s  %s\n", "ID", "AGE", "GRAPH", shapeColumn, "SHAPE", "SUMMARY")
	for _, it := range its {
		Row(w, it, now, width)
	}
}

// shapeColumn is the width of the SHAPE column: the widest badge
// ("[unreadable]"), so that every summary starts in one column.
var shapeColumn = func() int {
	n := 0
	for _, s := range []client.Schema{client.SchemaMiddleware, client.SchemaAgentInbox, client.SchemaQuestions,
		client.SchemaPrompt, client.SchemaBreakpoint, client.SchemaForm, client.SchemaInformationReview,
		client.SchemaPayloadReview, client.SchemaResponseReview, client.SchemaUnreadable, client.SchemaRaw} {
		n = max(n, len(Badge(s))+2)
	}
	return n
}()

// Row is one interrupt's row of the list (and of watch): the shape
// as the reviewer's badge ([tool], [questions]), the same on a terminal of
// any width and in a pipe (show and --json give the schema's full name).
func Row(w io.Writer, it client.Interrupt, now time.Time, width int) {
	badge := ""
	if Warnings(it) != 0 {
		badge = "⚠ "
	}
	if d := Deadline(&it, now); d != "" {
		badge += "[" + d + "] "
	}
	if a := ApprovalText(&it, false); a != "" {
		badge += "[" + a + "] "
	}
	row := fmt.Sprintf("%-8s  %4s  %-14s  %-*s  %s%s", ShortID(line(it.ID)), Age(it.UpdatedAt, now),
		cut(it.GraphID, 14), shapeColumn, "["+cut(BadgeOf(it), shapeColumn-2)+"]", badge, line(Summary(it)))
	if width > 0 {
		row = ansi.Truncate(row, width, "…")
	}
	fmt.Fprintln(w, row)
}
