package main

// Two-person approvals of an A2A agent's interrupts (a source that keeps
// no approvals itself) through real hubs: the real A2A test agent's
// Strands tool approval for send_email, a rule asking two approvers for
// it, alice's first approval and bob's confirmation through the door. The
// first approval lives in the hub's store: it outlives a hub killed with
// SIGKILL, a second hub on one PostgreSQL has it, racing approvers send
// once, and a reload that takes alice out drops it. What reached the agent
// is read back from the agent.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/pgtest"
)

// approvalsConfig is teamYAML with a two-person rule on send_email and
// the A2A agent at u as the hub's one source.
func approvalsConfig(u string) string {
	return teamYAML + "  rules:\n    - {tools: [send_email], approvals: 2}\n" +
		fmt.Sprintf("profiles:\n  agent: {backend: a2a, url: %q}\nhub:\n  sources: [agent]\n", u)
}

// taskID waits until the door lists the task's interrupt, and returns its id.
func taskID(t *testing.T, h *hubProc, task string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, out, _ := h.cli(aliceToken, "list", "--json")
		var its []listed
		_ = json.Unmarshal([]byte(out), &its)
		for _, it := range its {
			if it.ThreadID == task {
				return it.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the door never listed task %s:\n%s", task, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sentOnceTo asserts the agent received exactly one answer to the task's
// tool approval, that answer, and acted on no other.
func sentOnceTo(t *testing.T, a *a2aAgent, task, want string) {
	t.Helper()
	got := a.received(task)
	for deadline := time.Now().Add(10 * time.Second); got == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		got = a.received(task)
	}
	if strings.Count(got, "\n") != 0 {
		t.Fatalf("the agent received more than one answer:\n%s", got)
	}
	if _, resp := interruptResponse(t, got); resp != want {
		t.Fatalf("the agent received %s", got)
	}
	resp, err := http.Get(strings.TrimRight(a.url, "/") + "/ignored/" + url.PathEscape(task))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ignored []json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&ignored); err != nil || len(ignored) != 0 {
		t.Fatalf("a second answer reached the agent (ignored there): %v %s", err, ignored)
	}
}

// history is the team's audit log of request id, oldest first.
func history(t *testing.T, h *hubProc, id string) []map[string]any {
	t.Helper()
	code, out, errs := h.cli(bobToken, "history", "--team", "--request", id, "--json")
	if code != 0 {
		t.Fatalf("history: exit %d\n%s%s", code, out, errs)
	}
	var es []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON lines: %v\n%s", err, out)
		}
		es = append([]map[string]any{m}, es...)
	}
	return es
}

// The first approval outlives the hub: killed with SIGKILL after alice's
// approval and started again (SQLite in its state directory, and
// PostgreSQL), bob's approval completes it and sends it once; the audit
// log links his confirmation to her approval.
func TestHubKeepsA2AApprovalsAcrossAKill(t *testing.T) {
	a := newA2A(t)
	eachStore(t, func(t *testing.T, spec string) {
		h := startStoredHub(t, approvalsConfig(a.url), spec)
		task := a.start("strands")
		id := taskID(t, h.hubProc, task)
		code, out, errs := h.cli(aliceToken, "approve", id)
		if code != exitPending || !strings.Contains(out+errs, "1 of 2 approvals (alice) recorded for send_email") {
			t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
		}
		h.kill()
		h.start()
		if got := a.received(task); got != "" {
			t.Fatalf("sent on one approval: %s", got)
		}
		_, out, _ = h.cli(bobToken, "show", id)
		if !strings.Contains(out, "1 of 2 approvals (alice") {
			t.Fatalf("after the kill bob's show says nothing of alice's approval:\n%s", out)
		}
		if code, out, errs := h.cli(bobToken, "approve", id); code != 0 || !strings.Contains(out, "Sent approve") {
			t.Fatalf("bob's approve after the restart: exit %d\n%s%s", code, out, errs)
		}
		sentOnceTo(t, a, task, `"y"`)
		// alice again: told it was sent; nothing more reaches the agent.
		if code, out, errs := h.cli(aliceToken, "approve", id); code == 0 || code == exitPending {
			t.Fatalf("alice after the send: exit %d\n%s%s", code, out, errs)
		}
		sentOnceTo(t, a, task, `"y"`)
		es := history(t, h.hubProc, id)
		if len(es) < 2 || es[0]["reviewer"] != "alice" || es[0]["outcome"] != "approval-recorded" || es[0]["source"] != "a2a" ||
			es[1]["reviewer"] != "bob" || es[1]["outcome"] != "sent" || fmt.Sprint(es[1]["approvers"]) != "[alice bob]" ||
			es[1]["first_approval"] != es[0]["id"] {
			t.Fatalf("the audit log of %s: %v", id, es)
		}
	})
}

// Two hubs on one PostgreSQL: alice approves on hub A, bob confirms on
// hub B: one send, naming both, the entries linked. alice on A and bob on
// B at once, both first: both counted, one send.
func TestTwoHubsShareA2AApprovals(t *testing.T) {
	a := newA2A(t)
	db := pgtest.Database(t)
	ha := startStoredHub(t, approvalsConfig(a.url), db)
	hb := startStoredHub(t, approvalsConfig(a.url), db)

	task := a.start("strands")
	id := taskID(t, ha.hubProc, task)
	taskID(t, hb.hubProc, task)
	if code, out, errs := ha.cli(aliceToken, "approve", id); code != exitPending {
		t.Fatalf("alice's approve on A: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := hb.cli(bobToken, "approve", id); code != 0 || !strings.Contains(out, "Sent approve") {
		t.Fatalf("bob's approve on B: exit %d\n%s%s", code, out, errs)
	}
	sentOnceTo(t, a, task, `"y"`)
	es := history(t, ha.hubProc, id)
	if len(es) != 2 || es[0]["reviewer"] != "alice" || es[0]["outcome"] != "approval-recorded" ||
		es[1]["reviewer"] != "bob" || es[1]["outcome"] != "sent" || fmt.Sprint(es[1]["approvers"]) != "[alice bob]" || es[1]["first_approval"] != es[0]["id"] {
		t.Fatalf("the audit log of %s: %v", id, es)
	}

	for round := range 3 {
		task := a.start("strands")
		id := taskID(t, ha.hubProc, task)
		taskID(t, hb.hubProc, task)
		codes := make([]int, 2)
		outs := make([]string, 2)
		var wg sync.WaitGroup
		for i, h := range []*storedHub{ha, hb} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out, errs string
				codes[i], out, errs = h.cli([]string{aliceToken, bobToken}[i], "approve", id)
				outs[i] = out + errs
			}()
		}
		wg.Wait()
		if !(codes[0] == 0 && codes[1] == exitPending || codes[0] == exitPending && codes[1] == 0) {
			t.Fatalf("round %d: alice on A and bob on B at once: exits %v\n%s", round, codes, strings.Join(outs, "\n"))
		}
		sentOnceTo(t, a, task, `"y"`)
	}
}

// A reviewer the reload takes out loses her pending approval of an A2A
// interrupt too, kept in the store across a restart: the row says so,
// bob's approval is then a first one, nothing is sent, and the audit log
// tells it.
func TestHubDropsARemovedReviewersA2AApproval(t *testing.T) {
	a := newA2A(t)
	// carol too: without alice the rule can still be met.
	config := strings.Replace(approvalsConfig(a.url), "  publishers:\n", "    carol: {token: \"carol-token-0123456789abcdef\", role: approver}\n  publishers:\n", 1)
	h := startStoredHub(t, config, "")
	task := a.start("strands")
	id := taskID(t, h.hubProc, task)
	if code, out, errs := h.cli(aliceToken, "approve", id); code != exitPending {
		t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
	}
	// Kept in the store: a restart in between changes nothing.
	h.kill()
	h.start()
	noAlice := strings.Replace(config, "    alice: {token: \""+aliceToken+"\", role: approver}\n", "", 1)
	if noAlice == config {
		t.Fatal("the test's team has no alice line to remove")
	}
	if err := os.WriteFile(filepath.Join(h.dir, "config.yaml"), []byte(noAlice), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	var out string
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, out, _ = h.cli(bobToken, "show", id)
		if strings.Contains(out, "dropped: alice (no longer an approver)") {
			break
		}
		if time.Now().After(deadline) {
			h.kill()
			t.Fatalf("bob's show never said alice's approval was dropped:\n%s\nthe hub's log:\n%s", out, h.logs)
		}
	}
	code, out, errs := h.cli(bobToken, "approve", id)
	if code != exitPending || !strings.Contains(out+errs, "1 of 2 approvals (bob) recorded for send_email; the approval of alice was dropped (no longer an approver)") {
		t.Fatalf("bob after the reload: exit %d\n%s%s", code, out, errs)
	}
	time.Sleep(300 * time.Millisecond)
	if got := a.received(task); got != "" {
		t.Fatalf("sent on a removed reviewer's approval: %s", got)
	}
	if got := auditStory(t, func() string { _, o, _ := h.cli(bobToken, "history", "--team", "--request", id, "--json"); return o }()); got != "alice:approval-recorded alice:approval-dropped bob:approval-recorded" {
		t.Fatalf("the team's audit log of %s: %s", id, got)
	}
}
