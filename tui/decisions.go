package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
)

// Decision keys act on the selected interrupt, from the inbox (wide) or the
// detail screen: a decision that needs no text is recorded at once, one
// that does opens the editor; when every action has its decision, the
// confirm screen opens.

// decisionKinds pairs each decision key with what it decides.
func decisionKinds(k *keyMap) []struct {
	b *key.Binding
	t client.DecisionType
} {
	return []struct {
		b *key.Binding
		t client.DecisionType
	}{{&k.Approve, client.Approve}, {&k.Edit, client.Edit}, {&k.Reject, client.Reject}, {&k.Respond, client.Respond}, {&k.Ignore, client.Ignore}}
}

func (m *Model) decisionKey(msg tea.KeyPressMsg) tea.Cmd {
	return m.decisionKeyAt(m.items.current(), msg, true)
}

// decisionKeyOn acts on it, one a failed run left, from the failures
// screen: not the row under the cursor.
func (m *Model) decisionKeyOn(it *client.Interrupt, msg tea.KeyPressMsg) tea.Cmd {
	return m.decisionKeyAt(it, msg, false)
}

// decisionKeyAt acts on it; row: it is the selected row, whose keys wait
// until the reviewer chooses a row after the one they had open left
// (holdUntilChosen).
func (m *Model) decisionKeyAt(it *client.Interrupt, msg tea.KeyPressMsg, row bool) tea.Cmd {
	if it == nil {
		return nil
	}
	k := m.keys
	decision := key.Matches(msg, k.Approve, k.Edit, k.Reject, k.Respond, k.Ignore, k.ApproveAll, k.ApproveAlways, k.Submit, k.End)
	if decision && m.viewOnly() {
		m.setStatus(fmt.Sprintf("View only: %s is a viewer here and decides nothing; an approver of the team decides.", safe(m.opts.Reviewer)), false)
		return nil
	}
	// Moving between its actions and discarding its draft act on the row
	// too: after the open interrupt left, not on one fallen onto.
	drafting := key.Matches(msg, k.NextAction, k.PrevAction, k.Discard)
	if row && (decision || drafting) && m.heldUntilChosen() {
		return nil
	}
	if decision && m.held() {
		return nil
	}
	d := m.drafts.of(it)
	if decision && m.sending {
		m.setStatus("A decision is being sent; wait for it.", false)
		return nil
	}
	switch {
	case key.Matches(msg, k.Discard):
		return m.askDiscard(it)
	case key.Matches(msg, k.NextAction, k.PrevAction):
		step := 1
		if key.Matches(msg, k.PrevAction) {
			step = it.Slots() - 1
		}
		d.slot = (d.slot + step) % it.Slots()
		m.setStatus(m.slotText(it, d), true) // the last "next" no longer holds
	case key.Matches(msg, k.Approve):
		if m.confirmApproval(it, d) {
			return nil
		}
		return m.decide(it, d, client.Approve)
	case key.Matches(msg, k.Ignore):
		return m.decide(it, d, client.Ignore)
	case key.Matches(msg, k.ApproveAlways):
		// For good only when asked by this key: opencode then stops
		// asking for the request's always patterns, Gemini CLI for the
		// command's root commands.
		if len(it.Always) == 0 {
			m.setStatus(fmt.Sprintf("Approve for good: this request names nothing to allow for good (opencode's requests and Gemini CLI's shell commands do); %s approves it once.", name(k.Approve)), false)
			return nil
		}
		for i := 0; i < it.Slots(); i++ {
			if !m.allowed(it, i, client.Approve) {
				return nil
			}
		}
		undo := slices.Clone(d.decisions)
		for i := range d.decisions {
			d.decisions[i] = &client.Decision{Type: client.Approve, Always: true}
		}
		c := newConfirmScreen(m.env(), it.ID)
		c.undo = undo
		m.push(c)
	case key.Matches(msg, k.Edit):
		if !m.allowed(it, d.slot, client.Edit) {
			return nil
		}
		if cmd, ok := m.openForm(it, d, client.Edit); ok { // an args_schema: its form (form.go)
			return cmd
		}
		ed := newArgsEditor(it, d)
		m.push(ed)
		return ed.focus()
	case key.Matches(msg, k.Reject, k.Respond):
		t := client.Reject
		if key.Matches(msg, k.Respond) {
			t = client.Respond
		}
		if !m.allowed(it, d.slot, t) {
			return nil
		}
		if cmd, ok := m.openForm(it, d, t); ok { // an answer schema: its form (form.go)
			return cmd
		}
		ed := newFeedbackEditor(it, d, t)
		m.push(ed)
		return ed.focus()
	case key.Matches(msg, k.End):
		// Dismiss: the confirm screen that follows is the question asked
		// first (y ends the thread's work, esc keeps it).
		if !m.feat.Ends() {
			m.setStatus("Dismiss: this backend cannot end a thread's work (the LangGraph backend can).", false)
			return nil
		}
		// A coding agent's request has no thread to end (its agent waits
		// for an answer): refused at once, as the CLI does.
		if it.Origin != nil {
			m.setStatus("Not dismissed: a coding agent's request cannot be dismissed or stopped: its agent waits for an answer; reject it instead (nothing sent).", false)
			return nil
		}
		if !m.feat.EndsAt(*it) {
			m.setStatus("Not dismissed: this interrupt's source cannot end a thread's work; reject it instead (nothing sent).", false)
			return nil
		}
		// A fan-out branch cannot end its thread's work alone: refused
		// at once, as the CLI does, and no draft is made of it.
		ends := make([]client.Decision, it.Slots())
		for i := range ends {
			ends[i] = client.Decision{Type: client.Dismiss}
		}
		if err := decide.EndsAlone([]decide.Draft{{Interrupt: *it, Decisions: ends}}, m.items.all); err != nil {
			m.setStatus(endsAloneText("Not dismissed", err), false)
			return nil
		}
		for i := range d.decisions {
			d.decisions[i] = &ends[i]
		}
		m.toConfirm(it)
	case key.Matches(msg, k.ApproveAll):
		// On an approval a team's rule holds, approving all confirms it
		// as the approve key does (the decision recorded, not a new one).
		if m.confirmApproval(it, d) {
			return nil
		}
		for i := 0; i < it.Slots(); i++ {
			if !m.allowed(it, i, client.Approve) {
				return nil
			}
		}
		for i := range d.decisions {
			d.decisions[i] = &client.Decision{Type: client.Approve}
		}
		m.toConfirm(it)
	case key.Matches(msg, k.Submit):
		for i, x := range d.decisions {
			if x == nil {
				d.slot = i
				m.setStatus(fmt.Sprintf("Action %d has no decision yet.", i+1), false)
				return nil
			}
		}
		m.toConfirm(it)
	}
	return nil
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

// decide records a decision that needs no editor for the current slot.
func (m *Model) decide(it *client.Interrupt, d *draft, t client.DecisionType) tea.Cmd {
	if !m.allowed(it, d.slot, t) {
		return nil
	}
	d.decisions[d.slot] = &client.Decision{Type: t}
	m.advance(it, d)
	return nil
}

// slotText says which action the keys now act on and where it stands:
// "On action 1 of 2 (decided: approve)".
func (m *Model) slotText(it *client.Interrupt, d *draft) string {
	what := "undecided"
	if d.slot < len(d.decisions) && d.decisions[d.slot] != nil {
		what = "decided: " + string(d.decisions[d.slot].Type)
	}
	left := 0
	for _, dec := range d.decisions {
		if dec == nil {
			left++
		}
	}
	s := fmt.Sprintf("On action %d of %d (%s)", d.slot+1, it.Slots(), what)
	if left > 0 {
		return s + fmt.Sprintf("; %d still undecided.", left)
	}
	return s + "; all decided: " + name(m.keys.Submit) + " submits."
}

// actionName is " (name)" of action j, where the interrupt names its
// actions.
func (m *Model) actionName(it *client.Interrupt, j int) string {
	if j < len(it.Actions) && it.Actions[j].Name != "" {
		return " (" + safe(it.Actions[j].Name) + ")"
	}
	return ""
}

// keysFor lists the decision keys action j allows: "a approve, r reject".
func (m *Model) keysFor(it *client.Interrupt, j int) string {
	var out []string
	for _, k := range []struct {
		t client.DecisionType
		b key.Binding
	}{{client.Approve, m.keys.Approve}, {client.Edit, m.keys.Edit}, {client.Reject, m.keys.Reject}, {client.Respond, m.keys.Respond}} {
		if it.Allows(j, k.t) {
			out = append(out, name(k.b)+" "+string(k.t))
		}
	}
	return strings.Join(out, ", ")
}

// advance moves to the next undecided action, or to the confirm screen when
// every action has its decision.
func (m *Model) advance(it *client.Interrupt, d *draft) {
	m.backToDecisions()
	for i := 1; i <= len(d.decisions); i++ {
		j := (d.slot + i) % len(d.decisions)
		if d.decisions[j] == nil {
			d.slot = j
			// The cursor is on it already: the keys act on it now (a
			// "tab moves" here read as "press tab", which left it).
			m.setStatus(fmt.Sprintf("Recorded. Now action %d of %d%s: %s; %s submits when all are decided.",
				j+1, len(d.decisions), m.actionName(it, j), m.keysFor(it, j), name(m.keys.Submit)), true)
			if m.atInbox() && !m.lay.wide {
				// The list alone shows no action: the next one to decide
				// is on the detail, as it is beside the list when wide.
				m.push(&detailScreen{})
			}
			return
		}
	}
	m.toConfirm(it)
}

func (m *Model) toConfirm(it *client.Interrupt) {
	m.push(newConfirmScreen(m.env(), it.ID))
}

// restoreDecisions puts a draft's decisions back as they were (going back
// from the confirm screen of approve for good).
type restoreDecisions struct {
	id        string
	decisions []*client.Decision
}

func (a restoreDecisions) apply(m *Model) tea.Cmd {
	if d := m.drafts[a.id]; d != nil && len(d.decisions) == len(a.decisions) {
		copy(d.decisions, a.decisions)
	}
	return nil
}

// askRunControl asks before pausing, resuming or cancelling a run.
func (m *Model) askRunControl(msg tea.KeyPressMsg) tea.Cmd {
	it := m.items.current()
	if it == nil {
		return nil
	}
	if m.feat.RunController == nil {
		m.setStatus("This backend has no run controls.", false)
		return nil
	}
	if m.heldUntilChosen() || m.held() {
		return nil
	}
	action, what := client.CancelRun, "Cancel (cannot be undone)"
	switch {
	case key.Matches(msg, m.keys.PauseRun):
		action, what = client.PauseRun, "Pause"
	case key.Matches(msg, m.keys.ResumeRun):
		action, what = client.ResumeRun, "Resume"
	}
	target := it.ID
	m.push(&promptScreen{
		question: what + " run " + safe(it.ThreadID) + " — " + safe(it.Title) + "?",
		yes:      "does it",
		no:       "does nothing",
		onYes:    []act{controlRun{id: target, action: action}},
		onNo:     []act{status{"Nothing done.", true}},
	})
	return nil
}

// askDiscard asks before throwing away the draft for it: what was typed
// and decided. Its claim on the server is cleared with it.
func (m *Model) askDiscard(it *client.Interrupt) tea.Cmd {
	if d := m.drafts[it.ID]; d == nil || !d.touched() {
		m.setStatus("No draft for "+present.ShortID(it.ID)+" to discard.", false)
		return nil
	}
	target := it.ID
	m.push(&promptScreen{
		question: "Discard your draft for " + safe(present.ShortID(it.ID)) + " — " + safe(it.Title) + "? What you typed and decided is lost.",
		yes:      "discards it",
		onYes:    []act{discardDraft{target}},
		onNo:     []act{status{"The draft is kept.", true}},
	})
	return nil
}
