package tui

import (
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// A screen is a component: it sees the app through an env (sizes, styles,
// keys, the clock, read access to what it shows) and asks for every change
// of shared state with typed actions (actions.go) that the root applies.
// It keeps and changes only its own state, so it can be tested with an
// env built by hand, without a root Model.

// screen is one room of the app.
type screen interface {
	// key handles one key press and says what the app should do.
	key(v *env, msg tea.KeyPressMsg) []act
	// view draws the screen's body into r.
	view(v *env, r rect) string
	// hints are the keys in force on it, in the order the key bar shows
	// them.
	hints(v *env) []hint
}

// Optional parts of a screen, asked for by method, never by its type.
type (
	// resizer lays itself out again when the window changes.
	resizer interface{ resize(v *env) }
	// receiver takes messages other than keys (its command's answer, a
	// text field's cursor).
	receiver interface {
		receive(v *env, msg tea.Msg) ([]act, bool)
	}
	// refresher works out again what it shows when the items, the drafts
	// or what became of an interrupt change (confirm: what would be
	// sent; an editor: whether its interrupt is still there).
	refresher interface{ refresh(v *env) }
	// shower shows or edits one interrupt: its id ("" for none now).
	shower interface{ shows(v *env) string }
	// typist holds typed work for an interrupt (an editor, a form): the
	// app claims it for the team while open, and keeps the text in the
	// draft on quit. ok is false when nothing needs keeping.
	typist interface {
		typed() (e draftEdit, ok bool)
	}
	// goneTeller says in its own way that the interrupt it shows left the
	// list (the root's default: the status line says it).
	goneTeller interface {
		onGone(v *env, g gone) []act
	}
	// decisionStep is a step of deciding (editor, form, confirm, prompt):
	// closed when the decision is recorded or not sent.
	decisionStep interface{ decisionStep() }
	// holdsWork holds what the reviewer is doing on its interrupt (an
	// editor, a form, the confirm screen): not closed because the list
	// moved under it.
	holdsWork interface{ holdsWork() }
	// followsSelection shows whatever is selected (the detail): closed when
	// the interrupt it showed left, as it would quietly show another one.
	followsSelection interface{ followsSelection() }
	// besideWhenWide is on a screen of its own only while the window is
	// narrow (the detail): it gives way to the split when the window
	// widens, and opens again if it narrows.
	besideWhenWide interface{ besideWhenWide() }
	// rereader reads again what it shows on the root's reads (history:
	// the audit log, as decisions are made meanwhile).
	rereader interface {
		afterReads(v *env) []act
	}
	// fieldFocuser puts the focus on one of its fields (a form, back from
	// its JSON): false when it has no such field.
	fieldFocuser interface {
		focusField(i int) (tea.Cmd, bool)
	}
)

// rooms are the screens a key of the inbox and the detail opens (browse.go),
// in the order the key bar offers their keys. This is where a screen is
// registered: its file defines its room (its key, when the bar offers it,
// what opening it asks), and one line here adds it.
var rooms = []room{
	helpRoom,
	historyRoom,
	failuresRoom,
}

// room is how a screen is opened from the inbox or the detail.
type room struct {
	// key is the key that opens it (keys.go).
	key func(k keyMap) key.Binding
	// offered: the key bar offers its key now, where there is room (nil:
	// never; the bar offers it some other way).
	offered func(v *env, it *client.Interrupt) bool
	// open is what opening it asks of the app (pushScreen, and its read).
	open func(v *env) []act
}

// hint is a key in the key bar; off: shown struck out and marked "not
// allowed" (the interrupt does not allow that decision here).
type hint struct {
	b   key.Binding
	off bool
	// more: shown where there is room; the bar gives it way before the
	// keys of the screen's main work (help lists it).
	more bool
}

// on makes hints of bindings that are all in force.
func on(bs ...key.Binding) []hint {
	out := make([]hint, len(bs))
	for i, b := range bs {
		out[i] = hint{b: b}
	}
	return out
}

// env is what a screen sees of the app, built by the root for each call.
type env struct {
	keys keyMap
	st   styles
	lay  layout
	look look
	now  func() time.Time
	// items and drafts are to read: a change is an action.
	items  *items
	drafts drafts
	gone   map[string]gone
	convs  conversations
	// front is the screen in front; atInbox: that is the inbox.
	front   screen
	atInbox bool

	viewOnly         bool
	noExternalEditor bool
	editor           string // the external editor's command
	// canEnd, endsThreads: the backend can end a thread's work now
	// (client.Features.Ends: an events coordinator once it listed a
	// request it can end).
	canEnd, endsThreads bool
	// endsAt: this interrupt's thread can be ended at it (not a coding
	// agent's request; its source ends threads: client.Features.EndsAt).
	endsAt func(client.Interrupt) bool
	// reviewer is who decides here; hub: a hub's session; ruled: a
	// team's rule may record an approve rather than send it (a hub's
	// session, or a coordinator's door); approvalsNeeded: what the hub
	// says its rule asks for (nil: not told).
	reviewer        string
	hub, ruled      bool
	approvalsNeeded func(client.Interrupt, []client.Decision) int
	// conversational: the backend can list a thread's messages (c).
	conversational bool
	// messenger says the message the backend sends around an answer (an
	// A2A message), for the confirm screen's exact view; nil: none.
	messenger client.Messenger
	// sending: a decision is being sent; busy: that, or decisions of
	// unknown outcome are being looked up; grace: decision keys are
	// ignored (the list just changed under the cursor).
	sending, busy, grace bool
	// marked are the rows marked for a bulk approve.
	marked map[string]bool
	// detail is what the detail pane shows (the confirm page follows it);
	// pane is the pane, rendered by the root when that changes.
	detail detailKey
	pane   *viewport.Model
	// detailIn is what the detail of it shows, and detailKey the key of
	// that (failures shows the interrupt a failed run holds).
	detailIn  func(it *client.Interrupt) detailInput
	detailKey func(it *client.Interrupt) detailKey
	// failed is what is known of the threads whose run failed.
	failed *failedState
	// age says how long ago t was (the clock notes when it changes).
	age func(t time.Time) string
	// race is the word on others' claims on it ("" for none).
	race func(it *client.Interrupt) string
	// prepare is what would be sent to answer the interrupt id.
	prepare func(id string) prepared

	// What the inbox's rows and the sections above them show (inboxrows.go).
	// fetchErr says why the listing failed, and what to do ("": it did
	// not); unknown are the decisions of unknown outcome; failures are
	// the lines on failed runs, in w cells.
	fetchErr func() string
	unknown  []journal.Entry
	failures func(w int) []string
	// deadline is the row's word on when the interrupt expires, editing
	// who else is editing it ("": none).
	deadline, editing func(it *client.Interrupt) string
	// journal is this machine's record (nil: none), for a screen's reads.
	journal *journal.Journal
	// help lays out the key map, helpGroups is what of it works here.
	help       help.Model
	helpGroups func() [][]key.Binding
}

// env is what the screens see now.
func (m *Model) env() *env {
	return &env{
		keys: m.keys, st: m.st, lay: m.lay, look: m.look(), now: m.opts.Now,
		items: &m.items, drafts: m.drafts, gone: m.gone, convs: m.convs, front: m.top(), atInbox: m.atInbox(),
		viewOnly: m.viewOnly(), noExternalEditor: m.opts.NoExternalEditor, editor: m.editorCommand(),
		canEnd: m.feat.Ends(), endsThreads: m.feat.Ends(), endsAt: m.feat.EndsAt,
		reviewer: m.opts.Reviewer, hub: m.opts.Host != "", ruled: m.opts.Host != "" || m.opts.Ruled, approvalsNeeded: m.opts.ApprovalsNeeded, conversational: m.feat.Conversational != nil, messenger: m.feat.Messenger,
		sending: m.sending, busy: m.sending || m.checking, grace: m.inGrace(), marked: m.marked,
		detail: m.detail.sig, pane: &m.detail.vp, detailIn: m.detailInput, detailKey: m.detailKeyOf,
		failed: &m.failed, age: m.age, race: m.raceWarning, prepare: m.prepare,
		fetchErr: m.fetchErrLine, unknown: m.unknown, failures: m.failuresSection,
		deadline: m.deadline, editing: m.editing, journal: m.opts.Journal,
		help: m.help, helpGroups: m.helpGroups,
	}
}

// detailKeyOf is the key of what the detail of it shows.
func (m *Model) detailKeyOf(it *client.Interrupt) detailKey { return m.detail.signature(m, it) }

// goneText says what became of an interrupt no longer listed: what the
// server told, or, until it has, that it is no longer pending.
func (v *env) goneText(id string) string { return goneTextOf(v.gone, id) }

// external is the key bar's ctrl+e, where it opens an editor.
func (v *env) external() []hint {
	if v.noExternalEditor {
		return nil
	}
	return on(v.keys.External)
}

// shown is the interrupt id the screen s shows or edits ("" for none).
func (v *env) shown(s screen) string {
	if sh, ok := s.(shower); ok {
		return sh.shows(v)
	}
	return ""
}

// top is the screen in front.
func (m *Model) top() screen {
	if len(m.stack) == 0 {
		return m.inbox
	}
	return m.stack[len(m.stack)-1]
}

// push puts s in front.
func (m *Model) push(s screen) {
	m.staleStatus()
	m.stack = append(m.stack, s)
	if r, ok := s.(resizer); ok {
		r.resize(m.env())
	}
}

// pop closes the screen in front (never the inbox).
func (m *Model) pop() {
	m.staleStatus()
	if len(m.stack) > 0 {
		m.stack = m.stack[:len(m.stack)-1]
	}
}

// home closes every screen over the inbox.
func (m *Model) home() {
	for len(m.stack) > 0 {
		m.pop()
	}
}

// backToDecisions closes the steps of deciding in front (editors, forms,
// the confirm screen, a prompt).
func (m *Model) backToDecisions() {
	for len(m.stack) > 0 {
		if _, ok := m.top().(decisionStep); !ok {
			return
		}
		m.pop()
	}
}

// atInbox: the inbox is in front (no screen over it).
func (m *Model) atInbox() bool { return len(m.stack) == 0 }

// afterReads lets the open screens read again what they show, after the
// root's reads and sends.
func (m *Model) afterReads() tea.Cmd {
	v := m.env()
	var cmds []tea.Cmd
	for _, s := range m.stack {
		if r, ok := s.(rereader); ok {
			cmds = append(cmds, m.apply(r.afterReads(v)))
		}
	}
	return tea.Batch(cmds...)
}

// refreshScreens lets every open screen work out again what depends on
// the items and the drafts.
func (m *Model) refreshScreens() {
	v := m.env()
	for _, s := range m.stack {
		if r, ok := s.(refresher); ok {
			r.refresh(v)
		}
	}
}
