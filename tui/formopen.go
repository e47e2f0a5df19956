package tui

import (
	"encoding/json"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/diff"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// How a form opens (form.go is the form screen itself): on an answer
// schema for a respond, on an action's args_schema for an edit; on the
// draft when there is one, or the arguments, or the schema's defaults; and
// when the schema makes no form or the value cannot be shown in one, the
// JSON editor instead.

// openForm opens what answers decision t on it when its schema gives the
// answer's shape: the form, or, where the schema makes no form, the JSON
// editor started from a skeleton of it. It reports false when neither
// applies (the usual editors do).
func (m *Model) openForm(it *client.Interrupt, d *draft, t client.DecisionType) (tea.Cmd, bool) {
	if t == client.Edit {
		return m.openArgsForm(it, d)
	}
	if t != client.Respond || it.Schema != client.SchemaForm {
		return nil, false
	}
	form, err := client.FormOf(it.ResponseSchema)
	if err != nil || !formReads(form, d.feedback[d.slot]) {
		why := "as JSON (the form cannot show what this draft holds)"
		if err != nil {
			why = "as JSON (" + strings.TrimPrefix(err.Error(), "no form for this schema: ") + ")"
		}
		_, cmd := m.openAnswerJSON(it, d, why)
		return cmd, true
	}
	s := newFormScreen(it, d, form)
	m.push(s)
	return s.focus(), true
}

// openArgsForm opens the form of an action's args_schema on its arguments
// (or the draft of them). It reports false, and the JSON editor opens,
// when the action has no schema, the schema makes no form, or the
// arguments are not exactly what the form would show: an edit never
// changes what the reviewer did not see.
func (m *Model) openArgsForm(it *client.Interrupt, d *draft) (tea.Cmd, bool) {
	if d.slot >= len(it.Actions) || len(it.Actions[d.slot].ArgsSchema) == 0 {
		return nil, false
	}
	a := it.Actions[d.slot]
	args := a.Args
	if text := strings.TrimSpace(d.argsText[d.slot]); text != "" {
		if !json.Valid([]byte(text)) {
			return nil, false // a draft being written as JSON stays there
		}
		args = json.RawMessage(text)
	}
	form, err := client.FormFor(a.ArgsSchema, args) // every argument a field can hold, named by the schema or not
	if err != nil || form.Root {
		return nil, false
	}
	texts := decide.FieldTexts(form, args)
	s := &formScreen{id: it.ID, slot: d.slot, title: "Arguments of " + a.Name, decision: client.Edit, base: args,
		form: form, errs: map[string]string{}, opened: d.argsText[d.slot]}
	for _, f := range form.Fields {
		s.fields = append(s.fields, newFormField(f, texts[f.Name]))
	}
	// What the fields hold, put back over the arguments, must be them.
	if s.fresh = s.texts(); !diff.Equal(decide.FormDraft(form, args, s.fresh), args) {
		return nil, false
	}
	m.push(s)
	return s.focus(), true
}

// toForm leaves the JSON view of a form for the form (backToForm).
type toForm struct{ ed *editorScreen }

func (a toForm) apply(m *Model) tea.Cmd { return a.ed.backToForm(m) }

// backToForm leaves the JSON view of a form (ctrl+j there) for the form,
// opened on what was typed as JSON. JSON the form cannot show (it does not
// parse yet, or holds what no field shows) stays here, and says so; esc
// again leaves, keeping it.
func (ed *editorScreen) backToForm(m *Model) tea.Cmd {
	it := m.items.get(ed.id)
	d := m.drafts.of(it)
	d.slot = ed.slot
	m.pop()
	var cmd tea.Cmd
	ok := false
	if ed.decision == client.Edit {
		cmd, ok = m.openArgsForm(it, d)
	} else if form, err := client.FormOf(it.ResponseSchema); err == nil && it.Schema == client.SchemaForm && formReads(form, d.feedback[d.slot]) {
		s := newFormScreen(it, d, form)
		m.push(s)
		cmd, ok = s.focus(), true
	}
	if !ok {
		m.push(ed)
		ed.fromForm = false
		ed.err = "the form cannot show this JSON (it does not parse, or holds what no field shows): fix it here, or " + name(m.keys.Back) + " again to leave (what you typed is kept)"
		return nil
	}
	if s, ok := m.top().(fieldFocuser); ok {
		if c, moved := s.focusField(ed.formFocus); moved {
			cmd = c
		}
	}
	return cmd
}

// openAnswerJSON opens the JSON editor on the draft answer, or on a
// skeleton of the schema when there is none.
func (m *Model) openAnswerJSON(it *client.Interrupt, d *draft, why string) (*editorScreen, tea.Cmd) {
	if strings.TrimSpace(d.feedback[d.slot]) == "" {
		d.feedback[d.slot] = present.EditableJSON(client.Skeleton(it.ResponseSchema))
	}
	ed := newFeedbackEditor(it, d, client.Respond)
	ed.labels[0] = "Your answer, " + why
	m.push(ed)
	return ed, ed.focus()
}

// formReads reports whether a draft can be shown in the form: empty, or
// JSON of the form's shape that the fields hold whole (a draft being
// written as JSON that does not parse yet, or holds a key no field shows
// or a choice no list offers, stays in the JSON editor, where it was
// typed: the form would drop it unsaid).
func formReads(form *client.Form, text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || form.Root {
		return true
	}
	if !strings.HasPrefix(text, "{") || !json.Valid([]byte(text)) {
		return false
	}
	// What the fields hold, opened on it, put back as JSON, must be it.
	v := json.RawMessage(text)
	texts := decide.FieldTexts(form, v)
	shown := &formScreen{form: form}
	for _, f := range form.Fields {
		shown.fields = append(shown.fields, newFormField(f, texts[f.Name]))
	}
	return diff.Equal(decide.FormDraft(form, nil, shown.texts()), v)
}

// formJSON is what a form holds when it opens on no draft, as JSON: the
// JSON view starts there, with no value the reviewer did not choose (empty
// when the form makes none).
func formJSON(form *client.Form) string {
	if form.Root {
		return ""
	}
	return present.EditableJSON(decide.FormDraft(form, nil, newFormScreenTexts(form)))
}

func newFormScreen(it *client.Interrupt, d *draft, form *client.Form) *formScreen {
	s := &formScreen{id: it.ID, slot: d.slot, title: it.Title, decision: client.Respond, form: form, errs: map[string]string{}, opened: d.feedback[d.slot]}
	texts := map[string][]string{}
	if text := strings.TrimSpace(d.feedback[d.slot]); text != "" {
		if form.Root && !json.Valid([]byte(text)) {
			texts[client.RootField] = []string{text}
		} else {
			texts = decide.FieldTexts(form, json.RawMessage(text))
		}
	}
	for _, f := range form.Fields {
		given, ok := texts[f.Name]
		if !ok && f.Default != nil {
			given = defaultTexts(f)
		}
		s.fields = append(s.fields, newFormField(f, given))
	}
	return s
}

// defaultTexts is the text a field starts with from its schema's default.
// A default that holds what a terminal would act on or hide (an escape,
// a bidi override, a zero-width character) is not put in the box, where it
// would show raw or lose those characters silently: the field starts empty,
// and its line shows the default with them as visible escapes.
func defaultTexts(f client.Field) []string {
	texts := decide.FieldTexts(&client.Form{Root: true, Fields: []client.Field{{Name: client.RootField, Kind: f.Kind, Item: f.Item}}}, f.Default)[client.RootField]
	for _, t := range texts {
		if inert.Check(t) != 0 {
			return nil
		}
	}
	return texts
}

// newFormScreenTexts is what a form holds when it opens on no draft.
func newFormScreenTexts(form *client.Form) map[string][]string {
	fresh := &formScreen{form: form}
	for _, f := range form.Fields {
		var given []string
		if f.Default != nil {
			given = defaultTexts(f)
		}
		fresh.fields = append(fresh.fields, newFormField(f, given))
	}
	return fresh.texts()
}
