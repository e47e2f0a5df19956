package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

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

// Interrupts raised within the same second (a burst) whose ages are shown
// in minutes change age in one frame, not in one frame each.
func TestAgesOfABurstChangeTogether(t *testing.T) {
	var its []client.Interrupt
	for i, ms := range []time.Duration{100, 400, 700} {
		it := fixture(t, "middleware-js-email", strings.Repeat(string(rune('a'+i)), 32), 2*time.Minute+ms*time.Millisecond)
		its = append(its, it)
	}
	h := newHarness(t, 80, 24, its...)
	h.now = h.now.Add(activeFor + time.Second)
	h.msg(pollMsg{})
	h.m.lastUpdate = time.Time{} // "updated just now" is not what is asked here
	h.m.draw()
	base := t0.Truncate(time.Second)
	// The oldest turns "3m" at 59.3 s past t0 (its raising, 3 minutes on),
	// the newest at 59.9 s: one tick at 60 s.
	if due, want := h.m.due(), base.Add(60*time.Second); !due.Equal(want) {
		t.Fatalf("next tick %s after t0, want %s", due.Sub(t0), want.Sub(t0))
	}
	h.now = base.Add(60 * time.Second)
	h.m.draw()
	if n := strings.Count(h.screen(), " 3m "); n != 3 {
		t.Fatalf("after the tick, %d ages read 3m:\n%s", n, h.screen())
	}
}

// An age that changes on a resting screen is written by one tick of the
// ticker soon: the clock's frames (with a thousand interrupts raised at
// different seconds, one every few seconds) do not bring the full rate
// back. A key's frame does; a message that leaves the frame as it was does
// neither.
func TestTheClocksFrameLeavesTheScreenResting(t *testing.T) {
	it := fixture(t, "middleware-js-email", strings.Repeat("a", 32), 2*time.Minute+30*time.Second)
	h := newHarness(t, 80, 24, it)
	h.now = h.now.Add(activeFor + time.Second)
	h.msg(pollMsg{})
	h.m.lastUpdate = time.Time{} // "updated just now" is not what is asked here
	h.msg(unchangedMsg{})        // drawn so
	ticker := time.NewTicker(time.Hour)
	defer ticker.Stop()
	h.m.pace = pacer{ticker: ticker}

	drawn := h.m.pace.drawn
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24}) // the same size: the same frame
	if h.m.pace.drawn != drawn || h.m.pace.active || h.m.pace.flushing {
		t.Fatalf("a message that left the frame as it was woke the renderer (drawn %d→%d, active %v)",
			drawn, h.m.pace.drawn, h.m.pace.active)
	}

	before := h.screen()
	h.now = t0.Add(30*time.Second + 10*time.Millisecond) // it turns 3m
	h.msg(tickMsg{gen: h.m.clock.gen, at: h.now})
	if h.screen() == before || !strings.Contains(h.screen(), " 3m ") {
		t.Fatalf("the tick did not redraw the age:\n%s", h.screen())
	}
	if !h.m.pace.flushing || h.m.pace.active {
		t.Fatalf("the clock's frame: flushing %v, active %v; want a flush, resting", h.m.pace.flushing, h.m.pace.active)
	}
	h.m.pace.onRest(restMsg{drawn: h.m.pace.drawn})
	if h.m.pace.flushing || h.m.pace.active {
		t.Fatalf("after the rest check: flushing %v, active %v", h.m.pace.flushing, h.m.pace.active)
	}

	h.keys("?") // a key's frame (the help)
	if !h.m.pace.active {
		t.Fatal("a key's frame: resting; want the full rate")
	}
}
