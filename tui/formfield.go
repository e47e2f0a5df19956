package tui

import (
	"strings"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"

	"github.com/hitl-sh/hitl/client"
)

// The fields of the form screen (form.go): one per value of the answer
// schema, each with its own input and the rules for moving through a
// choice list or a toggle.

// formField is one field and its widget.
type formField struct {
	f     client.Field
	input textinput.Model // a one-line text or a number
	area  textarea.Model  // a long text, or a list (an item a line)
	multi bool
	// choice is the chosen value of a choice field, -1 for none.
	choice int
	// flag is a boolean's value: -1 not set, 0 false, 1 true.
	flag int
}

// name: the form is an editor to the rest of the app (it closes with the
// editors when a decision is recorded or the interrupt goes away).
func newFormField(f client.Field, texts []string) *formField {
	ff := &formField{f: f, choice: -1, flag: -1}
	text := strings.Join(texts, "\n")
	switch f.Kind {
	case client.FieldChoice:
		for i, c := range f.Choices {
			if len(texts) == 1 && client.ChoiceText(c) == texts[0] {
				ff.choice = i
			}
		}
		if len(f.Choices) == 1 && f.Required {
			ff.choice = 0 // a constant: nothing to choose
		}
	case client.FieldBoolean:
		switch {
		case text == "true":
			ff.flag = 1
		case text == "false":
			ff.flag = 0
		}
		// A required flag without a default starts "not chosen yet", as
		// the CLI asks for it: false is sent only when the reviewer chose
		// it, not because a box was left alone.
	case client.FieldList:
		ff.multi = true
		ff.area = newTextarea(text)
	default:
		if f.Long {
			ff.multi = true
			ff.area = newTextarea(text)
			break
		}
		ti := textinput.New()
		st := textinput.DefaultDarkStyles()
		st.Cursor.Blink = false // a steady cursor: no redraws on a slow link
		ti.SetStyles(st)
		ti.Prompt = "│ "
		ti.CharLimit = 0
		ti.SetValue(text)
		ti.CursorEnd()
		ff.input = ti
	}
	return ff
}

// texts is what each field holds, as decide's rules read it; a boolean
// not set is left out.
func (ff *formField) texts() ([]string, bool) {
	switch ff.f.Kind {
	case client.FieldChoice:
		if ff.choice < 0 {
			return []string{""}, true
		}
		return []string{client.ChoiceText(ff.f.Choices[ff.choice])}, true
	case client.FieldBoolean:
		switch ff.flag {
		case 1:
			return []string{"true"}, true
		case 0:
			return []string{"false"}, true
		}
		return nil, false
	case client.FieldList:
		return strings.Split(ff.area.Value(), "\n"), true
	}
	if ff.multi {
		return []string{ff.area.Value()}, true
	}
	return []string{ff.input.Value()}, true
}

// typesText reports whether the field takes typed text.
func (ff *formField) typesText() bool {
	return ff.f.Kind != client.FieldChoice && ff.f.Kind != client.FieldBoolean
}

func nextFlag(flag int, required bool) int {
	switch {
	case flag == 1:
		return 0
	case flag == 0 && !required:
		return -1
	}
	return 1
}

// nextChoice moves through the choices; an optional choice also passes
// through "none".
func nextChoice(i, n, by int, required bool) int {
	if required {
		if i < 0 {
			if by > 0 {
				return 0
			}
			return n - 1
		}
		return (i + by + n) % n
	}
	// -1 (none), 0 … n-1, around.
	return (i+1+by+n+1)%(n+1) - 1
}

// receive gives the focused text field its own messages (the cursor).
