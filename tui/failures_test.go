package tui

// Threads whose run failed: their own section above the inbox, a screen
// with the server's error, this machine's decision, the conversation, and
// the interrupt answered again through the usual confirm screen.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
)

const idHeld = "9999aaaa9999aaaa9999aaaa9999aaaa"

func TestFailedThreadShownAndAnsweredAgain(t *testing.T) {
	held := fixture(t, "prompt-string", idHeld, 5*time.Minute)
	held.ThreadID = "thread-failed"
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute))
	fb.SetFailures(client.Failure{ThreadID: held.ThreadID, GraphID: "asker", UpdatedAt: t0.Add(-2 * time.Minute),
		Error: "ZodError: email: Invalid email\nname: Required", Interrupts: []client.Interrupt{held}})
	fb.Messages = map[string][]client.Message{held.ThreadID: {{Role: "ai", Content: "Which address should I use?"}}}
	h := newHarnessOn(t, 140, 40, nil, fb)
	h.b = fb
	// This machine's decision that led there, as the pipeline records it.
	e := journal.Entry{DecisionID: "d1", Time: t0.Add(-3 * time.Minute), Reviewer: "tester", Server: fb.Server(), ThreadID: held.ThreadID,
		InterruptID: idHeld, Title: held.Title, Decisions: []client.Decision{{Type: client.Respond, Message: "not-an-email"}},
		Resume: json.RawMessage(`"not-an-email"`)}
	if err := h.j.Intend([]journal.Entry{e}); err != nil {
		t.Fatal(err)
	}
	e.Outcome, e.Error = journal.Failed, "ZodError: email: Invalid email"
	if err := h.j.Resolve([]journal.Entry{e}); err != nil {
		t.Fatal(err)
	}
	_ = h.j.MarkHandled(idHeld)
	h.m.failed.now = true
	h.run(h.m.fetch(false))
	h.wantScreen("✗ 1 thread whose run failed · E shows them", "✗ thread-f", "ZodError: email: Invalid email", "▸   aaaa1111")

	h.keys("E")
	h.wantScreen("Threads whose last run failed", "▸ thread-f")
	h.keys("enter")
	h.wantScreen("Run failed · thread thread-failed", "name: Required", "Decision sent from this machine",
		`tester: respond on 9999aaaa → failed · sent "not-an-email"`, "still holds an interrupt (9999aaaa)", "Customer not found")
	h.keys("c")
	h.wantScreen("Which address should I use?")

	// Answer it again: the same editor and confirm screen as ever.
	h.keys("f")
	h.typeText("jane@example.com")
	h.keys("ctrl+s")
	h.wantScreen("Send this?", "respond: jane@example.com")
	h.keys("y")
	h.wantScreen("Sent respond for 9999aaaa")
	if got := h.sent(idHeld); got != `"jane@example.com"` {
		t.Fatalf("sent %s", got)
	}
	h.run(h.m.fetch(false))
	if strings.Contains(h.screen(), "whose run failed") {
		t.Fatalf("the failure is still shown:\n%s", h.screen())
	}
}

func TestFailedThreadWithoutInterruptSaysSo(t *testing.T) {
	fb := fake.New()
	fb.SetFailures(client.Failure{ThreadID: "thread-crashed", GraphID: "agent", UpdatedAt: t0.Add(-time.Hour)})
	h := newHarnessOn(t, 80, 24, nil, fb)
	h.b = fb
	h.wantScreen("✗ 1 thread whose run failed", "the run failed (the server keeps no error text)", "No pending interrupts")
	h.keys("E", "enter")
	h.wantScreen("The thread holds no interrupt: hitl cannot resume it", "none: it came from elsewhere")
	h.keys("a")
	if !onTop[*failuresScreen](h.m) {
		t.Fatal("a decision key acted without an interrupt")
	}
}
