package main

// A hub stopped for longer than a hook's lease (6 s) and started again:
// the hook that kept asking comes back and gets the decision made after
// the restart, the approval given before it still counts; a hook that
// died while the hub was down has its request withdrawn a lease after the
// start, in words that say so, and the approval it had is in the team's
// audit log as withdrawn. The built binary serves the hub and runs the
// hooks; what a hook prints (what the agent reads) is asserted byte for
// byte.

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// stop ends the hub as Ctrl-C does: its open waits end, their leases run.
func (h *storedHub) stop() {
	h.t.Helper()
	_ = h.cmd.Process.Signal(syscall.SIGINT)
	<-h.read
	_ = h.cmd.Wait()
	h.cmd = nil
}

func TestHubRestartedAfterTheLeaseKeepsWaitingHooks(t *testing.T) {
	rules := "  rules:\n    - tools: [Bash, delete_*]\n      approvals: 2\n"
	eachStore(t, func(t *testing.T, store string) {
		h := startStoredHub(t, teamYAML+rules, store)
		kept := h.hook("claude", claudeBashIn("try-7"), "--timeout", "5m")
		died := h.hook("claude", claudeBashIn("try-8"), "--timeout", "5m")
		keptID, diedID := h.waitRequest("try-7"), h.waitRequest("try-8")
		for _, id := range []string{keptID, diedID} {
			if code, out, errs := h.cli(aliceToken, "approve", id); code != exitPending || !strings.Contains(out+errs, "1 of 2 approvals (alice) recorded") {
				t.Fatalf("alice's approval of %s: exit %d\n%s%s", id, code, out, errs)
			}
		}
		h.stop()
		// One hook dies while the hub is down; the other keeps asking.
		_ = died.cmd.Process.Kill()
		_ = died.cmd.Wait()
		time.Sleep(8 * time.Second) // longer than the hooks' lease
		h.start()
		started := time.Now()

		// bob's approval completes alice's: the hook that kept asking gets it.
		if code, out, errs := h.cli(bobToken, "approve", keptID); code != 0 {
			t.Fatalf("bob's approval after the restart: exit %d\n%s%s\nthe hub's log:\n%s", code, out, errs, h.logs)
		}
		if code := kept.finish(t, 30*time.Second); code != 0 || kept.stdout.String() != allowJSON {
			t.Fatalf("the hook that kept asking: exit %d, stdout %q; stderr %q", code, kept.stdout.String(), kept.stderr.String())
		}
		if st := h.standing(keptID); st["responded_by"] != "alice + bob" {
			t.Fatalf("answered by %v", st["responded_by"])
		}
		_, out, _ := h.cli(bobToken, "history", "--team", "--request", keptID, "--json")
		if got := auditStory(t, out); got != "alice:approval-recorded bob:sent" {
			t.Fatalf("the team's audit log of %s: %s\n%s", keptID, got, out)
		}

		// The request of the hook that died: withdrawn a lease (and the
		// time a hook takes to ask again) after the start, not at once.
		var st map[string]any
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if st = h.standing(diedID); st["status"] != "pending" || time.Now().After(deadline) {
				break
			}
		}
		after := time.Since(started)
		const reason = "no hook came back for it within 9s of the hub's start: nothing waits for an answer"
		if st["status"] != "withdrawn" || st["reason"] != reason || after < 8*time.Second {
			t.Fatalf("the request of the hook that died, %s after the start: %v", after.Round(time.Millisecond), st)
		}
		// Its approval's story ends in the audit log, not at "approval
		// recorded".
		_, out, _ = h.cli(bobToken, "history", "--team", "--request", diedID, "--json")
		if got := auditStory(t, out); got != "alice:approval-recorded alice:withdrawn" {
			t.Fatalf("the team's audit log of %s: %s\n%s", diedID, got, out)
		}
		code, out, errs := h.cli(bobToken, "history", "--team", "--request", diedID, "--outcome", "withdrawn")
		if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, "alice (approver)") ||
			!strings.Contains(out, "(hook, lease)  withdrawn: the request was withdrawn with 1 of 2 approvals (alice): "+reason) {
			t.Fatalf("history --team --outcome withdrawn: exit %d\n%s%s", code, out, errs)
		}
	})
}
