package present

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// A failed run's section says what it still holds and the command that
// answers it again, or that a new answer would not be used.
func TestFailuresSayHowToAnswerAgain(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	q := client.Interrupt{ID: "abcd1234ffff", Payload: client.Parse([]byte(`"which file?"`))}
	kept := q
	kept.ID, kept.KeptAnswer = "efgh5678ffff", true
	fs := []FailedThread{
		{Failure: client.Failure{ThreadID: "t-one", GraphID: "g", UpdatedAt: now.Add(-time.Hour), Error: "ValueError: boom\nat line 3", Interrupts: []client.Interrupt{q}}},
		{Failure: client.Failure{ThreadID: "t-two", GraphID: "g", UpdatedAt: now, Error: "x", Interrupts: []client.Interrupt{kept}}},
		{Failure: client.Failure{ThreadID: "t-three", GraphID: "g", UpdatedAt: now}},
	}
	var out bytes.Buffer
	Failures(&out, fs, 5, false, now)
	got := out.String()
	for _, want := range []string{
		"Runs that failed (5)", "thread t-one  1h ago", "answer it again with hitl respond abcd1234",
		"a new one is not used (hitl respond efgh5678", "holds no interrupt: hitl cannot resume it (hitl conversation t-three",
		"… and 2 older", "(hitl list --failed prints each error in full)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}
