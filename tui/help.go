package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// helpScreen lays the whole key map out in as many rows of columns as the
// width needs, so that no key is cut at 80 columns.
type helpScreen struct{}

func (*helpScreen) name() string { return nameHelp }

func (*helpScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Back, m.keys.Quit, m.keys.Help) {
		m.pop()
	}
	return nil
}

func (*helpScreen) view(m *Model, r rect) string {
	h := m.help
	h.SetWidth(0) // measure whole columns; the loop below decides what fits
	groups := m.keys.FullHelp()
	var rows []string
	for start := 0; start < len(groups); {
		end := start + 1
		for end < len(groups) && lipgloss.Width(h.FullHelpView(groups[start:end+1])) <= r.w {
			end++
		}
		rows = append(rows, h.FullHelpView(groups[start:end]))
		start = end
	}
	return strings.Join(rows, "\n\n")
}

func (*helpScreen) hints(m *Model) []hint { return on(m.keys.Back) }
