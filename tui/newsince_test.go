package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// "1 new since you last looked" stays through resizes and keys on other
// screens, and goes at the first key pressed on the list, whatever it is
// (docs/tui.md: the header counts what is new since the list was looked at).
func TestNewSinceYouLastLookedGoesAtAKeyOnTheList(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("r") // an editor over the list
	h.b.Set(append(h.b.Items(), fixture(t, "middleware-js-ops", idOps, 0))...)
	h.run(h.m.fetch(false))
	h.typeText("typing")
	h.msg(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.wantScreen("1 new since you last looked")
	h.keys("esc") // back to the list: still not looked at it
	h.wantScreen("1 new since you last looked")
	h.keys("o") // a key on the list (sort), no move
	if strings.Contains(h.screen(), "new since you last looked") {
		t.Fatalf("still new after a key on the list:\n%s", h.screen())
	}
}
