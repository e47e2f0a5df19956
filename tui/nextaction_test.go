package tui

import (
	"strings"
	"testing"
	"time"
)

// After action 1 of 2 is decided, the status says the keys act on action 2
// now, with its keys; it never reads as "press tab" (tab leaves it for
// action 1). The next a approves action 2 and opens the confirm screen.
func TestTheNextActionIsSaidAsWhereTheKeysAct(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 50}} {
		h := newHarness(t, sz[0], sz[1], fixture(t, "middleware-js-ops", idOps, time.Minute))
		h.keys("enter", "a")
		got := h.statusText()
		if !strings.Contains(got, "Recorded. Now action 2 of 2 (notify): a approve, e edit, r reject; s submits when all are decided.") {
			t.Fatalf("status %q\n%s", got, h.screen())
		}
		if strings.Contains(got, "tab") || strings.Contains(got, "next (") {
			t.Fatalf("the status reads as press tab: %q", got)
		}
		h.keys("r")
		h.wantScreen("Reason for rejecting action 2")
	}
}
