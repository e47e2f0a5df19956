package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The CLI through a hub decides as its token's reviewer (docs/team.md):
// its own audit log, its --json and its messages name that reviewer, the
// one the hub answered with, never the local user name it was given.
func TestHubCLIJournalsTheTokensReviewer(t *testing.T) {
	t.Parallel()
	h := startHub(t, teamYAML+"  rules:\n    - tools: [\"Bash\"]\n      approvals: 2\n")
	p := h.hook("claude", claudeBash)
	id := h.waitRequest("sess-bash")
	// Each reviewer's machine knows its user as "root" (HITL_REVIEWER).
	cli := func(dir, token string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(builtBinary(t), append([]string{"--backend", "events", "--url", h.url}, args...)...)
		cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME="+dir, "HITL_BEARER_TOKEN="+token, "HITL_REVIEWER=root")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	// history is the reviewers a machine's audit log names, one a decision.
	history := func(dir, token string) []string {
		t.Helper()
		code, out, errs := cli(dir, token, "history", "--json")
		if code != 0 {
			t.Fatalf("history: exit %d\n%s%s", code, out, errs)
		}
		var who []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct {
				Reviewer string `json:"reviewer"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("history --json line %q: %v", line, err)
			}
			who = append(who, e.Reviewer)
		}
		return who
	}
	alice, bob := t.TempDir(), t.TempDir()

	// alice's first approval, recorded by the hub as hers.
	code, out, errs := cli(alice, aliceToken, "approve", id, "--json")
	var res map[string]any
	if code != exitPending || json.Unmarshal([]byte(out), &res) != nil || res["result"] != "approval-recorded" || res["reviewer"] != "alice" {
		t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
	}
	if who := history(alice, aliceToken); strings.Join(who, ",") != "alice" {
		t.Fatalf("alice's audit log names %q, want alice", who)
	}

	// bob confirms; his machine's audit log and its words name bob.
	if code, out, errs := cli(bob, bobToken, "approve", id); code != 0 || !strings.Contains(out, "the agent has the answer") {
		t.Fatalf("bob's approve: exit %d\n%s%s", code, out, errs)
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	code, out, errs = cli(bob, bobToken, "approve", id)
	if code != exitNothing || !strings.Contains(errs, "was already handled from this machine (") || !strings.Contains(errs, " by bob, ") || strings.Contains(out+errs, "root") {
		t.Fatalf("bob's approve again: exit %d\n%s%s", code, out, errs)
	}
	if who := history(bob, bobToken); strings.Join(who, ",") != "bob" {
		t.Fatalf("bob's audit log names %q, want bob", who)
	}
	if code, out, _ := cli(bob, bobToken, "history"); code != 0 || strings.Contains(out, "root") {
		t.Fatalf("bob's history: exit %d\n%s", code, out)
	}
}
