package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/present"
)

// The inbox's rows: a lead (cursor, bulk mark, warning, thread), then the
// columns id, age, graph and badge, then what is left of the row for the
// summary. Every width is measured in terminal cells (ansi.StringWidth:
// a CJK character or an emoji takes two), never in bytes or runes, and
// every column is as wide as the widest of its cells on screen: a column
// takes no room its content does not need, and a wide character in a
// graph name or a summary leaves the columns after it where they are.

// minSummary is the width of the summary below which, in a narrow window,
// the graph column and then the badge give it their room.
const minSummary = 24

// The room beside the detail: the graph shows there only where the
// summaries keep their whole width, or at least this much of it (one long
// summary does not take the graph from every row).
const summaryBesideDetail = 60

// columnGap is the blank between two columns.
const columnGap = " "

// rowCells is what one row shows, column by column, before the layout.
type rowCells struct {
	lead, id, age, graph, badge, rest string
}

// rowLayout is how wide each column of the rows is, in cells; 0: the
// column is not shown.
type rowLayout struct {
	lead, id, age, graph, badge int
}

// fixed is the width of the columns before the summary, gaps included.
func (l rowLayout) fixed() int {
	n := l.lead
	for _, w := range []int{l.id, l.age, l.graph, l.badge} {
		if w > 0 {
			n += w + len(columnGap)
		}
	}
	return n
}

// widest is the widest of the cells of each column: what every column
// would need to show them all whole.
func widest(rows []rowCells) rowLayout {
	var l rowLayout
	for _, r := range rows {
		l.lead = max(l.lead, ansi.StringWidth(r.lead))
		l.id = max(l.id, ansi.StringWidth(r.id))
		l.age = max(l.age, ansi.StringWidth(r.age))
		l.graph = max(l.graph, ansi.StringWidth(r.graph))
		l.badge = max(l.badge, ansi.StringWidth(r.badge))
	}
	// An age never jitters the columns as it grows (9s, 10s): the column
	// is at least as wide as the widest age under 100 days.
	l.age = max(l.age, ageWidth)
	return l
}

// ageWidth is the widest age present.Age writes for under 100 days (59s,
// 59m, 47h, 99d).
var ageWidth = func() int {
	now := time.Unix(1<<32, 0)
	n := 0
	for _, d := range []time.Duration{59 * time.Second, 59 * time.Minute, 47 * time.Hour, 99 * 24 * time.Hour} {
		n = max(n, ansi.StringWidth(present.Age(now.Add(-d), now)))
	}
	return n
}()

// steady is how wide the columns of the list alone are at least, so that
// they stand still as rows of other widths scroll into view or arrive
// (beside the detail, where room is short, a column is only as wide as
// its cells on screen; an age never less than ageWidth). A cell wider
// than its column widens it, to the graph's limit (rowsLayout).
var steady = rowLayout{
	id:    8,            // a short id (present.ShortID)
	age:   ageWidth + 1, // set apart from the id
	graph: 10,           // a graph's name, or its start
	badge: 11,           // "[questions]"
}

// rowsLayout is which columns rows of w cells show, and how wide: all of
// them where the summary keeps its room; in the list alone (not wide),
// the graph goes first, then the badge (the detail names both); beside
// the detail, the graph shows only where the summaries keep their width.
// The graph column takes its widest name up to the steady width, or a
// quarter of what the other columns leave the summary where that is more.
func rowsLayout(rows []rowCells, w int, wide bool, widestSummary int) rowLayout {
	l := widest(rows)
	if !wide {
		l.id, l.age, l.badge = max(l.id, steady.id), max(l.age, steady.age), max(l.badge, steady.badge)
	}
	graph := l.graph
	l.graph = 0
	room := w - l.fixed() // the summary's, without the graph
	if graph > 0 {
		if !wide {
			graph = max(graph, steady.graph)
		}
		l.graph = min(graph, max(steady.graph, room/4))
	}
	rest := room - l.graph - len(columnGap)
	switch {
	case wide && rest < min(widestSummary, summaryBesideDetail):
		l.graph = 0
	case !wide && room < minSummary:
		l.graph, l.badge = 0, 0
	case !wide && rest < minSummary:
		l.graph = 0
	}
	return l
}

// row lays one row's cells out in w cells.
func (l rowLayout) row(r rowCells, w int) string {
	var b strings.Builder
	b.WriteString(padCells(r.lead, l.lead))
	for _, c := range []struct {
		text  string
		width int
		right bool
	}{{r.id, l.id, false}, {r.age, l.age, true}, {r.graph, l.graph, false}, {r.badge, l.badge, false}} {
		if c.width == 0 {
			continue
		}
		if c.right {
			b.WriteString(padLeftCells(c.text, c.width))
		} else {
			b.WriteString(padCells(c.text, c.width))
		}
		b.WriteString(columnGap)
	}
	b.WriteString(r.rest)
	return ansi.Truncate(b.String(), w, "…")
}

// padCells cuts s to w cells (marking the cut) and pads it with spaces
// to exactly w cells.
func padCells(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

// padLeftCells is padCells aligned right.
func padLeftCells(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	return strings.Repeat(" ", max(w-ansi.StringWidth(s), 0)) + s
}

// cellsOf is what the row of the interrupt at i in the list shows.
func (s *inboxScreen) cellsOf(v *env, i int) rowCells {
	x := v.items
	it := &x.shown[i]
	marker := "  "
	if it.ID == x.selected {
		marker = "▸ "
	}
	if v.marked[it.ID] {
		marker = marker[:len(marker)-1] + "✓" // marked for a bulk approve
	}
	warn := " "
	if x.warning(it) != 0 {
		warn = "⚠"
	}
	mark := x.threadMark(i)
	if mark == "" {
		mark = " "
	}
	decided := ""
	if dl := v.deadline(it); dl != "" {
		decided = "[" + dl + "] "
	}
	if d := v.drafts[it.ID]; d != nil && d.touched() {
		decided = "✎ "
	}
	if it.Busy {
		decided += "(run in progress) "
	}
	if who := v.editing(it); who != "" {
		decided += safe(who) + " · "
	}
	rest := x.gist(it)
	if a := it.Approval; a != nil {
		// The tally in a few cells before the call, who after it: at 80
		// columns the call stays in sight (rows that differ only in their
		// command must not read alike).
		decided += fmt.Sprintf("✔%d/%d ", len(a.Approvers), a.Needed)
		rest += " · " + safe(approvedBy(a))
	}
	return rowCells{
		lead: marker + warn + mark,
		id:   safe(present.ShortID(it.ID)), age: v.age(it.UpdatedAt),
		graph: safe(it.GraphID), badge: "[" + present.BadgeOf(*it) + "]",
		rest: decided + rest,
	}
}

// approvedBy names who approved so far, and who was dropped, after the
// call in an inbox row.
func approvedBy(a *client.Approval) string {
	s := "approved by " + strings.Join(a.Approvers, ", ")
	if len(a.Approvers) == 0 {
		s = "no approval yet"
	}
	if len(a.Dropped) > 0 {
		s += "; dropped: " + strings.Join(a.Dropped, ", ") + " (no longer an approver)"
	}
	return s
}

// listWidth is what the inbox list wants beside the detail: every column
// of every row shown, and the widest summary (0: nothing to show beside
// it). Its cells are kept by the items (items.rebuild).
func listWidth(x *items) int {
	if len(x.shown) == 0 {
		return 0
	}
	return x.columns.fixed() + x.widest
}

// listColumns is the widest of each column over every row shown, as
// listWidth counts them (the age as wide as it can be: ages change).
func listColumns(shown []client.Interrupt) rowLayout {
	l := rowLayout{lead: ansi.StringWidth("▸✓⚠┬"), age: ageWidth}
	for i := range shown {
		it := &shown[i]
		l.id = max(l.id, ansi.StringWidth(safe(present.ShortID(it.ID))))
		l.graph = max(l.graph, ansi.StringWidth(safe(it.GraphID)))
		l.badge = max(l.badge, ansi.StringWidth("["+present.BadgeOf(*it)+"]"))
	}
	return l
}

// list draws the unknown-outcome section, the failed runs and the rows
// into r.
func (s *inboxScreen) list(v *env, r rect) string {
	x := v.items
	fetchErr := v.fetchErr()
	if !x.loaded && fetchErr == "" {
		return "\n  Looking for pending interrupts…"
	}
	w, h := r.w, r.h
	var b strings.Builder
	if fetchErr != "" {
		// The server cannot be read: that owns the body (an empty list would
		// say "nothing pending", which nobody knows), or heads what was
		// listed before.
		if !x.loaded {
			return "\n" + indentBlock(ansi.Wrap(fetchErr, max(w-2, 10), " "), "  ")
		}
		banner := strings.Split(ansi.Wrap(fetchErr, max(w, 10), " "), "\n")
		if len(banner) > 4 {
			banner = append(banner[:3], "… (the status line says when hitl tries again)")
		}
		b.WriteString(v.st.err.Render(strings.Join(banner, "\n")) + "\n")
		h -= len(banner)
	}
	if n := len(v.unknown); n > 0 {
		// Decisions whose fate is unknown are never hidden: a section of
		// their own, above the inbox, until the server tells.
		head := ansi.Wrap(fmt.Sprintf("? %d decision(s) of unknown outcome · %s looks them up again", n, name(v.keys.Check)), w, " ")
		b.WriteString(v.st.warn.Render(head) + "\n")
		h -= strings.Count(head, "\n")
		shown := min(n, 3)
		idW := 0
		for _, e := range v.unknown[:shown] {
			idW = max(idW, ansi.StringWidth(safe(present.ShortID(e.InterruptID))))
		}
		for _, e := range v.unknown[:shown] {
			b.WriteString(ansi.Truncate("  ? "+padCells(safe(present.ShortID(e.InterruptID)), idW)+" "+e.Time.Local().Format("15:04")+" "+safe(e.Title), w, "…") + "\n")
		}
		h -= shown + 1
		if n > shown {
			b.WriteString(v.st.faint.Render(fmt.Sprintf("  … %d more (hitl check lists them all)", n-shown)) + "\n")
			h--
		}
		h = max(h, 1)
	}
	if lines := v.failures(w); len(lines) > 0 {
		// A stuck agent is never invisible: failed runs, above the inbox.
		b.WriteString(strings.Join(lines, "\n") + "\n")
		h = max(h-len(lines), 1)
	}
	if len(x.shown) == 0 {
		msg := "No pending interrupts. New ones appear here as agents pause."
		if x.filter != "" {
			msg = "Nothing matches the filter (" + name(v.keys.Back) + " clears it)."
		}
		return b.String() + "\n" + indentBlock(ansi.Wrap(msg, max(w-2, 10), " "), "  ")
	}
	// Keep the selection in view; rows out of view are counted above and
	// below it.
	start, rows, up, down := listWindow(max(x.index(), 0), len(x.shown), h)
	if up {
		b.WriteString(v.st.faint.Render(ansi.Truncate(fmt.Sprintf("↑ %d more (%s, %s)", start, name(v.keys.Up), name(v.keys.PageUp)), w, "…")) + "\n")
	}
	cells := make([]rowCells, 0, rows)
	for i := start; i < len(x.shown) && i < start+rows; i++ {
		cells = append(cells, s.cellsOf(v, i))
	}
	l := rowsLayout(cells, w, v.lay.wide, x.widest)
	for k, c := range cells {
		row := l.row(c, w)
		if x.shown[start+k].ID == x.selected {
			row = v.st.selected.Render(padCells(row, w))
		}
		b.WriteString(row)
		b.WriteString("\n")
	}
	if down {
		b.WriteString(v.st.faint.Render(ansi.Truncate(fmt.Sprintf("↓ %d more (%s, %s)", len(x.shown)-start-rows, name(v.keys.Down), name(v.keys.PageDown)), w, "…")))
	}
	return strings.TrimRight(b.String(), "\n")
}
