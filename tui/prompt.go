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
	// onYes and onNo are what the app does on each answer.
	onYes, onNo []act
	// quitToo: the quit key answers yes as well ("q" twice quits).
	quitToo bool
}

func (*promptScreen) decisionStep() {}

func (p *promptScreen) key(v *env, msg tea.KeyPressMsg) []act {
	if key.Matches(msg, v.keys.Yes) || (p.quitToo && key.Matches(msg, v.keys.Quit)) {
		return append([]act{popScreen{}}, p.onYes...)
	}
	return append([]act{popScreen{}}, p.onNo...)
}

func (p *promptScreen) view(v *env, r rect) string {
	// Wrapped, not cut: the question is the whole point of the screen.
	text := ansi.Wrap(p.question, max(r.w-2, 10), " ") + "\n\n" + ansi.Wrap(name(v.keys.Yes)+" "+p.yes+" · any other key "+p.noWords(), max(r.w-2, 10), " ")
	return "\n" + indentBlock(text, "  ")
}

func (p *promptScreen) noWords() string {
	if p.no == "" {
		return "stays"
	}
	return p.no
}

func (p *promptScreen) hints(v *env) []hint {
	return on(withHelp(v.keys.Yes, p.yes), withHelp(v.keys.Back, "(any other key) "+p.noWords()))
}
