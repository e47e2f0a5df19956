package tui

// Two reviewers on one server: a draft claims its interrupt, the other
// reviewer sees who is editing and for how long, claims expire and are
// cleared on send, discard and quit.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
)

// reviewerOn is a reviewer's app on a shared backend, with its own state
// directory.
func reviewerOn(t *testing.T, w, h int, fb *fake.Backend, name string) *harness {
	t.Helper()
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, be: fb, b: fb, j: j, now: t0}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m, err := New(Options{Backend: fb, Journal: j, Reviewer: name, PollInterval: time.Second, Context: ctx,
		Now: func() time.Time { return hs.now }})
	if err != nil {
		t.Fatal(err)
	}
	hs.m = m
	hs.msg(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.fetch(false))
	return hs
}

// tick lets a second pass on the reviewer's clock.
func (h *harness) tick(d time.Duration) {
	h.t.Helper()
	h.now = h.now.Add(d)
	h.msg(tickMsg{gen: h.m.clock.gen, at: h.now})
}

func TestClaimsSeenByAnotherReviewer(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	alice := reviewerOn(t, 140, 40, fb, "alice")
	bob := reviewerOn(t, 140, 40, fb, "bob")

	// Opening the editor is enough to claim.
	alice.keys("r")
	alice.tick(time.Second)
	claims := fb.Claims(idEmail)
	if len(claims) != 1 {
		t.Fatalf("claims: %+v", claims)
	}
	for _, c := range claims {
		if c.Reviewer != "alice" || !c.Expires.Equal(alice.now.Add(5*time.Minute)) {
			t.Fatalf("claim: %+v", c)
		}
	}
	alice.typeText("wrong customer")
	alice.keys("ctrl+s", "esc") // recorded, back from the confirm screen: still a draft

	// Alice does not see her own claim.
	alice.run(alice.m.fetch(false))
	if s := alice.screen(); strings.Contains(s, "alice is editing") {
		t.Fatalf("own claim shown:\n%s", s)
	}
	// Bob sees it on the row and in the detail.
	bob.now = t0.Add(2*time.Minute + 30*time.Second)
	bob.run(bob.m.fetch(false))
	bob.wantScreen("alice is editing (2m) ·", "✎ alice is editing (2m): a decision now may race theirs")
	// Nothing is blocked: bob can decide, and is warned on the confirm screen.
	bob.keys("a")
	bob.wantScreen("Send this?", "⚠ alice has been editing this for 2m; your decision may race theirs")
	bob.keys("esc")

	// Alice keeps her draft: the claim is refreshed each minute, from
	// when she started.
	alice.tick(time.Minute)
	for _, c := range fb.Claims(idEmail) {
		if !c.Since.Equal(t0.Add(time.Second)) || !c.Expires.Equal(alice.now.Add(5*time.Minute)) {
			t.Fatalf("refreshed claim: %+v (now %s)", c, alice.now)
		}
	}
	// A claim not refreshed expires: bob's clock past it, it is gone.
	bob.now = alice.now.Add(5*time.Minute + time.Second)
	bob.run(bob.m.fetch(false))
	if strings.Contains(bob.screen(), "alice is editing") {
		t.Fatalf("an expired claim is shown:\n%s", bob.screen())
	}

	// Alice sends: her claim is cleared at once.
	bob.now = alice.now
	alice.keys("s", "y")
	alice.wantScreen("Sent reject for aaaa1111")
	if c := fb.Claims(idEmail); len(c) != 0 {
		t.Fatalf("still claimed after the send: %+v", c)
	}
}

func TestClaimClearedOnDiscardAndQuit(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	alice := reviewerOn(t, 140, 40, fb, "alice")
	alice.keys("r")
	alice.typeText("not now")
	alice.keys("esc")
	alice.tick(time.Second)
	if len(fb.Claims(idEmail)) != 1 {
		t.Fatal("a draft with text is not claimed")
	}
	alice.keys("D")
	alice.wantScreen("Discard your draft for aaaa1111")
	alice.keys("y")
	alice.wantScreen("Draft for aaaa1111 discarded.")
	if len(fb.Claims(idEmail)) != 0 {
		t.Fatal("the claim outlived the discarded draft")
	}
	// Quitting clears what is claimed; the draft stays for next time.
	alice.keys("j", "a") // ops: action 1 approved, action 2 waits
	alice.tick(time.Second)
	if len(fb.Claims(idOps)) != 1 {
		t.Fatal("a recorded decision is not claimed")
	}
	alice.run(alice.m.releaseAll()) // what quit runs before it ends the app
	if len(fb.Claims(idOps)) != 0 {
		t.Fatal("quitting left the claim")
	}
}

func TestRefusedClaimsAreSaidOnceAndStop(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute))
	fb.SetClaimErr(errors.New("record a claim on thread t: the server at http://fake answered HTTP 405: Method Not Allowed"))
	alice := reviewerOn(t, 80, 24, fb, "alice")
	alice.keys("enter", "r")
	alice.tick(time.Second)
	alice.wantScreen("Other reviewers will not see what you are editing")
	fb.SetClaimErr(nil)
	alice.tick(2 * time.Minute)
	if len(fb.Claims(idEmail)) != 0 {
		t.Fatal("claims went on after the server refused one")
	}
	// The editor works as ever.
	alice.typeText("no")
	alice.keys("ctrl+s", "y")
	alice.wantScreen("Sent reject for aaaa1111")
}

// A claim on a thread that is gone (a server restarted with nothing kept)
// is not a server refusing claims: nothing is said, and the reviewer's
// other claims go on.
func TestAClaimOnAThreadThatIsGoneStopsNoOtherClaim(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	fb.SetClaimErr(fmt.Errorf("record a claim on thread t: not found on http://fake (HTTP 404): Thread not found: %w", client.ErrNoThread))
	alice := reviewerOn(t, 80, 24, fb, "alice")
	alice.keys("enter", "r")
	alice.tick(time.Second)
	if strings.Contains(alice.statusText(), "Other reviewers will not see") {
		t.Fatalf("a gone thread turned claims off: %s", alice.statusText())
	}
	fb.SetClaimErr(nil)
	alice.keys("esc", "esc", "j", "enter", "r")
	alice.tick(time.Second)
	if len(fb.Claims(idOps)) == 0 && len(fb.Claims(idEmail)) == 0 {
		t.Fatal("after one claim met a gone thread, no other claim was made")
	}
}
