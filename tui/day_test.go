package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
)

// Nothing in the detail is wider than the pane: the pane would cut it
// without a mark (the allowed line of an action read "allowed: approve,"
// at 100 columns).
func TestDetailWrapsAtEveryWidth(t *testing.T) {
	ops := fixture(t, "middleware-js-ops", idOps, time.Minute)
	ops.ThreadID = "4c4f134d-7413-b994-7f72-d21837d977a8-a-long-thread-id"
	for w := 20; w <= 125; w++ {
		h := newHarness(t, 200, 50, ops)
		text := h.m.detailText(h.m.items.current(), w)
		for _, l := range strings.Split(text, "\n") {
			if ansi.StringWidth(l) > w {
				t.Fatalf("at %d columns a line is %d wide: %q", w, ansi.StringWidth(l), ansi.Strip(l))
			}
		}
		flat := strings.Join(strings.Fields(ansi.Strip(text)), " ")
		if !strings.Contains(flat, "allowed: approve, reject") || !strings.Contains(flat, "allowed: approve, edit, reject") {
			t.Fatalf("at %d columns the allowed decisions are not all shown:\n%s", w, ansi.Strip(text))
		}
	}
}

// The failed-run screen wraps what is wider than the window.
func TestFailedRunScreenWraps(t *testing.T) {
	h := newHarness(t, 60, 20)
	ops := fixture(t, "middleware-js-ops", idOps, time.Minute)
	h.b.SetFailures(client.Failure{ThreadID: ops.ThreadID, GraphID: "ops", UpdatedAt: t0.Add(-time.Minute),
		Error:      "GraphRecursionError: Recursion limit of 25 reached without hitting a stop condition. You can increase the limit by setting the recursion_limit config key.",
		Interrupts: []client.Interrupt{ops}})
	h.m.failed.now = true
	h.run(h.m.fetch(false))
	h.keys("E")
	for _, open := range []bool{false, true} {
		if open {
			h.keys("enter")
		}
		s := h.m.top().(*failuresScreen)
		for _, l := range strings.Split(s.text(h.m, 60), "\n") {
			if ansi.StringWidth(l) > 60 {
				t.Fatalf("a line is %d wide at 60 columns: %q", ansi.StringWidth(l), ansi.Strip(l))
			}
		}
	}
}
