package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// heldWords is what a key on the row says while the keys wait for the
// reviewer to choose a row after the interrupt they had open was answered
// elsewhere.
const heldWords = "Key ignored: the interrupt you had open was answered elsewhere; the cursor is on another one now. Move or press enter to choose."

// openThenAnsweredElsewhere lists email, ops and refund (newest first, the
// cursor on email), opens email (its detail at w < 100, the pane beside the
// list from 100 columns), and has bob answer it elsewhere; a second later
// on the reviewer's clock, long past GracePeriod, the cursor is on ops.
func openThenAnsweredElsewhere(t *testing.T, w int) *harness {
	t.Helper()
	h := newHarness(t, w, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute),
		fixture(t, "middleware-js-refund", idQ, 3*time.Minute))
	if w < wideFrom {
		h.keys("enter")
		if !onTop[*detailScreen](h.m) {
			t.Fatalf("enter opened no detail:\n%s", h.screen())
		}
	}
	h.keys("tab")
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"reject","message":"from cli"}]}`)})
	h.run(h.m.fetch(false))
	h.tick(time.Second)
	if got := h.m.items.selected; got != idOps {
		t.Fatalf("the cursor fell onto %s, not ops", got)
	}
	return h
}

// wantHeld: the key acted on nothing (no screen over the list, no decision
// in ops' draft), and the status says what became of email and why the key
// was ignored.
func wantHeld(t *testing.T, h *harness, k string) {
	t.Helper()
	if len(h.m.stack) != 0 {
		t.Fatalf("%s acted on the row the cursor fell onto:\n%s", k, h.screen())
	}
	if d := h.m.drafts[idOps]; d != nil && d.touched() {
		t.Fatalf("%s left a decision in ops' draft:\n%s", k, h.screen())
	}
	got := h.statusText()
	for _, want := range []string{"aaaa1111 was answered elsewhere (by bob", heldWords} {
		if !strings.Contains(got, want) {
			t.Fatalf("after %s the status says %q, not %q:\n%s", k, got, want, h.screen())
		}
	}
	if strings.Index(got, "aaaa1111 was answered") > strings.Index(got, "Key ignored") {
		t.Fatalf("the key's words came before what became of email: %q", got)
	}
}

// The interrupt the reviewer had open is answered elsewhere; a decision
// key a second later (past GracePeriod) acts on nothing, however many
// times, and says why, under what became of the interrupt; a move or enter
// chooses a row, and the keys act again, on that row.
func TestKeysWaitForAChoiceAfterTheOpenInterruptWasAnsweredElsewhere(t *testing.T) {
	for _, c := range []struct {
		name string
		w    int
	}{{"80 columns, detail", 80}, {"200 columns, side pane", 200}} {
		t.Run(c.name, func(t *testing.T) {
			t.Run("j", func(t *testing.T) {
				h := openThenAnsweredElsewhere(t, c.w)
				if c.w < wideFrom && strings.Contains(h.screen(), "Refund") {
					t.Fatalf("the detail stayed open on another interrupt:\n%s", h.screen())
				}
				for _, k := range []string{"a", "e", "r", "x", "A", "s", "tab", " ", "a"} {
					h.keys(k)
					wantHeld(t, h, k)
					h.tick(time.Second)
				}
				// Long after a status would have gone, why is still said.
				h.tick(time.Minute)
				h.wantScreen("aaaa1111 was answered elsewhere")
				h.keys("j")
				if strings.Contains(h.statusText(), "Key ignored") {
					t.Fatalf("the held key's words outlived the choice: %q", h.statusText())
				}
				h.keys("a")
				if !onTop[*confirmScreen](h.m) {
					t.Fatalf("a after j did not act:\n%s", h.screen())
				}
				h.wantScreen("Send this?", "cccc3333")
			})
			t.Run("enter", func(t *testing.T) {
				h := openThenAnsweredElsewhere(t, c.w)
				h.keys("a")
				wantHeld(t, h, "a")
				// ops has two actions: a records the first.
				h.keys("enter", "a")
				if d := h.m.drafts[idOps]; d == nil || d.decisions[0] == nil || d.decisions[0].Type != client.Approve {
					t.Fatalf("a after enter did not act:\n%s", h.screen())
				}
				h.wantScreen("Recorded. Now action 2 of 2")
			})
		})
	}
}

// The old behaviour's 400 ms still holds the keys at once, whatever held
// them first: a key within GracePeriod of the vanish is held as well.
func TestKeysAtOnceAfterTheOpenInterruptLeftAreHeld(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter")
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
	h.run(h.m.fetch(false))
	h.keys("a")
	wantHeld(t, h, "a")
}

// Typing a reason for the interrupt that is answered elsewhere: the editor
// stays and says so; esc keeps the text (drafts.json) and goes back to the
// list, where the keys wait for a choice as after a detail.
func TestEditorOverTheOpenInterruptKeepsTextAndKeysWait(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute),
		fixture(t, "middleware-js-refund", idQ, 3*time.Minute))
	h.keys("enter", "r")
	h.typeText("reason x")
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
	h.run(h.m.fetch(false))
	h.tick(time.Second)
	h.wantScreen("Answered elsewhere (see below)", "reason x")
	h.keys("esc")
	h.tick(time.Second)
	if !h.m.atInbox() {
		t.Fatalf("esc did not go back to the list:\n%s", h.screen())
	}
	h.wantScreen("What you typed is kept in")
	h.keys("a")
	wantHeld(t, h, "a")
	if got := h.statusText(); !strings.Contains(got, "What you typed is kept in drafts.json in the state folder. Key ignored") {
		t.Fatalf("the held key hid where the typed text is: %q", got)
	}
	if d := h.m.drafts[idEmail]; d == nil || !d.typed() {
		t.Fatalf("the reason typed for email was not kept")
	}
	h.keys("k", "j", "a")
	if !onTop[*confirmScreen](h.m) {
		t.Fatalf("a after a move did not act:\n%s", h.screen())
	}
}

// A filter is a choice too; a row that merely leaves around the cursor (not
// the one open) holds only for GracePeriod, as before.
func TestAFilterChoosesAndOtherRowsLeavingHoldBriefly(t *testing.T) {
	h := openThenAnsweredElsewhere(t, 200)
	h.keys("a")
	wantHeld(t, h, "a")
	h.keys("/", "esc", "a")
	h.wantScreen("Recorded. Now action 2 of 2")

	h = newHarness(t, 200, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute),
		fixture(t, "middleware-js-refund", idQ, 3*time.Minute))
	h.b.AnswerElsewhere(idQ, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
	h.run(h.m.fetch(false))
	h.tick(time.Second)
	h.keys("a")
	if !onTop[*confirmScreen](h.m) {
		t.Fatalf("a on the row that stayed under the cursor was held:\n%s", h.screen())
	}
}

// The confirm screen was open over it: y says it was answered elsewhere and
// nothing was sent; esc goes back to the list, where a later key waits for
// a choice as after a detail.
func TestConfirmOverTheOpenInterruptThenKeysWait(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute),
		fixture(t, "middleware-js-refund", idQ, 3*time.Minute))
	h.keys("enter", "A")
	h.wantScreen("Send this?")
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
	h.run(h.m.fetch(false))
	h.tick(time.Second)
	h.keys("y", "esc")
	if !h.m.atInbox() || h.b.Resumes != 0 {
		t.Fatalf("y sent (%d), or esc did not go back:\n%s", h.b.Resumes, h.screen())
	}
	h.tick(time.Second)
	h.keys("A")
	wantHeld(t, h, "A")
	h.keys("j", "a")
	if !onTop[*confirmScreen](h.m) {
		t.Fatalf("a after a move did not act:\n%s", h.screen())
	}
}

// Answered elsewhere after the last listing, while the confirm screen was
// open: y finds it answered and sends nothing; back on the list, what the
// send found stays said and the keys wait for a choice.
func TestSendThatFindsItAnsweredThenKeysWait(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute),
		fixture(t, "middleware-js-refund", idQ, 3*time.Minute))
	h.keys("enter", "A")
	h.wantScreen("Send this?")
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
	h.keys("y")
	h.tick(time.Second)
	if !h.m.atInbox() || h.m.items.selected == idEmail {
		t.Fatalf("after y:\n%s", h.screen())
	}
	said := h.statusText()
	if !strings.Contains(said, "aaaa1111: already handled elsewhere") {
		t.Fatalf("status %q", said)
	}
	h.keys("a")
	if len(h.m.stack) != 0 || h.m.drafts[h.m.items.selected] != nil && h.m.drafts[h.m.items.selected].touched() {
		t.Fatalf("a acted on the row the cursor fell onto:\n%s", h.screen())
	}
	if got := h.statusText(); !strings.Contains(got, "aaaa1111: already handled elsewhere") || !strings.Contains(got, heldWords) {
		t.Fatalf("status %q", got)
	}
	h.keys("enter", "a")
	if len(h.m.stack) == 0 || strings.Contains(h.statusText(), "Key ignored") {
		t.Fatalf("a after enter did not act:\n%s", h.screen())
	}
}

// A move or enter within GracePeriod of the change was meant for the list
// as it was: it chooses nothing, and a key a second later still waits.
func TestAKeyAtOnceAfterTheOpenInterruptLeftChoosesNothing(t *testing.T) {
	for _, k := range []string{"j", "enter"} {
		t.Run(k, func(t *testing.T) {
			h := newHarness(t, 80, 24,
				fixture(t, "middleware-js-email", idEmail, time.Minute),
				fixture(t, "middleware-js-ops", idOps, 2*time.Minute),
				fixture(t, "middleware-js-refund", idQ, 3*time.Minute))
			h.keys("enter")
			h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
			h.run(h.m.fetch(false))
			h.now = h.now.Add(GracePeriod / 4)
			h.keys(k)
			h.tick(time.Second)
			h.keys("a")
			if d := h.m.drafts[h.m.items.selected]; len(h.m.stack) != 0 || d != nil && d.touched() {
				t.Fatalf("a acted after a %s pressed at once:\n%s", k, h.screen())
			}
			h.wantScreen("Key ignored: the interrupt you had open")
		})
	}
}
