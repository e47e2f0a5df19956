package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// A look-up of who answered an interrupt that crosses the reviewer's own
// send (the listing saw it gone while the decision was on its way) must
// not call the reviewer's own decision "answered elsewhere": the send's
// result says what happened.
func TestOwnSendIsNotAnsweredElsewhere(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "a")
	h.wantScreen("Send this?")
	// The send is under way: a listing without the interrupt starts no
	// look-up, and an answer of one started before is not said.
	h.m.sending = true
	_, cmd := h.m.Update(pendingMsg{})
	for _, msg := range collect(cmd) {
		if _, ok := msg.(winnerMsg); ok {
			t.Fatal("a look-up started while the reviewer's own decision was being sent")
		}
	}
	h.msg(winnerMsg{id: idEmail, standing: client.Standing{ID: idEmail, Presence: client.Answered, By: &client.Winner{Reviewer: "tester"}}})
	if strings.Contains(h.screen(), "answered elsewhere") {
		t.Fatalf("the reviewer's own send is said answered elsewhere:\n%s", h.screen())
	}
	h.m.sending = false
	// Sent: handled here; a late answer of the look-up changes nothing.
	h.m.items.handled[idEmail] = true
	h.m.setStatus("Sent approve for aaaa1111.", true)
	h.msg(winnerMsg{id: idEmail, standing: client.Standing{ID: idEmail, Presence: client.Answered, By: &client.Winner{Reviewer: "tester"}}})
	if s := h.screen(); strings.Contains(s, "answered elsewhere") || !strings.Contains(s, "Sent approve") {
		t.Fatalf("a late look-up overwrote the send's result:\n%s", s)
	}
}
