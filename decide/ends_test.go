package decide_test

import (
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
)

// Ending a thread's work from one fan-out branch is refused, with the
// other branches named; a thread waiting once, or a decision that does
// not end it, is not.
func TestEndsAloneRefusesAFanOutBranch(t *testing.T) {
	a := client.Interrupt{ID: "7184784c-0000-4000-8000-000000000001", ThreadID: "8464d292-1c2b-4d5e-8f90-1234567890ab"}
	b := client.Interrupt{ID: "04fb2a91-0000-4000-8000-000000000002", ThreadID: a.ThreadID}
	other := client.Interrupt{ID: "99990000-0000-4000-8000-000000000003", ThreadID: "another"}
	dismiss := []client.Decision{{Type: client.Dismiss}}
	stop := []client.Decision{{Type: client.Reject, Stop: true}}

	err := decide.EndsAlone([]decide.Draft{{Interrupt: a, Decisions: dismiss}}, []client.Interrupt{a, b, other})
	want := "dismissing ends the whole work of thread 8464d292, which also waits at another interrupt (04fb2a91): that would drop them too; answer them first"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if err := decide.EndsAlone([]decide.Draft{{Interrupt: a, Decisions: stop}}, []client.Interrupt{a, b}); err == nil || !strings.HasPrefix(err.Error(), "rejecting and stopping ends") {
		t.Fatalf("stop: %v", err)
	}
	if err := decide.EndsAlone([]decide.Draft{{Interrupt: a, Decisions: dismiss}}, []client.Interrupt{a, other}); err != nil {
		t.Fatalf("alone on its thread: %v", err)
	}
	if err := decide.EndsAlone([]decide.Draft{{Interrupt: a, Decisions: []client.Decision{{Type: client.Reject}}}}, []client.Interrupt{a, b}); err != nil {
		t.Fatalf("a plain reject: %v", err)
	}
}
