package tui

import (
	"reflect"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
)

// historyScreen lists the decisions sent from this machine (the audit
// log); enter shows what the agent did next (the thread's conversation).
// It reads the log again while open (afterReads), the cursor staying on
// its entry.
type historyScreen struct {
	entries []journal.Entry
	err     error
	loaded  bool
	read    int // the reads that changed what it shows
	sel     int
	thread  string // the thread whose conversation is shown ("": the list)
	page    viewport.Model
	shown   cache[historyKey]
}

// historyKey is everything the page's text depends on.
type historyKey struct {
	read   int
	sel    int
	thread string
	loaded bool
	n      int
	width  int
	err    string
	conv   convKey
}

// historyRoom: its key opens the audit log, reading it; offered where
// the key bar has room.
var historyRoom = room{
	key:     func(k keyMap) key.Binding { return k.History },
	offered: func(*env, *client.Interrupt) bool { return true },
	open: func(v *env) []act {
		return []act{pushScreen{newHistoryScreen()}, runCmd{loadHistory(v.journal)}}
	},
}

func newHistoryScreen() *historyScreen {
	return &historyScreen{page: newPage()}
}

func (h *historyScreen) resize(v *env) {
	h.page.SetWidth(v.lay.page().w)
	h.page.SetHeight(v.lay.page().h)
}

// loadHistory reads the audit log in a command.
func loadHistory(j *journal.Journal) tea.Cmd {
	return func() tea.Msg {
		if j == nil {
			return historyMsg{}
		}
		es, err := j.History()
		return historyMsg{entries: es, err: err}
	}
}

// afterReads reads the audit log again for an open history, on the
// root's reads and sends: a decision made meanwhile, here or by another
// hitl on this machine, shows while the reviewer looks.
func (h *historyScreen) afterReads(v *env) []act { return run(loadHistory(v.journal)) }

func (h *historyScreen) receive(_ *env, msg tea.Msg) ([]act, bool) {
	read, ok := msg.(historyMsg)
	if !ok {
		return nil, false
	}
	if h.loaded && errText(read.err) == errText(h.err) && reflect.DeepEqual(read.entries, h.entries) {
		return []act{unchanged{}}, true // the log as it was: no frame
	}
	var on journal.Entry
	if h.sel < len(h.entries) {
		on = h.entries[h.sel]
	}
	h.entries, h.err, h.loaded = read.entries, read.err, true
	h.read++
	// The cursor stays on its entry, wherever newer ones put it.
	for i, e := range h.entries {
		if e.DecisionID == on.DecisionID && e.InterruptID == on.InterruptID && e.Time.Equal(on.Time) {
			h.sel = i
		}
	}
	h.sel = min(h.sel, max(len(h.entries)-1, 0))
	return nil, true
}

func (h *historyScreen) key(v *env, msg tea.KeyPressMsg) []act {
	k := v.keys
	switch {
	case key.Matches(msg, k.Back) && h.thread != "":
		h.thread = ""
	case key.Matches(msg, k.Quit):
		return []act{askQuit{}} // q quits, as on every screen it does not type on
	case key.Matches(msg, k.Help):
		return helpRoom.open(v)
	case key.Matches(msg, k.Back, k.History):
		return []act{popScreen{}}
	case key.Matches(msg, k.Open) && h.thread == "" && h.sel < len(h.entries):
		h.thread = h.entries[h.sel].ThreadID
		h.page.GotoTop()
		return []act{loadConversation{h.thread}}
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
	k := historyKey{read: h.read, sel: h.sel, thread: h.thread, loaded: h.loaded, n: len(h.entries), width: r.w, err: errText(h.err), conv: convKeyOf(v.convs[h.thread])}
	if h.shown.stale(k) {
		h.page.SetContent(h.text(v, r.w))
	}
	return pageView(v.st, v.keys, &h.page, r)
}

func (h *historyScreen) text(v *env, w int) string {
	var b strings.Builder
	if h.thread != "" {
		b.WriteString(v.st.title.Render(ansi.Wrap("Thread "+safe(h.thread), max(w, 20), " ")) + "\n\n")
		b.WriteString(v.look.conversationText(v.convs[h.thread], w))
		b.WriteString("\n\n" + v.st.faint.Render(name(v.keys.Back)+": back to the history"))
		return wrapLong(b.String(), w) // nothing wider than the page, which would cut it unmarked
	}
	// Wrapped, never cut: the title and what enter does.
	title := "Decisions sent from this machine"
	if v.hub {
		// A hub's session keeps a journal per reviewer, on the hub.
		title = "Your decisions sent through this hub (" + safe(v.reviewer) + ")"
	}
	b.WriteString(ansi.Wrap(v.st.title.Render(title)+v.st.faint.Render("  ("+name(v.keys.Open)+": what the agent did next)"), max(w, 20), " ") + "\n\n")
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
	for i, row := range present.HistoryRows(h.entries, w-2) {
		if i == h.sel {
			b.WriteString(v.st.selected.Render("▸ "+row) + "\n")
		} else {
			b.WriteString("  " + row + "\n")
		}
	}
	return b.String()
}

func (h *historyScreen) hints(v *env) []hint {
	k := v.keys
	if h.thread == "" && len(h.entries) > 0 {
		return on(withHelp(k.Open, "conversation"), k.Back, k.Help, k.Quit)
	}
	return on(k.Back, k.Help, k.Quit)
}
