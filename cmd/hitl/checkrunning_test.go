package main

import (
	"strings"
	"testing"
	"time"
)

// A decision whose run does not end (as langgraphjs dev keeps one it was
// running when stopped) is named by hitl check, with when it was sent,
// rather than "No decision of unknown outcome".
func TestCheckNamesADecisionStillRunning(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv, s := embedded(t, map[string]string{"email": "support"})
	email := s.onlyPending(s.agent("email"))
	srv.RunDelay = time.Hour // every run from now on stays in progress
	r := s.hitl("", "approve", email.ID, "--wait", "300ms")
	must(t, r, 0, "the run is still going")
	r = s.hitl("", "check")
	must(t, r, 0, "Still running on the server")
	if !strings.Contains(r.stdout, email.ID[:8]) || strings.Contains(r.stdout, "No decision of unknown outcome") {
		t.Fatalf("check does not name %s:\n%s", email.ID[:8], r.stdout)
	}
	// The run is left as it is: check again says the same.
	must(t, s.hitl("", "check"), 0, "Still running on the server")
}
