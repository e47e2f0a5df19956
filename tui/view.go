package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/inert"
)

// View shows the frame Update drew last (Bubble Tea asks after every
// message, and a message that changed nothing draws nothing).
func (m *Model) View() tea.View {
	if m.frame == "" {
		m.draw()
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.ReportFocus = true // notifications go out only while the reviewer looks elsewhere
	v.WindowTitle = "hitl"
	return v
}

// draw draws the frame, and notes when it goes stale by itself.
func (m *Model) draw() {
	m.clock.staleAt = time.Time{}
	m.paint()
}

// retryIn says when the failed listing is tried again, counting down each
// second ("in 16s", "in 15s"… "now"), and notes when that text changes.
func (m *Model) retryIn() string {
	left := m.retryAt.Sub(m.opts.Now())
	if left <= 0 {
		return "now"
	}
	secs := (left + time.Second - 1) / time.Second // rounded up: "in 1s" until it is due
	m.staleAt(m.retryAt.Add(-(secs - 1) * time.Second))
	return fmt.Sprintf("in %ds", secs)
}

// paint draws the frame, adding what it shows to when the frame goes stale
// (Update starts that before the detail's text is worked out: its deadline
// counts too).
func (m *Model) paint() {
	m.clock.drawnFresh = m.fresh()
	m.frame = m.render()
}

// render is the screen as text (tests compare it with golden files): the
// header, the body of the screen in front, the status line and the key bar.
func (m *Model) render() string {
	body := m.top().view(m.env(), m.lay.body)
	return m.headerLine() + "\n" + fit(body, m.lay.w, m.lay.body.h) + "\n" + strings.Join(m.statusLines(m.lay.w, m.lay.h), "\n") + "\n" + m.keyBar()
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

func (m *Model) headerLine() string {
	x := &m.items
	s := fmt.Sprintf("hitl · %d pending", len(x.all))
	if !x.loaded && x.loading == nil {
		s = "hitl · pending: not known yet" // nothing listed so far: 0 would be a guess
	}
	if i := x.index(); i >= 0 { // 1/1 too: the header always says where you are
		s += fmt.Sprintf(" · %d/%d", i+1, len(x.shown))
	}
	if x.filter != "" || m.inbox.filtering {
		s += fmt.Sprintf(" · %d shown · filter: %s", len(x.shown), safe(x.filter))
		if m.inbox.filtering {
			s += "▏"
		}
	}
	if x.newCount > 0 {
		s += fmt.Sprintf(" · %d new since you last looked", x.newCount)
	}
	if p := x.loading; p != nil {
		if p.Total > 0 {
			s += fmt.Sprintf(" · loading: %d of %d threads read", p.Threads, p.Total)
		} else {
			s += fmt.Sprintf(" · loading: %d threads read so far", p.Threads)
		}
	}
	if x.sort != sortNewest {
		s += " · sorted by " + x.sort.String()
	}
	if m.viewOnly() {
		s = strings.Replace(s, "hitl · ", "hitl · view only · ", 1)
	}
	if m.opts.Host != "" {
		// Who the hub knows this reviewer as (from the key), first: what
		// they decide is recorded under that name.
		s = strings.Replace(s, "hitl · ", "hitl · "+safe(m.opts.Reviewer)+"@"+safe(m.opts.Host)+" · ", 1)
	}
	return m.st.header.Render(ansi.Truncate(s, m.lay.w, "…"))
}

// statusLines is the status area of a w x h window: the last message,
// wrapped (statusRows(h) lines at most: past that it ends with …), and
// where hitl stands with the server.
func (m *Model) statusLines(w, h int) []string {
	var conn string
	switch {
	case m.fetchErr != nil:
		conn = m.st.err.Render(fmt.Sprintf("✗ cannot list interrupts · retrying %s (%s: now)", m.retryIn(), name(m.keys.Refresh)))
	case m.sourceDown != nil && m.items.loaded:
		// One source of the hub's inbox is down: what it listed last is
		// shown, the others are live. The point first, the error's detail
		// after: a narrow screen cuts the detail.
		conn = m.st.err.Render("✗ " + safe(m.sourceDown.Source) + " is down · the rest is live (" + safe(m.sourceDown.Detail()) + ")")
	case !m.items.loaded:
		conn = "connecting to " + safe(m.opts.Backend.Server()) + "…"
	case m.opts.Host != "" && m.opts.Now().Sub(m.lastUpdate) < time.Minute:
		// Served by a hub, whose one watcher tells every session of each
		// change at once: a clock ticking each second would say nothing
		// more, and would be drawn and sent to every session each second.
		conn = "● " + safe(m.opts.Backend.Server()) + " · live (the hub's watcher)"
	default:
		conn = "● " + safe(m.opts.Backend.Server()) + " · updated just now"
		if !m.fresh() {
			conn = "● " + safe(m.opts.Backend.Server()) + " · updated " + m.age(m.lastUpdate) + " ago"
		}
	}
	mark := m.journalMark()
	if mark != "" {
		mark = m.st.err.Render(mark) + " · "
	}
	text, ok := m.status, m.statusOK
	if left := m.leftText(); left != "" && m.rowKeysHere() {
		// Why the keys on the row are held stays in front until a row is
		// chosen, whatever else was said since (a held key's words).
		if !strings.HasPrefix(text, left) && !strings.Contains(text, m.goneText(m.graceLeft)) {
			text = strings.TrimSpace(left + " " + text)
		}
		ok = false
	}
	if text == "" {
		return []string{ansi.Truncate(mark+conn, w, "…")}
	}
	st := m.st.ok
	if !ok {
		st = m.st.warn
	}
	prefix := ""
	if m.sending {
		prefix = m.spin.View() + " "
	}
	lines := strings.Split(wrapWords(prefix+safe(text), max(w, 10)), "\n")
	if n := statusRows(h); len(lines) > n {
		lines = lines[:n]
		lines[n-1] = ansi.Truncate(lines[n-1], w-2, "") + " …"
	}
	for i := range lines {
		lines[i] = st.Render(lines[i])
	}
	// Where hitl stands with the server is always shown: after a message
	// of one line when it fits there, else on a line of its own (after a
	// wrapped message it read as the message's last words).
	if m.fetchErr == nil && m.sourceDown == nil {
		conn = m.st.faint.Render(conn)
	}
	conn = mark + conn
	last := len(lines) - 1
	if last == 0 && ansi.StringWidth(lines[last])+2+ansi.StringWidth(conn) <= w {
		lines[last] += "  " + conn
		return lines
	}
	return append(lines, ansi.Truncate(conn, w, "…"))
}

// wrapWords wraps s to w cells at its spaces. A word that fits a line is
// never broken: ansi.Wrap also breaks at every hyphen, so "A-1001" in a
// status came out "A-" / "1001". A word wider than a line is broken after
// punctuation where it can (ansi.Wrap), else where the line ends: folded,
// never cut. A line's own indent is kept where it leaves room for a word
// (a message's list or code); a fold starts at the margin.
func wrapWords(s string, w int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		body := strings.TrimLeft(para, " ")
		indent := para[:len(para)-len(body)]
		if len(indent) >= w/2 {
			indent = ""
		}
		line, lw := "", 0
		for _, word := range strings.Split(body, " ") {
			ww := ansi.StringWidth(word)
			switch {
			case line == "" && ww == 0:
				// spaces at the start of a line: the fold stands for them
			case line == "" && indent != "" && len(indent)+ww <= w:
				line, lw = indent+word, len(indent)+ww
			case line == "" && ww <= w:
				line, lw = word, ww
			case lw+1+ww <= w:
				line, lw = line+" "+word, lw+1+ww
			case ww <= w:
				out = append(out, line)
				line, lw = word, ww
			default:
				if line != "" {
					out = append(out, line)
				}
				pieces := strings.Split(ansi.Wrap(word, w, ",;:/)]}"), "\n")
				out = append(out, pieces[:len(pieces)-1]...)
				line = pieces[len(pieces)-1]
				lw = ansi.StringWidth(line)
			}
			if line != "" {
				indent = "" // only the paragraph's first line is indented
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// keyBar is the footer of the screen in front (footer.go).
func (m *Model) keyBar() string {
	lead := ""
	if m.inbox.filtering && m.atInbox() {
		lead = "type to filter"
	}
	return footer(m.st, m.keys, lead, m.top().hints(m.env()), m.lay.w)
}

// safe makes one line of backend text inert.
func safe(s string) string { return inert.Line(s) }

// safeBlock makes multi-line backend text inert, keeping its lines.
func safeBlock(s string) string { return inert.Block(s) }
