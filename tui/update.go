package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/inert"
)

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case pendingMsg:
		return m.onPending(msg)
	case pollMsg:
		if m.fetching {
			return m, nil
		}
		m.fetching = true
		return m, m.fetch()
	case tickMsg:
		return m, tick()
	case changeMsg:
		cmds := []tea.Cmd{waitChange(m.changes)}
		if !m.fetching {
			m.fetching = true
			cmds = append(cmds, m.fetch())
		}
		return m, tea.Batch(cmds...)
	case runCtlMsg:
		if msg.err != nil {
			m.setStatus(fmt.Sprintf("%s run %s: %v", msg.action, msg.thread, msg.err), false)
			return m, nil
		}
		m.setStatus(fmt.Sprintf("Run %s: %s (status %s).", msg.thread, msg.action, msg.status), true)
		if m.fetching {
			return m, nil
		}
		m.fetching = true
		return m, m.fetch()
	case sentMsg:
		return m.onSent(msg)
	case checkedMsg:
		return m.onChecked(msg)
	case signalQuitMsg:
		return m.quit()
	case historyMsg:
		m.history, m.historyErr = msg.entries, msg.err
		m.refreshPage()
		return m, nil
	case conversationMsg:
		m.conversation[msg.thread] = &conversation{messages: msg.messages, err: msg.err}
		m.refreshDetail()
		m.refreshPage()
		return m, nil
	case externalEditMsg:
		if m.ed != nil {
			if msg.err != nil {
				m.ed.err = "editor: " + msg.err.Error() + " (set $VISUAL or $EDITOR)"
			} else {
				m.ed.fields[m.ed.focus].SetValue(strings.TrimRight(msg.text, "\n"))
				m.ed.err = ""
			}
		}
		return m, nil
	case spinner.TickMsg:
		if !m.sending {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	if m.screen == screenEditor && m.ed != nil {
		var cmd tea.Cmd
		m.ed.fields[m.ed.focus], cmd = m.ed.fields[m.ed.focus].Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m Model) onPending(msg pendingMsg) (tea.Model, tea.Cmd) {
	m.fetching = false
	if msg.err != nil {
		m.fetchErr = msg.err
		if m.backoff == 0 {
			m.backoff = m.opts.PollInterval
		}
		m.backoff = min(m.backoff*2, 30*time.Second)
		return m, pollAfter(m.backoff)
	}
	m.fetchErr, m.backoff = nil, 0
	m.lastUpdate = m.opts.Now()
	m.unknown = msg.unknown
	before := m.newCount
	m.applyItems(msg.items, msg.handled)
	cmds := []tea.Cmd{pollAfter(m.opts.PollInterval)}
	if m.newCount > before && m.opts.Bell {
		cmds = append(cmds, tea.Raw("\a"))
	}
	return m, tea.Batch(cmds...)
}

func (m Model) onSent(msg sentMsg) (tea.Model, tea.Cmd) {
	m.sending = false
	r := msg.result
	if m.quitting {
		return m, tea.Quit // the outcome is in the audit log
	}
	text := r.Text()
	if r.Kind == decide.Sent && r.Run.Reply != "" {
		text += " Agent: " + strings.Join(strings.Fields(r.Run.Reply), " ")
	}
	for _, w := range r.Warnings {
		text += " (" + w + ")"
	}
	switch r.Kind {
	case decide.Sent, decide.HandledElsewhere:
		for _, ir := range r.Items {
			if ir.Kind == decide.Sent || ir.Kind == decide.HandledElsewhere {
				m.handled[ir.ID] = true
				delete(m.drafts, ir.ID)
			}
		}
		m.setStatus(text, r.Kind == decide.Sent && r.Run.Status != client.Failed)
	case decide.Unknown:
		// Not handled: it stays listed (and in the unknown section) until
		// the server says what became of it.
		m.setStatus(text, false)
	default:
		// Busy or not sent: the draft stays; the reviewer can send again.
		if r.Kind == decide.NotSent {
			text = "Draft kept (s sends it again). " + text
		}
		m.setStatus(text, false)
		m.screen = m.decisionScreen()
		return m, nil
	}
	m.confirmID = ""
	m.rebuildAll()
	// Back to the list, with a grace period: the next item is chosen, not
	// fallen into.
	m.screen = screenInbox
	m.graceUntil = m.opts.Now().Add(GracePeriod)
	return m, pollAfter(0)
}

// onChecked reports what looking up decisions of unknown outcome found,
// then fetches.
func (m Model) onChecked(msg checkedMsg) (tea.Model, tea.Cmd) {
	m.checking = false
	var found []string
	for _, r := range msg.results {
		if r.Kind != decide.Unknown {
			found = append(found, r.Text())
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
	if m.fetching {
		return m, nil
	}
	m.fetching = true
	return m, m.fetch()
}

// rebuildAll drops handled items and rebuilds the view of them.
func (m *Model) rebuildAll() {
	kept := m.all[:0]
	for _, it := range m.all {
		if !m.handled[it.ID] {
			kept = append(kept, it)
		}
	}
	m.all = kept
	idx := m.index()
	m.rebuild()
	if idx >= 0 && m.current() == nil && len(m.items) > 0 {
		m.selected = m.items[min(idx, len(m.items)-1)].ID
	}
	m.refreshDetail()
}

// wide is whether the detail sits beside the inbox.
func (m *Model) wide() bool { return m.width >= 100 }

// decisionScreen is where decisions are made from: the inbox when the detail
// is beside it, else the detail screen.
func (m *Model) decisionScreen() screen {
	if m.wide() {
		return screenInbox
	}
	return screenDetail
}

func (m Model) onKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if key.Matches(msg, m.keys.ForceQuit) {
		if m.quitting {
			return m, tea.Quit // asked twice: now
		}
		return m.quit()
	}
	switch m.screen {
	case screenEditor:
		return m.onEditorKey(msg)
	case screenConfirm:
		return m.onConfirmKey(msg)
	case screenHistory:
		return m.onHistoryKey(msg)
	case screenHelp:
		if key.Matches(msg, m.keys.Back, m.keys.Quit, m.keys.Help) {
			m.screen = m.prevScreen
		}
		return m, nil
	case screenQuit:
		switch msg.String() {
		case "y", "q":
			return m.quit()
		}
		m.screen = m.prevScreen
		return m, nil
	case screenRunControl:
		m.screen = m.prevScreen
		if msg.String() != "y" {
			m.setStatus("Nothing done.", true)
			return m, nil
		}
		it := m.byID(m.runTarget)
		if it == nil {
			m.setStatus("That interrupt is gone; nothing done.", false)
			return m, nil
		}
		return m, m.controlRun(*it, m.runAction)
	}
	if m.filtering {
		return m.onFilterKey(msg)
	}
	k := m.keys
	if key.Matches(msg, k.Up, k.Down, k.Open, k.Refresh) {
		m.newCount = 0 // seen
	}
	switch {
	case key.Matches(msg, k.Quit):
		if m.sending || m.anyDraft() {
			m.prevScreen, m.screen = m.screen, screenQuit
			return m, nil
		}
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.prevScreen, m.screen = m.screen, screenHelp
		return m, nil
	case key.Matches(msg, k.History):
		m.prevScreen, m.screen = m.screen, screenHistory
		m.histSel, m.histThread = 0, ""
		m.page.GotoTop()
		m.refreshPage()
		return m, m.loadHistory()
	case key.Matches(msg, k.Refresh):
		if m.fetching {
			return m, nil
		}
		m.fetching = true
		return m, m.fetch()
	case key.Matches(msg, k.Check):
		if len(m.unknown) == 0 || m.checking {
			return m, nil
		}
		if m.sending {
			m.setStatus("A decision is being sent; look up the others once it is done.", false)
			return m, nil
		}
		m.checking = true
		m.setStatus("Looking up decisions of unknown outcome…", true)
		return m, m.reconcile()
	case key.Matches(msg, k.Back):
		if m.screen == screenDetail {
			m.screen = screenInbox
		} else if m.filter != "" {
			m.filter = ""
			m.rebuild()
			m.refreshDetail()
		}
		return m, nil
	case key.Matches(msg, k.Up), key.Matches(msg, k.Down):
		if m.screen == screenDetail {
			if key.Matches(msg, k.Up) {
				m.detail.ScrollUp(1)
			} else {
				m.detail.ScrollDown(1)
			}
			return m, nil
		}
		m.move(key.Matches(msg, k.Down))
		return m, nil
	case key.Matches(msg, k.ScrollDown):
		m.detail.HalfPageDown()
		return m, nil
	case key.Matches(msg, k.ScrollUp):
		m.detail.HalfPageUp()
		return m, nil
	case key.Matches(msg, k.Open) && m.screen == screenInbox && !m.wide():
		if m.current() != nil {
			m.screen = screenDetail
			m.refreshDetail()
		}
		return m, nil
	case key.Matches(msg, k.Filter) && m.screen == screenInbox:
		m.filtering, m.filter = true, ""
		m.rebuild()
		m.refreshDetail()
		return m, nil
	case key.Matches(msg, k.Sort) && m.screen == screenInbox:
		m.sort = (m.sort + 1) % 3
		m.rebuild()
		m.refreshDetail()
		m.setStatus("sorted by "+m.sort.String(), true)
		return m, nil
	case key.Matches(msg, k.Conversation):
		return m.toggleConversation()
	case key.Matches(msg, k.PauseRun, k.ResumeRun, k.CancelRun):
		return m.askRunControl(msg)
	}
	if m.screen == screenInbox && !m.wide() {
		return m, nil // decisions are made from the detail screen
	}
	return m.onDecisionKey(msg)
}

// quit ends the app, but not in the middle of a send: the decision being
// sent is recorded first (its intent is on disk already; this waits for
// its outcome so that the next start need not look it up).
func (m Model) quit() (tea.Model, tea.Cmd) {
	if !m.sending {
		return m, tea.Quit
	}
	m.quitting = true
	if m.stopSend != nil {
		m.stopSend() // stop following the run; the outcome is recorded at once
	}
	m.screen = screenInbox
	m.setStatus("Recording the outcome of the decision being sent, then quitting… (ctrl+c again quits now)", false)
	return m, nil
}

// anyDraft reports whether a pending interrupt has typed work on it.
func (m *Model) anyDraft() bool {
	for _, it := range m.all {
		if d := m.drafts[it.ID]; d != nil && d.touched() {
			return true
		}
	}
	return false
}

func (m *Model) move(down bool) {
	i := m.index()
	if len(m.items) == 0 {
		return
	}
	if down {
		i = min(i+1, len(m.items)-1)
	} else {
		i = max(i-1, 0)
	}
	m.selected = m.items[i].ID
	m.refreshDetail()
	m.detail.GotoTop()
}

func (m Model) onFilterKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "esc":
		m.filtering, m.filter = false, ""
	case "enter":
		m.filtering = false
	case "backspace":
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	default:
		if msg.Text != "" {
			m.filter += msg.Text
		}
	}
	m.rebuild()
	m.refreshDetail()
	return m, nil
}

func (m Model) toggleConversation() (tea.Model, tea.Cmd) {
	it := m.current()
	if it == nil {
		return m, nil
	}
	m.showConv = !m.showConv
	var cmd tea.Cmd
	if c := m.conversation[it.ThreadID]; m.showConv && (c == nil || c.err != nil) {
		m.conversation[it.ThreadID] = &conversation{loading: true}
		cmd = m.loadConversation(it.ThreadID)
	}
	m.refreshDetail()
	return m, cmd
}

// inGrace reports whether decision keys are ignored right now.
func (m *Model) inGrace() bool {
	return m.opts.Now().Before(m.graceUntil)
}

func (m Model) onDecisionKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	it := m.current()
	if it == nil {
		return m, nil
	}
	k := m.keys
	d := m.draftFor(it)
	decision := key.Matches(msg, k.Approve, k.Edit, k.Reject, k.Respond, k.Ignore, k.ApproveAll, k.Submit)
	if decision && m.inGrace() {
		m.setStatus("Key ignored: the selected interrupt just changed. Look, then press it again.", false)
		return m, nil
	}
	if decision && m.sending {
		m.setStatus("A decision is being sent; wait for it.", false)
		return m, nil
	}
	switch {
	case key.Matches(msg, k.NextAction):
		d.slot = (d.slot + 1) % it.Slots()
		m.refreshDetail()
	case key.Matches(msg, k.PrevAction):
		d.slot = (d.slot + it.Slots() - 1) % it.Slots()
		m.refreshDetail()
	case key.Matches(msg, k.Approve):
		return m.decide(it, d, client.Approve)
	case key.Matches(msg, k.Ignore):
		return m.decide(it, d, client.Ignore)
	case key.Matches(msg, k.Edit):
		if !m.allowed(it, d.slot, client.Edit) {
			return m, nil
		}
		return m.openArgsEditor(it, d)
	case key.Matches(msg, k.Reject):
		if !m.allowed(it, d.slot, client.Reject) {
			return m, nil
		}
		return m.openFeedbackEditor(it, d, client.Reject)
	case key.Matches(msg, k.Respond):
		if !m.allowed(it, d.slot, client.Respond) {
			return m, nil
		}
		return m.openFeedbackEditor(it, d, client.Respond)
	case key.Matches(msg, k.ApproveAll):
		for i := 0; i < it.Slots(); i++ {
			if !m.allowed(it, i, client.Approve) {
				return m, nil
			}
		}
		for i := range d.decisions {
			d.decisions[i] = &client.Decision{Type: client.Approve}
		}
		return m.toConfirm(it)
	case key.Matches(msg, k.Submit):
		for i, x := range d.decisions {
			if x == nil {
				d.slot = i
				m.refreshDetail()
				m.setStatus(fmt.Sprintf("Action %d has no decision yet.", i+1), false)
				return m, nil
			}
		}
		return m.toConfirm(it)
	}
	return m, nil
}

// allowed checks a decision and says, in the status line, what is allowed
// when it is not.
func (m *Model) allowed(it *client.Interrupt, slot int, t client.DecisionType) bool {
	if it.Allows(slot, t) {
		return true
	}
	what := "this interrupt"
	if len(it.Actions) > 0 {
		what = fmt.Sprintf("action %d", slot+1)
	}
	m.setStatus(fmt.Sprintf("%s is not allowed for %s; allowed: %s", t, what, typesText(it.AllowedAt(slot))), false)
	return false
}

func typesText(ts []client.DecisionType) string {
	if len(ts) == 0 {
		return "nothing"
	}
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// decide records a decision that needs no editor for the current slot.
func (m Model) decide(it *client.Interrupt, d *draft, t client.DecisionType) (tea.Model, tea.Cmd) {
	if !m.allowed(it, d.slot, t) {
		return m, nil
	}
	d.decisions[d.slot] = &client.Decision{Type: t}
	return m.advance(it, d)
}

// advance moves to the next undecided action, or to the confirm view when
// every action has its decision.
func (m Model) advance(it *client.Interrupt, d *draft) (tea.Model, tea.Cmd) {
	m.screen = m.decisionScreen()
	for i := 1; i <= len(d.decisions); i++ {
		j := (d.slot + i) % len(d.decisions)
		if d.decisions[j] == nil {
			d.slot = j
			m.refreshDetail()
			m.setStatus(fmt.Sprintf("Recorded. Action %d of %d next (tab moves, s submits when all are decided).", j+1, len(d.decisions)), true)
			return m, nil
		}
	}
	return m.toConfirm(it)
}

func (m Model) toConfirm(it *client.Interrupt) (tea.Model, tea.Cmd) {
	m.confirmID, m.confirmError = it.ID, ""
	m.screen = screenConfirm
	m.showJSON = false
	m.page.GotoTop()
	m.refreshPage()
	return m, nil
}

// scrollPage scrolls the confirm or history screen.
func (m *Model) scrollPage(msg tea.KeyPressMsg) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Down):
		m.page.ScrollDown(1)
	case key.Matches(msg, k.Up):
		m.page.ScrollUp(1)
	case key.Matches(msg, k.ScrollDown):
		m.page.HalfPageDown()
	case key.Matches(msg, k.ScrollUp):
		m.page.HalfPageUp()
	}
}

// confirmed returns the interrupt being confirmed and the submission that
// answers it, with every other interrupt of its thread whose draft is
// complete (one resume answers them all), or why it cannot be sent.
func (m *Model) confirmed() (*client.Interrupt, *client.Submission, error) {
	it := m.byID(m.confirmID)
	if it == nil {
		return nil, nil, errors.New("this interrupt is no longer pending (handled elsewhere?)")
	}
	ds, err := m.decisionsOf(it)
	if err != nil {
		return it, nil, err
	}
	drafts := []decide.Draft{{Interrupt: *it, Decisions: ds}}
	for i := range m.all {
		other := &m.all[i]
		if other.ID == it.ID || other.ThreadID != it.ThreadID || m.drafts[other.ID] == nil {
			continue
		}
		if ods, err := m.decisionsOf(other); err == nil {
			drafts = append(drafts, decide.Draft{Interrupt: *other, Decisions: ods})
		}
	}
	subs, err := m.pipe.Prepare(drafts)
	if err != nil {
		// A sibling's draft may be what does not encode: send this one alone.
		if subs, err = m.pipe.Prepare(drafts[:1]); err != nil {
			return it, nil, err
		}
	}
	for _, s := range subs {
		for _, x := range s.Items {
			if x.Interrupt.ID == it.ID {
				return it, s, nil
			}
		}
	}
	return it, nil, errors.New("nothing to send")
}

// decisionsOf is the draft of it when every slot has a decision.
func (m *Model) decisionsOf(it *client.Interrupt) ([]client.Decision, error) {
	d := m.draftFor(it)
	ds := make([]client.Decision, len(d.decisions))
	for i, x := range d.decisions {
		if x == nil {
			return nil, fmt.Errorf("action %d has no decision", i+1)
		}
		ds[i] = *x
	}
	return ds, nil
}

func (m Model) onConfirmKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		m.screen = m.decisionScreen()
		m.refreshDetail()
	case key.Matches(msg, k.ShowJSON):
		m.showJSON = !m.showJSON
		m.refreshPage()
		if m.showJSON {
			m.page.GotoBottom()
		}
	case key.Matches(msg, k.DiffMode):
		m.sideBySide = !m.sideBySide
		m.refreshPage()
	case key.Matches(msg, k.Down, k.Up, k.ScrollDown, k.ScrollUp):
		m.scrollPage(msg)
	case key.Matches(msg, k.Confirm):
		if m.sending || m.checking {
			return m, nil
		}
		if m.inGrace() {
			m.setStatus("Key ignored: the list just changed. Look, then press it again.", false)
			return m, nil
		}
		_, sub, err := m.confirmed()
		if err != nil {
			m.confirmError = err.Error()
			m.refreshPage()
			return m, nil
		}
		m.sending = true
		m.setStatus("Sending…", true)
		ctx, cancel := ctxFor(2 * time.Minute)
		m.stopSend = cancel
		return m, tea.Batch(m.send(ctx, cancel, sub), m.spin.Tick)
	}
	return m, nil
}

// openArgsEditor edits the arguments of the current action as indented JSON.
func (m Model) openArgsEditor(it *client.Interrupt, d *draft) (tea.Model, tea.Cmd) {
	text := d.argsText[d.slot]
	if text == "" {
		text = string(inert.JSON([]byte(indentJSON(it.Actions[d.slot].Args))))
	}
	ta := m.newTextarea(text)
	m.ed = &editor{kind: editArgs, decision: client.Edit, id: it.ID, slot: d.slot, fields: []textarea.Model{ta},
		labels: []string{"Arguments of " + it.Actions[d.slot].Name + " (JSON)"}, back: m.screen}
	m.screen = screenEditor
	m.layout()
	return m, m.ed.fields[0].Focus()
}

// openFeedbackEditor edits a reject message or a response; for questions, it
// adds one field per question for the answers.
func (m Model) openFeedbackEditor(it *client.Interrupt, d *draft, t client.DecisionType) (tea.Model, tea.Cmd) {
	label := "Reason for rejecting (sent to the agent)"
	if t == client.Respond {
		label = "Your response"
		if it.Schema == client.SchemaRaw {
			label = "Your response (text, or a JSON object or array)"
		}
		if it.Schema == client.SchemaQuestions {
			label = "Feedback"
		}
	}
	if it.RequiresMessage(t) {
		label += " — required"
	}
	ed := &editor{kind: editFeedback, decision: t, id: it.ID, slot: d.slot, back: m.screen,
		fields: []textarea.Model{m.newTextarea(d.feedback[d.slot])}, labels: []string{label}}
	if t == client.Respond && it.Schema == client.SchemaQuestions {
		for i, q := range it.Questions {
			a := ""
			if i < len(d.answers[d.slot]) {
				a = d.answers[d.slot][i]
			}
			ta := m.newTextarea(a)
			ta.SetHeight(2)
			ed.fields = append(ed.fields, ta)
			ed.labels = append(ed.labels, fmt.Sprintf("Answer %d: %s", i+1, q))
		}
	}
	m.ed = ed
	m.screen = screenEditor
	m.layout()
	return m, m.ed.fields[0].Focus()
}

func (m *Model) newTextarea(text string) textarea.Model {
	ta := textarea.New()
	// A steady cursor: a blinking one redraws twice a second, which costs
	// on a slow SSH link.
	st := textarea.DefaultDarkStyles()
	st.Cursor.Blink = false
	ta.SetStyles(st)
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.SetWidth(max(m.width-4, 20))
	ta.SetHeight(max(m.height-10, 3))
	ta.SetValue(text)
	ta.MoveToBegin()
	return ta
}

func (m Model) onEditorKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ed := m.ed
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		m.saveEditorDraft()
		m.screen = ed.back
		m.ed = nil
		m.refreshDetail()
		return m, nil
	case key.Matches(msg, k.External):
		m.saveEditorDraft()
		ext := ".txt"
		if ed.kind == editArgs {
			ext = ".json"
		}
		if m.opts.Editor == "" {
			ed.err = "no external editor: set $VISUAL or $EDITOR"
			return m, nil
		}
		return m, externalEdit(m.opts.Editor, ed.fields[ed.focus].Value(), ext)
	case key.Matches(msg, k.NextField) && len(ed.fields) > 1:
		ed.fields[ed.focus].Blur()
		ed.focus = (ed.focus + 1) % len(ed.fields)
		return m, ed.fields[ed.focus].Focus()
	case key.Matches(msg, k.Accept):
		return m.acceptEditor()
	}
	var cmd tea.Cmd
	ed.fields[ed.focus], cmd = ed.fields[ed.focus].Update(msg)
	return m, cmd
}

// saveEditorDraft keeps what was typed, whatever happens next.
func (m *Model) saveEditorDraft() {
	ed := m.ed
	it := m.byID(ed.id)
	if it == nil {
		return
	}
	d := m.draftFor(it)
	if ed.kind == editArgs {
		d.argsText[ed.slot] = ed.fields[0].Value()
		return
	}
	d.feedback[ed.slot] = ed.fields[0].Value()
	if len(ed.fields) > 1 {
		d.answers[ed.slot] = d.answers[ed.slot][:0]
		for _, f := range ed.fields[1:] {
			d.answers[ed.slot] = append(d.answers[ed.slot], strings.TrimSpace(f.Value()))
		}
	}
}

func (m *Model) byID(id string) *client.Interrupt {
	for i := range m.all {
		if m.all[i].ID == id {
			return &m.all[i]
		}
	}
	return nil
}

// acceptEditor checks the editor's text and records the decision; on an
// error the draft stays and the error shows next to it.
func (m Model) acceptEditor() (tea.Model, tea.Cmd) {
	ed := m.ed
	m.saveEditorDraft()
	it := m.byID(ed.id)
	if it == nil {
		ed.err = "this interrupt is no longer pending; your text is kept until you leave"
		return m, nil
	}
	d := m.draftFor(it)
	d.slot = ed.slot
	in := decide.Input{Type: ed.decision, Text: d.feedback[ed.slot], Answers: d.answers[ed.slot]}
	if ed.kind == editArgs {
		in = decide.Input{Type: client.Edit, Args: ed.fields[0].Value()}
	}
	// The same rules as the CLI's: unchanged args are an approve, JSON
	// typed for a raw payload is sent as JSON, answers match the questions.
	dec, err := decide.Decision(it, ed.slot, in)
	if err != nil {
		ed.err = err.Error()
		return m, nil
	}
	if ed.kind == editFeedback && dec.Message == "" && dec.Value == nil && it.RequiresMessage(ed.decision) {
		ed.err = "this interrupt needs feedback text for " + string(ed.decision)
		return m, nil
	}
	if ed.kind == editArgs && dec.Type == client.Approve {
		m.setStatus("The arguments are unchanged: recorded as approve.", true)
	}
	d.decisions[ed.slot] = &dec
	m.ed = nil
	return m.advance(it, d)
}

// indentJSON indents raw JSON keeping its key order and numbers.
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// onHistoryKey moves through the decisions sent from this machine; enter
// shows what the agent did next (the thread's conversation).
func (m Model) onHistoryKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back) && m.histThread != "":
		m.histThread = ""
	case key.Matches(msg, k.Back, k.Quit, k.History):
		m.screen = m.prevScreen
		return m, nil
	case key.Matches(msg, k.Open) && m.histThread == "" && m.histSel < len(m.history):
		m.histThread = m.history[m.histSel].ThreadID
		m.conversation[m.histThread] = &conversation{loading: true}
		m.refreshPage()
		m.page.GotoTop()
		return m, m.loadConversation(m.histThread)
	case m.histThread == "" && key.Matches(msg, k.Down):
		m.histSel = min(m.histSel+1, max(len(m.history)-1, 0))
	case m.histThread == "" && key.Matches(msg, k.Up):
		m.histSel = max(m.histSel-1, 0)
	default:
		m.scrollPage(msg)
		return m, nil
	}
	m.refreshPage()
	return m, nil
}

// askRunControl asks before pausing, resuming or cancelling a run.
func (m Model) askRunControl(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	it := m.current()
	if it == nil {
		return m, nil
	}
	if _, ok := m.opts.Backend.(client.RunController); !ok {
		m.setStatus("This backend has no run controls.", false)
		return m, nil
	}
	if m.inGrace() {
		m.setStatus("Key ignored: the selected interrupt just changed. Look, then press it again.", false)
		return m, nil
	}
	switch {
	case key.Matches(msg, m.keys.PauseRun):
		m.runAction = client.PauseRun
	case key.Matches(msg, m.keys.ResumeRun):
		m.runAction = client.ResumeRun
	default:
		m.runAction = client.CancelRun
	}
	m.runTarget = it.ID
	m.prevScreen, m.screen = m.screen, screenRunControl
	return m, nil
}
