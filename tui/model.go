// Package tui is the reviewer's Bubble Tea app: an inbox of pending
// interrupts, their details, an editor for arguments and feedback, and a
// confirm step that shows exactly what will be sent.
//
// One root Model; its parts are plain structs. Update never does I/O: every
// request to the backend or the journal runs in a tea.Cmd.
package tui

import (
	"context"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// GracePeriod is how long decision keys are ignored after the item under the
// cursor changed because of a refresh: a keystroke meant for the previous
// item must not act on the new one.
const GracePeriod = 400 * time.Millisecond

// Options configure the app.
type Options struct {
	Backend      client.Backend
	Journal      *journal.Journal
	Reviewer     string
	PollInterval time.Duration
	EditDialect  client.EditDialect
	Bell         bool
	// Editor is the external editor command ($VISUAL, else $EDITOR).
	Editor string
	// Now is the clock (tests replace it).
	Now func() time.Time
	// Keys rebinds actions by name (the config file's `keys:` section).
	Keys map[string][]string
	// Context ends background work (a backend's change stream).
	Context context.Context
}

type screen int

const (
	screenInbox screen = iota
	screenDetail
	screenEditor
	screenConfirm
	screenHistory
	screenHelp
	screenQuit
	screenRunControl
)

type sortMode int

const (
	sortNewest sortMode = iota
	sortOldest
	sortGraph
)

func (s sortMode) String() string {
	return [...]string{"newest", "oldest", "graph"}[s]
}

// draft is the reviewer's work on one interrupt; it survives refreshes,
// failed sends and trips back from the confirm view.
type draft struct {
	decisions []*client.Decision // per slot; nil: undecided
	slot      int
	argsText  []string   // per slot: the args editor's text
	feedback  []string   // per slot: the feedback editor's text
	answers   [][]string // per slot: answers to the questions
}

func newDraft(it *client.Interrupt) *draft {
	n := it.Slots()
	return &draft{decisions: make([]*client.Decision, n), argsText: make([]string, n), feedback: make([]string, n), answers: make([][]string, n)}
}

func (d *draft) touched() bool {
	for i := range d.decisions {
		if d.decisions[i] != nil || d.argsText[i] != "" || d.feedback[i] != "" || len(d.answers[i]) > 0 {
			return true
		}
	}
	return false
}

// editorKind is what the editor is editing.
type editorKind int

const (
	editArgs editorKind = iota
	editFeedback
)

type editor struct {
	kind     editorKind
	decision client.DecisionType // for feedback: reject or respond
	id       string
	slot     int
	fields   []textarea.Model // args: one; feedback: the message, then one per question
	focus    int
	labels   []string
	err      string
	back     screen
}

// Model is the whole app.
type Model struct {
	opts   Options
	keys   keyMap
	st     styles
	width  int
	height int

	all      []client.Interrupt       // what the backend has, less what was handled
	items    []client.Interrupt       // all, filtered and sorted
	warn     map[string]inert.Warning // per interrupt id, computed once: it reads the whole payload
	selected string
	handled  map[string]bool

	drafts map[string]*draft

	screen     screen
	prevScreen screen

	filter    string
	filtering bool
	sort      sortMode

	loaded     bool
	fetching   bool
	fetchErr   error
	lastUpdate time.Time
	backoff    time.Duration
	newCount   int

	graceUntil time.Time

	sending  bool
	spin     spinner.Model
	status   string
	statusOK bool

	detail    viewport.Model
	detailKey string         // what the detail viewport shows now (see refreshDetail)
	page      viewport.Model // the confirm and history screens, which scroll too
	ed        *editor

	showJSON     bool
	sideBySide   bool
	confirmID    string
	confirmError string

	history    []journal.Entry
	historyErr error
	histSel    int
	histThread string // the thread whose conversation the history screen shows

	conversation map[string]*conversation
	showConv     bool

	runAction client.RunAction // asked for on screenRunControl
	runTarget string           // the interrupt whose run it controls

	changes <-chan struct{} // the backend's change signals, when it streams

	pipe *decide.Pipeline // the one path by which a decision is sent
	// unknown are decisions sent from this machine whose outcome hitl could
	// not establish: shown in a section of their own until checked.
	unknown  []journal.Entry
	checking bool
	// quitting: quit once the decision being sent is recorded.
	quitting bool
	// stopSend ends the send in progress early (on quit).
	stopSend context.CancelFunc

	help help.Model
}

type conversation struct {
	messages []client.Message
	err      error
	loading  bool
}

// New returns the app; it refuses key overrides it does not understand.
func New(opts Options) (Model, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	m := Model{
		opts:         opts,
		keys:         defaultKeys(),
		st:           newStyles(),
		width:        80,
		height:       24,
		drafts:       map[string]*draft{},
		handled:      map[string]bool{},
		warn:         map[string]inert.Warning{},
		conversation: map[string]*conversation{},
		spin:         spinner.New(spinner.WithSpinner(spinner.Line)),
		help:         help.New(),
		detail:       viewport.New(),
	}
	m.detail.KeyMap = viewport.KeyMap{} // the app routes scrolling keys itself
	m.pipe = &decide.Pipeline{Backend: opts.Backend, Journal: opts.Journal, Reviewer: opts.Reviewer,
		Encoding: client.EncodeOptions{Dialect: opts.EditDialect}}
	m.page = viewport.New()
	m.page.KeyMap = viewport.KeyMap{}
	if n, ok := opts.Backend.(client.Notifier); ok && opts.Context != nil {
		m.changes = n.Changes(opts.Context)
	}
	var err error
	m.keys, err = m.keys.withOverrides(opts.Keys)
	return m, err
}

// Init starts the first fetch, the clock, and, for a backend that streams
// its changes, the wait for the next one.
func (m Model) Init() tea.Cmd {
	return tea.Batch(m.reconcile(), tick(), waitChange(m.changes))
}

// current is the interrupt under the cursor.
func (m *Model) current() *client.Interrupt {
	for i := range m.items {
		if m.items[i].ID == m.selected {
			return &m.items[i]
		}
	}
	return nil
}

func (m *Model) index() int {
	for i := range m.items {
		if m.items[i].ID == m.selected {
			return i
		}
	}
	return -1
}

func (m *Model) draftFor(it *client.Interrupt) *draft {
	d := m.drafts[it.ID]
	if d == nil || len(d.decisions) != it.Slots() {
		d = newDraft(it)
		m.drafts[it.ID] = d
	}
	return d
}

// applyItems takes a fresh list from the backend, keeping the selection on
// the same interrupt id.
func (m *Model) applyItems(list []client.Interrupt, handled map[string]bool) {
	for id := range handled {
		m.handled[id] = true
	}
	prevIdx := m.index()
	prev := m.selected
	known := map[string]bool{}
	for _, it := range m.all {
		known[it.ID] = true
	}
	m.all = m.all[:0]
	fresh := 0
	for _, it := range list {
		if m.handled[it.ID] {
			continue
		}
		if m.loaded && !known[it.ID] {
			fresh++
		}
		if _, ok := m.warn[it.ID]; !ok {
			m.warn[it.ID] = present.Warnings(it)
		}
		m.all = append(m.all, it)
	}
	m.newCount += fresh
	m.rebuild()
	if m.current() == nil && len(m.items) > 0 {
		i := min(max(prevIdx, 0), len(m.items)-1)
		m.selected = m.items[i].ID
	}
	if prev != "" && m.selected != prev {
		m.graceUntil = m.opts.Now().Add(GracePeriod)
	}
	// A detail whose interrupt is gone must not quietly show another one.
	if m.screen == screenDetail && prev != "" && m.selected != prev {
		m.screen = screenInbox
		m.setStatus(present.ShortID(prev)+" is no longer pending (handled elsewhere?).", false)
	}
	// Drafts are kept (never lose typed feedback): an interrupt missing from
	// one answer may be back in the next.
	m.loaded = true
	m.refreshDetail()
}

// rebuild filters and sorts all into items.
func (m *Model) rebuild() {
	m.items = m.items[:0]
	q := strings.ToLower(m.filter)
	for _, it := range m.all {
		if q == "" || strings.Contains(searchText(it), q) {
			m.items = append(m.items, it)
		}
	}
	switch m.sort {
	case sortOldest:
		sort.SliceStable(m.items, func(i, j int) bool { return m.items[i].UpdatedAt.Before(m.items[j].UpdatedAt) })
	case sortGraph:
		sort.SliceStable(m.items, func(i, j int) bool { return m.items[i].GraphID < m.items[j].GraphID })
	default:
		sort.SliceStable(m.items, func(i, j int) bool { return m.items[i].UpdatedAt.After(m.items[j].UpdatedAt) })
	}
	if m.current() == nil {
		m.selected = ""
		if len(m.items) > 0 {
			m.selected = m.items[0].ID
		}
	}
}

// warning is the interrupt's hidden-content warning (cached).
func (m *Model) warning(it *client.Interrupt) inert.Warning {
	if w, ok := m.warn[it.ID]; ok {
		return w
	}
	return present.Warnings(*it)
}

// searchText is what `/` matches: ids, graph, tools, arguments, questions.
func searchText(it client.Interrupt) string {
	var b strings.Builder
	for _, s := range []string{it.ID, it.ThreadID, it.GraphID, it.AssistantID, string(it.Schema), it.Title, it.Description} {
		b.WriteString(s)
		b.WriteByte(' ')
	}
	for _, q := range it.Questions {
		b.WriteString(q)
		b.WriteByte(' ')
	}
	for _, a := range it.Actions {
		b.WriteString(a.Name)
		b.WriteByte(' ')
		b.Write(a.Args)
		b.WriteByte(' ')
	}
	return strings.ToLower(b.String())
}

func (m *Model) setStatus(s string, ok bool) {
	m.status, m.statusOK = s, ok
}

// ctx bounds one backend call made from a command.
func ctxFor(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
