package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
)

// historyScreen lists the decisions sent from this machine (the audit
// log); enter shows what the agent did next (the thread's conversation).
type historyScreen struct {
	entries []journal.Entry
	err     error
	loaded  bool
	sel     int
	thread  string // the thread whose conversation is shown ("": the list)
	page    viewport.Model
	shown   cache[historyKey]
}

// historyKey is everything the page's text depends on.
type historyKey struct {
	sel    int
	thread string
	loaded bool
	n      int
	width  int
	err    string
	conv   convKey
}

func newHistoryScreen(m *Model) *historyScreen {
	vp := newPage()
	return &historyScreen{page: vp}
}

func (h *historyScreen) resize(v *env) {
	m := v.root
	h.page.SetWidth(m.lay.page().w)
	h.page.SetHeight(m.lay.page().h)
}

// load reads the audit log in a command.
func (h *historyScreen) load(m *Model) tea.Cmd {
	j := m.opts.Journal
	return func() tea.Msg {
		if j == nil {
			return historyMsg{}
		}
		es, err := j.History()
		return historyMsg{entries: es, err: err}
	}
}

func (h *historyScreen) receive(v *env, msg tea.Msg) ([]act, bool) {
	cmd, ok := h.receiveRoot(v.root, msg)
	return run(cmd), ok
}

func (h *historyScreen) receiveRoot(_ *Model, msg tea.Msg) (tea.Cmd, bool) {
	if msg, ok := msg.(historyMsg); ok {
		h.entries, h.err, h.loaded = msg.entries, msg.err, true
		return nil, true
	}
	return nil, false
}

func (h *historyScreen) key(v *env, msg tea.KeyPressMsg) []act {
	return run(h.keyRoot(v.root, msg))
}

func (h *historyScreen) keyRoot(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back) && h.thread != "":
		h.thread = ""
	case key.Matches(msg, k.Quit):
		return m.askQuit() // q quits, as on every other screen
	case key.Matches(msg, k.Back, k.History):
		m.pop()
	case key.Matches(msg, k.Open) && h.thread == "" && h.sel < len(h.entries):
		h.thread = h.entries[h.sel].ThreadID
		m.convs[h.thread] = &conversation{loading: true}
		h.page.GotoTop()
		return m.loadConversation(h.thread)
	case h.thread == "" && key.Matches(msg, k.Down):
		h.sel = min(h.sel+1, max(len(h.entries)-1, 0))
	case h.thread == "" && key.Matches(msg, k.Up):
		h.sel = max(h.sel-1, 0)
	default:
		scroll(&h.page, k, msg)
	}
	return nil
}

func (h *historyScreen) view(v *env, r rect) string {
	m := v.root
	k := historyKey{sel: h.sel, thread: h.thread, loaded: h.loaded, n: len(h.entries), width: r.w, err: errText(h.err), conv: convKeyOf(m.convs[h.thread])}
	if h.shown.stale(k) {
		h.page.SetContent(h.text(m, r.w))
	}
	return pageView(m.st, m.keys, &h.page, r)
}

func (h *historyScreen) text(m *Model, w int) string {
	var b strings.Builder
	if h.thread != "" {
		b.WriteString(m.st.title.Render("Thread "+safe(h.thread)) + "\n\n")
		b.WriteString(m.look().conversationText(m.convs[h.thread], w))
		b.WriteString("\n\n" + m.st.faint.Render(name(m.keys.Back)+": back to the history"))
		return b.String()
	}
	b.WriteString(m.st.title.Render("Decisions sent from this machine") + m.st.faint.Render("  ("+name(m.keys.Open)+": what the agent did next)") + "\n\n")
	switch {
	case h.err != nil:
		b.WriteString(ansi.Wrap("Cannot read the audit log: "+safe(h.err.Error()), w, " "))
		return b.String()
	case !h.loaded:
		b.WriteString("Reading the audit log…")
		return b.String()
	case len(h.entries) == 0:
		b.WriteString("None yet.")
	}
	for i, e := range h.entries {
		row := present.HistoryRow(e, w-2)
		if i == h.sel {
			b.WriteString(m.st.selected.Render("▸ "+row) + "\n")
		} else {
			b.WriteString("  " + row + "\n")
		}
	}
	return b.String()
}

func (h *historyScreen) hints(v *env) []hint {
	m := v.root
	if h.thread == "" {
		return on(m.keys.Open, m.keys.Back)
	}
	return on(m.keys.Back)
}
