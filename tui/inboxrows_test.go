package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
)

// wideRows are interrupts whose graph names and summaries hold wide
// characters (CJK, emoji: two cells each), beside plain ones.
func wideRows(t *testing.T) []client.Interrupt {
	t.Helper()
	var out []client.Interrupt
	for _, r := range []struct {
		id, graph, title string
		age              time.Duration
	}{
		{"c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1", "图表代理", "请批准这笔退款 🚀 refund of 40 EUR", time.Minute},
		{"c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2", "🚀rocket-launch-agent-with-a-long-name", "部署到生产环境？", 2 * time.Hour},
		{"c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3", "ops", "plain words only", 3 * 24 * time.Hour},
	} {
		it := fixture(t, "prompt-string", r.id, r.age)
		it.ThreadID = "thread-" + r.id
		it.GraphID, it.Title = r.graph, r.title
		out = append(out, it)
	}
	email := fixture(t, "middleware-js-email", "c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4", 5*time.Second)
	email.GraphID = "支持"
	return append(out, email)
}

// Wide characters in a graph name or a summary keep the inbox's columns
// aligned: at 80 columns (the list alone) and at 200 (beside the detail)
// every row is as wide as the list, and the id, the age, the graph, the
// badge and the summary start in the same cell on every row.
func TestInboxColumnsAlignWithWideCharacters(t *testing.T) {
	items := wideRows(t)
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 40}} {
		h := newHarness(t, size.w, size.h, items...)
		lines := strings.Split(h.screen(), "\n")
		listW := h.m.lay.list.w
		if size.w == 200 && (!h.m.lay.wide || listW >= size.w) {
			t.Fatalf("at 200 columns the detail is not beside the list (list %d wide)", listW)
		}
		var starts [][]int
		for _, it := range items {
			row := ""
			for _, l := range lines {
				if strings.Contains(l, it.ID[:8]) {
					row = l
					break
				}
			}
			if row == "" {
				t.Fatalf("at %d columns no row shows %s:\n%s", size.w, it.ID[:8], h.screen())
			}
			// The list's part of the line: up to the separator beside the
			// detail, or the whole line.
			if h.m.lay.wide {
				i := strings.Index(row, "│")
				if i < 0 {
					t.Fatalf("no separator in %q", row)
				}
				row = row[:i]
				if got := ansi.StringWidth(row); got != listW {
					t.Fatalf("at %d columns the row of %s is %d cells wide, want the list's %d: %q", size.w, it.ID[:8], got, listW, row)
				}
			} else if got := ansi.StringWidth(row); got > size.w || (it.ID == h.m.items.selected && got != size.w) {
				t.Fatalf("at %d columns the row of %s is %d cells wide: %q", size.w, it.ID[:8], got, row)
			}
			badge := "[prompt]"
			if len(it.Actions) > 0 {
				badge = "[tool]"
			}
			summary := h.m.items.gist(&it)
			graph := string([]rune(it.GraphID)[:1])
			ageEnd := cellOf(t, row, h.m.age(it.UpdatedAt)+" ") + ansi.StringWidth(h.m.age(it.UpdatedAt))
			starts = append(starts, []int{cellOf(t, row, it.ID[:8]), ageEnd, cellOf(t, row, graph), cellOf(t, row, badge), cellOf(t, row, string([]rune(summary)[:2]))})
		}
		for i, s := range starts[1:] {
			if !equalInts(s, starts[0]) {
				t.Fatalf("at %d columns the columns (id, age's end, graph, badge, summary) start at %v in row %d, %v in row 0:\n%s", size.w, s, i+1, starts[0], h.screen())
			}
		}
		// Nothing was cut that fits: a summary starts after the badge, and
		// the widest graph name that does not fit is cut with a mark.
		if !strings.Contains(h.screen(), "🚀rocket") || !strings.Contains(h.screen(), "…") {
			t.Fatalf("at %d columns the long graph name is not shown cut:\n%s", size.w, h.screen())
		}
	}
}

// cellOf is the cell at which sub starts in row.
func cellOf(t *testing.T, row, sub string) int {
	t.Helper()
	i := strings.Index(row, sub)
	if i < 0 {
		t.Fatalf("%q not in row %q", sub, row)
	}
	return ansi.StringWidth(row[:i])
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The failed runs above the inbox and on their screen keep their columns
// with a wide graph name too: the graph and what failed start in the same
// cell on every row.
func TestFailedRunRowsAlignWithWideCharacters(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute))
	fb.SetFailures(
		client.Failure{ThreadID: "thread-aaaa", GraphID: "图表代理", UpdatedAt: t0.Add(-2 * time.Minute), Error: "ValueError: 坏了"},
		client.Failure{ThreadID: "thread-bbbb", GraphID: "ops", UpdatedAt: t0.Add(-3 * time.Hour), Error: "ValueError: broken"})
	h := newHarnessOn(t, 80, 24, nil, fb)
	h.b = fb
	h.m.failed.now = true
	h.run(h.m.fetch(false))
	check := func(where string) {
		t.Helper()
		var graph, gist []int
		for _, l := range strings.Split(h.screen(), "\n") {
			for _, r := range []struct{ thread, graph string }{{"thread-a", "图表代理"}, {"thread-b", "ops"}} {
				if strings.Contains(l, r.thread) {
					graph = append(graph, cellOf(t, l, r.graph))
					gist = append(gist, cellOf(t, l, "ValueError"))
				}
			}
		}
		if len(graph) != 2 || graph[0] != graph[1] || gist[0] != gist[1] {
			t.Fatalf("%s: the graph starts at %v, what failed at %v:\n%s", where, graph, gist, h.screen())
		}
	}
	check("above the inbox")
	h.keys("E")
	h.wantScreen("Threads whose last run failed")
	check("on the failed runs' screen")
}
