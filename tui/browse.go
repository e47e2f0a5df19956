package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
)

// The keys the inbox and the detail screen share, and what they ask of
// the app: screens to open (rooms, screen.go), a refresh, the detail pane scrolled, a
// decision on the selected interrupt (decisions.go).

// browseKey is what a browsing key asks for; false: not one of them.
func browseKey(v *env, msg tea.KeyPressMsg) ([]act, bool) {
	k := v.keys
	switch {
	case key.Matches(msg, k.Quit):
		return []act{askQuit{}}, true
	}
	for _, r := range rooms {
		if key.Matches(msg, r.key(k)) {
			return r.open(v), true
		}
	}
	switch {
	case key.Matches(msg, k.Refresh):
		return []act{refresh{}}, true
	case key.Matches(msg, k.Check):
		return []act{checkUnknown{}}, true
	case key.Matches(msg, k.ScrollDown, k.ScrollUp):
		return []act{scrollDetail{msg}}, true
	case key.Matches(msg, k.Suspend):
		return []act{runCmd{tea.Suspend}}, true
	case key.Matches(msg, k.Conversation):
		return []act{toggleConversation{}}, true
	case key.Matches(msg, k.PauseRun, k.ResumeRun, k.CancelRun):
		return []act{askRunControl{msg}}, true
	}
	return nil, false
}

// decisionHints are the decision keys for it, those the current action
// does not allow marked off.
func decisionHints(v *env, it *client.Interrupt) []hint {
	slot := v.drafts.slot(it)
	var out []hint
	for _, x := range decisionKinds(&v.keys) {
		out = append(out, hint{b: *x.b, off: v.viewOnly || !it.Allows(slot, x.t)})
	}
	if len(it.Always) > 0 {
		out = append(out, hint{b: v.keys.ApproveAlways, off: v.viewOnly || !it.Allows(slot, client.Approve)})
	}
	if it.Slots() > 1 {
		out = append(out, hint{b: v.keys.NextAction})
	}
	if _, err := v.drafts.peek(it).complete(); err == nil && it.Slots() > 0 && !v.viewOnly {
		// Every action has its decision (or a decision kept, back from
		// the confirm screen, a send that failed): s sends it. Before
		// that it would only say which action has none.
		out = append(out, hint{b: v.keys.Submit})
	}
	return out
}

// moreHints are the keys of the inbox and the detail beyond the decisions,
// offered where the bar has room: dismiss, the conversation, the history,
// the failed runs.
func moreHints(v *env, it *client.Interrupt) []hint {
	k := v.keys
	var out []hint
	if it != nil && v.endsThreads && !v.viewOnly {
		// A fan-out branch cannot end its thread alone (decide.EndsAlone):
		// not allowed there; pressed, x says why.
		// Nor can a coding agent's request (its agent waits for an
		// answer), nor an interrupt of a source that ends no thread.
		alone := decide.EndsAlone([]decide.Draft{{Interrupt: *it, Decisions: []client.Decision{{Type: client.Dismiss}}}}, v.items.all)
		out = append(out, hint{b: withHelp(k.End, "dismiss"), more: true, off: alone != nil || !v.endsAt(*it)})
	}
	if it != nil && v.conversational && it.Origin == nil {
		// The toggle says what pressing it does now; from the list alone
		// (below 100 columns) c always opens the detail on it.
		conv := k.Conversation
		narrowList := v.atInbox && !v.lay.wide
		if v.detail.id == it.ID && v.detail.showConv && !narrowList {
			conv = withHelp(conv, "hide conversation")
		}
		out = append(out, hint{b: conv, more: true})
	}
	for _, r := range rooms {
		if r.offered != nil && r.offered(v, it) {
			out = append(out, hint{b: r.key(k), more: true})
		}
	}
	return out
}

// refresh lists again, now.
type refresh struct{}

func (refresh) apply(m *Model) tea.Cmd {
	m.items.newCount = 0
	return m.refetch()
}

// checkUnknown looks up, again, decisions whose outcome is unknown.
type checkUnknown struct{}

func (checkUnknown) apply(m *Model) tea.Cmd { return m.check() }

// scrollDetail scrolls the detail pane by a scrolling key.
type scrollDetail struct{ msg tea.KeyPressMsg }

func (a scrollDetail) apply(m *Model) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(a.msg, k.ScrollDown):
		m.detail.vp.HalfPageDown()
	case key.Matches(a.msg, k.ScrollUp):
		m.detail.vp.HalfPageUp()
	default:
		scroll(&m.detail.vp, k, a.msg)
	}
	return nil
}

// toggleConversation shows or hides the selected thread's conversation.
type toggleConversation struct{}

func (toggleConversation) apply(m *Model) tea.Cmd { return m.toggleConversation() }

// askRunControl asks before pausing, resuming or cancelling the selected
// interrupt's run.
type askRunControl struct{ msg tea.KeyPressMsg }

func (a askRunControl) apply(m *Model) tea.Cmd { return m.askRunControl(a.msg) }

// decideKey is a decision key on an interrupt (decisions.go): the one
// selected, or, with id, one a failed run left.
type decideKey struct {
	id  string
	msg tea.KeyPressMsg
}

func (a decideKey) apply(m *Model) tea.Cmd {
	if a.id == "" {
		return m.decisionKey(a.msg)
	}
	return m.decisionKeyOn(m.items.get(a.id), a.msg)
}
