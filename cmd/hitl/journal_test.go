package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/demo"
)

// A state folder that cannot record what was listed, or whose audit log
// cannot be read, is said on stderr (once a run), not swallowed; the
// listing itself still works.
func TestJournalErrorsAreSaid(t *testing.T) {
	t.Parallel()
	isolate(t)
	fake := demo.NewREST()
	fake.StepDelay = 0
	ts := httptest.NewServer(fake.Handler())
	defer ts.Close()
	fake.Spawn("")
	dir := filepath.Join(envOf(t).getenv("XDG_STATE_HOME"), "hitl")
	for _, name := range []string{"seen.jsonl", "audit.jsonl"} {
		// A non-empty directory where the file goes: unwritable and
		// unreadable, even for root.
		if err := os.MkdirAll(filepath.Join(dir, name, "x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r := hitl(t, "", "--backend", "rest", "--url", ts.URL, "list")
	must(t, r, 0, "[info]") // the listing is printed all the same
	for _, want := range []string{
		"hitl: warning: cannot write " + filepath.Join(dir, "seen.jsonl"),
		"one of them answered elsewhere may later be reported as unknown",
		"decisions of unknown outcome are not listed",
		"hitl config show names it",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if n := strings.Count(r.stderr, "hitl: warning:"); n != 2 {
		t.Errorf("%d warnings, want 2 (one per problem):\n%s", n, r.stderr)
	}
}
