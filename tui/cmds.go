package tui

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
)

// Messages the commands answer with.
type (
	pendingMsg struct {
		items []client.Interrupt
		// handled: the ids this machine leaves out (journal.Sifted.Hidden);
		// mine: those of them a decision sent from this machine answered.
		handled, mine map[string]bool
		unknown       []journal.Entry
		err           error
		// sawErr, auditErr: the journal could not record the sightings,
		// or read the audit log (journalProblem reports them).
		sawErr, auditErr error
		// failed: the threads whose run failed were read too (failures.go).
		failed *failedList
		// mark: what the listing was read against, when it can be told
		// (idleread.go).
		mark *readMark
	}
	// checkedMsg: decisions of unknown outcome were looked up again.
	// draftsSavedMsg: the drafts b were written to disk, or not (err).
	draftsSavedMsg struct {
		b   []byte
		err error
	}
	// progressMsg is a long listing's progress: everything found so far.
	progressMsg struct {
		pr client.Progress
		ch <-chan tea.Msg
	}
	checkedMsg struct {
		results []*decide.Result
		err     error
	}
	// pollMsg: time to read again; idle: the periodic read (idleread.go).
	pollMsg struct{ idle bool }
	sentMsg struct {
		ids    []string // the interrupts the submission answered
		result *decide.Result
	}
	historyMsg struct {
		entries []journal.Entry
		err     error
	}
	conversationMsg struct {
		thread   string
		messages []client.Message
		err      error
	}
	externalEditMsg struct {
		text string
		err  error
	}
	changeMsg struct{}
	runCtlMsg struct {
		thread string
		action client.RunAction
		status string
		err    error
	}
)

// waitChange waits for the backend's next change signal.
func waitChange(ch <-chan struct{}) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		if _, ok := <-ch; !ok {
			return nil
		}
		return changeMsg{}
	}
}

func (m *Model) controlRun(it client.Interrupt, a client.RunAction) tea.Cmd {
	rc := m.feat.RunController
	return func() tea.Msg {
		ctx, cancel := ctxFor(30 * time.Second)
		defer cancel()
		status, err := rc.ControlRun(ctx, it, a)
		return runCtlMsg{thread: it.ThreadID, action: a, status: status, err: err}
	}
}

// fetch asks the backend for what is pending, and the journal for what was
// handled (by this process or another one); every few fetches, also for
// the threads whose run failed.
//
// A listing has no deadline of its own (each of the backend's requests has
// one), so a huge inbox over a slow link loads; a backend that lists
// progressively shows what has arrived meanwhile (progressMsg).
//
// watched: the watcher's listing of a moment ago will do (the periodic poll,
// the read after a change signal); otherwise the listing is fresh.
func (m *Model) fetch(watched bool) tea.Cmd {
	return m.read(watched, nil)
}

// read is fetch; unless is the mark of the last read: when nothing changed
// since (idleRead), nothing is listed and the answer is unchangedMsg.
func (m *Model) read(watched bool, unless *readMark) tea.Cmd {
	b, j := m.opts.Backend, m.opts.Journal
	ctx := m.opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	lctx := ctx
	if watched {
		lctx = client.WatchedWillDo(ctx)
	}
	failures := m.failuresDue()
	// failed reads the failed threads when they are due.
	failed := func() *failedList {
		if failures == nil {
			return nil
		}
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return failures.read(fctx, j, b.Server())
	}
	var settled client.Settled
	if m.changes != nil { // its watcher runs
		settled = m.feat.Settled
	}
	// begin is the mark of the read about to start (nil: none can be
	// told), or same: nothing changed since unless.
	begin := func() (mark *readMark, same bool) {
		mk, ok := markNow(settled, j)
		if !ok {
			return nil, false
		}
		if unless != nil && mk == *unless {
			return nil, true
		}
		return &mk, false
	}
	done := func(mark *readMark, items []client.Interrupt, err error) tea.Msg {
		msg := pendingMsg{items: items, err: err, mark: mark}
		if j != nil {
			s := j.Sift(items) // as the CLI takes a listing
			msg.items, msg.handled, msg.mine, msg.sawErr = s.Items, s.Hidden, s.Handled, s.SawErr
			msg.unknown, msg.auditErr = j.Unresolved(b.Server())
		}
		if err == nil {
			msg.failed = failed()
		}
		return msg
	}
	p := m.feat.Progressive
	if p == nil {
		return func() tea.Msg {
			mark, same := begin()
			if same {
				return unchangedMsg{failed: failed()}
			}
			items, err := b.Pending(lctx)
			return done(mark, items, err)
		}
	}
	ch := make(chan tea.Msg, 1)
	go func() {
		// One slot: a page not yet shown gives way to the next (it holds
		// everything found so far); the final answer always lands.
		put := func(msg tea.Msg) {
			select {
			case <-ch:
			default:
			}
			ch <- msg
		}
		mark, same := begin()
		if same {
			put(unchangedMsg{failed: failed()})
			return
		}
		items, err := p.PendingProgress(lctx, func(pr client.Progress) { put(progressMsg{pr: pr, ch: ch}) })
		put(done(mark, items, err))
	}()
	return waitFetch(ch)
}

// waitFetch takes the next message of a listing in progress.
func waitFetch(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

// pollAfter schedules the next fetch. One after a wait is the periodic
// read, skipped while nothing changed (idleRead); one at once (after a
// send) lists.
func pollAfter(d time.Duration) tea.Cmd {
	return after(d, func(time.Time) tea.Msg { return pollMsg{idle: d > 0} })
}

// send hands one submission to the decision pipeline; it is the only path
// by which the app sends anything.
// ctx ends the send early (the reviewer quits): the pipeline then stops
// following the run and records what it knows.
func (m *Model) send(ctx context.Context, cancel context.CancelFunc, sub *client.Submission) tea.Cmd {
	p := m.pipe
	return func() tea.Msg {
		defer cancel()
		return sentMsg{ids: sub.IDs(), result: p.Send(ctx, sub)}
	}
}

// reconcile looks up, on the server, decisions whose outcome this machine
// does not know (hitl was killed mid-send, the network broke), then fetches.
func (m *Model) reconcile() tea.Cmd {
	p := m.pipe
	return func() tea.Msg {
		ctx, cancel := ctxFor(30 * time.Second)
		defer cancel()
		results, err := p.Reconcile(ctx, nil)
		return checkedMsg{results: results, err: err}
	}
}

func (m *Model) loadConversation(thread string) tea.Cmd {
	c := m.feat.Conversational
	return func() tea.Msg {
		if c == nil {
			return conversationMsg{thread: thread, err: errors.New("this backend keeps no conversation")}
		}
		ctx, cancel := ctxFor(30 * time.Second)
		defer cancel()
		msgs, err := c.Conversation(ctx, thread)
		return conversationMsg{thread: thread, messages: msgs, err: err}
	}
}

// externalEdit suspends the app, runs the editor on text, and comes back
// with what was saved.
func externalEdit(editor, text, ext string) tea.Cmd {
	f, err := os.CreateTemp("", "hitl-*"+ext)
	if err != nil {
		return func() tea.Msg { return externalEditMsg{err: err} }
	}
	path := f.Name()
	_, werr := f.WriteString(text)
	f.Close()
	if werr != nil {
		return func() tea.Msg { return externalEditMsg{err: werr} }
	}
	args := strings.Fields(editor)
	c := exec.Command(args[0], append(args[1:], path)...) //nolint:gosec // the user's own $EDITOR
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return externalEditMsg{err: err}
		}
		b, rerr := os.ReadFile(path)
		return externalEditMsg{text: string(b), err: rerr}
	})
}
