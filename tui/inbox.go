package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/present"
)

// inboxScreen is the list of pending interrupts, with the detail of the
// selected one beside it from 100 columns. It is always at the bottom of
// the stack.
type inboxScreen struct {
	filtering bool // typing a filter
}

func (s *inboxScreen) key(v *env, msg tea.KeyPressMsg) []act {
	return run(s.keyRoot(v.root, msg))
}

func (s *inboxScreen) keyRoot(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	if s.filtering {
		return s.filterKey(m, msg)
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Filter):
		s.filtering, m.items.filter = true, ""
		m.items.rebuild()
		return nil
	case key.Matches(msg, k.Sort):
		m.items.sort = (m.items.sort + 1) % 3
		m.items.rebuild()
		m.setStatus("sorted by "+m.items.sort.String(), true)
		return nil
	case key.Matches(msg, k.Back):
		if m.items.filter != "" {
			m.items.filter = ""
			m.items.rebuild()
		}
		return nil
	case key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom):
		m.items.newCount = 0 // seen
		page := max(m.listRows(), 1)
		switch {
		case key.Matches(msg, k.Down):
			m.items.move(1)
		case key.Matches(msg, k.Up):
			m.items.move(-1)
		case key.Matches(msg, k.PageDown):
			m.items.move(page)
		case key.Matches(msg, k.PageUp):
			m.items.move(-page)
		case key.Matches(msg, k.Top):
			m.items.move(-len(m.items.shown))
		default:
			m.items.move(len(m.items.shown))
		}
		m.detail.top()
		return nil
	case key.Matches(msg, k.Narrower, k.Wider):
		if !m.lay.wide {
			m.setStatus(fmt.Sprintf("The detail sits beside the list from %d columns.", wideFrom), false)
			return nil
		}
		step := 5
		if key.Matches(msg, k.Narrower) {
			step = -5
		}
		m.split += step
		return nil
	case key.Matches(msg, k.Mark):
		m.toggleMark()
		return nil
	case key.Matches(msg, k.ApproveAll) && m.bulkTargets() != nil:
		if m.sending {
			m.setStatus("A decision is being sent; wait for it.", false)
			return nil
		}
		m.openBulk(m.bulkTargets())
		return nil
	case key.Matches(msg, k.Open) && !m.lay.wide:
		m.items.newCount = 0
		if m.items.current() != nil {
			m.push(&detailScreen{})
		}
		return nil
	}
	if as, ok := browseKey(m.env(), msg); ok {
		return m.apply(as)
	}
	// Decisions act on the selected interrupt at every width: beside the
	// detail, or from the list alone below 100 columns.
	return m.decisionKey(msg)
}

// fetchErrText says what failed, in full, and what to do about it.
func (m *Model) fetchErrText() string {
	text := "✗ " + safe(m.fetchErr.Error())
	if !m.items.loaded {
		text = "Cannot list the pending interrupts of " + safe(m.opts.Backend.Server()) + ":\n\n" + text +
			fmt.Sprintf("\n\nhitl tries again in %s (%s tries now). Check that the server is running and that --url (HITL_URL, or the profile's url) points at it.", m.backoff, name(m.keys.Refresh))
	} else {
		text += fmt.Sprintf(" (showing what was listed %s ago)", m.age(m.lastUpdate))
	}
	return text
}

// listRows is how many rows of the list are on screen.
func (m *Model) listRows() int {
	h := m.lay.list.h - len(m.failuresSection(m.lay.list.w))
	if n := len(m.unknown); n > 0 {
		h -= min(n, 3) + 1
		if n > 3 {
			h--
		}
	}
	return h
}

func (s *inboxScreen) filterKey(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		s.filtering, m.items.filter = false, ""
	case key.Matches(msg, k.Open):
		s.filtering = false
	case msg.Code == tea.KeyBackspace:
		if r := []rune(m.items.filter); len(r) > 0 {
			m.items.filter = string(r[:len(r)-1])
		}
	default:
		m.items.filter += msg.Text
	}
	m.items.rebuild()
	return nil
}

func (s *inboxScreen) hints(v *env) []hint {
	m := v.root
	k := m.keys
	if s.filtering {
		return on(withHelp(k.Open, "keep the filter"), withHelp(k.Back, "clear it"))
	}
	var out []hint
	if it := m.items.current(); it != nil {
		out = m.decisionHints(it)
		if !m.lay.wide {
			out = append(out, hint{b: k.Open})
		}
	}
	if len(m.failed.list) > 0 {
		out = append(out, hint{b: k.Failures})
	}
	return append(out, on(k.Filter, k.Help, k.Quit)...)
}

// withHelp is b with another description, for a screen where its meaning
// reads differently.
func withHelp(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// check looks up, again, decisions whose outcome is unknown.
func (m *Model) check() tea.Cmd {
	if len(m.unknown) == 0 || m.checking {
		return nil
	}
	if m.sending {
		m.setStatus("A decision is being sent; look up the others once it is done.", false)
		return nil
	}
	m.checking = true
	m.setStatus("Looking up decisions of unknown outcome…", true)
	return m.reconcile()
}

func (s *inboxScreen) view(v *env, r rect) string {
	m := v.root
	if !m.lay.wide {
		return m.listView(r)
	}
	l, d := m.lay.list, m.lay.detail
	left := m.listView(rect{w: l.w, h: r.h})
	sep := m.st.border.Render(strings.Repeat("│\n", r.h-1) + "│")
	return lipgloss.JoinHorizontal(lipgloss.Top, fit(left, l.w, r.h), sep, " "+strings.ReplaceAll(m.detail.view(m, d, name(m.keys.ScrollUp), name(m.keys.ScrollDown)), "\n", "\n "))
}

// listView draws the unknown-outcome section and the list rows into r.
func (m *Model) listView(r rect) string {
	x := &m.items
	if !x.loaded && m.fetchErr == nil {
		return "\n  Looking for pending interrupts…"
	}
	w, h := r.w, r.h
	var b strings.Builder
	if m.fetchErr != nil {
		// The server cannot be read: that owns the body (an empty list would
		// say "nothing pending", which nobody knows), or heads what was
		// listed before.
		text := m.fetchErrText()
		if !x.loaded {
			return "\n" + indentBlock(ansi.Wrap(text, max(w-2, 10), " "), "  ")
		}
		banner := strings.Split(ansi.Wrap(text, max(w, 10), " "), "\n")
		if len(banner) > 4 {
			banner = append(banner[:3], "… (the status line says when hitl tries again)")
		}
		b.WriteString(m.st.err.Render(strings.Join(banner, "\n")) + "\n")
		h -= len(banner)
	}
	if n := len(m.unknown); n > 0 {
		// Decisions whose fate is unknown are never hidden: a section of
		// their own, above the inbox, until the server tells.
		head := ansi.Wrap(fmt.Sprintf("? %d decision(s) of unknown outcome · %s looks them up again", n, name(m.keys.Check)), w, " ")
		b.WriteString(m.st.warn.Render(head) + "\n")
		h -= strings.Count(head, "\n")
		shown := min(n, 3)
		for _, e := range m.unknown[:shown] {
			b.WriteString(ansi.Truncate(fmt.Sprintf("  ? %-8s %s %s", safe(present.ShortID(e.InterruptID)), e.Time.Local().Format("15:04"), safe(e.Title)), w, "…") + "\n")
		}
		h -= shown + 1
		if n > shown {
			b.WriteString(m.st.faint.Render(fmt.Sprintf("  … %d more (hitl check lists them all)", n-shown)) + "\n")
			h--
		}
		h = max(h, 1)
	}
	if lines := m.failuresSection(w); len(lines) > 0 {
		// A stuck agent is never invisible: failed runs, above the inbox.
		b.WriteString(strings.Join(lines, "\n") + "\n")
		h = max(h-len(lines), 1)
	}
	if len(x.shown) == 0 {
		msg := "No pending interrupts. New ones appear here as agents pause."
		if x.filter != "" {
			msg = "Nothing matches the filter (" + name(m.keys.Back) + " clears it)."
		}
		return b.String() + "\n" + indentBlock(ansi.Wrap(msg, max(w-2, 10), " "), "  ")
	}
	// Keep the selection in view; rows out of view are counted above and
	// below it.
	start, rows, up, down := listWindow(max(x.index(), 0), len(x.shown), h)
	if up {
		b.WriteString(m.st.faint.Render(ansi.Truncate(fmt.Sprintf("↑ %d more (%s, %s)", start, name(m.keys.Up), name(m.keys.PageUp)), w, "…")) + "\n")
	}
	h = rows
	// The graph column when the summaries keep their width, or at least
	// 60 columns of it: one long summary does not take it from every row.
	withGraph := w-listFixed-graphColumn >= min(x.widest, 60)
	// Badges padded to the widest on screen: the summaries line up.
	bw := 0
	for i := start; i < len(x.shown) && i < start+h; i++ {
		bw = max(bw, len(present.BadgeOf(x.shown[i]))+2)
	}
	for i := start; i < len(x.shown) && i < start+h; i++ {
		it := x.shown[i]
		marker := "  "
		if it.ID == x.selected {
			marker = "▸ "
		}
		if m.marked[it.ID] {
			marker = marker[:len(marker)-1] + "✓" // marked for a bulk approve
		}
		warn := " "
		if x.warning(&it) != 0 {
			warn = "⚠"
		}
		decided := ""
		if dl := m.deadline(&it); dl != "" {
			decided = "[" + dl + "] "
		}
		if d := m.drafts[it.ID]; d != nil && d.touched() {
			decided = "✎ "
		}
		if it.Busy {
			decided += "(run in progress) "
		}
		if who := m.editing(&it); who != "" {
			decided += safe(who) + " · "
		}
		if it.Approval != nil {
			decided += safe(it.Approval.Words()) + " · "
		}
		mark := x.threadMark(i)
		if mark == "" {
			mark = " "
		}
		var row string
		switch {
		case !m.lay.wide && w-listFixed-graphColumn < minSummary && w-listFixed >= minSummary:
			// Narrow: the graph goes before the summary does (the
			// detail names the graph).
			row = fmt.Sprintf("%s%s%s%-8s %4s %-11s %s%s", marker, warn, mark, safe(present.ShortID(it.ID)), m.age(it.UpdatedAt),
				"["+present.BadgeOf(it)+"]", decided, x.gist(&it))
		case !m.lay.wide && w-listFixed < minSummary:
			// Narrower still: the badge goes too.
			row = fmt.Sprintf("%s%s%s%-8s %4s %s%s", marker, warn, mark, safe(present.ShortID(it.ID)), m.age(it.UpdatedAt),
				decided, x.gist(&it))
		case !m.lay.wide || withGraph:
			row = fmt.Sprintf("%s%s%s%-8s %4s %-10s %-11s %s%s", marker, warn, mark, safe(present.ShortID(it.ID)), m.age(it.UpdatedAt),
				ansi.Truncate(safe(it.GraphID), 10, "…"), "["+present.BadgeOf(it)+"]", decided, x.gist(&it))
		default:
			// Beside the detail, the graph only when the summaries keep their
			// whole width (the detail shows it too).
			row = fmt.Sprintf("%s%s%s%-8s %3s %-*s %s%s", marker, warn, mark, safe(present.ShortID(it.ID)), m.age(it.UpdatedAt), bw, "["+present.BadgeOf(it)+"]", decided, x.gist(&it))
		}
		row = ansi.Truncate(row, w, "…")
		if it.ID == x.selected {
			row = m.st.selected.Render(row + strings.Repeat(" ", max(w-ansi.StringWidth(row), 0)))
		}
		b.WriteString(row)
		b.WriteString("\n")
	}
	if down {
		b.WriteString(m.st.faint.Render(ansi.Truncate(fmt.Sprintf("↓ %d more (%s, %s)", len(x.shown)-start-rows, name(m.keys.Down), name(m.keys.PageDown)), w, "…")))
	}
	return strings.TrimRight(b.String(), "\n")
}

// listWindow is which rows of n a list h lines high shows with row i in
// view: from start, rows of them, with a marker line above (up) and below
// (down) where rows are out of view. A marker takes a line of h.
func listWindow(i, n, h int) (start, rows int, up, down bool) {
	switch {
	case n <= h:
		return 0, n, false, false
	case h < 3: // no room for markers
		return max(i-h+1, 0), h, false, false
	case i < h-1: // at the top
		return 0, h - 1, false, true
	case i >= n-(h-1): // at the bottom
		return n - (h - 1), h - 1, true, false
	}
	return i - (h - 2) + 1, h - 2, true, true
}
