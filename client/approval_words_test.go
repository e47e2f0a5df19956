package client

import (
	"encoding/json"
	"testing"
	"time"
)

// What was recorded is said before who was dropped: "…; dropped: alice
// (no longer an approver) recorded for Bash" read as if alice's approval
// were recorded.
func TestRecordedSaysWhoWasDroppedApart(t *testing.T) {
	prev := &Approval{Approvers: nil, Needed: 2, Value: json.RawMessage(`{"a":1}`), Dropped: []string{"alice"}}
	next := Count(prev, "bob", json.RawMessage(`{"a":1}`), 2, time.Now())
	next.Next.Dropped = prev.Dropped
	want := "1 of 2 approvals (bob) recorded for Bash; the approval of alice was dropped (no longer an approver)"
	if got := next.Recorded([]string{"Bash"}); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
