package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// selectedRow is the history's row under the cursor.
func selectedRow(h *harness) string {
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, "▸ ") {
			return l
		}
	}
	return ""
}

// A decision recorded while the history is open (another hitl on this
// machine, the same state folder) shows at the next periodic read, and the
// cursor stays on the row the reviewer is on; an outcome written later
// changes its row in place.
func TestHistoryFollowsTheJournalWhileOpen(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessJournal(t, 80, 24, j, fixture(t, "middleware-js-email", idEmail, time.Minute))
	entry := func(dec, id, title string, o journal.Outcome) journal.Entry {
		return journal.Entry{DecisionID: dec, Time: t0, InterruptID: id, Title: title,
			Decisions: []client.Decision{{Type: client.Approve}}, Outcome: o}
	}
	h.j.Record(entry("1", "1111aaaa", "Review tool call first_tool", journal.Finished))
	h.j.Record(entry("2", "2222bbbb", "Review tool call second_tool", journal.Finished))
	h.keys("H", "j")
	if row := selectedRow(h); !strings.Contains(row, "first_tool") {
		t.Fatalf("j did not select the older row: %q\n%s", row, h.screen())
	}

	other, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Record(journal.Entry{Kind: journal.Intent, DecisionID: "3", Time: t0, InterruptID: "3333cccc", Title: "Review tool call third_tool",
		Decisions: []client.Decision{{Type: client.Reject}}}); err != nil {
		t.Fatal(err)
	}
	h.now = h.now.Add(2 * time.Second)
	h.run(h.m.fetch(true)) // the periodic read: the listing itself is as it was
	h.wantScreen("third_tool")
	if row := selectedRow(h); !strings.Contains(row, "first_tool") {
		t.Fatalf("the cursor left the row it was on: %q\n%s", row, h.screen())
	}

	if err := other.Record(journal.Entry{Kind: journal.Result, DecisionID: "3", Time: t0, InterruptID: "3333cccc", Outcome: journal.Interrupted}); err != nil {
		t.Fatal(err)
	}
	h.run(h.m.fetch(true))
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, "third_tool") && !strings.Contains(l, "paused") {
			t.Fatalf("the outcome written since is not on its row: %q\n%s", l, h.screen())
		}
	}
}
