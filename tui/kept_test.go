package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// A command on this machine (same state folder) answers the interrupt
// whose reject reason is being typed: the editor says the text is kept,
// and it is, on disk, before and after the reviewer leaves; the status
// says where.
func TestTextTypedForAnInterruptHandledHereByACommandIsKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessJournal(t, 80, 24, j, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "r")
	h.typeText("reason x")
	// hitl approve ID from a shell: the server has the answer, the
	// journal marks it handled.
	h.b.AnswerElsewhere(idEmail, "root", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
	if err := j.MarkHandled(idEmail); err != nil {
		t.Fatal(err)
	}
	h.run(h.m.fetch(false))
	h.tick(time.Second)
	h.wantScreen("Your text is kept", "reason x")
	onDisk := func(when string) {
		t.Helper()
		b, err := j.LoadDrafts()
		if err != nil || !strings.Contains(string(b), "reason x") {
			t.Fatalf("%s: drafts.json holds %s (%v), not the typed text", when, b, err)
		}
	}
	onDisk("with the editor open")
	h.keys("esc")
	h.tick(time.Second)
	h.wantScreen("What you typed is kept in", "drafts.json in the state folder.")
	onDisk("after esc")
	h.run(h.m.persistDrafts())
	onDisk("after a later save")
}
