package tui

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
)

// formScreen answers an interrupt whose response schema makes a form, or
// edits a tool call's arguments by its args_schema: one field per value of
// the schema, typed by it (a choice list, a toggle, a number with its
// bounds, a text), required ones marked *. ctrl+s checks the value by the
// rules the CLI's --field uses (decide.Decision) and puts each problem
// next to its field; esc leaves, keeping what was typed as the draft (the
// JSON the JSON editor opens on, ctrl+j).
type formScreen struct {
	id    string
	slot  int
	title string
	// decision is Respond (the answer, kept in the draft's feedback) or
	// Edit (the arguments, kept in its argsText); base is what an edit
	// starts from: keys the form does not show keep their values.
	decision client.DecisionType
	base     json.RawMessage
	form     *client.Form
	fields   []*formField
	focused  int
	// offset is the first line shown, when the form is taller than the
	// screen.
	offset int
	// errs are the problems by field; err the answer's as a whole.
	errs map[string]string
	err  string
	// opened is the draft as the form opened on it: saved again only
	// when something changed. fresh, for an edit, is what the fields held
	// when it opened.
	opened string
	fresh  map[string][]string
}

// The form is a step of deciding (closed when a decision is recorded) that
// holds typed work (claimed for the team, its text saved on quit).
func (*formScreen) decisionStep() {}

// holdsWork: what it holds for its interrupt is not given up unasked.
func (*formScreen) holdsWork() {}

func (s *formScreen) shows(*env) string { return s.id }

// onGone: the status says what became of it, and that the typing is kept.
func (s *formScreen) onGone(v *env, g gone) []act {
	return []act{status{g.sentence() + " What you typed is kept; " + name(v.keys.Back) + " leaves.", false}}
}

func (s *formScreen) texts() map[string][]string {
	out := map[string][]string{}
	for _, ff := range s.fields {
		if t, ok := ff.texts(); ok {
			out[ff.f.Name] = t
		}
	}
	return out
}

func (s *formScreen) focus() tea.Cmd {
	ff := s.fields[s.focused]
	switch {
	case !ff.typesText():
		return nil
	case ff.multi:
		return ff.area.Focus()
	}
	return ff.input.Focus()
}

// focusField puts the focus on field i, if the form has it.
func (s *formScreen) focusField(i int) (tea.Cmd, bool) {
	if i >= len(s.fields) {
		return nil, false
	}
	s.blur()
	s.focused = i
	return s.focus(), true
}

func (s *formScreen) blur() {
	ff := s.fields[s.focused]
	if ff.multi {
		ff.area.Blur()
	} else if ff.typesText() {
		ff.input.Blur()
	}
}

func (s *formScreen) move(by int) tea.Cmd {
	s.blur()
	s.focused = (s.focused + by + len(s.fields)) % len(s.fields)
	return s.focus()
}

func (s *formScreen) resize(v *env) {
	lines := 4
	if v.lay.body.h < 30 {
		lines = 3
	}
	for _, ff := range s.fields {
		// The width left of the field's indent (4, 6 in a group).
		w := v.lay.body.w - 4
		if ff.f.Group != "" {
			w -= 2
		}
		w = max(w, 12)
		if ff.multi {
			ff.area.SetWidth(w)
			ff.area.SetHeight(lines)
		} else if ff.typesText() {
			ff.input.SetWidth(w - 3) // the prompt, and the cursor past the end
		}
	}
}

func (s *formScreen) key(v *env, msg tea.KeyPressMsg) []act {
	as := s.handle(v, msg)
	for _, a := range as {
		switch a.(type) {
		case saveDraft, popScreen, goHome, toJSON, record:
			return as // saved already, or leaving (having saved)
		}
	}
	// Every key: quitting or a crash loses nothing typed.
	return append(as, s.save()...)
}

func (s *formScreen) handle(v *env, msg tea.KeyPressMsg) []act {
	k := v.keys
	ff := s.fields[s.focused]
	switch {
	case key.Matches(msg, k.Back):
		save := s.save()
		if v.items.get(s.id) == nil {
			return append(save, goHome{}, status{v.goneText(s.id) + keptGone, false})
		}
		return append(save, popScreen{})
	case key.Matches(msg, k.Accept):
		return s.accept(v)
	case key.Matches(msg, k.External) && v.noExternalEditor:
		s.err = noExternalEditor
		return nil
	case key.Matches(msg, k.RawJSON, k.External):
		save := s.save()
		if v.items.get(s.id) == nil {
			s.err = "this interrupt is no longer pending; what you typed is kept until you leave"
			return save
		}
		to := toJSON{id: s.id, slot: s.slot, decision: s.decision}
		if key.Matches(msg, k.External) {
			to.external = msg
		}
		to.focus = s.focused // esc in the JSON editor comes back to this field
		return append(save, to)
	case key.Matches(msg, k.NextField):
		return run(s.move(1))
	case key.Matches(msg, k.PrevField):
		return run(s.move(-1))
	case key.Matches(msg, k.PageDown):
		s.offset += max(v.lay.body.h-2, 1)
		return nil
	case key.Matches(msg, k.PageUp):
		s.offset = max(s.offset-max(v.lay.body.h-2, 1), 0)
		return nil
	}
	switch ff.f.Kind {
	case client.FieldBoolean:
		if key.Matches(msg, k.Toggle) {
			ff.flag = nextFlag(ff.flag, ff.f.Required)
			delete(s.errs, ff.f.Name)
		}
		return nil
	case client.FieldChoice:
		n := len(ff.f.Choices)
		switch {
		case key.Matches(msg, k.ChoiceNext):
			ff.choice = nextChoice(ff.choice, n, 1, ff.f.Required)
		case key.Matches(msg, k.ChoicePrev):
			ff.choice = nextChoice(ff.choice, n, -1, ff.f.Required)
		case key.Matches(msg, k.Pick):
			if i := int(msg.String()[0] - '1'); i >= 0 && i < n {
				ff.choice = i
			}
		default:
			return nil
		}
		delete(s.errs, ff.f.Name)
		return nil
	}
	before, _ := ff.texts()
	var cmd tea.Cmd
	if ff.multi {
		ff.area, cmd = ff.area.Update(msg)
	} else {
		ff.input, cmd = ff.input.Update(msg)
	}
	if after, _ := ff.texts(); !slices.Equal(before, after) {
		// A problem is of what was there: once changed, ctrl+s checks
		// again (a filled field kept "✗ required" under it).
		delete(s.errs, ff.f.Name)
	}
	return run(cmd)
}

// receive gives the focused text field what is not a key (a paste, the
// cursor's blink).
func (s *formScreen) receive(v *env, msg tea.Msg) ([]act, bool) {
	if v.front != s {
		return nil, false
	}
	ff := s.fields[s.focused]
	var cmd tea.Cmd
	switch {
	case ff.multi:
		ff.area, cmd = ff.area.Update(msg)
	case ff.typesText():
		ff.input, cmd = ff.input.Update(msg)
	default:
		return nil, false
	}
	return run(cmd), true
}

// typed is what the fields hold, as the draft keeps it; ok is false while
// nothing changed (no draft is made of a form only looked at).
func (s *formScreen) typed() (draftEdit, bool) {
	e := draftEdit{id: s.id, slot: s.slot}
	if s.decision == client.Edit {
		if s.opened == "" && maps.EqualFunc(s.texts(), s.fresh, slices.Equal) {
			return e, false // nothing changed: no draft
		}
		text := present.EditableJSON(decide.FormDraft(s.form, s.base, s.texts()))
		e.args = &text
		return e, true
	}
	text := present.EditableJSON(decide.FormDraft(s.form, nil, s.texts()))
	if s.form.Root {
		text = string(decide.FormDraft(s.form, nil, s.texts()))
	}
	if text == present.EditableJSON(decide.FormDraft(s.form, nil, newFormScreenTexts(s.form))) {
		if s.opened == "" {
			return e, false // nothing typed: no draft
		}
		// Back to what it holds unopened (a look at the JSON view
		// leaves its "{}"): no draft either.
		text = ""
	}
	e.feedback = &text
	return e, true
}

// save keeps what was typed as the draft, whatever happens next.
func (s *formScreen) save() []act {
	if e, ok := s.typed(); ok {
		return []act{saveDraft{e}}
	}
	return nil
}

// accept checks the answer and records the decision; problems go next to
// their fields, and the typed values stay.
func (s *formScreen) accept(v *env) []act {
	save := s.save()
	it := v.items.get(s.id)
	if it == nil {
		s.err = "this interrupt is no longer pending; what you typed is kept until you leave"
		return save
	}
	s.errs, s.err = map[string]string{}, ""
	// The same rules as the CLI's --field.
	in := decide.Input{Type: s.decision, Fields: s.texts()}
	if s.decision == client.Edit {
		in.Args = string(s.base) // keys the form does not show keep the draft's values
	}
	dec, err := decide.Decision(it, s.slot, in)
	if err != nil {
		var fe *decide.FieldErrors
		if !errors.As(err, &fe) {
			s.err = err.Error()
			return save
		}
		first := -1
		var general []string
		for _, e := range fe.Fields {
			if e.Field == "" {
				general = append(general, e.Message)
				continue
			}
			s.errs[e.Field] = e.Message
			for i, ff := range s.fields {
				if ff.f.Name == e.Field && (first < 0 || i < first) {
					first = i
				}
			}
		}
		s.err = strings.Join(general, "; ")
		if first >= 0 {
			s.blur()
			s.focused = first
			return append(save, run(s.focus())...)
		}
		return save
	}
	// What the draft keeps of it: the value as the JSON editor would
	// open on it.
	e := draftEdit{id: s.id, slot: s.slot}
	var text string
	switch {
	case s.decision == client.Edit && dec.Args != nil:
		text = present.EditableJSON(dec.Args)
	case s.decision == client.Edit: // unchanged: an approve
	case s.form.Root:
		text = string(dec.Value)
	default:
		text = present.EditableJSON(dec.Value)
	}
	if s.decision == client.Edit {
		e.args = &text
	} else {
		e.feedback = &text
	}
	return append(save, saveDraft{e}, record{id: s.id, slot: s.slot, dec: dec})
}

func (s *formScreen) hints(v *env) []hint {
	k := v.keys
	out := on(k.Accept, k.NextField, k.PrevField)
	switch s.fields[s.focused].f.Kind {
	case client.FieldBoolean:
		out = append(out, hint{b: k.Toggle})
	case client.FieldChoice:
		out = append(out, hint{b: k.ChoiceNext}, hint{b: k.Pick})
	}
	return append(out, hint{b: k.RawJSON}, hint{b: k.Back})
}
