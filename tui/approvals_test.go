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
	h.wantScreen("Send this?", "Confirming alice's approval (1 of 3 approvals (alice)): yours is recorded beside it; nothing is sent until 3 approve.")
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
