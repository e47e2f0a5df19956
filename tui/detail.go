package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/present"
)

// detailPane shows the selected interrupt in full: beside the inbox from
// 100 columns, on the detail screen below. It renders only when what it
// shows changed: polls and key presses come often, and a large payload
// takes tens of milliseconds to render.
type detailPane struct {
	vp  viewport.Model
	sig string // what the viewport shows now (see signature)
	// showConv: the conversation is shown, per thread.
	showConv map[string]bool
}

func newDetailPane() detailPane {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{} // the screens route scrolling keys themselves
	return detailPane{vp: vp, showConv: map[string]bool{}}
}

func (d *detailPane) resize(r rect) {
	d.vp.SetWidth(r.w)
	d.vp.SetHeight(r.h)
}

func (d *detailPane) top() { d.vp.GotoTop() }

func (d *detailPane) view(rect) string { return d.vp.View() }

// sync renders the selected interrupt when something it shows changed.
func (d *detailPane) sync(m *Model) {
	it := m.items.current()
	if it == nil {
		d.vp.SetContent("")
		d.sig = ""
		return
	}
	sig := d.signature(m, it)
	if sig == d.sig {
		return
	}
	d.sig = sig
	d.vp.SetContent(m.detailText(it, d.vp.Width()))
}

// signature names everything detailText depends on.
func (d *detailPane) signature(m *Model, it *client.Interrupt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%d|%v|%v|%s|", it.ID, d.vp.Width(), d.showConv[it.ThreadID], m.sideBySide, m.theme)
	if dr := m.drafts[it.ID]; dr != nil {
		fmt.Fprintf(&b, "slot%d|", dr.slot)
		for _, x := range dr.decisions {
			if x != nil {
				fmt.Fprintf(&b, "%s:%q:%s:%q|", x.Type, x.Message, x.Args, x.Answers)
			} else {
				b.WriteString("-|")
			}
		}
	}
	if c := m.convs[it.ThreadID]; d.showConv[it.ThreadID] && c != nil {
		fmt.Fprintf(&b, "conv%v|%v|%d", c.loading, c.err, len(c.messages))
	}
	return b.String()
}

// detailScreen is the detail on a screen of its own, below 100 columns.
type detailScreen struct{}

func (*detailScreen) name() string { return nameDetail }

func (*detailScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		m.pop()
		return nil
	case key.Matches(msg, k.Up):
		m.detail.vp.ScrollUp(1)
		return nil
	case key.Matches(msg, k.Down):
		m.detail.vp.ScrollDown(1)
		return nil
	case key.Matches(msg, k.PageDown):
		m.detail.vp.PageDown()
		return nil
	case key.Matches(msg, k.PageUp):
		m.detail.vp.PageUp()
		return nil
	case key.Matches(msg, k.Top):
		m.detail.vp.GotoTop()
		return nil
	case key.Matches(msg, k.Bottom):
		m.detail.vp.GotoBottom()
		return nil
	}
	if cmd, ok := browseKey(m, msg); ok {
		return cmd
	}
	return m.decisionKey(msg)
}

func (*detailScreen) view(m *Model, r rect) string { return m.detail.view(r) }

func (*detailScreen) hints(m *Model) []hint {
	var out []hint
	if it := m.items.current(); it != nil {
		out = m.decisionHints(it)
	}
	return append(out, on(m.keys.Back, m.keys.Help)...)
}

// conversation is a thread's messages, loaded on demand.
type conversation struct {
	messages []client.Message
	err      error
	loading  bool
}

type conversations map[string]*conversation

// toggleConversation shows or hides the selected thread's conversation,
// loading it the first time.
func (m *Model) toggleConversation() tea.Cmd {
	it := m.items.current()
	if it == nil {
		return nil
	}
	show := !m.detail.showConv[it.ThreadID]
	m.detail.showConv[it.ThreadID] = show
	if c := m.convs[it.ThreadID]; show && (c == nil || c.err != nil) {
		m.convs[it.ThreadID] = &conversation{loading: true}
		return m.loadConversation(it.ThreadID)
	}
	return nil
}

// detailText is the interrupt in full, at width w.
func (m *Model) detailText(it *client.Interrupt, w int) string {
	w = max(w, 20)
	st := m.st
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	wrap := func(s string) string { return ansi.Wrap(s, w, " ") }

	line(st.title.Render(wrap(safeBlock(it.Title))))
	if warn := m.items.warning(it); warn != 0 {
		line(st.warn.Render(wrap("⚠ This interrupt contains " + warn.String() + ": shown as visible escapes (\\x1b, <U+202E>). Read it closely.")))
	}
	// An id is never broken across lines: one to copy must be whole.
	head := fmt.Sprintf("[%s] %s", present.Badge(it.Schema), safe(present.ShortID(it.ID)))
	if thread := "thread " + safe(it.ThreadID); ansi.StringWidth(head+" · "+thread) <= w {
		line(st.faint.Render(head + " · " + thread))
	} else {
		line(st.faint.Render(head))
		line(st.faint.Render(wrap(thread)))
	}
	if it.Description != "" {
		line("")
		line(renderMarkdown(safeBlock(it.Description), m.theme, w))
	}
	if len(it.Questions) > 0 {
		line("")
		line(st.bold.Render("Questions"))
		for i, q := range it.Questions {
			line(wrap(fmt.Sprintf("%d. %s", i+1, safeBlock(q))))
		}
	}
	d := m.drafts[it.ID]
	slot := m.drafts.slot(it)
	see := "hitl show " + present.ShortID(it.ID) + " prints all of it"
	for i, a := range it.Actions {
		line("")
		marker := "  "
		if slot == i && len(it.Actions) > 1 {
			marker = "▸ "
		}
		head := fmt.Sprintf("%sAction %d/%d  %s", marker, i+1, len(it.Actions), safe(a.Name))
		line(st.bold.Render(head) + "  " + st.faint.Render("allowed: "+typesText(a.Allowed)))
		if d != nil && d.decisions[i] != nil {
			line(indentBlock(m.decisionText("decision: ", d.decisions[i], w-2), "  "))
		}
		if desc := present.ActionDescription(a); desc != "" && a.Description != it.Description {
			line(indentBlock(renderMarkdown(safeBlock(desc), m.theme, w-2), "  "))
		}
		switch {
		case d != nil && d.decisions[i] != nil && d.decisions[i].Type == client.Edit:
			line(indentBlock(m.diffView(a.Args, d.decisions[i].Args, w-2), "  "))
		case len(a.Example) > 0:
			line(st.faint.Render("  proposed, against its example:"))
			line(indentBlock(m.diffView(a.Example, a.Args, w-2), "  "))
		default:
			line(indentBlock(m.highlightJSON(a.Args, w-2, see), "  "))
		}
	}
	if len(it.Actions) == 0 {
		line("")
		line(st.faint.Render("allowed: " + typesText(it.Allowed)))
		if d != nil && d.decisions[0] != nil {
			line(m.decisionText("decision: ", d.decisions[0], w))
		}
		if it.Schema == client.SchemaRaw || it.Schema == client.SchemaForm {
			line(st.bold.Render("Value"))
			line(m.highlightJSON(it.Raw, w, see))
		}
	}
	if len(it.Context) > 0 {
		line("")
		line(st.bold.Render("Context"))
		line(m.highlightJSON(it.Context, w, see))
	}
	if it.Compare != nil {
		line("")
		line(m.compareView(it.Compare, w))
	}
	line("")
	line(st.faint.Render(wrap(fmt.Sprintf("graph %s · assistant %s", safe(it.GraphID), safe(it.AssistantID)))))
	line(st.faint.Render(wrap(fmt.Sprintf("created %s · updated %s", stamp(it.CreatedAt), stamp(it.UpdatedAt)))))
	line(st.faint.Render(wrap("id " + safe(it.ID))))
	if _, ok := m.opts.Backend.(client.Conversational); ok {
		if m.detail.showConv[it.ThreadID] {
			line("")
			line(m.conversationText(it.ThreadID, w))
		} else {
			line(st.faint.Render(name(m.keys.Conversation) + " shows the conversation"))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// decisionText is a decision after label, wrapped to w: a message of
// several lines keeps its lines, under the label.
func (m *Model) decisionText(label string, d *client.Decision, w int) string {
	s := string(d.Type)
	if len(d.Answers) > 0 {
		s += fmt.Sprintf(" (%d answers)", len(d.Answers))
	}
	if d.Message != "" {
		s += ": " + safeBlock(d.Message)
	}
	return m.st.ok.Render(ansi.Wrap(label+s, max(w, 20), " "))
}

func (m *Model) conversationText(thread string, w int) string {
	c := m.convs[thread]
	switch {
	case c == nil || c.loading:
		return "Loading the conversation…"
	case c.err != nil:
		return m.st.err.Render("Conversation: " + safe(c.err.Error()))
	case len(c.messages) == 0:
		return "The thread has no messages."
	}
	const last = 10
	msgs := c.messages
	var b strings.Builder
	b.WriteString(m.st.bold.Render(fmt.Sprintf("Conversation (last %d of %d)", min(last, len(msgs)), len(msgs))) + "\n")
	if len(msgs) > last {
		msgs = msgs[len(msgs)-last:]
	}
	// The role on a line of its own: the text under it wraps at the
	// width it really has, and no word is lost.
	for _, msg := range msgs {
		b.WriteString(m.st.faint.Render(safe(msg.Role)+":") + "\n")
		if strings.TrimSpace(msg.Content) != "" {
			b.WriteString(indentBlock(ansi.Wrap(safeBlock(msg.Content), max(w-2, 10), " "), "  ") + "\n")
		}
		for _, tc := range msg.ToolCalls {
			b.WriteString(indentBlock(ansi.Wrap("→ "+safe(tc), max(w-2, 10), ""), "  ") + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func typesText(ts []client.DecisionType) string { return present.Types(ts) }

func stamp(t time.Time) string { return present.Stamp(t) }
