package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// promptScreen asks one yes/no question (quit with a draft open, pause or
// cancel a run): the yes key does it, any other key does not.
type promptScreen struct {
	question string
	yes, no  string // what the yes key and the other keys do, in words
	onYes    func(m *Model) tea.Cmd
	onNo     func(m *Model)
	// quitToo: the quit key answers yes as well ("q" twice quits).
	quitToo bool
}

func (*promptScreen) name() string { return namePrompt }

func (p *promptScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	m.pop()
	if key.Matches(msg, m.keys.Yes) || (p.quitToo && key.Matches(msg, m.keys.Quit)) {
		return p.onYes(m)
	}
	if p.onNo != nil {
		p.onNo(m)
	}
	return nil
}

func (p *promptScreen) view(m *Model, r rect) string {
	no := p.no
	if no == "" {
		no = "stays"
	}
	// Wrapped, not cut: the question is the whole point of the screen.
	text := ansi.Wrap(p.question, max(r.w-2, 10), " ") + "\n\n" + ansi.Wrap(name(m.keys.Yes)+" "+p.yes+" · any other key "+no, max(r.w-2, 10), " ")
	return "\n" + indentBlock(text, "  ")
}

func (p *promptScreen) hints(m *Model) []hint {
	no := p.no
	if no == "" {
		no = "stays"
	}
	return on(withHelp(m.keys.Yes, p.yes), withHelp(m.keys.Back, "(any other key) "+no))
}
