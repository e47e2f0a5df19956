//go:build unix

package journal

import (
	"os/exec"
	"testing"
	"time"
)

// A mark moves when another process of this machine handles an interrupt
// or writes to the audit log, and stands while nothing is written: the
// TUI's periodic read is skipped on its word.
func TestMarkMovesWithWhatOthersWrite(t *testing.T) {
	dir := t.TempDir()
	tui, _ := Open(dir)
	cli, _ := Open(dir) // `hitl approve` in another process
	mark := func() Mark {
		t.Helper()
		m, err := tui.Mark()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := mark()
	if mark() != before {
		t.Fatal("the mark moved while nothing was written")
	}
	if err := cli.MarkHandled("id-1"); err != nil {
		t.Fatal(err)
	}
	handled := mark()
	if handled == before {
		t.Fatal("another process handled an interrupt: the mark did not move")
	}
	if err := cli.Record(Entry{DecisionID: "d1", InterruptID: "id-2", Server: "s", Outcome: Unknown}); err != nil {
		t.Fatal(err)
	}
	audited := mark()
	if audited == handled {
		t.Fatal("another process wrote to the audit log: the mark did not move")
	}
	if mark() != audited {
		t.Fatal("the mark moved while nothing was written")
	}
	if u, _ := tui.Unresolved("s"); len(u) != 1 {
		t.Fatalf("unresolved: %v", u)
	}
	if mark() != audited {
		t.Fatal("reading the audit log moved the mark")
	}
}

// A decision another live process is sending is left out of Unresolved; when
// that process dies it is listed, though no file changed: the mark moves.
func TestMarkMovesWhenASenderDies(t *testing.T) {
	dir := t.TempDir()
	j, _ := Open(dir)
	sender := exec.Command("sleep", "60")
	if err := sender.Start(); err != nil {
		t.Skip("cannot start a process:", err)
	}
	t.Cleanup(func() { _ = sender.Process.Kill(); _ = sender.Wait() })
	if err := j.Record(Entry{DecisionID: "d1", InterruptID: "id-1", Server: "s", PID: sender.Process.Pid, Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	sending, err := j.Mark()
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := j.Unresolved("s"); len(u) != 0 {
		t.Fatalf("a decision being sent is unresolved: %v", u)
	}
	if m, _ := j.Mark(); m != sending {
		t.Fatal("the mark moved while the sender lives")
	}
	_ = sender.Process.Kill()
	_ = sender.Wait()
	if m, _ := j.Mark(); m == sending {
		t.Fatal("the sender died: the mark did not move")
	}
	if u, _ := j.Unresolved("s"); len(u) != 1 {
		t.Fatalf("the dead sender's decision is not unresolved: %v", u)
	}
}

// A new redactor reads the audit log again: the mark moves, so that the
// entries shown are read through it.
func TestMarkMovesWithANewRedactor(t *testing.T) {
	j, _ := Open(t.TempDir())
	if err := j.Record(Entry{DecisionID: "d1", InterruptID: "id-1", Server: "s", Outcome: Unknown}); err != nil {
		t.Fatal(err)
	}
	before, _ := j.Mark()
	j.SetRedactor(func(s string) string { return s })
	if after, _ := j.Mark(); after == before {
		t.Fatal("a new redactor: the mark did not move")
	}
}
