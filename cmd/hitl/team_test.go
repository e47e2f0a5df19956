package main

// Two reviewers on one server, as separate processes with their own state
// directories: what one drafts in the TUI, the other sees (claims in the
// thread's metadata), until it is sent or expires.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// claimOf is the record of interrupt id's claim in the thread's metadata.
func (s *server) claimOf(thread, id string) map[string]any {
	s.t.Helper()
	var th struct {
		Metadata map[string]any `json:"metadata"`
	}
	json.Unmarshal(s.do("GET", "/threads/"+thread, nil), &th)
	m, _ := th.Metadata["hitl_claim_"+id].(map[string]any)
	return m
}

func TestRealClaimsBetweenTwoReviewerProcesses(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		bin := builtBinary(t)
		alice, bob := newReviewer(t, "alice"), newReviewer(t, "bob")
		th := s.start("prompt", map[string]any{"topic": "string"})
		id := s.interruptOf(th)

		tui := startTUIAt(t, s.url, 80, 24, "NO_COLOR=1", "XDG_STATE_HOME="+alice.state, "HITL_REVIEWER=alice")
		tui.waitFor("pending", "updated")
		tui.keys("/")
		tui.text(th)
		tui.keys("Enter", "Enter", "f") // the editor is open: a claim
		tui.waitFor("Your response")

		bobSays := func(args ...string) (string, string) {
			c := bob.cmd(bin, s.url, args...)
			var out, errb strings.Builder
			c.Stdout, c.Stderr = &out, &errb
			_ = c.Run()
			return out.String(), errb.String()
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			out, _ := bobSays("show", id)
			if strings.Contains(out, "Editing    alice is editing (<1m): a decision now may race theirs") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("bob never saw alice's claim:\n%s\nmetadata: %v", out, s.claimOf(th, id))
			}
			time.Sleep(200 * time.Millisecond)
		}
		// Nothing is blocked: bob's decision goes through the pipeline, with
		// a note (a dry run here: alice is the one who sends).
		_, errOut := bobSays("respond", id, "-m", "bob's answer", "--dry-run")
		if !strings.Contains(errOut, "alice is editing (<1m); your decision may race theirs") {
			t.Fatalf("bob's decision did not say so: %s", errOut)
		}
		if c := s.claimOf(th, id); c["reviewer"] != "alice" || c["interrupt_id"] != id || c["waiting_since"] == nil || c["expires"] == nil {
			t.Fatalf("claim record: %v", c)
		}

		// Alice sends: her claim is cleared (the record keeps only when the
		// interrupt started to wait).
		tui.text("eu-west-1")
		tui.keys("C-s")
		tui.waitFor("Send this?")
		tui.keys("y")
		tui.waitFor("the run finished")
		deadline = time.Now().Add(10 * time.Second)
		for s.claimOf(th, id)["reviewer"] != nil {
			if time.Now().After(deadline) {
				t.Fatalf("the claim outlived the send: %v", s.claimOf(th, id))
			}
			time.Sleep(100 * time.Millisecond)
		}

		// A claim not refreshed in time counts for nobody; one in force
		// does, with its age, whoever wrote it.
		th2 := s.start("prompt", map[string]any{"topic": "string"})
		id2 := s.interruptOf(th2)
		now := time.Now().UTC()
		claim := func(expires time.Time) {
			s.do("PATCH", "/threads/"+th2, map[string]any{"metadata": map[string]any{"hitl_claim_" + id2: map[string]any{
				"reviewer": "carol", "client": "carols-laptop", "interrupt_id": id2,
				"since": now.Add(-10 * time.Minute), "expires": expires}}})
		}
		claim(now.Add(-time.Minute))
		if out, _ := bobSays("show", id2); strings.Contains(out, "carol") {
			t.Fatalf("an expired claim is shown:\n%s", out)
		}
		claim(now.Add(time.Minute))
		if out, _ := bobSays("show", id2); !strings.Contains(out, "carol is editing (10m)") {
			t.Fatalf("a claim in force is not shown:\n%s", out)
		}
	})
}
