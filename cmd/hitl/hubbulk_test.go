package main

// The bulk approve under a team's two-person rule, as a new user met it:
// alice's first approval of a coding agent's `npm publish` is an edit
// (--dry-run); bob's bulk approve, in his SSH session at 80x24 and from
// the CLI through the door, never replaces it with the command as listed.
// The built binary is the hub, the hook and the CLI; the real OpenSSH
// client in tmux is bob's terminal.

import (
	"strings"
	"testing"
	"time"
)

func TestHubBulkApproveLeavesOutAnEditedFirstApproval(t *testing.T) {
	t.Parallel()
	h, th, logs := sshHookHub(t)
	publish := strings.Replace(strings.Replace(claudeBash, "sess-bash", "try-10", 1), "rm -rf node_modules && npm ci", "npm publish", 1)
	p := h.hook("claude", publish)
	id := h.waitRequest("try-10")
	code, out, errs := h.cli(aliceToken, "edit", id, "--set", "command=npm publish --dry-run")
	if code != exitPending || !strings.Contains(out+errs, "1 of 2 approvals (alice) recorded for Bash") {
		t.Fatalf("alice's edit: exit %d\n%s%s", code, out, errs)
	}

	// bob marks the row and presses A: left out, saying why; nothing sent.
	bob := th.session("bob")
	bob.waitFor(`✔1/2 Bash(command="npm publish")`, "live (the hub's watcher)")
	filterTo(bob, "try-10")
	bob.press("Space", "▸✓  req-")
	bob.press("A", "None of the 1 marked can be approved in bulk (alice's approval is an edit")
	bob.keys("y")
	// The CLI's bulk through the door: the same rule, the same words.
	code, out, errs = h.cli(bobToken, "approve", "--all", "--tool", "Bash")
	if code != exitRefused || !strings.Contains(errs, "not approved: alice's approval is an edit (edit Bash): a bulk approve of what is shown would replace it") ||
		strings.Contains(out, "Sent") {
		t.Fatalf("bob's approve --all: exit %d\n%s%s", code, out, errs)
	}
	time.Sleep(300 * time.Millisecond)
	if len(p.stdout.String()) != 0 || h.standing(id)["status"] != "pending" {
		t.Fatalf("the bulk answered the hook: %q %v", p.stdout.String(), h.standing(id))
	}
	if code, out, errs := h.cli(bobToken, "show", id); code != 0 || !strings.Contains(out, `1 of 2 approvals (alice: edit Bash with {"command":"npm publish --dry-run"`) {
		t.Fatalf("alice's edit no longer stands: exit %d\n%s%s", code, out, errs)
	}
	// Opened, the approve key confirms her edit: the agent runs the dry run.
	bob.keys("Enter")
	bob.press("a", "Send this?", "Action 1/1 Bash: edit", `"npm publish[ --dry-run]"`)
	bob.keys("y")
	if code := p.finish(t, 20*time.Second); code != 0 || !strings.Contains(p.stdout.String(), `"updatedInput":{"command":"npm publish --dry-run"`) {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q\n%s", code, p.stdout.String(), p.stderr.String(), logs.String())
	}

	// A call with no approval yet: the bulk confirm says y records bob's
	// approval, and nothing is sent.
	test := strings.Replace(strings.Replace(claudeBash, "sess-bash", "try-11", 1), "rm -rf node_modules && npm ci", "npm test", 1)
	p = h.hook("claude", test)
	id = h.waitRequest("try-11")
	bob.keys("Escape")
	filterTo(bob, "try-11")
	bob.waitFor(`Bash(command="npm test")`)
	bob.press("Space", "▸✓  req-")
	bob.press("A", "Approve 1 interrupt in bulk?", "y/enter records your approval (1 of 2 approvals (bob)), nothing")
	bob.keys("G")
	s := bob.waitFor("y/enter records 1 approval (nothing sent for it)")
	if strings.Contains(s, "sends them once") {
		t.Fatalf("a recorded approval is worded as a send:\n%s", s)
	}
	bob.press("y", "Outcomes", "1 of 2 approvals (bob) recorded for Bash: nothing is sent until")
	time.Sleep(300 * time.Millisecond)
	if len(p.stdout.String()) != 0 || h.standing(id)["status"] != "pending" {
		t.Fatalf("one approver was enough: %q %v", p.stdout.String(), h.standing(id))
	}
}

// filterTo filters the inbox down to the one row of thread.
func filterTo(tt *tmuxTUI, thread string) {
	tt.t.Helper()
	tt.keys("/", "C-u")
	tt.text(thread)
	tt.keys("Enter")
	tt.waitFor("1 shown", "enter open")
}
