package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Server cost follows attention. While the reviewer is there, the backend's
// watcher looks as often as it is set to (five times a second by default),
// so that a new interrupt is on screen within about a quarter of a second.
// A TUI left alone tells it so (client.Attentive), and it then looks about
// ten times a minute; a key, or the terminal's focus coming back, brings
// the usual pace back at once.
//
// The reviewer is there when the app just started or a key came in the
// last awayAfter, or while the terminal says it has the focus (Bubble Tea
// reports focus where the terminal does: tea.FocusMsg, tea.BlurMsg).

// awayAfter is how long after the last key (or the start) a reviewer whose
// terminal does not say it has the focus counts as gone.
const awayAfter = 3 * time.Minute

// there reports whether a reviewer is at the screen.
func (m *Model) there() bool {
	return (m.focusKnown && m.focused) || m.opts.Now().Sub(m.lastKey) < awayAfter
}

// attend tells the backend when the reviewer comes or goes (once per
// change), in a command: Update does no I/O.
func (m *Model) attend() tea.Cmd {
	if m.attention == nil {
		return nil
	}
	there := m.there()
	if there != m.away {
		return nil // as the backend was told
	}
	m.away = !there
	a := m.attention
	return func() tea.Msg {
		a.Attend(there)
		return nil
	}
}

// goneAt is when the reviewer counts as gone if nothing happens (zero: not
// while the terminal says it has the focus, nor once gone).
func (m *Model) goneAt() time.Time {
	if m.attention == nil || m.away || (m.focusKnown && m.focused) {
		return time.Time{}
	}
	return m.lastKey.Add(awayAfter)
}
