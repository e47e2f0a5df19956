package tui

import (
	"strings"
	"testing"
	"time"
)

// Going back from approve for good's confirm screen (L, then esc) leaves
// no draft behind: the inbox does not say "draft", and what was decided
// before L is as it was.
func TestEscFromApproveForGoodLeavesNoDraft(t *testing.T) {
	it := fixture(t, "middleware-js-email", idEmail, time.Minute)
	it.Always = []string{"send_email *"}
	h := newHarness(t, 100, 30, it)
	h.keys("enter", "L")
	h.wantScreen("Send this?", "from now on, the agent does not ask for: send_email *")
	h.keys("esc")
	if d := h.m.drafts[it.ID]; d != nil && d.touched() {
		t.Fatalf("esc from approve for good left a draft: %+v", d.decisions[0])
	}
	h.keys("esc")
	if s := h.screen(); strings.Contains(s, "draft") {
		t.Fatalf("the inbox shows a draft after esc from approve for good:\n%s", s)
	}
	// A decision made before L is there again after esc.
	h.keys("enter", "r")
	h.typeText("wrong customer")
	h.keys("ctrl+s")
	before := h.m.drafts[it.ID].decisions[0]
	if before == nil || before.Message != "wrong customer" {
		h.t.Fatalf("the reject was not drafted: %+v\n%s", before, h.screen())
	}
	h.keys("esc", "L")
	h.wantScreen("Send this?", "approve for good")
	h.keys("esc")
	if got := h.m.drafts[it.ID].decisions[0]; got == nil || got.Type != "reject" || got.Message != "wrong customer" || got.Always {
		t.Fatalf("esc from approve for good lost the reject drafted before: %+v", got)
	}
}
