package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/present"
)

// How the form screen (form.go) draws: its fields as lines, scrolled to
// keep the focused one in view.

func (s *formScreen) view(v *env, r rect) string {
	lines, from, to := s.lines(v, r.w)
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
		out = append(out, v.st.faint.Render(fmt.Sprintf("↑ %d more lines (%s, %s)", s.offset, name(v.keys.PrevField), name(v.keys.PageUp))))
	}
	end := min(s.offset+room(s.offset), len(lines))
	out = append(out, lines[s.offset:end]...)
	if more := len(lines) - end; more > 0 {
		out = append(out, v.st.faint.Render(fmt.Sprintf("↓ %d more lines (%s, %s)", more, name(v.keys.NextField), name(v.keys.PageDown))))
	}
	return strings.Join(out, "\n")
}

// lines is the whole form at width w, and where the focused field's
// lines start and end.
func (s *formScreen) lines(v *env, w int) (out []string, from, to int) {
	st := v.st
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
	out = append(out, st.faint.Render(ansi.Truncate("* required · "+name(v.keys.Accept)+" checks and accepts · "+name(v.keys.RawJSON)+" edits it as JSON", w, "…")))
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
			for _, l := range choiceLines(ff, w-body, i == s.focused, v) {
				out = append(out, pad+l)
			}
		case client.FieldBoolean:
			box := map[int]string{1: "[x] true", 0: "[ ] false", -1: "[?] not chosen yet"}[ff.flag]
			if ff.flag < 0 && !f.Required {
				box = "[ ] not set"
			}
			if i == s.focused {
				box = st.selected.Render(box) + "  " + st.faint.Render(name(v.keys.Toggle)+" toggles")
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
func choiceLines(ff *formField, w int, focused bool, v *env) []string {
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
			items[j] = v.st.selected.Render(items[j])
		}
	}
	hint := ""
	if focused {
		hint = v.st.faint.Render(fmt.Sprintf("  %s/%s or %s", name(v.keys.ChoicePrev), name(v.keys.ChoiceNext), name(v.keys.Pick)))
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
