package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// An interrupt approved once of two: the row and the detail say so, and
// another approver's approve key confirms that very decision.
func TestConfirmAnotherApproversDecision(t *testing.T) {
	for _, k := range []string{"a", "A"} { // approve, and approve all
		t.Run(k, func(t *testing.T) { confirmAnotherApprover(t, k) })
	}
}

func confirmAnotherApprover(t *testing.T, approveKey string) {
	it := fixture(t, "middleware-js-ops", idOps, time.Minute)
	edited := json.RawMessage(`{"channel":"#ops","text":"Pruned, checked by two"}`)
	ds := []client.Decision{{Type: client.Approve}, {Type: client.Edit, Args: edited}}
	it.Approval = &client.Approval{Approvers: []string{"alice"}, Needed: 2, Decisions: ds, Value: json.RawMessage(`{}`), Tools: []string{"delete_records"}}
	h := newHarness(t, 80, 24, it)
	h.m.opts.Host = "hub"
	h.wantScreen("hitl · tester@hub · 1 pending", "✔1/2 delete_records", "live (the hub's watcher)")
	h.keys("enter")
	h.wantScreen("✔ 1 of 2 approvals (alice): approve delete_records, edit notify with")
	h.keys(approveKey)
	h.wantScreen("Send this?", "Action 2/2 notify: edit", `"Pruned[, checked by two]"`, "Confirming alice's approval", "naming alice and you")
	h.keys("y")
	var got struct {
		Decisions []map[string]any `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(h.sent(idOps)), &got); err != nil || len(got.Decisions) != 2 || got.Decisions[0]["type"] != "approve" ||
		!strings.Contains(h.sent(idOps), "Pruned, checked by two") {
		t.Fatalf("sent %s", h.sent(idOps))
	}
}

// A confirmation that is not the last approval a rule asks for is told
// that it is recorded, not sent.
func TestConfirmingIsNotTheLastApproval(t *testing.T) {
	it := fixture(t, "middleware-js-ops", idOps, time.Minute)
	ds := []client.Decision{{Type: client.Approve}, {Type: client.Approve}}
	it.Approval = &client.Approval{Approvers: []string{"alice"}, Needed: 3, Decisions: ds, Value: json.RawMessage(`{}`), Tools: []string{"delete_records"}}
	h := newHarness(t, 120, 24, it)
	h.m.opts.Host = "hub"
	h.wantScreen("✔1/3 delete_records")
	h.keys("enter")
	h.wantScreen("✔ 1 of 3 approvals (alice)")
	h.keys("a")
	h.wantScreen("Record your approval?", "y/enter records your approval (2 of 3 approvals (alice, tester)), nothing sent", "Confirming alice's approval (1 of 3 approvals (alice)): yours is recorded beside it; nothing is sent until 3 approve.")
	if strings.Contains(h.screen(), "Send this?") || strings.Contains(h.screen(), "sends it once") {
		t.Fatalf("a recorded approval is worded as a send:\n%s", h.screen())
	}
}

// The first approver is told to wait; a viewer's decision keys do nothing.
func TestApprovalWaitsAndViewOnly(t *testing.T) {
	it := fixture(t, "middleware-js-ops", idOps, time.Minute)
	it.Approval = &client.Approval{Approvers: []string{"tester"}, Needed: 2, Decisions: []client.Decision{{Type: client.Approve}, {Type: client.Approve}}, Value: json.RawMessage(`{}`)}
	h := newHarness(t, 80, 24, it)
	h.keys("enter")
	h.wantScreen("1 of 2 approvals (tester): approve delete_records, approve notify. Waiting for")

	v := newHarness(t, 80, 24, fixture(t, "middleware-js-ops", idOps, time.Minute))
	v.m.opts.ViewOnly, v.m.opts.Host = true, "hub"
	v.keys("enter", "a", "r")
	v.wantScreen("hitl · tester@hub · view only", "View only: tester is a viewer here and decides nothing")
	if s := v.screen(); strings.Contains(s, "Send this?") || strings.Contains(s, "Reason") || v.sent(idOps) != "" {
		t.Fatalf("a viewer's key did something:\n%s", s)
	}
}

// A first approval under a team's rule is worded as what it is: recorded,
// nothing sent, where the hub says its rule; where it does not, the
// confirm screen says an approve may be recorded; a reject (one reviewer
// decides it) and one's own terminal say "sends it once".
func TestFirstApprovalIsWordedAsRecorded(t *testing.T) {
	rule := func(_ client.Interrupt, ds []client.Decision) int {
		for _, d := range ds {
			if d.Type == client.Approve || d.Type == client.Edit {
				return 2
			}
		}
		return 1
	}
	h := newHarness(t, 80, 24, toolCall(idEmail, "t-1", "Bash", `{"command":"dropdb prod"}`))
	h.m.opts.Host, h.m.opts.ApprovalsNeeded = "hub", rule
	h.open()
	h.keys("a")
	h.wantScreen("Record your approval? Review tool call Bash", `{"command":"dropdb prod"}`,
		"y/enter records your approval (1 of 2 approvals (tester)), nothing sent:", "y/enter record approval")
	if s := h.screen(); strings.Contains(s, "Send this?") || strings.Contains(s, "sends it once") {
		t.Fatalf("a first approval is worded as a send:\n%s", s)
	}
	h.keys("esc", "r")
	h.typeText("no")
	h.keys("ctrl+s")
	h.wantScreen("Send this?", "y/enter sends it once", "y/enter send")

	u := newHarness(t, 80, 24, toolCall(idEmail, "t-1", "Bash", `{"command":"dropdb prod"}`))
	u.m.opts.Host = "hub"
	u.open()
	u.keys("a")
	u.wantScreen("Send this?", "y/enter sends it, or records your approval if a team rule asks for another")

	// A reviewer's own TUI on a hub's door (--backend events) is not told
	// the rules either.
	d := newHarness(t, 80, 24, toolCall(idEmail, "t-1", "Bash", `{"command":"dropdb prod"}`))
	d.m.opts.Ruled = true
	d.open()
	d.keys("a")
	d.wantScreen("Send this?", "y/enter sends it, or records your approval if a team rule asks for another")

	l := newHarness(t, 80, 24, toolCall(idEmail, "t-1", "Bash", `{"command":"dropdb prod"}`))
	l.open()
	l.keys("a")
	l.wantScreen("Send this?", "y/enter sends it once")
}

// H in a hub's session names whose decisions it lists, and where they were
// sent from: the reviewer's, through the hub (not "this machine").
func TestHistoryInAHubSessionSaysWhose(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-ops", idOps, time.Minute))
	h.m.opts.Host = "hub"
	h.keys("H")
	h.wantScreen("Your decisions sent through this hub (tester)")
	if strings.Contains(h.screen(), "this machine") {
		t.Fatalf("a hub's session says this machine:\n%s", h.screen())
	}
	l := newHarness(t, 80, 24, fixture(t, "middleware-js-ops", idOps, time.Minute))
	l.keys("H")
	l.wantScreen("Decisions sent from this machine")
}
