package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/hitl-sh/hitl/client"
)

// helpScreen lays the whole key map out in as many rows of columns as the
// width needs, so that no key is cut at 80 columns; where the rows are
// taller than the screen (60x20) it scrolls, with markers.
type helpScreen struct {
	page viewport.Model
	w    int // the width the page was laid out for
}

func newHelpScreen() *helpScreen {
	vp := newPage()
	return &helpScreen{page: vp}
}

func (*helpScreen) name() string { return nameHelp }

func (s *helpScreen) resize(m *Model) {
	s.page.SetWidth(m.lay.page().w)
	s.page.SetHeight(m.lay.page().h)
}

func (s *helpScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Back, m.keys.Quit, m.keys.Help) {
		m.pop()
		return nil
	}
	scroll(&s.page, m.keys, msg)
	return nil
}

func (s *helpScreen) view(m *Model, r rect) string {
	if s.w != r.w {
		s.w = r.w
		s.page.SetContent(helpText(m, r.w))
	}
	return pageView(m.st, m.keys, &s.page, r)
}

func helpText(m *Model, w int) string {
	h := m.help
	h.SetWidth(0) // measure whole columns; the loop below decides what fits
	groups := m.helpGroups()
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

func (*helpScreen) hints(m *Model) []hint { return on(m.keys.Back) }

// helpGroups is the key map less the keys this backend has no use for
// (run controls where runs cannot be paused, the failed runs and the
// conversation where the server cannot list them): help lists what works.
func (m *Model) helpGroups() [][]key.Binding {
	k := m.keys
	var off []key.Binding
	if _, ok := m.opts.Backend.(client.RunController); !ok {
		off = append(off, k.PauseRun, k.ResumeRun, k.CancelRun)
	}
	if m.failed.lister == nil {
		off = append(off, k.Failures)
	}
	if _, ok := m.opts.Backend.(client.Conversational); !ok {
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
