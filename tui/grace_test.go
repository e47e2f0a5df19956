package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
)

// arrivalBelow lists email and ops sorted oldest first, the cursor on the
// last row (email), long after any grace; then refund arrives below it,
// where j goes.
func arrivalBelow(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("o", "G") // oldest first: ops, then email
	h.now = h.now.Add(time.Minute)
	h.b.Set(append(h.b.Items(), fixture(t, "middleware-js-refund", idQ, 0))...)
	h.run(h.m.fetch(false))
	if got := h.m.items.selected; got != idEmail {
		t.Fatalf("the arrival moved the cursor to %s", got)
	}
	return h
}

// enter and x act on the row under the cursor as the decision keys do:
// j then one of them just after a row arrived under the cursor is held,
// and says why, so that the arrival is not opened or dismissed unseen.
func TestKeysOnTheRowWaitAfterARowArrivesBelow(t *testing.T) {
	for _, k := range []string{"enter", "x", "a"} {
		t.Run(k, func(t *testing.T) {
			h := arrivalBelow(t)
			h.now = h.now.Add(GracePeriod * 3 / 4)
			h.keys("j", k)
			h.wantScreen("Key ignored: the list just changed around the cursor. Look, then press it again.")
			if len(h.m.stack) != 0 {
				t.Fatalf("%s acted on the row that had just arrived:\n%s", k, h.screen())
			}
			h.now = h.now.Add(GracePeriod)
			h.keys(k)
			if len(h.m.stack) == 0 {
				t.Fatalf("%s after the grace did nothing:\n%s", k, h.screen())
			}
		})
	}
}

// The row that stayed under the cursor is not held: the reviewer who did
// not move acts on what they looked at.
func TestTheRowThatStayedIsNotHeld(t *testing.T) {
	h := arrivalBelow(t)
	h.keys("enter")
	if !onTop[*detailScreen](h.m) || strings.Contains(h.screen(), "Key ignored") {
		t.Fatalf("enter on the row that stayed under the cursor was held:\n%s", h.screen())
	}
	h.wantScreen("aaaa1111")
}

// After the selected interrupt left, enter is held like the decision keys.
func TestEnterWaitsAfterTheSelectionChanges(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.now = h.now.Add(time.Minute)
	h.b.Set(h.b.Items()[1:]...)
	h.run(h.m.fetch(false))
	h.keys("enter")
	h.wantScreen("Key ignored: the selected interrupt just changed. Look, then press it again.")
	if len(h.m.stack) != 0 {
		t.Fatalf("enter opened the interrupt the cursor fell onto:\n%s", h.screen())
	}
}

// A page of a long listing (a refresh, the listing retaken) that adds a row
// around the cursor holds the keys as a finished listing does.
func TestKeysWaitAfterAPageAddsARowBelow(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("o", "G") // oldest first: ops, then email
	h.now = h.now.Add(time.Minute)
	rest := make(chan tea.Msg, 1)
	rest <- unchangedMsg{} // the rest of the listing, left unread
	h.msg(progressMsg{pr: client.Progress{Items: []client.Interrupt{fixture(t, "middleware-js-refund", idQ, 0)}}, ch: rest})
	if got := h.m.items.selected; got != idEmail {
		t.Fatalf("the page moved the cursor to %s", got)
	}
	h.keys("j", "a")
	h.wantScreen("Key ignored: the list just changed around the cursor. Look, then press it again.")
	if len(h.m.stack) != 0 {
		t.Fatalf("a acted on the row the page had just added:\n%s", h.screen())
	}
}
