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

// name: the form is an editor as far as the rest of the app goes (closed
// when a decision is recorded, its text saved on quit).
func (*formScreen) name() string { return nameEditor }

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

func (s *formScreen) resize(m *Model) {
	lines := 4
	if m.lay.body.h < 30 {
		lines = 3
	}
	for _, ff := range s.fields {
		// The width left of the field's indent (4, 6 in a group).
		w := m.lay.body.w - 4
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

func (s *formScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	cmd := s.handle(m, msg)
	if m.top() == s {
		s.save(m) // every key: quitting or a crash loses nothing typed
	}
	return cmd
}

func (s *formScreen) handle(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	ff := s.fields[s.focused]
	switch {
	case key.Matches(msg, k.Back):
		s.save(m)
		if m.items.get(s.id) == nil {
			m.popTo(nameInbox)
			m.setStatus(m.goneText(s.id)+" What you typed is kept.", false)
			return nil
		}
		m.pop()
		return nil
	case key.Matches(msg, k.Accept):
		return s.accept(m)
	case key.Matches(msg, k.External) && m.opts.NoExternalEditor:
		s.err = noExternalEditor
		return nil
	case key.Matches(msg, k.RawJSON, k.External):
		s.save(m)
		it := m.items.get(s.id)
		if it == nil {
			s.err = "this interrupt is no longer pending; what you typed is kept until you leave"
			return nil
		}
		d := m.drafts.of(it)
		d.slot = s.slot
		m.pop()
		var cmd tea.Cmd
		if s.decision == client.Edit {
			m.push(newArgsEditor(m, it, d))
			cmd = m.top().(*editorScreen).focus()
		} else {
			cmd = m.openAnswerJSON(it, d, "as JSON, checked against the answer schema")
		}
		ed, ok := m.top().(*editorScreen)
		if ok {
			ed.fromForm, ed.formFocus = true, s.focused // esc: back here
		}
		// ctrl+e: the whole value, as the JSON editor holds it, in
		// $EDITOR; what is saved there comes back to that editor, which
		// checks and accepts it as it does what is typed.
		if ok && key.Matches(msg, k.External) {
			return tea.Batch(cmd, ed.key(m, msg))
		}
		return cmd
	case key.Matches(msg, k.NextField):
		return s.move(1)
	case key.Matches(msg, k.PrevField):
		return s.move(-1)
	case key.Matches(msg, k.PageDown):
		s.offset += max(m.lay.body.h-2, 1)
		return nil
	case key.Matches(msg, k.PageUp):
		s.offset = max(s.offset-max(m.lay.body.h-2, 1), 0)
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
	return cmd
}

// receive gives the focused text field what is not a key (a paste, the
// cursor's blink).
func (s *formScreen) receive(m *Model, msg tea.Msg) (tea.Cmd, bool) {
	if m.top() != s {
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
	return cmd, true
}

// save keeps what was typed as the draft, whatever happens next.
func (s *formScreen) save(m *Model) {
	d := m.drafts[s.id]
	if d == nil || s.slot >= len(d.decisions) {
		return
	}
	if s.decision == client.Edit {
		if s.opened == "" && maps.EqualFunc(s.texts(), s.fresh, slices.Equal) {
			return // nothing changed: no draft
		}
		d.argsText[s.slot] = present.EditableJSON(decide.FormDraft(s.form, s.base, s.texts()))
		return
	}
	text := present.EditableJSON(decide.FormDraft(s.form, nil, s.texts()))
	if s.form.Root {
		text = string(decide.FormDraft(s.form, nil, s.texts()))
	}
	if s.opened == "" && text == present.EditableJSON(decide.FormDraft(s.form, nil, newFormScreenTexts(s.form))) {
		return // nothing typed: no draft
	}
	d.feedback[s.slot] = text
}

// accept checks the answer and records the decision; problems go next to
// their fields, and the typed values stay.
func (s *formScreen) accept(m *Model) tea.Cmd {
	s.save(m)
	it := m.items.get(s.id)
	if it == nil {
		s.err = "this interrupt is no longer pending; what you typed is kept until you leave"
		return nil
	}
	d := m.drafts.of(it)
	d.slot = s.slot
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
			return nil
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
			return s.focus()
		}
		return nil
	}
	switch {
	case s.decision == client.Edit && dec.Args != nil:
		d.argsText[s.slot] = present.EditableJSON(dec.Args)
	case s.decision == client.Edit: // unchanged: an approve
		d.argsText[s.slot] = ""
	case s.form.Root:
		d.feedback[s.slot] = string(dec.Value)
	default:
		d.feedback[s.slot] = present.EditableJSON(dec.Value)
	}
	d.decisions[s.slot] = &dec
	m.advance(it, d)
	return nil
}

func (s *formScreen) hints(m *Model) []hint {
	k := m.keys
	out := on(k.Accept, k.NextField, k.PrevField)
	switch s.fields[s.focused].f.Kind {
	case client.FieldBoolean:
		out = append(out, hint{b: k.Toggle})
	case client.FieldChoice:
		out = append(out, hint{b: k.ChoiceNext}, hint{b: k.Pick})
	}
	return append(out, hint{b: k.RawJSON}, hint{b: k.Back})
}
