package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/hitl-sh/hitl/review"
)

// inboxScreen is the list of pending interrupts, with the detail of the
// selected one beside it from 100 columns. It is always at the bottom of
// the stack.
type inboxScreen struct {
	filtering bool // typing a filter
}

func (s *inboxScreen) key(v *env, msg tea.KeyPressMsg) []act {
	if s.filtering {
		return s.filterKey(v, msg)
	}
	k := v.keys
	switch {
	case key.Matches(msg, k.Filter):
		s.filtering = true
		return []act{filterList{""}}
	case key.Matches(msg, k.Sort):
		return []act{sortList{}}
	case key.Matches(msg, k.Back):
		if v.items.filter != "" {
			return []act{filterList{""}}
		}
		return nil
	case key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom):
		return []act{moveCursor{msg}}
	case key.Matches(msg, k.Narrower, k.Wider):
		if !v.lay.wide {
			return []act{status{fmt.Sprintf("The detail sits beside the list from %d columns.", wideFrom), false}}
		}
		step := 5
		if key.Matches(msg, k.Narrower) {
			step = -5
		}
		return []act{moveSplit{step}}
	case key.Matches(msg, k.Mark):
		if v.viewOnly {
			return []act{status{"View only: marks serve a bulk approve, and a viewer decides nothing.", false}}
		}
		return []act{toggleMark{}}
	case key.Matches(msg, k.ApproveAll) && bulkTargets(v.items, v.marked) != nil && !v.viewOnly:
		if v.sending {
			return []act{status{"A decision is being sent; wait for it.", false}}
		}
		if its := bulkTargets(v.items, v.marked); review.Approvable(its, v.reviewer) == 0 {
			_, left := review.Approvals(its, v.reviewer)
			why := "approve is not allowed there, or they take an answer"
			if len(left) == 1 {
				why = safe(left[0].Why())
			} else if slices.ContainsFunc(left, func(l review.Left) bool { return l.Standing != nil || l.Yours }) {
				why = "approve is not allowed there, or an approval that stands is another decision or yours: open each"
			}
			return []act{status{fmt.Sprintf("None of the %d %s can be approved in bulk (%s).", len(its), bulkWhat(v), why), false}}
		}
		return []act{approveRows{}}
	case key.Matches(msg, k.Open) && !v.lay.wide:
		return []act{openDetail{}}
	case key.Matches(msg, k.Open):
		// Beside the detail: enter opens nothing more, but says this row
		// is the one meant (after the open interrupt left).
		return []act{chooseRow{}}
	}
	if as, ok := browseKey(v, msg); ok {
		return as
	}
	// Decisions act on the selected interrupt at every width: beside the
	// detail, or from the list alone below 100 columns.
	return []act{decideKey{msg: msg}}
}

// fetchErrLine is fetchErrText, or "" while the listing works.
func (m *Model) fetchErrLine() string {
	if m.fetchErr == nil {
		return ""
	}
	return m.fetchErrText()
}

// fetchErrText says what failed, in full, and what to do about it.
func (m *Model) fetchErrText() string {
	text := "✗ " + safe(m.fetchErr.Error())
	if !m.items.loaded {
		text = "Cannot list the pending interrupts of " + safe(m.opts.Backend.Server()) + ":\n\n" + text +
			fmt.Sprintf("\n\nhitl tries again %s (%s tries now). Check that the server is running and that --url (HITL_URL, or the profile's url) points at it.", m.retryIn(), name(m.keys.Refresh))
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

func (s *inboxScreen) filterKey(v *env, msg tea.KeyPressMsg) []act {
	k := v.keys
	filter := v.items.filter
	switch {
	case key.Matches(msg, k.Back):
		s.filtering, filter = false, ""
	case key.Matches(msg, k.Open):
		s.filtering = false
	case msg.Code == tea.KeyBackspace:
		if r := []rune(filter); len(r) > 0 {
			filter = string(r[:len(r)-1])
		}
	default:
		filter += msg.Text
	}
	return []act{filterList{filter}}
}

func (s *inboxScreen) hints(v *env) []hint {
	k := v.keys
	if s.filtering {
		return on(withHelp(k.Open, "keep the filter"), withHelp(k.Back, "clear it"))
	}
	var out []hint
	it := v.items.current()
	if it != nil {
		out = decisionHints(v, it)
		if !v.lay.wide {
			out = append(out, hint{b: k.Open})
		}
	}
	// Marked rows (or a filtered list): what A approves, and how to mark
	// (offered only where A would approve something).
	if n := review.Approvable(bulkTargets(v.items, v.marked), v.reviewer); n > 0 && !v.viewOnly {
		out = append(out, hint{b: withHelp(k.ApproveAll, fmt.Sprintf("approve %d %s", n, bulkWhat(v)))})
	}
	if it != nil && !v.viewOnly {
		mark := withHelp(k.Mark, "mark")
		if v.marked[it.ID] {
			mark = withHelp(k.Mark, "unmark")
		}
		out = append(out, hint{b: mark, more: len(v.marked) == 0})
	}
	if v.items.filter != "" {
		out = append(out, hint{b: withHelp(k.Back, "clear filter")})
	}
	out = append(out, moreHints(v, it)...)
	return append(out, on(k.Filter, k.Help, k.Quit)...)
}

// What the inbox's keys ask of the list, which the root keeps (the
// detail, the header and the other screens read it too).

// filterList shows the rows that match filter ("": all).
type filterList struct{ filter string }

func (a filterList) apply(m *Model) tea.Cmd {
	if a.filter != m.items.filter && !m.sending {
		// What the status said ("Sent …") was about the list as it was.
		m.status = ""
	}
	m.items.filter = a.filter
	m.items.rebuild()
	m.chose() // the rows shown are the reviewer's choice
	return nil
}

// sortList sorts by the next order: newest, oldest, graph.
type sortList struct{}

func (sortList) apply(m *Model) tea.Cmd {
	m.items.sort = (m.items.sort + 1) % 3
	m.items.rebuild()
	m.setStatus("sorted by "+m.items.sort.String(), true)
	return nil
}

// moveCursor moves the selection by a moving key (a page: the rows on
// screen).
type moveCursor struct{ msg tea.KeyPressMsg }

func (a moveCursor) apply(m *Model) tea.Cmd {
	k := m.keys
	m.items.newCount = 0 // seen
	page := max(m.listRows(), 1)
	switch {
	case key.Matches(a.msg, k.Down):
		m.items.move(1)
	case key.Matches(a.msg, k.Up):
		m.items.move(-1)
	case key.Matches(a.msg, k.PageDown):
		m.items.move(page)
	case key.Matches(a.msg, k.PageUp):
		m.items.move(-page)
	case key.Matches(a.msg, k.Top):
		m.items.move(-len(m.items.shown))
	default:
		m.items.move(len(m.items.shown))
	}
	m.detail.top()
	m.chose() // the row under the cursor is where the reviewer put it
	return nil
}

// chooseRow: the reviewer chose the row under the cursor (enter, beside
// the detail).
type chooseRow struct{}

func (chooseRow) apply(m *Model) tea.Cmd { m.chose(); return nil }

// moveSplit widens (or narrows) the list beside the detail.
type moveSplit struct{ by int }

func (a moveSplit) apply(m *Model) tea.Cmd { m.split += a.by; return nil }

// toggleMark marks or unmarks the selected row for a bulk approve.
type toggleMark struct{}

func (toggleMark) apply(m *Model) tea.Cmd { m.toggleMark(); return nil }

// approveRows opens the bulk approve of the marked (or filtered) rows.
type approveRows struct{}

func (approveRows) apply(m *Model) tea.Cmd {
	if its := bulkTargets(&m.items, m.marked); its != nil {
		m.openBulk(its)
	}
	return nil
}

// openDetail opens the selected interrupt's detail on its own screen.
type openDetail struct{}

func (openDetail) apply(m *Model) tea.Cmd {
	m.items.newCount = 0
	if m.items.current() != nil && !m.held() {
		m.chose()      // enter on a row: this one
		m.detail.top() // opened from its top, wherever c last scrolled it
		m.push(&detailScreen{})
	}
	return nil
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

// view draws the list, with the detail pane beside it from 100 columns.
func (s *inboxScreen) view(v *env, r rect) string {
	if !v.lay.wide {
		return s.list(v, r)
	}
	l, d := v.lay.list, v.lay.detail
	left := s.list(v, rect{w: l.w, h: r.h})
	sep := v.st.border.Render(strings.Repeat("│\n", r.h-1) + "│")
	pane := marked(v.st, v.pane, d, name(v.keys.ScrollUp), name(v.keys.ScrollDown))
	return lipgloss.JoinHorizontal(lipgloss.Top, fit(left, l.w, r.h), sep, " "+strings.ReplaceAll(pane, "\n", "\n "))
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
