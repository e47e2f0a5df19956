package tui

import (
	"slices"

	"charm.land/bubbles/v2/help"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpScreen lays the whole key map out in as many rows of columns as the
// width needs, so that no key is cut at 80 columns; where the rows are
// taller than the screen (60x20) it scrolls, with markers.
type helpScreen struct {
	page   viewport.Model
	w      int // the width the page was laid out for
	help   help.Model
	groups [][]key.Binding // the key map, as help lists it (helpGroups)
	// here are the keys of the screen help was opened from, said first:
	// the bar there may have given some of them way to "…".
	here []hint
}

// helpRoom: its key opens the key map, the keys of the screen it was
// opened from first (the key bar offers it always, at its end).
var helpRoom = room{
	key: func(k keyMap) key.Binding { return k.Help },
	open: func(v *env) []act {
		s := newHelpScreen(v.help, v.helpGroups())
		s.here = v.front.hints(v)
		return []act{pushScreen{s}}
	},
}

func newHelpScreen(h help.Model, groups [][]key.Binding) *helpScreen {
	return &helpScreen{page: newPage(), help: h, groups: groups}
}

func (s *helpScreen) resize(v *env) {
	s.page.SetWidth(v.lay.page().w)
	s.page.SetHeight(v.lay.page().h)
}

func (s *helpScreen) key(v *env, msg tea.KeyPressMsg) []act {
	if key.Matches(msg, v.keys.Quit) {
		return []act{askQuit{}} // as on the screen help was opened from
	}
	if key.Matches(msg, v.keys.Back, v.keys.Help) {
		return []act{popScreen{}}
	}
	scroll(&s.page, v.keys, msg)
	return nil
}

func (s *helpScreen) view(v *env, r rect) string {
	if s.w != r.w {
		s.w = r.w
		s.page.SetContent(hereText(v, s.here, r.w) + helpText(s.help, s.groups, r.w))
	}
	return pageView(v.st, v.keys, &s.page, r)
}

// hereText lists the keys of the screen help was opened from, wrapped.
func hereText(v *env, hs []hint, w int) string {
	var parts, off []string
	for _, h := range hs {
		hk := h.b.Help()
		switch {
		case h.off:
			off = append(off, hk.Key)
		case !sameBinding(h.b, v.keys.Help):
			parts = append(parts, v.st.key.Render(hk.Key)+" "+hk.Desc)
		}
	}
	if len(off) > 0 {
		parts = append(parts, v.st.faint.Render("not allowed: "+strings.Join(off, " ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return v.st.bold.Render("Keys here") + "\n" + wrapParts(parts, max(w, 20)) + "\n\n" + v.st.bold.Render("Every key") + "\n"
}

// wrapParts joins parts (a key and what it does) with the key bar's gap,
// w columns a line: a line breaks between two parts, never inside one
// that fits a line ("/" at the end of one line, "filter" at the start of
// the next), and one wider than a line is wrapped alone.
func wrapParts(parts []string, w int) string {
	var lines []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = p
		case ansi.StringWidth(line)+ansi.StringWidth(footerGap)+ansi.StringWidth(p) <= w:
			line += footerGap + p
		default:
			lines = append(lines, line)
			line = p
		}
		if ansi.StringWidth(line) > w {
			lines = append(lines, ansi.Wrap(line, w, " "))
			line = ""
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func helpText(h help.Model, groups [][]key.Binding, w int) string {
	h.SetWidth(0) // measure whole columns; the loop below decides what fits
	var rows []string
	for start := 0; start < len(groups); {
		end := start + 1
		for end < len(groups) && lipgloss.Width(h.FullHelpView(groups[start:end+1])) <= w {
			end++
		}
		rows = append(rows, h.FullHelpView(groups[start:end]))
		start = end
	}
	return strings.Join(rows, "\n\n")
}

func (*helpScreen) hints(v *env) []hint { return on(v.keys.Back, v.keys.Quit) }

// helpGroups is the key map less the keys this backend has no use for
// (run controls where runs cannot be paused, the failed runs and the
// conversation where the server cannot list them): help lists what works.
func (m *Model) helpGroups() [][]key.Binding {
	k := m.keys
	var off []key.Binding
	if m.feat.RunController == nil {
		off = append(off, k.PauseRun, k.ResumeRun, k.CancelRun)
	}
	if m.failed.lister == nil {
		off = append(off, k.Failures)
	}
	if m.feat.Conversational == nil {
		off = append(off, k.Conversation)
	}
	same := func(a, b key.Binding) bool {
		return a.Help() == b.Help() && slices.Equal(a.Keys(), b.Keys())
	}
	var out [][]key.Binding
	for _, g := range k.FullHelp() {
		var keep []key.Binding
		for _, b := range g {
			if !slices.ContainsFunc(off, func(o key.Binding) bool { return same(o, b) }) {
				keep = append(keep, b)
			}
		}
		if len(keep) > 0 {
			out = append(out, keep)
		}
	}
	return out
}
