package tui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
)

// Update routes one message: the answers of commands and the clock are the
// root's business; keys go to the screen in front.
//
// A message that changed nothing (a poll that found what was there, a tick
// that was replaced) costs no layout and no frame: the last frame is shown
// again. Then the clock is set for the next moment anything is due.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.updates++
	m.quiet = false
	cmd := m.update(msg)
	switch msg.(type) {
	case pendingMsg, unchangedMsg, progressMsg, sentMsg, bulkSentMsg, winnerMsg, checkedMsg:
		// The items, the drafts or what became of an interrupt changed
		// (unless the message changed nothing: a poll that found what was
		// there): the screens that show what depends on them work it out
		// now, not while drawing.
		if !m.quiet {
			m.refreshScreens()
		}
		cmd = tea.Batch(cmd, m.afterReads())
	}
	if m.expireStatus() {
		m.quiet = false // the status line changed
	}
	if !m.quiet || m.frame == "" {
		// When the frame goes stale by itself is what it now shows says:
		// the detail's deadline (its text is worked out here) and the rest
		// (paint).
		m.clock.staleAt = time.Time{}
		m.relayout() // the list's width follows its content
		// The detail renders again only when what it shows changed.
		if c := m.detail.sync(m); c != nil {
			cmd = tea.Batch(cmd, c)
		}
		prev := m.frame
		m.paint()
		// An unchanged frame gives the renderer nothing to write.
		if m.frame != prev {
			drew := m.pace.drew
			if _, byClock := msg.(tickMsg); byClock {
				drew = m.pace.drewByClock
			}
			cmd = tea.Batch(cmd, drew())
		}
	}
	if c := m.attend(); c != nil {
		cmd = tea.Batch(cmd, c)
	}
	if c := m.schedule(); c != nil {
		cmd = tea.Batch(cmd, c)
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case pendingMsg:
		return m.onPending(msg)
	case progressMsg:
		if m.items.partial(msg.pr) {
			m.startGrace(m.items.selected) // as a listing that shifted the rows
		}
		m.checkDrafts()
		return waitFetch(msg.ch)
	case pollMsg:
		m.quiet = true // starting a listing shows nothing
		if msg.idle {
			return m.idleRead()
		}
		return m.poll()
	case unchangedMsg:
		return m.onUnchanged(msg)
	case draftsSavedMsg:
		m.onDraftsSaved(msg)
		return nil
	case tickMsg:
		return m.onTick(msg)
	case restMsg:
		m.quiet = true
		return m.pace.onRest(msg)
	case wroteMsg:
		m.quiet = true // the frame stands: only the ticker runs again
		return m.pace.drew()
	case claimMsg:
		return m.onClaim(msg)
	case winnerMsg:
		m.onWinner(msg)
		return nil
	case changeMsg:
		if m.fetching {
			m.refetchAfter = true // the listing under way may predate the change
		}
		return tea.Batch(waitChange(m.changes), m.poll())
	case runCtlMsg:
		if msg.err != nil {
			m.setStatus(fmt.Sprintf("%s run %s: %v", msg.action, msg.thread, msg.err), false)
			return nil
		}
		m.setStatus(fmt.Sprintf("Run %s: %s (status %s).", msg.thread, msg.action, msg.status), true)
		return m.refetch()
	case sentMsg:
		return m.onSent(msg)
	case bulkSentMsg:
		return m.onBulkSent(msg)
	case checkedMsg:
		return m.onChecked(msg)
	case detailRenderedMsg:
		m.detail.rendered(msg)
		return nil
	case conversationMsg:
		m.convs[msg.thread] = &conversation{messages: msg.messages, err: msg.err}
		return nil
	case signalQuitMsg:
		return m.quit()
	case teamChangedMsg:
		// What the screens show of the role and the rules is read again.
		m.refreshScreens()
		return nil
	case tea.BackgroundColorMsg:
		// Markdown in colours that read on this terminal's background.
		m.theme = "light"
		if msg.IsDark() {
			m.theme = "dark"
		}
		return nil
	case spinner.TickMsg:
		if !m.sending {
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd
	case tea.FocusMsg:
		m.focused, m.focusKnown = true, true
		return nil
	case tea.BlurMsg:
		m.focused, m.focusKnown = false, true
		return nil
	case tea.PasteMsg:
		m.lastKey = m.opts.Now() // the reviewer at work: see activeFor
	case tea.KeyPressMsg:
		m.lastKey = m.opts.Now()
		if m.atInbox() {
			// A key on the list: the reviewer is looking at it, arrivals
			// and all ("N new since you last looked" has been read). A
			// resize, or a key on another screen, is not a look at it.
			m.items.newCount = 0
		}
		if key.Matches(msg, m.keys.ForceQuit) {
			if m.quitting {
				return tea.Quit // asked twice: now
			}
			return m.quit()
		}
		if msg.Code == tea.KeyEscape && msg.Mod == tea.ModAlt {
			// Two escs that arrived together read as alt+esc: they are two
			// steps back, not a key nobody pressed (a fast double esc on a
			// confirm screen must not leave it there, waiting for enter).
			esc := tea.KeyPressMsg{Code: tea.KeyEscape}
			first := m.apply(m.top().key(m.env(), esc))
			return tea.Batch(first, m.apply(m.top().key(m.env(), esc)))
		}
		return m.apply(m.top().key(m.env(), msg))
	}
	// Anything else belongs to a screen: its command's answer, its text
	// field's cursor.
	v := m.env()
	for i := len(m.stack) - 1; i >= 0; i-- {
		if r, ok := m.stack[i].(receiver); ok {
			if as, handled := r.receive(v, msg); handled {
				return m.apply(as)
			}
		}
	}
	return nil
}

// refetch starts a fresh fetch: one that shows everything that happened
// before it (a refresh, the read after a send). With a fetch under way,
// which may have been answered from the watcher's listing, another follows.
func (m *Model) refetch() tea.Cmd {
	if m.fetching {
		m.refetchAfter = true
		return nil
	}
	m.fetching = true
	return m.fetch(false)
}

// poll starts a fetch that the watcher's listing of a moment ago answers as
// well (the periodic poll, the read after a change signal), unless one is
// under way.
func (m *Model) poll() tea.Cmd {
	if m.fetching {
		return nil
	}
	m.fetching = true
	return m.fetch(true)
}

func (m *Model) onPending(msg pendingMsg) tea.Cmd {
	m.fetching = false
	m.lastRead = msg.readAgainst()
	m.journalProblem(problemSightings, msg.sawErr)
	m.journalProblem(problemAudit, msg.auditErr)
	// One source of a hub's inbox down: the rest is listed, and the
	// status line says which source is down.
	var down *client.SourceDown
	if d, ok := client.DownSource(msg.err); ok {
		down, msg.err = d, nil
	}
	downChanged := (down == nil) != (m.sourceDown == nil) || (down != nil && down.Error() != m.sourceDown.Error())
	m.sourceDown = down
	if msg.err != nil {
		m.fetchErr = msg.err
		if m.backoff == 0 {
			m.backoff = m.opts.PollInterval
		}
		m.backoff = min(m.backoff*2, 30*time.Second)
		m.retryAt = m.opts.Now().Add(m.backoff)
		return pollAfter(m.backoff)
	}
	if m.fetchErr == nil && !downChanged && (msg.failed == nil || m.failed.same(msg.failed)) && !m.refetchAfter && m.clock.drawnFresh &&
		m.items.same(msg.items, msg.handled) && sameEntries(m.unknown, msg.unknown) {
		// What was there is there: the screen stands (the poll of an idle
		// reviewer costs no layout and no frame).
		m.lastUpdate = m.opts.Now()
		m.quiet = true
		return pollAfter(m.opts.PollInterval)
	}
	m.fetchErr, m.backoff = nil, 0
	m.lastUpdate = m.opts.Now()
	m.unknown = msg.unknown
	if msg.failed != nil {
		m.onFailures(msg.failed)
	}
	shown := m.onScreen()
	// Handled by another hitl on this machine (the same state folder) since
	// the last listing, maybe after the server stopped listing it.
	shownID := m.env().shown(m.top())
	if shown == nil && m.atInbox() && m.lay.wide {
		// The pane beside the list shows the selected row: what became
		// of it is looked up as for a detail.
		if it := m.items.current(); it != nil {
			c := *it
			shown, shownID = &c, it.ID
		}
	}
	handledHere := shownID != "" && !m.items.handled[shownID] && msg.mine[shownID]
	// Found answered elsewhere by another hitl on this machine: the server
	// says by whom (the journal holds only that hitl's refused attempt).
	elsewhereHere := shownID != "" && !m.items.handled[shownID] && msg.handled[shownID] && !msg.mine[shownID]
	hadOpen := m.hasOpen(m.items.selected)
	moved, prev, arrived, shifted := m.items.apply(msg.items, msg.handled)
	m.checkDrafts()
	var lookUp tea.Cmd
	// Gone, and not by this reviewer's hand: while a decision is being
	// sent, the one that took it may be the reviewer's own (its result says).
	switch {
	case m.sending:
	case handledHere && m.items.get(shownID) == nil:
		lookUp = m.lookUpHere(shownID) // the journal says how, and who
	case elsewhereHere && shown != nil && m.items.get(shownID) == nil:
		lookUp = hiddenElsewhere(m.lookUpWinner(*shown))
	case shown != nil && m.items.get(shown.ID) == nil && !m.items.handled[shown.ID]:
		lookUp = m.lookUpWinner(*shown)
	}
	switch {
	case moved:
		m.startGrace("")
	case shifted:
		m.startGrace(m.items.selected) // a j just pressed may land on a row not yet seen
	}
	if moved {
		// A detail whose interrupt is gone must not quietly show another one.
		if m.detailOnly() {
			m.home()
			m.setStatus(m.goneText(prev), false)
		}
		// Nor may a key meant for it act on the row the cursor fell onto,
		// however late it comes: the keys on the row wait for the reviewer
		// to choose one (while sending, the send's result says what
		// became of it).
		if hadOpen && !m.sending && m.items.get(prev) == nil {
			m.holdUntilChosen(prev, "")
		}
	}
	// An editor says at once that its interrupt left, or is back
	// (refresh, after this message).
	// Drafts are kept (never lose typed feedback): an interrupt missing from
	// one answer may be back in the next.
	next := pollAfter(m.opts.PollInterval)
	if m.refetchAfter {
		m.refetchAfter = false
		m.fetching = true
		next = m.fetch(false)
	}
	return tea.Batch(next, m.notify(arrived), lookUp)
}

// checkDrafts holds the arguments of the drafts read from disk against
// their interrupts once these are listed (the rule is keep's): arguments
// as proposed are no draft, so no ✎ and no claim.
func (m *Model) checkDrafts() {
	for id := range m.unchecked {
		d := m.drafts[id]
		if d == nil {
			delete(m.unchecked, id)
			continue
		}
		if m.items.get(id) == nil {
			continue
		}
		for slot, text := range d.argsText {
			if text != "" {
				m.keep(draftEdit{id: id, slot: slot, args: &text})
			}
		}
		delete(m.unchecked, id)
	}
}

func (m *Model) onSent(msg sentMsg) tea.Cmd {
	m.sending = false
	m.stopSend = nil
	m.failed.now = true // a run that failed shows in its section at once; one answered again leaves it
	r := msg.result
	if m.quitting {
		return tea.Sequence(m.persistDrafts(), m.releaseAll(), tea.Quit) // the outcome is in the audit log
	}
	text := r.Text()
	if r.Kind == decide.Sent && r.Run.Reply != "" {
		text += " Agent: " + strings.Join(strings.Fields(r.Run.Reply), " ")
	}
	for _, w := range r.Warnings {
		text += " (" + w + ")"
	}
	switch r.Kind {
	case decide.Sent, decide.HandledElsewhere, decide.Unconfirmed:
		for _, ir := range r.Items {
			if ir.Kind == decide.Sent || ir.Kind == decide.HandledElsewhere || ir.Kind == decide.Unconfirmed {
				m.items.handled[ir.ID] = true
			}
			if ir.Kind == decide.Sent || ir.Kind == decide.Unconfirmed {
				delete(m.drafts, ir.ID)
			} else if ir.Kind == decide.HandledElsewhere && m.drafts[ir.ID] != nil && m.drafts[ir.ID].typed() {
				text += keptGone
			}
		}
		m.setStatus(text, r.Kind == decide.Sent && r.Run.Status != client.Failed)
	case decide.Unknown:
		// Not handled: it stays listed (and in the unknown section) until
		// the server says what became of it.
		m.setStatus(text, false)
	default:
		if cmd, ok := m.onApprovalRecorded(r); ok {
			return cmd
		}
		// Busy or not sent: the draft stays; the reviewer can send again.
		if r.Kind == decide.NotSent || r.Kind == decide.Lost {
			text = "Draft kept (" + name(m.keys.Submit) + " sends it again). " + text
		}
		m.setStatus(text, false)
		m.backToDecisions()
		return nil
	}
	// Answered elsewhere while the reviewer sent (the listing had not
	// shown it yet): as when the listing shows it, the keys wait for a row
	// to be chosen.
	left := ""
	if r.Kind == decide.HandledElsewhere {
		for _, ir := range r.Items {
			if ir.Kind == decide.HandledElsewhere && m.hasOpen(ir.ID) {
				left = ir.ID
				if g, ok := goneOf(ir.ID, client.Standing{ID: ir.ID, Presence: client.Answered, By: ir.Winner}); ok && m.gone[ir.ID].kind == 0 {
					if m.gone == nil {
						m.gone = map[string]gone{}
					}
					m.gone[ir.ID] = g // what the held keys say it became
				}
			}
		}
	}
	m.items.drop()
	// Back to the list, with a grace period: the next item is chosen, not
	// fallen into.
	m.home()
	m.startGrace("")
	if left != "" && m.items.selected != left {
		m.holdUntilChosen(left, m.status)
	}
	return tea.Batch(pollAfter(0), m.syncClaims()) // what was sent is no longer claimed
}

// onChecked reports what looking up decisions of unknown outcome found,
// then fetches.
func (m *Model) onChecked(msg checkedMsg) tea.Cmd {
	m.checking = false
	var found []string
	for _, r := range msg.results {
		if r.Kind != decide.Unknown {
			found = append(found, r.Text())
		}
		if r.Kind == decide.Lost {
			// The server lost the run: what it answered waits again.
			for _, id := range r.Submission.IDs() {
				delete(m.items.handled, id)
			}
		}
	}
	switch {
	case msg.err != nil:
		m.setStatus("Cannot read the audit log: "+msg.err.Error(), false)
	case len(found) > 0:
		m.setStatus("Looked up again: "+strings.Join(found, " "), true)
	case len(msg.results) > 0:
		m.setStatus(fmt.Sprintf("%d decision(s) still of unknown outcome: the server cannot be read yet.", len(msg.results)), false)
	}
	return m.refetch()
}

// quit ends the app, but not in the middle of a send: the decision being
// sent is recorded first (its intent is on disk already; this waits for
// its outcome so that the next start need not look it up).
func (m *Model) quit() tea.Cmd {
	if !m.sending {
		return tea.Sequence(m.persistDrafts(), m.releaseAll(), tea.Quit)
	}
	m.quitting = true
	if m.stopSend != nil {
		m.stopSend() // stop following the run; the outcome is recorded at once
	}
	m.home()
	m.setStatus(fmt.Sprintf("Recording the outcome of the decision being sent, then quitting… (%s again quits now)", name(m.keys.ForceQuit)), false)
	return nil
}

// persistDrafts writes the drafts to disk when they changed since the last
// write, the text of an open editor included: quitting, a dropped
// connection or a crash loses at most a second of typing.
func (m *Model) persistDrafts() tea.Cmd {
	j := m.opts.Journal
	if j == nil {
		return nil
	}
	for _, s := range m.stack {
		if t, ok := s.(typist); ok {
			if e, ok := t.typed(); ok {
				m.keep(e)
			}
		}
	}
	// A draft of an interrupt handled elsewhere (another reviewer, or a
	// command on this machine) stays: it is the reviewer's typed work, and
	// the screens say it is kept (keptGone). Sending and discarding drop it.
	b := m.drafts.encode()
	if bytes.Equal(b, m.savedDrafts) {
		return nil
	}
	m.savedDrafts = b
	return func() tea.Msg {
		return draftsSavedMsg{b: b, err: j.SaveDrafts(b)}
	}
}

// onDraftsSaved reports a failed write of the drafts to the reviewer, and
// writes them again at the next tick.
func (m *Model) onDraftsSaved(msg draftsSavedMsg) {
	if msg.err != nil && bytes.Equal(m.savedDrafts, msg.b) {
		m.savedDrafts = nil
	}
	m.journalProblem(problemDrafts, msg.err)
}

// askQuit quits (drafts are kept for the next run), or asks first while a
// decision is being sent.
func (m *Model) askQuit() tea.Cmd {
	if !m.sending {
		return m.quit()
	}
	m.push(&promptScreen{
		question: "Quit? A decision is being sent: hitl records its outcome first. Your drafts are kept for next time.",
		yes:      "quit",
		quitToo:  true,
		onYes:    []act{quitApp{}},
	})
	return nil
}

// sameEntries: the same decisions of unknown outcome, in the same order.
func sameEntries(a, b []journal.Entry) bool {
	return slices.EqualFunc(a, b, func(p, q journal.Entry) bool {
		return p.DecisionID == q.DecisionID && p.InterruptID == q.InterruptID && p.Outcome == q.Outcome
	})
}
