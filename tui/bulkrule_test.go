package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// bashRule is the hub's rule as it tells a session (tools: [Bash],
// approvals: 2): an approve or edit of Bash needs two approvers.
func bashRule(it client.Interrupt, ds []client.Decision) int {
	for i, d := range ds {
		if (d.Type == client.Approve || d.Type == client.Edit) && i < len(it.Actions) && it.Actions[i].Name == "Bash" {
			return 2
		}
	}
	return 1
}

// The trial: alice's first approval is an edit (npm publish --dry-run);
// bob marks the row and presses A. The bulk never approves the command as
// shown in place of her edit: the row is left out, saying why and what to
// do; y sends nothing for it.
func TestBulkLeavesOutAnEditedFirstApproval(t *testing.T) {
	it := hookBash(idEmail, "try-10", "npm publish")
	it.Approval.Decisions = []client.Decision{{Type: client.Edit, Args: json.RawMessage(`{"command":"npm publish --dry-run"}`)}}
	it.Approval.Value = json.RawMessage(`{"behavior":"allow","updatedInput":{"command":"npm publish --dry-run"}}`)
	h := newHarness(t, 80, 24, it)
	h.m.opts.Host, h.m.opts.ApprovalsNeeded = "hub", bashRule
	h.now = h.now.Add(GracePeriod * 2)
	h.msg(space())
	h.keys("A")
	h.wantScreen("None of the 1 marked can be approved in bulk (alice's approval is an edit (edit", "Bash): a bulk approve of what is shown would replace it).")
	if _, ok := h.m.top().(*bulkScreen); ok {
		t.Fatalf("A opened a bulk approve of nothing:\n%s", h.screen())
	}
	h.keys("y")
	if got := h.sent(idEmail); got != "" {
		t.Fatalf("sent %s in place of alice's edit", got)
	}
}

// Marked with others: alice's edit is under "Left out" with why; each row
// says what y does to it (records bob's approval, confirms alice's plain
// approve, sends a call no rule gates), and the line under the list says
// it in total, never "sends them once" when something is only recorded.
func TestBulkSaysWhatYDoesToEachRow(t *testing.T) {
	edited := hookBash(idEmail, "try-10", "npm publish")
	edited.Approval.Decisions = []client.Decision{{Type: client.Edit, Args: json.RawMessage(`{"command":"npm publish --dry-run"}`)}}
	confirmed := hookBash(idOps, "try-11", "npm test")
	fresh := hookBash(idQ, "try-12", "npm ci")
	fresh.Approval = nil
	write := toolCall("dddd4444dddd4444dddd4444dddd4444", "try-13", "Write", `{"file_path":"NOTES.md"}`)
	h := newHarness(t, 80, 24, edited, confirmed, fresh, write)
	h.m.opts.Host, h.m.opts.ApprovalsNeeded = "hub", bashRule
	h.now = h.now.Add(GracePeriod * 2)
	for range 4 {
		h.msg(space())
	}
	h.keys("A")
	h.wantScreen("Approve 3 interrupts in bulk?", "y/enter confirms alice's approval (sends)")
	h.keys("G")
	h.wantScreen("y/enter records your approval (1 of 2 approvals (tester)), nothing sent",
		"Left out (1):", "aaaa1111", "alice's approval is an edit (edit", "open it (enter) to", "confirm that very decision, with its diff",
		"y/enter sends 2 and records 1 approval (nothing sent for it)")
	if s := h.screen(); strings.Contains(s, "sends them once") {
		t.Fatalf("a recorded approval is worded as a send:\n%s", s)
	}
	h.keys("y")
	if h.sent(idEmail) != "" {
		t.Fatalf("alice's edit replaced: sent %s", h.sent(idEmail))
	}
	if h.sent(idOps) == "" || h.sent("dddd4444dddd4444dddd4444dddd4444") == "" {
		t.Fatalf("not sent: %q %q", h.sent(idOps), h.sent("dddd4444dddd4444dddd4444dddd4444"))
	}
}

// What the hub only recorded is said as recorded, not as approved nor as
// a failure: the status counts the sent and the recorded apart.
func TestBulkStatusCountsRecordedApart(t *testing.T) {
	a := hookBash(idEmail, "try-10", "npm publish")
	b := hookBash(idOps, "try-11", "npm test")
	a.Approval, b.Approval = nil, nil
	h := newHarness(t, 80, 24, a, b)
	h.m.opts.Host, h.m.opts.ApprovalsNeeded = "hub", bashRule
	h.now = h.now.Add(GracePeriod * 2)
	h.b.SetSendErr(fmt.Errorf("1 of 2 approvals (tester) recorded for Bash: %w", client.ErrAwaitingApproval))
	h.msg(space())
	h.msg(space())
	h.keys("A")
	h.wantScreen("Approve 2 interrupts in bulk?", "y/enter records your approval (1 of 2 approvals (tester)), nothing sent")
	h.keys("y")
	h.wantScreen("Outcomes", "Sent 0 of 2; your approval recorded for 2, nothing sent for those until another")
	if strings.Contains(h.screen(), "Approved 0 of 2") {
		t.Fatalf("recorded told as not approved:\n%s", h.screen())
	}
}
