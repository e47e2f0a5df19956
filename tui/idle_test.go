package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
)

// The failed threads are read every few polls: a reading that finds what
// is shown draws no frame (an idle reviewer with a failed run in view is
// not redrawn every ten seconds); one that finds another failure shows it.
func TestIdleFailureReadingDrawsNothing(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, 2*time.Hour))
	fb.SetFailures(client.Failure{ThreadID: "thread-crashed", GraphID: "agent", UpdatedAt: t0.Add(-time.Hour), Error: "boom"})
	h := newHarnessOn(t, 80, 24, nil, fb)
	h.b = fb
	h.wantScreen("✗ 1 thread whose run failed", "boom")
	h.now = h.now.Add(activeFor + time.Second)
	poll := func() (quiet bool) {
		t.Helper()
		h.m.failed.now = true // the failed threads are read with this poll
		next, cmd := h.m.Update(pollMsg{})
		h.m = next.(*Model)
		msgs := collect(cmd)
		if len(msgs) != 1 {
			t.Fatalf("the poll's command answered %d messages", len(msgs))
		}
		if pm, ok := msgs[0].(pendingMsg); !ok || pm.failed == nil {
			t.Fatalf("the poll answered %T without the failed threads", msgs[0])
		}
		next, cmd = h.m.Update(msgs[0])
		h.m = next.(*Model)
		quiet = h.m.quiet
		h.run(cmd)
		return quiet
	}
	frame := h.m.frame
	if !poll() {
		t.Fatal("a reading of the same failed threads drew a frame")
	}
	if h.m.frame != frame {
		t.Fatal("the frame changed")
	}
	fb.SetFailures(client.Failure{ThreadID: "thread-crashed", GraphID: "agent", UpdatedAt: t0.Add(-time.Hour), Error: "boom"},
		client.Failure{ThreadID: "thread-broken", GraphID: "agent", UpdatedAt: t0.Add(-time.Minute), Error: "bang"})
	if poll() {
		t.Fatal("a reading with a new failed thread drew nothing")
	}
	if !strings.Contains(h.screen(), "2 threads whose run failed") {
		t.Fatalf("the new failure is not shown:\n%s", h.screen())
	}
}
