package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
)

// formScreen answers an interrupt whose response schema makes a form: one
// field per value of the schema, typed by it (a choice list, a toggle, a
// number with its bounds, a text), required ones marked *. ctrl+s checks
// the answer by the rules the CLI's --field uses (decide.Decision) and
// puts each problem next to its field; esc leaves, keeping what was typed
// as the draft (the JSON the JSON editor opens on, ctrl+j).
type formScreen struct {
	id      string
	slot    int
	title   string
	form    *client.Form
	fields  []*formField
	focused int
	// offset is the first line shown, when the form is taller than the
	// screen.
	offset int
	// errs are the problems by field; err the answer's as a whole.
	errs map[string]string
	err  string
	// opened is the draft as the form opened on it: saved again only
	// when something changed.
	opened string
}

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
func (*formScreen) name() string { return nameEditor }

// openForm opens what answers decision t on it when its schema gives the
// answer's shape: the form, or, where the schema makes no form, the JSON
// editor started from a skeleton of it. It reports false when neither
// applies (the usual editors do).
func (m *Model) openForm(it *client.Interrupt, d *draft, t client.DecisionType) (tea.Cmd, bool) {
	if t != client.Respond || it.Schema != client.SchemaForm {
		return nil, false
	}
	form, err := client.FormOf(it.ResponseSchema)
	if err != nil || !formReads(form, d.feedback[d.slot]) {
		why := "as JSON, checked against the answer schema"
		if err != nil {
			why = "as JSON (" + strings.TrimPrefix(err.Error(), "no form for this schema: ") + ")"
		}
		return m.openAnswerJSON(it, d, why), true
	}
	s := newFormScreen(it, d, form)
	m.push(s)
	return s.focus(), true
}

// openAnswerJSON opens the JSON editor on the draft answer, or on a
// skeleton of the schema when there is none.
func (m *Model) openAnswerJSON(it *client.Interrupt, d *draft, why string) tea.Cmd {
	if strings.TrimSpace(d.feedback[d.slot]) == "" {
		d.feedback[d.slot] = present.EditableJSON(client.Skeleton(it.ResponseSchema))
	}
	ed := newFeedbackEditor(m, it, d, client.Respond)
	ed.labels[0] = "Your answer, " + why
	m.push(ed)
	return ed.focus()
}

// formReads reports whether a draft can be shown in the form: empty, or
// JSON of the form's shape (a draft being written as JSON that does not
// parse yet stays in the JSON editor, where it was typed).
func formReads(form *client.Form, text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || form.Root {
		return true
	}
	return strings.HasPrefix(text, "{") && json.Valid([]byte(text))
}

func newFormScreen(it *client.Interrupt, d *draft, form *client.Form) *formScreen {
	s := &formScreen{id: it.ID, slot: d.slot, title: it.Title, form: form, errs: map[string]string{}, opened: d.feedback[d.slot]}
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
			given = decide.FieldTexts(&client.Form{Root: true, Fields: []client.Field{{Name: client.RootField, Kind: f.Kind, Item: f.Item}}}, f.Default)[client.RootField]
		}
		s.fields = append(s.fields, newFormField(f, given))
	}
	return s
}

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
		case text == "false" || f.Required:
			// A required flag is on or off, never unset: what shows is
			// what is sent.
			ff.flag = 0
		}
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
			m.setStatus(present.ShortID(s.id)+" is no longer pending (handled elsewhere?); what you typed is kept in case it comes back.", false)
			return nil
		}
		m.pop()
		return nil
	case key.Matches(msg, k.Accept):
		return s.accept(m)
	case key.Matches(msg, k.RawJSON):
		s.save(m)
		it := m.items.get(s.id)
		if it == nil {
			s.err = "this interrupt is no longer pending; what you typed is kept until you leave"
			return nil
		}
		d := m.drafts.of(it)
		d.slot = s.slot
		m.pop()
		return m.openAnswerJSON(it, d, "as JSON, checked against the answer schema")
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
	var cmd tea.Cmd
	if ff.multi {
		ff.area, cmd = ff.area.Update(msg)
	} else {
		ff.input, cmd = ff.input.Update(msg)
	}
	return cmd
}

// nextFlag cycles a toggle: off and on; an optional one also "not set".
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
	text := present.EditableJSON(decide.FormDraft(s.form, nil, s.texts()))
	if s.form.Root {
		text = string(decide.FormDraft(s.form, nil, s.texts()))
	}
	if s.opened == "" && text == present.EditableJSON(decide.FormDraft(s.form, nil, newFormScreenTexts(s.form))) {
		return // nothing typed: no draft
	}
	d.feedback[s.slot] = text
}

// newFormScreenTexts is what a form holds when it opens on no draft.
func newFormScreenTexts(form *client.Form) map[string][]string {
	fresh := &formScreen{form: form}
	for _, f := range form.Fields {
		var given []string
		if f.Default != nil {
			given = decide.FieldTexts(&client.Form{Root: true, Fields: []client.Field{{Name: client.RootField, Kind: f.Kind, Item: f.Item}}}, f.Default)[client.RootField]
		}
		fresh.fields = append(fresh.fields, newFormField(f, given))
	}
	return fresh.texts()
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
	dec, err := decide.Decision(it, s.slot, decide.Input{Type: client.Respond, Fields: s.texts()})
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
	d.feedback[s.slot] = string(dec.Value)
	if !s.form.Root {
		d.feedback[s.slot] = present.EditableJSON(dec.Value)
	}
	d.decisions[s.slot] = &dec
	m.advance(it, d)
	return nil
}

func (s *formScreen) view(m *Model, r rect) string {
	lines, from, to := s.lines(m, r.w)
	h := r.h
	if len(lines) <= h {
		s.offset = 0
		return strings.Join(lines, "\n")
	}
	// A line for a marker below, and above once scrolled; the focused
	// field stays in view.
	room := func(offset int) int {
		if offset == 0 {
			return max(h-1, 1)
		}
		return max(h-2, 1)
	}
	if to > s.offset+room(s.offset) {
		s.offset = to - room(1)
	}
	if from < s.offset {
		s.offset = from
	}
	if to <= room(0) {
		s.offset = 0 // the focused field is on the first page: show its top
	}
	s.offset = min(max(s.offset, 0), max(len(lines)-room(1), 0))
	var out []string
	if s.offset > 0 {
		out = append(out, m.st.faint.Render(fmt.Sprintf("↑ %d more lines (%s, %s)", s.offset, name(m.keys.PrevField), name(m.keys.PageUp))))
	}
	end := min(s.offset+room(s.offset), len(lines))
	out = append(out, lines[s.offset:end]...)
	if more := len(lines) - end; more > 0 {
		out = append(out, m.st.faint.Render(fmt.Sprintf("↓ %d more lines (%s, %s)", more, name(m.keys.NextField), name(m.keys.PageDown))))
	}
	return strings.Join(out, "\n")
}

// lines is the whole form at width w, and where the focused field's
// lines start and end.
func (s *formScreen) lines(m *Model, w int) (out []string, from, to int) {
	st := m.st
	wrap := func(text string, indent int) []string {
		return strings.Split(ansi.Wrap(text, max(w-indent, 10), " "), "\n")
	}
	add := func(indent int, style func(...string) string, text string) {
		for _, l := range wrap(text, indent) {
			out = append(out, strings.Repeat(" ", indent)+style(l))
		}
	}
	add(0, st.title.Render, safe(s.title))
	if s.err != "" {
		add(0, st.err.Render, "✗ "+safe(s.err))
	}
	out = append(out, st.faint.Render(ansi.Truncate("* required · "+name(m.keys.Accept)+" checks and accepts · "+name(m.keys.RawJSON)+" edits it as JSON", w, "…")))
	group := ""
	for i, ff := range s.fields {
		f := ff.f
		indent := 0
		if f.Group != "" {
			indent = 2
		}
		if f.Group != group {
			group = f.Group
			if g := groupOf(s.form, group); g != nil {
				out = append(out, "")
				head := g.Name
				if g.Required {
					head += " *"
				}
				if g.Title != "" {
					head += "  " + g.Title
				}
				add(0, st.bold.Render, safe(head))
				if g.Description != "" {
					add(2, st.faint.Render, safe(g.Description))
				}
			}
		}
		out = append(out, "")
		if i == s.focused {
			from = len(out)
		}
		marker := "  "
		if i == s.focused {
			marker = "▸ "
		}
		label := path(f)
		if f.Required {
			label += " *"
		}
		head := strings.Repeat(" ", indent) + marker + st.bold.Render(safe(label)) + "  " + st.faint.Render(safe(present.FieldKind(f)))
		out = append(out, ansi.Truncate(head, w, "…"))
		body := indent + 4
		pad := strings.Repeat(" ", body)
		switch f.Kind {
		case client.FieldChoice:
			for _, l := range choiceLines(ff, w-body, i == s.focused, m) {
				out = append(out, pad+l)
			}
		case client.FieldBoolean:
			box := map[int]string{1: "[x] true", 0: "[ ] false", -1: "[ ] not set"}[ff.flag]
			if i == s.focused {
				box = st.selected.Render(box) + "  " + st.faint.Render(name(m.keys.Toggle)+" toggles")
			}
			out = append(out, pad+box)
		default:
			view := ff.input.View()
			if ff.multi {
				view = ff.area.View()
			}
			for _, l := range strings.Split(view, "\n") {
				out = append(out, pad+l)
			}
			if f.Kind == client.FieldList && i == s.focused {
				out = append(out, pad+st.faint.Render("one item a line"))
			}
		}
		if e := s.errs[f.Name]; e != "" {
			add(body, st.err.Render, "✗ "+safe(e))
		}
		about := f.Description
		if f.Title != "" {
			about = strings.TrimSpace(f.Title + ". " + about)
		}
		if about != "" {
			add(body, st.faint.Render, safe(about))
		}
		if i == s.focused {
			to = len(out)
		}
	}
	return out, from, to
}

// path is a field's name for the form: the last part inside a group.
func path(f client.Field) string {
	if f.Group != "" {
		return f.Path[len(f.Path)-1]
	}
	return f.Name
}

func groupOf(form *client.Form, name string) *client.Group {
	for i := range form.Groups {
		if form.Groups[i].Name == name {
			return &form.Groups[i]
		}
	}
	return nil
}

// choiceLines draws a choice field: "(•) react  ( ) vue" on one line when
// it fits, else one choice a line, numbered for the 1-9 keys.
func choiceLines(ff *formField, w int, focused bool, m *Model) []string {
	items := make([]string, len(ff.f.Choices))
	for j, c := range ff.f.Choices {
		mark := "( )"
		if j == ff.choice {
			mark = "(•)"
		}
		label := safe(client.ChoiceText(c))
		if j < 9 {
			label = fmt.Sprintf("%d %s", j+1, label)
		}
		items[j] = mark + " " + label
		if focused && j == ff.choice {
			items[j] = m.st.selected.Render(items[j])
		}
	}
	hint := ""
	if focused {
		hint = m.st.faint.Render(fmt.Sprintf("  %s/%s or %s", name(m.keys.ChoicePrev), name(m.keys.ChoiceNext), name(m.keys.Pick)))
	}
	one := strings.Join(items, "  ")
	if ansi.StringWidth(one+hint) <= w {
		return []string{one + hint}
	}
	if hint != "" {
		items[len(items)-1] += hint
	}
	return items
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
