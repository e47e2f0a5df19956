package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
)

// fanOut is a thread waiting at three interrupts (fan-out branches), the
// cursor on the first, at 80x24.
func fanOut(t *testing.T) *harness {
	t.Helper()
	a := fixture(t, "middleware-js-email", "7184784c-0000-4000-8000-000000000001", time.Minute)
	b := fixture(t, "middleware-js-email", "04fb2a91-0000-4000-8000-000000000002", 2*time.Minute)
	c := fixture(t, "middleware-js-email", "1f6c77e3-0000-4000-8000-000000000003", 3*time.Minute)
	a.ThreadID = "8464d292-1c2b-4d5e-8f90-1234567890ab"
	b.ThreadID, c.ThreadID = a.ThreadID, a.ThreadID
	h := newHarness(t, 80, 24, a, b, c)
	if c := h.m.items.current(); c == nil || c.ID != a.ID {
		t.Fatalf("cursor on %+v", c)
	}
	return h
}

// statusText is the status area as one line of words (its wrapping undone).
func (h *harness) statusText() string {
	lines := h.m.statusLines(h.m.lay.w, h.m.lay.h)
	return strings.Join(strings.Fields(ansi.Strip(strings.Join(lines, " "))), " ")
}

// x on a fan-out branch is refused at once, as hitl dismiss refuses it:
// the status says why and what to do instead, in full at 80 columns, and
// no dismiss draft is left on the row to fail at every send.
func TestDismissOfAFanOutBranchIsRefusedAtOnce(t *testing.T) {
	h := fanOut(t)
	h.wantScreen("not allowed: f i x")
	h.keys("x")
	want := "Not dismissed, nothing sent: dismissing ends the whole work of thread 8464d292, which also waits at 2 other interrupts (04fb2a91, 1f6c77e3): that would drop them too; answer them first, or answer this branch without ending the thread."
	if got := h.statusText(); !strings.Contains(got, want) {
		t.Fatalf("status %q\nwant %q\n%s", got, want, h.screen())
	}
	if strings.Contains(h.screen(), "…\n") || onTop[*confirmScreen](h.m) {
		t.Fatalf("cut, or asked to send:\n%s", h.screen())
	}
	if d := h.m.drafts["7184784c-0000-4000-8000-000000000001"]; d != nil && d.touched() {
		t.Fatalf("a dismiss draft was left: %+v", d.decisions)
	}
	h.keys("y", "s")
	if _, sent := h.b.SentValue("7184784c-0000-4000-8000-000000000001"); sent {
		t.Fatal("the dismiss was sent")
	}
	if strings.Contains(h.screen(), "✎") {
		t.Fatalf("the row shows a draft:\n%s", h.screen())
	}
}

// Reject-and-stop (x on the confirm screen of rejects) is refused the
// same way; the reject itself stays and can be sent.
func TestStopOfAFanOutBranchIsRefused(t *testing.T) {
	h := fanOut(t)
	h.keys("r")
	h.typeText("no")
	h.keys("ctrl+s")
	h.wantScreen("Send this?")
	h.keys("x")
	if got := h.statusText(); !strings.Contains(got, "Not stopped, nothing sent: rejecting and stopping ends the whole work of thread 8464d292") {
		t.Fatalf("status %q\n%s", got, h.screen())
	}
	for _, dec := range h.m.drafts["7184784c-0000-4000-8000-000000000001"].decisions {
		if dec == nil || dec.Type != client.Reject || dec.Stop {
			t.Fatalf("draft: %+v", dec)
		}
	}
}

// A status of five lines at 80x24 is shown whole, not cut after three:
// what to do next is often its last words.
func TestALongStatusWrapsWhole(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	msg := strings.TrimSpace(strings.Repeat("a long refusal ", 24)) + " so do this instead."
	h.m.setStatus(msg, false)
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := h.statusText(); !strings.Contains(got, msg) || strings.Contains(got, "…") {
		t.Fatalf("status %q\n%s", got, h.screen())
	}
	if n := strings.Count(h.screen(), "\n"); n != 23 {
		t.Fatalf("the screen is %d lines high:\n%s", n+1, h.screen())
	}
}

// A decision kept on a one-action interrupt (back from the confirm screen,
// or a failed send: "Draft kept (s sends it again)") offers s among the
// keys here; without one, s is not offered.
func TestSubmitIsOfferedForAKeptDecision(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-refund", idEmail, time.Minute))
	h.keys("?")
	if strings.Contains(h.screen(), "s submit") && strings.Index(h.screen(), "s submit") < strings.Index(h.screen(), "Every key") {
		t.Fatalf("s offered with nothing to send:\n%s", h.screen())
	}
	h.keys("esc", "a")
	h.wantScreen("Send this?")
	h.keys("esc", "?")
	s := h.screen()
	if i := strings.Index(s, "s submit"); i < 0 || i > strings.Index(s, "Every key") {
		t.Fatalf("s is not among the keys here:\n%s", s)
	}
}

// x on a coding agent's request is refused at once (its agent waits for an
// answer; there is no thread to end): not offered, no confirm screen that
// speaks of ending a thread, nothing sent.
func TestDismissOfAHookRequestIsRefusedAtOnce(t *testing.T) {
	it := toolCall(idEmail, "sess-bash", "Bash", `{"command":"npm ci"}`)
	it.GraphID, it.AssistantID = "claude", ""
	it.Origin = &client.Origin{Agent: "claude", Host: "build-7", Cwd: "/src/app", SessionID: "sess-bash"}
	h := newHarness(t, 80, 24, it)
	h.open()
	h.wantScreen("not allowed: f i x")
	h.keys("x")
	if got := h.statusText(); !strings.Contains(got, "Not dismissed: a coding agent's request cannot be dismissed or stopped: its agent waits for an answer; reject it instead (nothing sent).") {
		t.Fatalf("status %q\n%s", got, h.screen())
	}
	if onTop[*confirmScreen](h.m) {
		t.Fatalf("asked to send a dismiss:\n%s", h.screen())
	}
	h.keys("y", "s")
	if _, sent := h.b.SentValue(idEmail); sent {
		t.Fatal("the dismiss was sent")
	}
}
