package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
)

// editorKind is what the editor is editing.
type editorKind int

const (
	editArgs editorKind = iota
	editFeedback
)

// editorScreen edits an action's arguments (as JSON), or a reject message,
// a response or feedback (with one field per question for the answers).
// What is typed is kept in the draft whatever happens: leaving, a failed
// check, the interrupt vanishing.
type editorScreen struct {
	kind     editorKind
	decision client.DecisionType // reject or respond, for feedback
	id       string
	slot     int
	fields   []textarea.Model // args: one; feedback: the message, then one per question
	focused  int
	labels   []string
	err      string
	// goneErr: err says the interrupt left the list (cleared if it returns).
	goneErr bool
	// about is what is being answered (a prompt's question), shown above
	// the text; aboutLines is it wrapped to the width (three lines at most).
	about      string
	aboutLines []string
	// fromForm: the form's JSON view (ctrl+j): esc goes back to the form,
	// on what was typed here, its field formFocus in focus.
	fromForm  bool
	formFocus int
}

func (*editorScreen) decisionStep() {}

// holdsWork: what it holds for its interrupt is not given up unasked.
func (*editorScreen) holdsWork() {}

func (ed *editorScreen) shows(*env) string { return ed.id }

// typed is what is typed, for the draft.
func (ed *editorScreen) typed() (draftEdit, bool) {
	e := draftEdit{id: ed.id, slot: ed.slot}
	text := ed.fields[0].Value()
	if ed.kind == editArgs {
		e.args = &text
		return e, true
	}
	e.feedback = &text
	if len(ed.fields) > 1 {
		e.answers = []string{}
		for _, f := range ed.fields[1:] {
			e.answers = append(e.answers, strings.TrimSpace(f.Value()))
		}
	}
	return e, true
}

// save keeps what was typed in the draft, whatever happens next.
func (ed *editorScreen) save() act {
	e, _ := ed.typed()
	return saveDraft{e}
}

// refresh: the interrupt left the list (its text is kept), or came back.
func (ed *editorScreen) refresh(v *env) {
	if v.items.get(ed.id) == nil {
		ed.err, ed.goneErr = goneShort(v.gone, ed.id)+" Your text is kept; "+name(v.keys.Back)+" leaves.", true
	} else if ed.goneErr {
		ed.err, ed.goneErr = "", false
	}
}

// onGone: the short word on the error line, the whole story (who, when,
// what) in the status.
func (ed *editorScreen) onGone(v *env, g gone) []act {
	ed.err, ed.goneErr = g.short()+" Your text is kept; "+name(v.keys.Back)+" leaves.", true
	return []act{status{g.sentence(), false}}
}

// newArgsEditor edits the arguments of the current action as indented JSON.
func newArgsEditor(it *client.Interrupt, d *draft) *editorScreen {
	text := d.argsText[d.slot]
	if text == "" {
		text = present.EditableJSON(it.Actions[d.slot].Args)
	}
	return &editorScreen{kind: editArgs, decision: client.Edit, id: it.ID, slot: d.slot,
		fields: []textarea.Model{newTextarea(text)}, labels: []string{"Arguments of " + it.Actions[d.slot].Name + " (JSON)"}}
}

// newFeedbackEditor edits a reject message or a response; for questions,
// one more field per question takes the answers.
func newFeedbackEditor(it *client.Interrupt, d *draft, t client.DecisionType) *editorScreen {
	label := "Reason for rejecting (sent to the agent)"
	if d.slot < len(it.Actions) {
		// Which call is being rejected, when there are calls: with
		// several, the label is all that tells them apart.
		label = fmt.Sprintf("Reason for rejecting %s (sent to the agent)", safe(it.Actions[d.slot].Name))
		if len(it.Actions) > 1 {
			label = fmt.Sprintf("Reason for rejecting action %d/%d %s (sent to the agent)", d.slot+1, len(it.Actions), safe(it.Actions[d.slot].Name))
		}
	}
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
	ed := &editorScreen{kind: editFeedback, decision: t, id: it.ID, slot: d.slot,
		fields: []textarea.Model{newTextarea(d.feedback[d.slot])}, labels: []string{label}}
	switch {
	case t == client.Respond && it.Schema == client.SchemaPrompt:
		ed.about = it.Title // the question, in view while it is answered
	case t == client.Respond && it.Schema == client.SchemaRaw:
		// No known shape, so no title: its gist tells one fan-out branch
		// from another ("question: Ship 1842 to eu-west-1?").
		ed.about = present.Summary(*it)
	}
	if t == client.Respond && it.Schema == client.SchemaQuestions {
		for i, q := range it.Questions {
			a := ""
			if i < len(d.answers[d.slot]) {
				a = d.answers[d.slot][i]
			}
			ed.fields = append(ed.fields, newTextarea(a))
			ed.labels = append(ed.labels, fmt.Sprintf("Answer %d: %s", i+1, q))
		}
	}
	return ed
}

func newTextarea(text string) textarea.Model {
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
	ta.SetValue(text)
	ta.MoveToBegin()
	return ta
}

func (ed *editorScreen) focus() tea.Cmd { return ed.fields[ed.focused].Focus() }

func (ed *editorScreen) resize(v *env) {
	w, hs := v.lay.editorFields(len(ed.fields))
	ed.aboutLines = nil
	if strings.TrimSpace(ed.about) != "" {
		ed.aboutLines = strings.Split(ansi.Wrap(safeBlock(ed.about), w, " "), "\n")
		if len(ed.aboutLines) > 3 {
			ed.aboutLines = ed.aboutLines[:3]
			ed.aboutLines[2] = ansi.Truncate(ed.aboutLines[2], w-2, "") + " …"
		}
		hs[0] = max(hs[0]-len(ed.aboutLines), 3)
	}
	for i := range ed.fields {
		ed.fields[i].SetWidth(w)
		ed.fields[i].SetHeight(hs[i])
	}
}

func (ed *editorScreen) key(v *env, msg tea.KeyPressMsg) []act {
	k := v.keys
	switch {
	case key.Matches(msg, k.Back):
		if v.items.get(ed.id) == nil {
			// Not back to a detail that would now show another interrupt.
			return []act{ed.save(), goHome{}, status{v.goneText(ed.id) + keptGone, false}}
		}
		if ed.fromForm {
			return []act{ed.save(), toForm{ed}}
		}
		return []act{ed.save(), popScreen{}}
	case key.Matches(msg, k.External):
		if v.noExternalEditor {
			ed.err = noExternalEditor
			return nil
		}
		ext := ".txt"
		if ed.kind == editArgs {
			ext = ".json"
		}
		return []act{ed.save(), runCmd{externalEdit(v.editor, ed.fields[ed.focused].Value(), ext)}}
	case key.Matches(msg, k.NextField, k.PrevField) && len(ed.fields) > 1:
		step := 1
		if key.Matches(msg, k.PrevField) {
			step = len(ed.fields) - 1
		}
		ed.fields[ed.focused].Blur()
		ed.focused = (ed.focused + step) % len(ed.fields)
		return run(ed.focus())
	case key.Matches(msg, k.Accept):
		return ed.accept(v)
	}
	var cmd tea.Cmd
	ed.fields[ed.focused], cmd = ed.fields[ed.focused].Update(msg)
	return run(cmd)
}

// noExternalEditor says why ctrl+e opens nothing in a hub's session.
const noExternalEditor = "no external editor here: it would run on the hub's machine; type in the box (ctrl+j shows a form's JSON)"

// editorCommand is the external editor: $VISUAL, else $EDITOR, else vi
// (as git and crontab do).
func (m *Model) editorCommand() string {
	if e := strings.TrimSpace(m.opts.Editor); e != "" {
		return e
	}
	return "vi"
}

// receive takes what the external editor saved, and the text field's own
// messages.
func (ed *editorScreen) receive(v *env, msg tea.Msg) ([]act, bool) {
	if msg, ok := msg.(externalEditMsg); ok {
		if msg.err != nil {
			ed.err = "editor " + safe(v.editor) + ": " + safe(msg.err.Error()) + " (set $VISUAL or $EDITOR to the editor to use)"
		} else {
			ed.fields[ed.focused].SetValue(strings.TrimRight(msg.text, "\n"))
			ed.err = ""
		}
		return nil, true
	}
	if v.front != ed {
		return nil, false
	}
	var cmd tea.Cmd
	ed.fields[ed.focused], cmd = ed.fields[ed.focused].Update(msg)
	return run(cmd), true
}

// accept checks the text and records the decision; on an error the draft
// stays and the error shows next to it.
func (ed *editorScreen) accept(v *env) []act {
	save := ed.save()
	it := v.items.get(ed.id)
	if it == nil {
		ed.err = "this interrupt is no longer pending; your text is kept until you leave"
		return []act{save}
	}
	e, _ := ed.typed()
	in := decide.Input{Type: ed.decision}
	if e.feedback != nil {
		in.Text, in.Answers = *e.feedback, e.answers
	}
	if ed.kind == editArgs {
		in = decide.Input{Type: client.Edit, Args: ed.fields[0].Value()}
	}
	// The same rules as the CLI's: unchanged args are an approve, JSON
	// typed for a raw payload is sent as JSON, answers match the questions.
	dec, err := decide.Decision(it, ed.slot, in)
	if err != nil {
		ed.err = err.Error()
		return []act{save}
	}
	if ed.kind == editFeedback && dec.Message == "" && dec.Value == nil && it.RequiresMessage(ed.decision) {
		ed.err = "this interrupt needs feedback text for " + string(ed.decision)
		return []act{save}
	}
	out := []act{save}
	if ed.kind == editArgs && dec.Type == client.Approve {
		out = append(out, status{"The arguments are unchanged: recorded as approve.", true})
	}
	return append(out, record{id: ed.id, slot: ed.slot, dec: dec})
}

func (ed *editorScreen) view(v *env, r rect) string {
	var b strings.Builder
	for _, l := range ed.aboutLines {
		b.WriteString(v.st.faint.Render(l) + "\n")
	}
	for i, f := range ed.fields {
		label := ed.labels[i]
		if i == ed.focused && len(ed.fields) > 1 {
			label = "▸ " + label
		}
		b.WriteString(v.st.bold.Render(ansi.Truncate(safe(label), r.w, "…")) + "\n")
		b.WriteString(f.View() + "\n")
	}
	if ed.err != "" {
		// Two lines are kept for it (layout.editorFields): a longer error
		// is folded there, marked.
		lines := strings.Split(wrapWords("✗ "+safe(ed.err), r.w), "\n")
		if ed.goneErr || len(lines) > 1 {
			if len(lines) > 2 {
				lines = lines[:2]
				lines[1] = ansi.Truncate(lines[1], r.w-2, "") + " …"
			}
			b.WriteString(v.st.err.Render(strings.Join(lines, "\n")) + "\n")
			return b.String()
		}
		b.WriteString(v.st.err.Render(lines[0]) + "\n")
		b.WriteString(v.st.faint.Render(ansi.Truncate(fmt.Sprintf("Your text is kept: fix it and press %s, or %s to leave it as a draft.", name(v.keys.Accept), name(v.keys.Back)), r.w, "…")) + "\n")
	}
	return b.String()
}

func (ed *editorScreen) hints(v *env) []hint {
	k := v.keys
	if ed.goneErr {
		return append(v.external(), hint{b: k.Back}) // nothing to accept: the interrupt is gone
	}
	out := append(on(k.Accept), v.external()...)
	if len(ed.fields) > 1 {
		out = append(out, hint{b: k.NextField}, hint{b: k.PrevField})
	}
	if ed.fromForm {
		return append(out, hint{b: withHelp(k.Back, "back to the form")})
	}
	return append(out, hint{b: k.Back})
}
