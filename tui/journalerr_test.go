package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
)

// block makes the journal file name unwritable and unreadable, even for
// root: a non-empty directory stands where the file goes.
func block(t *testing.T, dir, name string) (unblock func()) {
	t.Helper()
	p := filepath.Join(dir, name)
	_ = os.Remove(p)
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
}

// A draft that cannot be written is said on the status line and in the
// status area until a write works; it is written again at the next tick.
func TestDraftsNotSavedAreReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessJournal(t, 100, 30, j, fixture(t, "middleware-js-email", idEmail, time.Minute))
	unblock := block(t, dir, "drafts.json")
	h.keys("enter", "r")
	h.typeText("half a thought")
	h.tick(time.Second)
	h.wantScreen("Your drafts could not be saved", "✗ drafts not saved")
	h.keys("esc") // the status goes with the screen; the mark stays
	h.wantScreen("✗ drafts not saved")
	unblock()
	h.tick(time.Second)
	if strings.Contains(h.screen(), "drafts not saved") {
		t.Fatalf("the mark stays after a write that worked:\n%s", h.screen())
	}
	b, err := j.LoadDrafts()
	if err != nil || !strings.Contains(string(b), "half a thought") {
		t.Fatalf("drafts on disk: %s %v", b, err)
	}
}

// Sightings that cannot be recorded and an audit log that cannot be read
// are said too, not dropped.
func TestJournalReadAndWriteErrorsAreReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	unblockSeen := block(t, dir, "seen.jsonl")
	unblockAudit := block(t, dir, "audit.jsonl")
	h := newHarnessJournal(t, 200, 30, j, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.wantScreen("✗ sightings not recorded, audit log unreadable", "aaaa1111")
	unblockSeen()
	unblockAudit()
	h.run(h.m.fetch(false))
	if s := h.screen(); strings.Contains(s, "✗ ") {
		t.Fatalf("a problem is still shown after it ended:\n%s", s)
	}
	if got := j.Sightings("aaaa"); len(got) != 1 {
		t.Fatalf("the sighting was not written once the folder worked: %v", got)
	}
}

// An audit log that cannot be read while failed runs are shown: they are
// shown, without this machine's decisions, and that is said.
func TestFailedRunsWithAnUnreadableAuditLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	block(t, dir, "audit.jsonl")
	fb := fake.New()
	fb.SetFailures(client.Failure{ThreadID: "thread-crashed", GraphID: "agent", UpdatedAt: t0.Add(-time.Hour)})
	h := newHarnessWith(t, 200, 30, nil, fb, j)
	h.b = fb
	h.wantScreen("✗ 1 thread whose run failed", "✗ audit log unreadable")
	if !strings.Contains(h.m.status, "hitl could not read its audit log") {
		t.Fatalf("status: %q", h.m.status)
	}
}
