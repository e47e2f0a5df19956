package tui

import (
	"encoding/json"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/present"
)

// What a screen asks of the app. A screen changes only its own state; all
// that screens share (the stack, the drafts, the status line, a send) is
// changed here, by the root, in the order the actions come.

// act is one change a screen asks for (an action; keys.go's action is
// what a key does).
type act interface {
	apply(m *Model) tea.Cmd
}

// apply carries out a screen's actions in order.
func (m *Model) apply(as []act) tea.Cmd {
	var cmds []tea.Cmd
	for _, a := range as {
		if c := a.apply(m); c != nil {
			cmds = append(cmds, c)
		}
	}
	return tea.Batch(cmds...)
}

// run is a command to start (an external editor, a screen's own request).
type runCmd struct{ cmd tea.Cmd }

func (a runCmd) apply(*Model) tea.Cmd { return a.cmd }

// run wraps a command as the actions of a screen.
func run(cmd tea.Cmd) []act {
	if cmd == nil {
		return nil
	}
	return []act{runCmd{cmd}}
}

// pushScreen puts a screen in front.
type pushScreen struct{ s screen }

func (a pushScreen) apply(m *Model) tea.Cmd { m.push(a.s); return nil }

// popScreen closes the screen in front.
type popScreen struct{}

func (popScreen) apply(m *Model) tea.Cmd { m.pop(); return nil }

// goHome closes every screen over the inbox (the interrupt shown is gone:
// a detail would now show another one).
type goHome struct{}

func (goHome) apply(m *Model) tea.Cmd { m.home(); return nil }

// unchanged: the message changed nothing on screen (no frame is drawn).
type unchanged struct{}

func (unchanged) apply(m *Model) tea.Cmd { m.quiet = true; return nil }

// status sets the status line.
type status struct {
	text string
	ok   bool
}

func (a status) apply(m *Model) tea.Cmd { m.setStatus(a.text, a.ok); return nil }

// clearStatus empties the status line (the screen says it better).
type clearStatus struct{}

func (clearStatus) apply(m *Model) tea.Cmd { m.status = ""; return nil }

// draftEdit is typed work to keep in an interrupt's draft, for one action
// (slot); nil fields are left as they are.
type draftEdit struct {
	id       string
	slot     int
	args     *string  // the arguments, as JSON text
	feedback *string  // a message, a response, or an answer as JSON
	answers  []string // the answers to questions (nil: unchanged)
}

// saveDraft keeps typed work in the draft.
type saveDraft struct{ e draftEdit }

func (a saveDraft) apply(m *Model) tea.Cmd { m.keep(a.e); return nil }

// keep writes e into its draft, if the draft is there. This is the one
// place the rule lives: arguments the same as those proposed are not a
// draft (kept as "", as never opened), so an editor opened and left with
// nothing changed leaves no ✎, nothing in drafts.json and no claim.
// Anything else typed is kept as typed.
func (m *Model) keep(e draftEdit) {
	d := m.drafts[e.id]
	if d == nil || e.slot >= len(d.decisions) {
		return
	}
	if e.args != nil {
		text := *e.args
		if it := m.items.get(e.id); it != nil && e.slot < len(it.Actions) && asProposed(it.Actions[e.slot].Args, text) {
			text = ""
		}
		d.argsText[e.slot] = text
	}
	if e.feedback != nil {
		d.feedback[e.slot] = *e.feedback
	}
	if e.answers != nil {
		d.answers[e.slot] = e.answers
	}
}

// asProposed reports whether text is the arguments as proposed: the same
// JSON value (diff.Equal, the test that makes an unchanged edit an
// approve), whatever its spacing.
func asProposed(args json.RawMessage, text string) bool {
	if strings.TrimSpace(text) == strings.TrimSpace(present.EditableJSON(args)) {
		return true
	}
	return json.Valid([]byte(text)) && diff.Equal([]byte(text), args)
}

// record records a decision for one action of an interrupt, then moves to
// the next undecided action, or to the confirm screen.
type record struct {
	id   string
	slot int
	dec  client.Decision
}

func (a record) apply(m *Model) tea.Cmd {
	it := m.items.get(a.id)
	if it == nil {
		return nil
	}
	d := m.drafts.of(it)
	d.slot = a.slot
	dec := a.dec
	d.decisions[a.slot] = &dec
	d.confirming = false // the reviewer's own decision now
	m.advance(it, d)
	return nil
}

// send sends a prepared submission, once.
type send struct{ sub *client.Submission }

func (a send) apply(m *Model) tea.Cmd {
	if m.sending || m.checking {
		return nil
	}
	m.sending = true
	m.setStatus("Sending…", true)
	ctx, cancel := ctxFor(2 * time.Minute)
	m.stopSend = cancel
	return tea.Batch(m.send(ctx, cancel, a.sub), m.spin.Tick)
}

// toggleDiffLayout switches diffs between unified and side by side, on
// every screen.
type toggleDiffLayout struct{}

func (toggleDiffLayout) apply(m *Model) tea.Cmd { m.sideBySide = !m.sideBySide; return nil }

// toggleStop makes every decision of the draft stop the thread there too,
// or not.
type toggleStop struct{ id string }

func (a toggleStop) apply(m *Model) tea.Cmd {
	if it := m.items.get(a.id); it != nil {
		for _, dec := range m.drafts.of(it).decisions {
			dec.Stop = !dec.Stop
		}
		m.refreshScreens()
	}
	return nil
}

// toJSON closes a form and opens the JSON editor on what it holds; with
// external, that editor opens $EDITOR at once.
type toJSON struct {
	id       string
	slot     int
	decision client.DecisionType
	external tea.KeyPressMsg // the key that opens $EDITOR, or none
	focus    int             // the form's field in focus, for esc back to it
}

func (a toJSON) apply(m *Model) tea.Cmd {
	it := m.items.get(a.id)
	if it == nil {
		return nil
	}
	d := m.drafts.of(it)
	d.slot = a.slot
	m.pop()
	var cmd tea.Cmd
	var ed *editorScreen
	if a.decision == client.Edit {
		ed = newArgsEditor(it, d)
		m.push(ed)
		cmd = ed.focus()
	} else {
		// The form's own JSON, not the schema's skeleton: no answer the
		// reviewer did not choose.
		if form, err := client.FormOf(it.ResponseSchema); err == nil && strings.TrimSpace(d.feedback[d.slot]) == "" {
			d.feedback[d.slot] = formJSON(form)
		}
		ed, cmd = m.openAnswerJSON(it, d, "as JSON, checked against the answer schema")
	}
	ed.fromForm, ed.formFocus = true, a.focus // esc: back to the form (formopen.go)
	if a.external.Code == 0 {
		return cmd
	}
	// ctrl+e: the whole value, as the JSON editor holds it, in $EDITOR;
	// what is saved there comes back to that editor, which checks and
	// accepts it as it does what is typed.
	return tea.Batch(cmd, m.apply(ed.key(m.env(), a.external)))
}

// askQuit quits, or asks first while a decision is being sent.
type askQuit struct{}

func (askQuit) apply(m *Model) tea.Cmd { return m.askQuit() }

// loadConversation shows a thread's conversation, loading it.
type loadConversation struct{ thread string }

func (a loadConversation) apply(m *Model) tea.Cmd {
	m.convs[a.thread] = &conversation{loading: true}
	return m.loadConversation(a.thread)
}

// quitApp quits (after the decision being sent is recorded).
type quitApp struct{}

func (quitApp) apply(m *Model) tea.Cmd { return m.quit() }

// controlRun pauses, resumes or cancels the run of an interrupt's thread.
type controlRun struct {
	id     string
	action client.RunAction
}

func (a controlRun) apply(m *Model) tea.Cmd {
	it := m.items.get(a.id)
	if it == nil {
		m.setStatus("That interrupt is gone; nothing done.", false)
		return nil
	}
	return m.controlRun(*it, a.action)
}

// discardDraft throws the draft away (its claim goes with it).
type discardDraft struct{ id string }

func (a discardDraft) apply(m *Model) tea.Cmd {
	delete(m.drafts, a.id)
	m.setStatus("Draft for "+present.ShortID(a.id)+" discarded.", true)
	return tea.Batch(m.persistDrafts(), m.syncClaims())
}
