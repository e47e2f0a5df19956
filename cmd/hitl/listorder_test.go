package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/demo"
)

// hitl list puts the thread most recently changed first, as its help and
// docs/commands.md say: an answer to one branch of a thread moves the
// branch still waiting above an interrupt that has waited less (its AGE
// out of order), which "newest first" would not.
func TestListPutsTheMostRecentlyChangedThreadFirst(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	url := srv.URL()
	type row struct {
		ID        string    `json:"id"`
		ThreadID  string    `json:"thread_id"`
		Schema    string    `json:"schema"`
		UpdatedAt time.Time `json:"updated_at"`
	}
	// waitFor lists until thread has n interrupts waiting.
	waitFor := func(thread string, n int) []row {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			r := hitl(t, "", "--url", url, "list", "--json")
			var all, mine []row
			if err := json.Unmarshal([]byte(r.stdout), &all); err != nil {
				t.Fatalf("list --json: %v\n%s%s", err, r.stdout, r.stderr)
			}
			for _, it := range all {
				if it.ThreadID == thread {
					mine = append(mine, it)
				}
			}
			if len(mine) == n {
				return mine
			}
		}
		t.Fatalf("thread %s never had %d interrupts waiting", thread, n)
		return nil
	}
	parallel, err := srv.Spawn("parallel", nil)
	if err != nil {
		t.Fatal(err)
	}
	branches := waitFor(parallel, 2)
	time.Sleep(20 * time.Millisecond) // the next pause is later, whatever the clock's grain
	asker, err := srv.Spawn("asker", nil)
	if err != nil {
		t.Fatal(err)
	}
	question := waitFor(asker, 1)[0]
	var prompt, other row
	for _, b := range branches {
		if b.Schema == "prompt" {
			prompt = b
		} else {
			other = b
		}
	}
	if prompt.ID == "" || other.ID == "" || !other.UpdatedAt.Before(question.UpdatedAt) {
		t.Fatalf("the demo's parallel thread: %+v; the question %+v", branches, question)
	}
	must(t, hitl(t, "", "--url", url, "respond", prompt.ID, "-m", "eu-west-1"), 0, "Sent respond")
	waitFor(parallel, 1)

	r := hitl(t, "", "--url", url, "list")
	at := func(id string) int {
		i := strings.Index(r.stdout, id[:8]+" ")
		if i < 0 {
			t.Fatalf("hitl list has no row %s:\n%s", id[:8], r.stdout)
		}
		return i
	}
	if at(other.ID) > at(question.ID) {
		t.Fatalf("the branch whose thread just changed (%s) is not above the question that waited less (%s):\n%s", other.ID[:8], question.ID[:8], r.stdout)
	}
	help := hitl(t, "", "list", "--help")
	must(t, help, 0, "the thread most recently changed first")
}
