package tui

import (
	"context"
	"encoding/json"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/present"
)

// When the interrupt on screen leaves the list without this reviewer
// having decided it, hitl asks the server what became of it, so that the
// reviewer reads "answered by bob at 12:03, approve" rather than a guess.

// winnerMsg is where an interrupt that left the list stands.
type winnerMsg struct {
	id       string
	standing client.Standing
	// here: the answer is from this machine's journal (another hitl with
	// the same state folder sent it), not from the server.
	here bool
	// hidden: another hitl on this machine found it answered elsewhere
	// (and hid it); the server's answer, not this reviewer's send, says.
	hidden bool
}

// onScreen is the interrupt the top screen shows or edits, if any.
func (m *Model) onScreen() *client.Interrupt {
	v := m.env()
	if it := m.items.get(v.shown(m.top())); it != nil {
		c := *it
		return &c
	}
	return nil
}

// detailOnly: the detail is open, with no step of deciding over it (an
// editor, a form, the confirm screen keep what the reviewer was doing).
func (m *Model) detailOnly() bool {
	detail, work := false, false
	for _, s := range m.stack {
		_, follows := s.(followsSelection)
		_, holds := s.(holdsWork)
		detail, work = detail || follows, work || holds
	}
	return detail && !work
}

// hasOpen: the reviewer has the interrupt id open: a screen shows or edits
// it (the detail, an editor, a form, the confirm screen), or it is the
// selected row beside the list (from 100 columns, the inbox in front).
func (m *Model) hasOpen(id string) bool {
	if id == "" {
		return false
	}
	if m.atInbox() {
		return m.lay.wide
	}
	v := m.env()
	for _, s := range m.stack {
		if v.shown(s) == id {
			return true
		}
	}
	return false
}

// lookUpWinner asks where it stands, once; the answer is a winnerMsg. An
// answer this machine's journal holds (another hitl with the same state
// folder sent it: the server may stop listing it before that hitl marks
// it handled) is told from the journal, as lookUpHere tells it.
func (m *Model) lookUpWinner(it client.Interrupt) tea.Cmd {
	b, ctx, j := m.opts.Backend, m.opts.Context, m.opts.Journal
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		st, err := b.Standing(c, []client.Interrupt{it})
		if err != nil || len(st) != 1 {
			return nil
		}
		if by := st[0].By; j != nil && st[0].Presence == client.Answered && (by == nil || by.Withdrawn == "") {
			if e, ok := j.Last(it.ID); ok && answeredBy(e, by) {
				return hereMsg(it.ID, e)
			}
		}
		return winnerMsg{id: it.ID, standing: st[0]}
	}
}

// hiddenElsewhere marks the answer of look as about an interrupt another
// hitl on this machine found answered elsewhere.
func hiddenElsewhere(look tea.Cmd) tea.Cmd {
	return func() tea.Msg {
		msg, ok := look().(winnerMsg)
		if !ok {
			return nil
		}
		msg.hidden = true
		return msg
	}
}

// answeredBy reports whether e, this machine's last decision on an
// interrupt the server says is answered (by, when it says what with), is
// that answer: it took effect, or it is on its way (an intent, no outcome
// yet) with the value the server has.
func answeredBy(e journal.Entry, by *client.Winner) bool {
	switch {
	case e.Outcome.Took():
		return true
	case e.Outcome != "" || e.DecisionID == "":
		return false // not sent, or another decision took effect first
	}
	return by == nil || len(by.Value) == 0 || len(e.Resume) == 0 || diff.Equal(by.Value, e.Resume)
}

// lookUpHere reads in the journal how another hitl on this machine (a
// command, another window: the same state folder) answered id; the answer
// is a winnerMsg, none when the journal does not tell.
func (m *Model) lookUpHere(id string) tea.Cmd {
	j := m.opts.Journal
	if j == nil {
		return nil
	}
	return func() tea.Msg {
		e, ok := j.Last(id)
		if !ok {
			return nil
		}
		return hereMsg(id, e)
	}
}

// hereMsg is what the journal's entry e says of id: answered by another
// hitl on this machine, by whom, when, what.
func hereMsg(id string, e journal.Entry) winnerMsg {
	w := &client.Winner{Reviewer: e.Reviewer, At: e.Time, Value: e.Resume}
	if len(w.Value) == 0 && len(e.Decisions) > 0 {
		// No resume value (a reject that stops the thread ends it
		// instead): the decisions say what was done.
		w.Value, _ = json.Marshal(e.Decisions)
	}
	return winnerMsg{id: id, standing: client.Standing{ID: id, Presence: client.Answered, By: w}, here: true}
}

// goneKind is what became of an interrupt that left the list.
type goneKind int

const (
	// goneAnswered: someone else answered it (gone.by says who, when, what).
	goneAnswered goneKind = iota + 1
	// goneWithdrawn: its agent, or the hub, took the request back.
	goneWithdrawn
	// goneDeleted: the server no longer knows it.
	goneDeleted
)

// gone is what the server told of an interrupt that left the list while on
// screen; it becomes words only where it is shown (sentence, short).
type gone struct {
	kind goneKind
	id   string
	by   *client.Winner // who answered it, when, and what; or why it was withdrawn
	here bool           // answered by another hitl on this machine (its journal says)
}

// goneOf reads a standing; ok is false while the interrupt still waits (a
// listing that missed it): nothing to say.
func goneOf(id string, st client.Standing) (gone, bool) {
	switch st.Presence {
	case client.Answered:
		if w := st.By; w != nil && w.Withdrawn != "" {
			return gone{kind: goneWithdrawn, id: id, by: w}, true
		}
		return gone{kind: goneAnswered, id: id, by: st.By}, true
	case client.Gone:
		return gone{kind: goneDeleted, id: id}, true
	}
	return gone{}, false
}

// sentence says it in full, made inert (the winner's words are the
// server's).
func (g gone) sentence() string {
	var text string
	switch g.kind {
	case goneAnswered:
		where := " was answered elsewhere"
		if g.here {
			where = " was answered by another hitl on this machine"
		}
		text = present.ShortID(g.id) + where + decide.WinnerText(g.by) + "."
	case goneWithdrawn:
		text = present.ShortID(g.id) + " was " + withdrawnBy(g.by) + ": " + g.by.Withdrawn + "."
	default:
		text = present.ShortID(g.id) + " is gone: the server no longer knows it (deleted?)."
	}
	return safe(text)
}

// short says it in a few words, for an editor's error line.
func (g gone) short() string {
	switch g.kind {
	case goneAnswered:
		if g.here {
			return "Answered by another hitl on this machine (see below); nothing of yours was sent."
		}
		return "Answered elsewhere (see below); nothing of yours was sent."
	case goneWithdrawn:
		return "W" + withdrawnBy(g.by)[1:] + " (see below); nothing of yours was sent."
	}
	return "Gone from the server; nothing of yours was sent."
}

// onWinner says what became of an interrupt that left the screen, where
// the reviewer is looking: the status line, and an open editor or form.
func (m *Model) onWinner(msg winnerMsg) {
	// A look-up that crossed the reviewer's own send: its result, not this
	// answer, says what became of the interrupt.
	if m.sending || (m.items.handled[msg.id] && !msg.here && !msg.hidden) {
		return
	}
	g, ok := goneOf(msg.id, msg.standing)
	if !ok {
		return // still waiting (a listing that missed it): nothing to say
	}
	g.here = msg.here
	if m.gone == nil {
		m.gone = map[string]gone{}
	}
	m.gone[msg.id] = g
	v := m.env()
	if t, ok := m.top().(goneTeller); ok && v.shown(m.top()) == msg.id {
		m.apply(t.onGone(v, g))
		return
	}
	m.setStatus(g.sentence(), false)
}

// keptGone says where the typed work on an interrupt that left the list
// is: its draft stays in drafts.json (never lose typed work), though the
// inbox no longer shows the interrupt.
const keptGone = " What you typed is kept in drafts.json in the state folder."

// goneShort is goneText in a few words, for the editor's error line.
func goneShort(gs map[string]gone, id string) string {
	if g, ok := gs[id]; ok {
		return g.short()
	}
	return "This interrupt is no longer pending (handled elsewhere?)."
}

// goneText says what became of an interrupt no longer listed: what the
// server told, or, until it has, that it is no longer pending.
func (m *Model) goneText(id string) string { return goneTextOf(m.gone, id) }

func goneTextOf(gs map[string]gone, id string) string {
	if g, ok := gs[id]; ok {
		return g.sentence()
	}
	return safe(present.ShortID(id)) + " is no longer pending (handled elsewhere?)."
}

// withdrawnBy says "withdrawn" and by whom, as far as the server tells.
func withdrawnBy(w *client.Winner) string {
	switch w.WithdrawnBy {
	case client.WithdrawnByHub:
		return "withdrawn by the hub"
	case client.WithdrawnByAgent:
		return "withdrawn by its agent"
	}
	return "withdrawn"
}
