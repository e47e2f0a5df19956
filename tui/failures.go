package tui

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

// Threads whose last run failed: no pending list shows them, so that a
// stuck agent would be invisible. A section above the inbox counts them,
// and the failures screen (E) shows each one: the server's error in full,
// the decision this machine sent that led there, the conversation (c),
// and, where the thread's state still holds its interrupt, the decision
// keys to answer it again through the usual confirm screen.

const (
	// failuresEvery is how often the failed threads are read (they change
	// rarely; a send reads them at once), and failuresQuiet how often
	// while the watcher saw no thread change (client.Activity): a run
	// fails only by changing its thread.
	failuresEvery = 10 * time.Second
	failuresQuiet = 2 * time.Minute
)

// failedList is one reading of the failed threads.
type failedList struct {
	list  []client.Failure
	total int
	err   error
	// sent is, by thread, the newest decision this machine sent there.
	sent map[string]journal.Entry
	// auditErr: the audit log could not be read, so sent is empty.
	auditErr error
	// seen: what the watcher said (client.Activity) when this was read.
	seen activitySeen
}

// failedState is what the app knows of failed threads.
type failedState struct {
	lister client.FailureLister // nil: the backend cannot tell
	at     time.Time            // when they were last read for sure
	readAt time.Time            // when they were last read
	now    bool                 // ask at the next fetch
	// activity is the watcher's (nil: none), and seen what it said when
	// the failed threads were last asked for (zero: it could not tell,
	// or that reading failed).
	activity client.Activity
	seen     activitySeen
	failedList
}

// activitySeen is one answer of client.Activity.
type activitySeen struct {
	newest  time.Time
	threads int
	ok      bool
}

// failuresDue is when the failed threads may be read with this fetch: the
// lister (nil: not now), and what the command then asks of the watcher
// (client.Activity) before it reads them. Update asks the watcher nothing:
// its answer waits for a look under way.
func (m *Model) failuresDue() *failuresAsk {
	f := &m.failed
	if f.lister == nil {
		return nil
	}
	now := m.opts.Now()
	if !f.now && !f.at.IsZero() && now.Sub(f.at) < failuresEvery {
		return nil
	}
	ask := &failuresAsk{lister: f.lister, prev: f.seen,
		quiet: !f.now && !f.readAt.IsZero() && now.Sub(f.readAt) < failuresQuiet}
	if m.changes != nil { // its watcher runs
		ask.activity = f.activity
	}
	if !ask.quiet {
		f.at = now // read for sure; while quiet, asked again at each fetch
	}
	f.now = false
	return ask
}

// failuresAsk is a reading of the failed threads that a command makes
// unless the watcher saw no thread change since the last one.
type failuresAsk struct {
	lister   client.FailureLister
	activity client.Activity // nil: none to ask
	prev     activitySeen    // what it said at the last reading
	quiet    bool            // the last reading is recent enough to skip
}

// read reads the failed threads, or nothing (nil) where no thread changed
// since the last reading: a run fails only by changing its thread.
func (a *failuresAsk) read(ctx context.Context, j *journal.Journal, server string) *failedList {
	var seen activitySeen
	if a.activity != nil {
		seen.newest, seen.threads, seen.ok = a.activity.Activity()
	}
	if a.quiet && seen.ok && a.prev.ok && seen.newest.Equal(a.prev.newest) && seen.threads == a.prev.threads {
		return nil
	}
	fl := readFailures(ctx, a.lister, j, server)
	fl.seen = seen
	return fl
}

// readFailures reads the failed threads and, from the journal, the
// decision this machine sent to each (review.ReadFailures, as the CLI).
func readFailures(ctx context.Context, l client.FailureLister, j *journal.Journal, server string) *failedList {
	runs, err := review.ReadFailures(ctx, l, j, server)
	out := &failedList{total: runs.Total, err: err, auditErr: runs.AuditErr, sent: map[string]journal.Entry{}}
	for _, f := range runs.Threads {
		out.list = append(out.list, f.Failure)
		if f.Sent != nil {
			out.sent[f.ThreadID] = *f.Sent
		}
	}
	return out
}

// onFailures takes a reading: a failed one keeps what was known.
func (m *Model) onFailures(fl *failedList) {
	if fl.auditErr != nil {
		m.journalProblem(problemAudit, fl.auditErr)
	}
	m.failed.at = m.opts.Now()
	if fl.err != nil {
		m.failed.err = fl.err
		m.failed.seen = activitySeen{} // asked again at the usual pace
		return
	}
	m.failed.failedList = *fl
	m.failed.seen, m.failed.readAt = fl.seen, m.failed.at
	m.items.retry = map[string]*client.Interrupt{}
	for _, f := range fl.list {
		for i := range f.Interrupts {
			it := f.Interrupts[i]
			m.items.retry[it.ID] = &it
		}
	}
}

// same: fl reads as what is known already, so that the periodic reading
// of an idle reviewer's failed threads draws nothing.
func (fs *failedState) same(fl *failedList) bool {
	return fl.err == nil && fs.err == nil && fl.auditErr == nil && fl.total == fs.total &&
		reflect.DeepEqual(fl.list, fs.list) && reflect.DeepEqual(fl.sent, fs.sent)
}

// sentFor is the decision this machine sent to the failure's thread.
func (fs *failedState) sentFor(f *client.Failure) *journal.Entry {
	if e, ok := fs.sent[f.ThreadID]; ok {
		return &e
	}
	return nil
}

// failuresSection is the lines above the inbox that count the failed
// threads and show the newest (none when there are none).
func (m *Model) failuresSection(w int) []string {
	fs := m.failed.list
	if len(fs) == 0 {
		return nil
	}
	n := max(m.failed.total, len(fs))
	threads := "threads"
	if n == 1 {
		threads = "thread"
	}
	head := fmt.Sprintf("✗ %d %s whose run failed · %s shows them", n, threads, name(m.keys.Failures))
	lines := []string{m.st.err.Render(ansi.Truncate(head, w, "…"))}
	shown := min(len(fs), 3)
	rows := failureCells(fs[:shown], "  ✗ ", m.age, m.failed.sentFor)
	l := failureLayout(rows)
	for _, c := range rows {
		lines = append(lines, l.row(c, w))
	}
	if n > shown {
		lines = append(lines, m.st.faint.Render(fmt.Sprintf("  … %d more (%s, or hitl list)", n-shown, name(m.keys.Failures))))
	}
	return lines
}

// failuresScreen lists the failed threads; enter shows one in full.
type failuresScreen struct {
	sel    int
	open   string // the thread shown in full ("": the list)
	page   viewport.Model
	shown  cache[failuresKey]
	showCv bool
}

// failuresKey is everything the page's text depends on.
type failuresKey struct {
	sel      int
	open     string
	width    int
	showCv   bool
	n        int
	err, age string
	updated  time.Time
	failure  string
	held     detailKey
	conv     convKey
}

// failuresRoom: its key opens the threads whose run failed, reading them
// again, where the backend says which failed; offered while there are.
var failuresRoom = room{
	key:     func(k keyMap) key.Binding { return k.Failures },
	offered: func(v *env, _ *client.Interrupt) bool { return len(v.failed.list) > 0 },
	open: func(v *env) []act {
		if v.failed.lister == nil {
			return []act{status{"This backend does not say which runs failed.", false}}
		}
		return []act{pushScreen{newFailuresScreen()}, refreshFailures{}}
	},
}

func newFailuresScreen() *failuresScreen {
	vp := newPage()
	return &failuresScreen{page: vp}
}

func (s *failuresScreen) resize(v *env) {
	s.page.SetWidth(v.lay.page().w)
	s.page.SetHeight(v.lay.page().h)
	s.shown.reset()
}

// current is the failure shown in full, or under the cursor.
func (s *failuresScreen) current(v *env) *client.Failure {
	fs := v.failed.list
	if s.open != "" {
		for i := range fs {
			if fs[i].ThreadID == s.open {
				return &fs[i]
			}
		}
		return nil
	}
	if s.sel < len(fs) {
		return &fs[s.sel]
	}
	return nil
}

// held is the interrupt a decision on the open failure answers again.
func (s *failuresScreen) held(v *env) *client.Interrupt {
	f := s.current(v)
	if s.open == "" || f == nil || len(f.Interrupts) == 0 {
		return nil
	}
	return v.items.get(f.Interrupts[0].ID)
}

func (s *failuresScreen) key(v *env, msg tea.KeyPressMsg) []act {
	k := v.keys
	switch {
	case key.Matches(msg, k.Back) && s.open != "":
		s.open, s.showCv = "", false
		return nil
	case key.Matches(msg, k.Back, k.Failures):
		return []act{popScreen{}}
	case key.Matches(msg, k.Quit):
		return []act{askQuit{}}
	case key.Matches(msg, k.Help):
		return helpRoom.open(v)
	case key.Matches(msg, k.Open) && s.open == "":
		if f := s.current(v); f != nil {
			s.open = f.ThreadID
			s.page.GotoTop()
		}
		return nil
	case s.open == "" && key.Matches(msg, k.Down):
		s.sel = min(s.sel+1, max(len(v.failed.list)-1, 0))
		return nil
	case s.open == "" && key.Matches(msg, k.Up):
		s.sel = max(s.sel-1, 0)
		return nil
	case key.Matches(msg, k.Conversation) && s.open != "":
		s.showCv = !s.showCv
		if c := v.convs[s.open]; s.showCv && (c == nil || c.err != nil) {
			return []act{loadConversation{s.open}}
		}
		return nil
	case key.Matches(msg, k.Refresh):
		return []act{refreshFailures{}}
	}
	if it := s.held(v); it != nil && key.Matches(msg, k.Approve, k.Edit, k.Reject, k.Respond, k.Ignore, k.ApproveAll, k.Submit, k.NextAction, k.PrevAction, k.Discard) {
		return []act{decideKey{id: it.ID, msg: msg}}
	}
	scroll(&s.page, k, msg)
	return nil
}

// refreshFailures reads the failed threads again, now.
type refreshFailures struct{}

func (refreshFailures) apply(m *Model) tea.Cmd {
	m.failed.now = true
	return m.refetch()
}

func (s *failuresScreen) view(v *env, r rect) string {
	k := failuresKey{sel: s.sel, open: s.open, width: r.w, showCv: s.showCv, n: len(v.failed.list),
		age: present.Age(v.failed.at, v.now()), conv: convKeyOf(v.convs[s.open])}
	k.err = errText(v.failed.err)
	if f := s.current(v); f != nil {
		k.updated, k.failure = f.UpdatedAt, f.Error
		if it := s.held(v); it != nil {
			k.held = v.detailKey(it)
		}
	}
	if s.shown.stale(k) {
		s.page.SetContent(s.text(v, r.w))
	}
	return pageView(v.st, v.keys, &s.page, r)
}

func (s *failuresScreen) text(v *env, w int) string {
	var b strings.Builder
	line := func(t string) { b.WriteString(t + "\n") }
	wrap := func(t string) string { return ansi.Wrap(t, max(w, 20), " ") }
	fs := v.failed.list
	if s.open == "" {
		line(v.st.title.Render("Threads whose last run failed") + v.st.faint.Render("  ("+name(v.keys.Open)+": the error, your decision, what to do)"))
		line("")
		if v.failed.err != nil {
			line(v.st.err.Render(wrap("Cannot list them now: " + safe(v.failed.err.Error()))))
		}
		if len(fs) == 0 {
			line("None.")
		}
		rows := failureCells(fs, "", v.age, v.failed.sentFor)
		l := failureLayout(rows)
		for i, c := range rows {
			row := l.row(c, max(w-2, 10))
			if i == s.sel {
				line(v.st.selected.Render("▸ " + row))
			} else {
				line("  " + row)
			}
		}
		if v.failed.total > len(fs) {
			line(v.st.faint.Render(fmt.Sprintf("… and %d older (hitl list --failed lists them)", v.failed.total-len(fs))))
		}
		return wrapLong(b.String(), w)
	}
	f := s.current(v)
	if f == nil {
		line(v.st.ok.Render("This thread's run is no longer failed (answered again, or run again)."))
		line(name(v.keys.Back) + ": back to the list")
		return b.String()
	}
	sent := v.failed.sentFor(f)
	line(v.st.title.Render(wrap("Run failed · thread " + safe(f.ThreadID))))
	line(v.st.faint.Render(wrap(fmt.Sprintf("graph %s · failed %s ago (%s)", safe(f.GraphID), v.age(f.UpdatedAt), stamp(f.UpdatedAt)))))
	line("")
	line(v.st.bold.Render("Error"))
	line(v.st.err.Render(indentBlock(ansi.Wrap(present.FailureError(*f, sent), max(w-2, 10), " "), "  ")))
	line("")
	line(v.st.bold.Render("Decision sent from this machine"))
	if sent != nil {
		line(indentBlock(ansi.Wrap(present.SentLine(*sent, 0), max(w-2, 10), " "), "  "))
	} else {
		line("  none: it came from elsewhere (another reviewer, a script, the agent's own input).")
	}
	line("")
	line(v.st.bold.Render("What now"))
	advice := present.FailureAdvice(*f)
	if it := s.held(v); it != nil && it.CannotAnswerAgain {
		advice += " The decision keys below would be refused by this server."
	} else if it != nil && it.KeptAnswer {
		advice += " The decision keys below do that (the confirm screen says so)."
	} else if it != nil {
		advice += " Answer it again here with the decision keys below; the confirm screen shows what is sent, as ever."
		if len(f.Interrupts) > 1 {
			advice += " The others: hitl respond ID (or approve, reject…) from a shell."
		}
	}
	line(indentBlock(wrap(advice), ""))
	if s.showCv {
		line("")
		line(v.look.conversationText(v.convs[f.ThreadID], w))
	} else {
		line(v.st.faint.Render(name(v.keys.Conversation) + " shows the conversation"))
	}
	if it := s.held(v); it != nil {
		line("")
		line(v.st.bold.Render("The interrupt it holds"))
		line(v.look.detail(v.detailIn(it), w))
	}
	return wrapLong(b.String(), w)
}

func (s *failuresScreen) hints(v *env) []hint {
	k := v.keys
	if s.open == "" {
		var out []hint
		if len(v.failed.list) > 0 {
			out = on(k.Open) // on "None." enter opens nothing
		}
		return append(out, on(k.Refresh, k.Back, k.Help, k.Quit)...)
	}
	var out []hint
	if it := s.held(v); it != nil {
		out = decisionHints(v, it)
	}
	cv := k.Conversation
	if s.showCv {
		cv = withHelp(cv, "hide conversation")
	}
	return append(out, on(cv, k.Back, k.Help, k.Quit)...)
}

// failureCells are the rows of the failed runs fs, after lead: the
// thread, the age, the graph and what failed, measured in cells as the
// inbox's rows are (inboxrows.go).
func failureCells(fs []client.Failure, lead string, age func(time.Time) string, sentFor func(*client.Failure) *journal.Entry) []rowCells {
	out := make([]rowCells, len(fs))
	for i := range fs {
		f := &fs[i]
		out[i] = rowCells{lead: lead, id: safe(present.ShortThreadID(f.ThreadID)), age: age(f.UpdatedAt),
			graph: safe(f.GraphID), rest: present.FailureGist(*f, sentFor(f))}
	}
	return out
}

// failureLayout lays the failed runs' rows out in the list's steady
// columns: the graph cut to its steady width (the screen of a failed run
// names it in full).
func failureLayout(rows []rowCells) rowLayout {
	l := widest(rows)
	l.id, l.age, l.graph = max(l.id, steady.id), max(l.age, steady.age), steady.graph
	return l
}
