// Package tui is the reviewer's Bubble Tea app: an inbox of pending
// interrupts, their details, an editor for arguments and feedback, and a
// confirm step that shows exactly what will be sent.
//
// One root Model (this file) holds what every screen shares: the items, the
// drafts by interrupt id, the backend and the decision pipeline, the clock,
// the key map, the styles and the layout; and a stack of screens. Each
// screen (inbox.go, detail.go, editor.go, confirm.go, history.go, help.go,
// prompt.go…) is a component (screen.go): it owns its state, handles its
// keys and draws itself into the rectangle the layout gives it, seeing the
// app through an env and asking for changes with typed acts (actions.go)
// that the root applies. Update never does I/O: every request to the
// backend or the journal runs in a tea.Cmd (cmds.go).
package tui

import (
	"context"
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
)

// GracePeriod is how long the keys that act on the selected row (open,
// decide, dismiss, run controls) are ignored after the item under the cursor
// changed because of a refresh, or the rows changed around it: a keystroke
// meant for the previous item, or a j meant for the row that was below,
// must not act on the new one. (When the interrupt the reviewer had open
// leaves, they wait until a row is chosen instead: holdUntilChosen.)
const GracePeriod = 400 * time.Millisecond

// Options configure the app.
type Options struct {
	Backend      client.Backend
	Journal      *journal.Journal
	Reviewer     string
	PollInterval time.Duration
	EditDialect  client.EditDialect
	// Notify is how new interrupts are announced when the reviewer is not
	// looking: NotifyOff, NotifyBell or NotifyDesktop (the default).
	Notify string
	// Getenv reads the environment (the terminal's kind, tmux); nil reads
	// an empty one, so that a test never sees the developer's shell. The
	// binary passes os.Getenv.
	Getenv func(string) string
	// Editor is the external editor command ($VISUAL, else $EDITOR).
	Editor string
	// NoExternalEditor: ctrl+e opens no program (a hub's session: the
	// editor would run on the hub's machine, a shell for whoever types).
	NoExternalEditor bool
	// Now is the clock (tests replace it).
	Now func() time.Time
	// Keys rebinds actions by name (the config file's `keys:` section).
	Keys map[string][]string
	// Theme is the terminal's background for markdown: "light", "dark", or
	// "auto" (asked of the terminal; dark until it answers).
	Theme string
	// Context ends background work (a backend's change stream).
	Context context.Context
	// ViewOnly: the reviewer sees everything and decides nothing (a viewer
	// of a shared inbox): decision keys are struck out and do nothing.
	ViewOnly bool
	// Host names where the app is served from, for the header ("via hub");
	// empty on one's own terminal.
	Host string
	// ApprovalsNeeded, in a hub's session, is how many approvers the
	// team's rule asks for the decisions ds on it now (1: one decides).
	// nil: not told; in a hub's session the confirm screen then says that
	// an approve may be recorded rather than sent.
	ApprovalsNeeded func(it client.Interrupt, ds []client.Decision) int
	// Ruled: decisions go through a coordinator whose team rule may record
	// an approve rather than send it (--backend events, a hub's door),
	// though this is not a hub's session: the confirm screen says so.
	Ruled bool
	// MayDecide, in a hub's session, says whether the reviewer decides
	// now (a reload may make an approver a viewer, or a viewer an
	// approver); nil: ViewOnly says, once.
	MayDecide func() bool
}

// viewOnly reports whether the reviewer sees everything and decides
// nothing, now.
func (m *Model) viewOnly() bool {
	if m.opts.MayDecide != nil {
		return !m.opts.MayDecide()
	}
	return m.opts.ViewOnly
}

// Model is the whole app.
type Model struct {
	opts Options
	// feat is what the backend offers beyond listing and deciding, asked
	// once (client.Features).
	feat client.Features
	keys keyMap
	st   styles
	lay  layout
	// detailGaveWay: a detail open on a screen of its own gave way to the
	// split when the window widened, and opens again if it narrows.
	detailGaveWay bool

	items  items
	drafts drafts
	// marked are the rows marked for a bulk approve (bulk.go).
	marked map[string]bool
	// gone: what became of interrupts that left the list while on screen,
	// as the server told (lookUpWinner), by id.
	gone   map[string]gone
	detail detailPane
	convs  conversations
	// sideBySide is the reviewer's choice of diff layout, for the detail
	// and the confirm screen alike.
	sideBySide bool
	// split is the reviewer's adjustment of the list's width (< and >).
	split int
	// theme is the markdown style: "dark" or "light".
	theme string

	// stack holds the screens over the inbox; the last one is in front.
	stack []screen
	inbox *inboxScreen

	fetching bool
	// refetchAfter: a change was signalled, or a refresh asked for, while a
	// listing was under way; list again, fresh, as soon as it ends.
	refetchAfter bool
	fetchErr     error
	// sourceDown: the last listing lacked one source of a hub's inbox
	// (its LangGraph server is down); the rest was listed. The status
	// line says so.
	sourceDown *client.SourceDown
	lastUpdate time.Time
	backoff    time.Duration
	retryAt    time.Time // when the listing is tried again, after a failure
	graceUntil time.Time
	// graceOn is the row the grace does not hold: the one that stayed under
	// the cursor while rows arrived or left around it ("": it holds all).
	graceOn string
	// graceLeft is the interrupt the reviewer had open (the detail, the
	// pane beside the list, an editor or the confirm screen over it) that
	// left the list, answered elsewhere or gone: the grace then holds
	// every row until the reviewer chooses one (a move, enter, a filter),
	// not for GracePeriod; the cursor fell onto a row nobody looked at.
	graceLeft string
	// graceLeftWhy says what became of graceLeft when the send that found
	// it answered said it ("": what the server told of it, goneText).
	graceLeftWhy string
	// leftWords is what the last key held for graceLeft said (taken back
	// from the status line once a row is chosen: it would no longer hold).
	leftWords string

	status   string
	statusOK bool
	// statusAt is the update that set the status: a screen change clears
	// a status set by an earlier update (it spoke of the screen left).
	statusAt, updates int
	// statusSince is when the status was set: it goes after statusTTL
	// (statusErrTTL for a warning), so an old word is not read as news.
	statusSince time.Time

	// clock: the one tick scheduled and when the frame goes stale
	// (clock.go); frame: the last frame drawn, shown again until a
	// message changes something; quiet: the message being handled
	// changed nothing on screen.
	clock clock
	frame string
	quiet bool
	// pace paces Bubble Tea's renderer (pacer.go).
	pace pacer

	pipe     *decide.Pipeline // the one path by which a decision is sent
	sending  bool
	spin     spinner.Model
	stopSend context.CancelFunc // ends the send in progress early (on quit)
	quitting bool               // quit once the decision being sent is recorded
	// unknown are decisions sent from this machine whose outcome hitl could
	// not establish: shown in a section of their own until checked.
	unknown  []journal.Entry
	checking bool

	// unchecked are the drafts read from disk whose arguments were not yet
	// held against their interrupt (see keep): an earlier version kept the
	// arguments of an editor left unchanged as a draft.
	unchecked map[string]bool
	// savedDrafts is what was last written to disk (see persistDrafts).
	savedDrafts []byte
	// journalErrs are the state folder's failures that last (journalerr.go).
	journalErrs map[journalProblemKind]string

	// What notifications need: how to announce, to which terminal, and
	// whether the reviewer is looking.
	notifyMode, termKind string
	inTmux               bool
	focused, focusKnown  bool
	lastKey              time.Time

	changes <-chan struct{} // the backend's change signals, when it streams
	// attention is told when the reviewer comes and goes (attention.go);
	// away: it was told the reviewer is gone.
	attention client.Attentive
	away      bool
	help      help.Model

	// presence is this reviewer's claims on the server (claims.go).
	presence presence
	// failed is what is known of threads whose run failed (failures.go).
	failed failedState
	// lastRead is what the last listing was read against (idleread.go).
	lastRead *readMark
}

// New returns the app; it refuses key overrides it does not understand.
func New(opts Options) (*Model, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	m := &Model{
		opts:      opts,
		keys:      defaultKeys(),
		st:        newStyles(),
		items:     newItems(),
		drafts:    drafts{},
		unchecked: map[string]bool{},
		marked:    map[string]bool{},
		detail:    newDetailPane(),
		convs:     conversations{},
		spin:      spinner.New(spinner.WithSpinner(spinner.Line)),
		help:      newHelp(),
		inbox:     &inboxScreen{},
		pipe: &decide.Pipeline{Backend: opts.Backend, Journal: opts.Journal, Reviewer: opts.Reviewer,
			Encoding: client.EncodeOptions{Dialect: opts.EditDialect}},
	}
	if opts.Journal != nil {
		// The work of an earlier run, for the interrupts still pending.
		if b, err := opts.Journal.LoadDrafts(); err == nil && b != nil {
			m.drafts = decodeDrafts(b)
			for id, d := range m.drafts {
				if slices.ContainsFunc(d.argsText, func(t string) bool { return t != "" }) {
					m.unchecked[id] = true
				}
			}
		}
		m.savedDrafts = m.drafts.encode()
	}
	me := ""
	if opts.Journal != nil {
		me = opts.Journal.ID()
	}
	m.feat = opts.Backend.Features()
	m.presence = newPresence(m.feat.Claimer, me)
	m.failed.lister = m.feat.FailureLister
	m.failed.activity = m.feat.Activity
	if n := m.feat.Notifier; n != nil && opts.Context != nil {
		m.changes = n.Changes(opts.Context)
		m.attention = m.feat.Attentive
	}
	var err error
	m.keys, err = m.keys.withOverrides(opts.Keys)
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	m.opts = opts
	m.notifyMode = opts.Notify
	if m.notifyMode == "" {
		m.notifyMode = NotifyDesktop
	}
	m.termKind, m.inTmux = TerminalKind(opts.Getenv), opts.Getenv("TMUX") != ""
	m.lastKey = opts.Now()
	m.theme = "dark"
	if opts.Theme == "light" {
		m.theme = "light"
	}
	m.lay = layout{w: 80, h: 24}
	m.resize(80, 24)
	return m, err
}

// Init looks up decisions of unknown outcome (then fetches), starts the
// clock, and, for a backend that streams its changes, the wait for the next.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.reconcile(), waitChange(m.changes)}
	if m.opts.Theme == "" || m.opts.Theme == "auto" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

func (m *Model) resize(w, h int) {
	m.lay = newLayout(w, h, listWidth(&m.items), m.split, len(m.statusLines(w, h)))
	m.detail.resize(m.lay.detail)
	m.help.SetWidth(w)
	if m.lay.wide {
		// The detail now sits beside the list: a detail opened on a
		// screen of its own while the window was narrow gives way to it,
		// and comes back if the window narrows again (a tmux pane zoomed
		// in and out).
		n := len(m.stack)
		m.stack = slices.DeleteFunc(m.stack, func(s screen) bool { _, ok := s.(besideWhenWide); return ok })
		m.detailGaveWay = m.detailGaveWay || len(m.stack) < n
	} else if m.detailGaveWay {
		m.detailGaveWay = false
		if m.atInbox() && m.items.current() != nil {
			m.push(&detailScreen{})
		}
	}
	v := m.env()
	for _, s := range m.stack {
		if r, ok := s.(resizer); ok {
			r.resize(v)
		}
	}
}

// relayout lays the window out again when what it depends on changed.
func (m *Model) relayout() {
	if l := newLayout(m.lay.w, m.lay.h, listWidth(&m.items), m.split, len(m.statusLines(m.lay.w, m.lay.h))); l != m.lay {
		m.resize(m.lay.w, m.lay.h)
	}
}

func (m *Model) setStatus(s string, ok bool) {
	m.status, m.statusOK, m.statusAt, m.statusSince = s, ok, m.updates, m.opts.Now()
}

// How long a status line stays: what was done, and what went wrong.
const (
	statusTTL    = 10 * time.Second
	statusErrTTL = 30 * time.Second
)

// statusEnds is when the status line goes (zero: it stays); one shown
// while sending stays until the answer.
func (m *Model) statusEnds() time.Time {
	if m.status == "" || m.sending || m.statusSince.IsZero() {
		return time.Time{}
	}
	ttl := statusTTL
	if !m.statusOK {
		ttl = statusErrTTL
	}
	return m.statusSince.Add(ttl)
}

// expireStatus forgets a status past its time (the clock wakes the app
// then: see due), and reports whether it did.
func (m *Model) expireStatus() bool {
	if end := m.statusEnds(); !end.IsZero() && !m.opts.Now().Before(end) {
		m.status = ""
		return true
	}
	return false
}

// staleStatus forgets a status that an earlier update set.
func (m *Model) staleStatus() {
	if m.statusAt < m.updates {
		m.status = ""
	}
}

// startGrace ignores the keys that act on the selected row for
// GracePeriod, on every row but keep ("": every row). A grace in force
// keeps holding what it holds.
func (m *Model) startGrace(keep string) {
	now := m.opts.Now()
	if now.Before(m.graceUntil) && keep != m.graceOn {
		keep = ""
	}
	m.graceUntil, m.graceOn = now.Add(GracePeriod), keep
}

// inGrace reports whether the keys that act on the selected row are
// ignored right now.
func (m *Model) inGrace() bool {
	return m.opts.Now().Before(m.graceUntil) && (m.graceOn == "" || m.items.selected != m.graceOn)
}

// holdUntilChosen holds the keys that act on the selected row, on every
// row, until the reviewer chooses one (chose): id, the interrupt they had
// open, left the list and the cursor fell onto another. why says what
// became of it ("": goneText says it).
func (m *Model) holdUntilChosen(id, why string) {
	m.graceLeft, m.graceLeftWhy = id, why
}

// chose ends the hold of holdUntilChosen: the reviewer moved the cursor,
// pressed enter on a row or filtered the list, so the row under the cursor
// is the one they mean. Not within GracePeriod of the change: that key
// was meant for the list as it was.
func (m *Model) chose() {
	if m.graceLeft == "" || m.inGrace() {
		return
	}
	m.graceLeft, m.graceLeftWhy = "", ""
	if m.status == m.leftWords {
		m.status = "" // "move or press enter" is done
	}
	m.leftWords = ""
}

// leftText says what became of the interrupt the reviewer had open while
// the hold of holdUntilChosen lasts: the status line keeps it in front of
// whatever else it says (it explains why the keys are held).
func (m *Model) leftText() string {
	if m.graceLeft == "" {
		return ""
	}
	if m.graceLeftWhy != "" {
		return m.graceLeftWhy
	}
	text := m.goneText(m.graceLeft)
	if d := m.drafts[m.graceLeft]; d != nil && d.typed() {
		text += keptGone // where the typed work is stays said too
	}
	return text
}

// rowKeysHere: the screen in front takes the keys that act on the selected
// row (the list, the detail); an editor or the confirm screen says in its
// own way what became of its interrupt.
func (m *Model) rowKeysHere() bool {
	_, detail := m.top().(followsSelection)
	return m.atInbox() || detail
}

// heldUntilChosen says, when the keys that act on the selected row wait
// for the reviewer to choose a row (holdUntilChosen), why, and reports it.
// The status line keeps what became of the interrupt they had open in
// front of these words (statusLines).
func (m *Model) heldUntilChosen() bool {
	if m.graceLeft != "" {
		what := "left the list"
		if g, ok := m.gone[m.graceLeft]; ok {
			switch g.kind {
			case goneAnswered:
				what = "was answered elsewhere"
			case goneWithdrawn:
				what = "was " + withdrawnBy(g.by)
			case goneDeleted:
				what = "is gone from the server"
			}
		}
		m.leftWords = fmt.Sprintf("Key ignored: the interrupt you had open %s; the cursor is on another one now. Move or press %s to choose.", what, name(m.keys.Open))
		m.setStatus(m.leftWords, false)
		return true
	}
	return false
}

// held says, when the keys that act on the selected row are ignored right
// now, why, and reports it.
func (m *Model) held() bool {
	if !m.inGrace() {
		return false
	}
	why := "the list just changed around the cursor"
	if m.graceOn == "" {
		why = "the selected interrupt just changed"
	}
	m.setStatus("Key ignored: "+why+". Look, then press it again.", false)
	return true
}

// ctx bounds one backend call made from a command.
func ctxFor(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
