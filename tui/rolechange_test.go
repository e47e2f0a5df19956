package tui

import (
	"strings"
	"testing"
	"time"
)

// A reviewer made a viewer by a reload loses the decision keys in the
// open session at once: the header says view only, a does nothing but say
// so, and a confirm screen open at the time sends nothing.
func TestAViewerByReloadDecidesNothing(t *testing.T) {
	approver := true
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-ops", idOps, time.Minute))
	h.m.opts.Host, h.m.opts.MayDecide = "hub", func() bool { return approver }
	h.keys("enter")
	h.wantScreen("a approve")
	h.keys("a", "a")
	h.wantScreen("Send this?", "y/enter send")

	approver = false // the reload
	h.msg(TeamChanged())
	h.wantScreen("hitl · tester@hub · view only")
	h.keys("y")
	if got := h.statusText(); !strings.Contains(got, "Not sent: tester is a viewer here now and decides nothing") {
		t.Fatalf("status %q\n%s", got, h.screen())
	}
	if h.sent(idOps) != "" {
		t.Fatalf("a viewer's y sent %s", h.sent(idOps))
	}
	h.keys("esc", "esc")
	if s := h.screen(); strings.Contains(s, "a approve") {
		t.Fatalf("a viewer is offered a approve:\n%s", s)
	}
	h.keys("r")
	if got := h.statusText(); !strings.Contains(got, "View only: tester is a viewer here and decides nothing") {
		t.Fatalf("status %q\n%s", got, h.screen())
	}

	approver = true // and back
	h.msg(TeamChanged())
	h.wantScreen("a approve")
}
