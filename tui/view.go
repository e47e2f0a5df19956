package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// View draws the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "hitl"
	return v
}

// render is the screen as text (tests compare it with golden files).
func (m Model) render() string {
	header := m.headerLine()
	footer := m.statusLine() + "\n" + m.keyBar()
	bodyH := max(m.height-3, 1)
	var body string
	switch m.screen {
	case screenEditor:
		body = m.editorView(bodyH)
	case screenConfirm, screenHistory:
		body = m.page.View()
		if more := m.page.TotalLineCount() - m.page.YOffset() - bodyH; more > 0 {
			body = fit(body, m.width, bodyH-1) + "\n" + m.st.faint.Render(fmt.Sprintf("↓ %d more lines (j/k, pgdn/pgup)", more))
		}
	case screenHelp:
		body = m.helpView()
	case screenQuit:
		body = "\n  Quit? A draft or a send is in progress and will be lost.\n\n  y quit · any other key stays"
	case screenRunControl:
		what := map[client.RunAction]string{client.PauseRun: "Pause", client.ResumeRun: "Resume", client.CancelRun: "Cancel (cannot be undone)"}[m.runAction]
		target := ""
		if it := m.byID(m.runTarget); it != nil {
			target = safe(it.ThreadID) + " — " + safe(it.Title)
		}
		body = "\n  " + what + " run " + target + "?\n\n  y does it · any other key does nothing"
	case screenDetail:
		body = m.detail.View()
	default:
		if m.wide() {
			left := m.inboxView(m.inboxWidth(), bodyH)
			sep := m.st.border.Render(strings.Repeat("│\n", bodyH-1) + "│")
			body = lipgloss.JoinHorizontal(lipgloss.Top, left, sep, " "+strings.ReplaceAll(m.detail.View(), "\n", "\n "))
		} else {
			body = m.inboxView(m.width, bodyH)
		}
	}
	return header + "\n" + fit(body, m.width, bodyH) + "\n" + footer
}

// fit cuts or pads text to exactly w x h cells, so nothing spills.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

func (m Model) inboxWidth() int { return max(m.width*2/5, 40) }

// layout sizes the viewport and the editor for the window.
func (m *Model) layout() {
	bodyH := max(m.height-3, 1)
	w := m.width
	if m.wide() {
		w = m.width - m.inboxWidth() - 2
	}
	m.detail.SetWidth(w)
	m.detail.SetHeight(bodyH)
	m.page.SetWidth(m.width)
	m.page.SetHeight(bodyH)
	if m.ed != nil {
		per := max((bodyH-3*len(m.ed.fields))/len(m.ed.fields), 1)
		for i := range m.ed.fields {
			m.ed.fields[i].SetWidth(max(m.width-2, 10))
			if i == 0 {
				m.ed.fields[i].SetHeight(max(per, 3))
			} else {
				m.ed.fields[i].SetHeight(1)
			}
		}
		if len(m.ed.fields) > 1 {
			m.ed.fields[0].SetHeight(max(bodyH-4-3*(len(m.ed.fields)-1)-2, 3))
		} else {
			m.ed.fields[0].SetHeight(max(bodyH-4, 3))
		}
	}
	m.help.SetWidth(m.width)
	m.refreshDetail()
	m.refreshPage()
}

// refreshPage renders the confirm or history screen into its viewport.
func (m *Model) refreshPage() {
	switch m.screen {
	case screenConfirm:
		m.page.SetContent(m.confirmView())
	case screenHistory:
		m.page.SetContent(m.historyView())
	}
}

func (m Model) headerLine() string {
	n := len(m.items)
	s := fmt.Sprintf("hitl · %d pending", len(m.all))
	if m.filter != "" || m.filtering {
		s += fmt.Sprintf(" · %d shown · filter: %s", n, safe(m.filter))
		if m.filtering {
			s += "▏"
		}
	}
	if m.newCount > 0 {
		s += fmt.Sprintf(" · %d new", m.newCount)
	}
	if m.sort != sortNewest {
		s += " · sorted by " + m.sort.String()
	}
	return m.st.header.Render(ansi.Truncate(s, m.width, "…"))
}

func (m Model) statusLine() string {
	var conn string
	switch {
	case m.fetchErr != nil:
		conn = m.st.err.Render("✗ " + m.fetchErr.Error())
	case !m.loaded:
		conn = "connecting to " + safe(m.opts.Backend.Server()) + "…"
	default:
		conn = "● " + safe(m.opts.Backend.Server()) + " · updated " + present.Age(m.lastUpdate, m.opts.Now()) + " ago"
	}
	line := conn
	if m.status != "" {
		st := m.st.ok
		if !m.statusOK {
			st = m.st.warn
		}
		prefix := ""
		if m.sending {
			prefix = m.spin.View() + " "
		}
		line = prefix + st.Render(safe(m.status)) + "  " + m.st.faint.Render(conn)
		if m.fetchErr != nil {
			line = prefix + st.Render(safe(m.status)) + "  " + conn
		}
	}
	return ansi.Truncate(line, m.width, "…")
}

// keyBar is the short key help of the screen; decisions the interrupt does
// not allow are shown struck out.
func (m Model) keyBar() string {
	k := m.keys
	var items, compact []string
	on := func(b key.Binding) {
		items = append(items, m.st.key.Render(b.Help().Key)+" "+b.Help().Desc)
		compact = append(compact, m.st.key.Render(b.Help().Key)+":"+b.Help().Desc)
	}
	off := func(b key.Binding) {
		items = append(items, m.st.keyOff.Render(b.Help().Key+" "+b.Help().Desc))
		compact = append(compact, m.st.keyOff.Render(b.Help().Key+":"+b.Help().Desc))
	}
	switch m.screen {
	case screenEditor:
		on(k.Accept)
		on(k.External)
		if m.ed != nil && len(m.ed.fields) > 1 {
			on(k.NextField)
		}
		on(k.Back)
	case screenConfirm:
		on(k.Confirm)
		on(k.ShowJSON)
		on(k.DiffMode)
		on(k.Back)
	case screenHistory:
		if m.histThread == "" {
			on(k.Open)
		}
		on(k.Back)
	case screenHelp:
		on(k.Back)
	default:
		if m.filtering {
			items = append(items, "type to filter · enter keep · esc clear")
			compact = items
			break
		}
		it := m.current()
		if it != nil && (m.screen == screenDetail || m.wide()) {
			slot := 0
			if d := m.drafts[it.ID]; d != nil {
				slot = d.slot
			}
			for _, x := range []struct {
				b key.Binding
				t client.DecisionType
			}{{k.Approve, client.Approve}, {k.Edit, client.Edit}, {k.Reject, client.Reject}, {k.Respond, client.Respond}, {k.Ignore, client.Ignore}} {
				if it.Allows(slot, x.t) {
					on(x.b)
				} else {
					off(x.b)
				}
			}
			if it.Slots() > 1 {
				on(k.NextAction)
				on(k.Submit)
			}
		} else if it != nil {
			on(k.Open)
		}
		if m.screen == screenDetail {
			on(k.Back)
		} else {
			on(k.Filter)
		}
		on(k.Help)
		if m.screen != screenDetail {
			on(k.Quit)
		}
	}
	// Below the width the bar needs, drop to the compact "a:approve e:edit".
	bar := strings.Join(items, " · ")
	if ansi.StringWidth(bar) > m.width {
		bar = strings.Join(compact, " ")
	}
	return ansi.Truncate(bar, m.width, "…")
}

func (m Model) inboxView(w, h int) string {
	if !m.loaded && m.fetchErr == nil {
		return "\n  Looking for pending interrupts…"
	}
	now := m.opts.Now()
	var b strings.Builder
	if n := len(m.unknown); n > 0 {
		// Decisions whose fate is unknown are never hidden: a section of
		// their own, above the inbox, until the server tells.
		b.WriteString(m.st.warn.Render(ansi.Truncate(fmt.Sprintf("? %d decision(s) of unknown outcome · C looks them up again", n), w, "…")) + "\n")
		shown := min(n, 3)
		for _, e := range m.unknown[:shown] {
			b.WriteString(ansi.Truncate(fmt.Sprintf("  ? %-8s %s %s", safe(present.ShortID(e.InterruptID)), e.Time.Local().Format("15:04"), safe(e.Title)), w, "…") + "\n")
		}
		if n > shown {
			b.WriteString(m.st.faint.Render(fmt.Sprintf("  … %d more (hitl check lists them all)", n-shown)) + "\n")
		}
		h -= shown + 1
		if n > shown {
			h--
		}
		h = max(h, 1)
	}
	if len(m.items) == 0 {
		if m.filter != "" {
			return b.String() + "\n  Nothing matches the filter (esc clears it)."
		}
		return b.String() + "\n  No pending interrupts. New ones appear here as agents pause."
	}
	// Keep the selection in view.
	start := 0
	if i := m.index(); i >= h {
		start = i - h + 1
	}
	for i := start; i < len(m.items) && i < start+h; i++ {
		it := m.items[i]
		marker := "  "
		if it.ID == m.selected {
			marker = "▸ "
		}
		warn := " "
		if m.warning(&it) != 0 {
			warn = "⚠"
		}
		decided := ""
		if d := m.drafts[it.ID]; d != nil && d.touched() {
			decided = "✎ "
		}
		if it.Busy {
			decided += "(run in progress) "
		}
		var row string
		if w >= 64 {
			row = fmt.Sprintf("%s%s %-8s %4s %-10s %-11s %s%s", marker, warn, safe(present.ShortID(it.ID)), present.Age(it.UpdatedAt, now),
				ansi.Truncate(safe(it.GraphID), 10, "…"), "["+present.Badge(it.Schema)+"]", decided, safe(present.Summary(it)))
		} else {
			// Beside the detail there is no room for the graph: the detail shows it.
			row = fmt.Sprintf("%s%s %-8s %3s %s %s%s", marker, warn, safe(present.ShortID(it.ID)), present.Age(it.UpdatedAt, now), "["+present.Badge(it.Schema)+"]", decided, safe(present.Summary(it)))
		}
		row = ansi.Truncate(row, w, "…")
		if it.ID == m.selected {
			row = m.st.selected.Render(row + strings.Repeat(" ", max(w-ansi.StringWidth(row), 0)))
		}
		b.WriteString(row)
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m Model) historyView() string {
	var b strings.Builder
	if m.histThread != "" {
		b.WriteString(m.st.title.Render("Thread "+safe(m.histThread)) + "\n\n")
		b.WriteString(m.conversationText(m.histThread, m.width))
		b.WriteString("\n\n" + m.st.faint.Render("esc: back to the history"))
		return b.String()
	}
	b.WriteString(m.st.title.Render("Decisions sent from this machine") + m.st.faint.Render("  (enter: what the agent did next)") + "\n\n")
	if m.historyErr != nil {
		b.WriteString("Cannot read the audit log: " + m.historyErr.Error())
		return b.String()
	}
	if len(m.history) == 0 {
		b.WriteString("None yet.")
	}
	for i, e := range m.history {
		var kinds []string
		for _, d := range e.Decisions {
			kinds = append(kinds, string(d.Type))
		}
		marker := "  "
		if i == m.histSel {
			marker = "▸ "
		}
		row := fmt.Sprintf("%s%s  %-8s  %-10s  %-15s  %-15s %s", marker, e.Time.Local().Format(time.DateTime), safe(present.ShortID(e.InterruptID)),
			ansi.Truncate(safe(e.Reviewer), 10, "…"), e.Schema, e.Outcome, strings.Join(kinds, ","))
		if i == m.histSel {
			row = m.st.selected.Render(row)
		}
		b.WriteString(row + "\n")
	}
	return b.String()
}

func (m Model) editorView(h int) string {
	ed := m.ed
	if ed == nil {
		return ""
	}
	var b strings.Builder
	for i, f := range ed.fields {
		label := ed.labels[i]
		if i == ed.focus && len(ed.fields) > 1 {
			label = "▸ " + label
		}
		b.WriteString(m.st.bold.Render(ansi.Truncate(safe(label), m.width, "…")) + "\n")
		b.WriteString(f.View() + "\n")
	}
	if ed.err != "" {
		b.WriteString(m.st.err.Render(ansi.Wrap("✗ "+safe(ed.err), m.width, " ")) + "\n")
		b.WriteString(m.st.faint.Render("Your text is kept: fix it and press ctrl+s, or esc to leave it as a draft.") + "\n")
	}
	return b.String()
}

// safe makes one line of backend text inert.
func safe(s string) string { return inert.Line(s) }

// safeBlock makes multi-line backend text inert, keeping its lines.
func safeBlock(s string) string { return inert.Block(s) }

// helpView lays the full key map out in as many rows of columns as the
// width needs, so that no key is cut at 80 columns.
func (m Model) helpView() string {
	h := m.help
	h.SetWidth(0) // measure whole columns; the loop below decides what fits
	groups := m.keys.FullHelp()
	var rows []string
	for start := 0; start < len(groups); {
		end := start + 1
		for end < len(groups) && lipgloss.Width(h.FullHelpView(groups[start:end+1])) <= m.width {
			end++
		}
		rows = append(rows, h.FullHelpView(groups[start:end]))
		start = end
	}
	return strings.Join(rows, "\n\n")
}
