package review

import (
	"slices"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// tools is an interrupt of the HITL middleware: one action per call, each
// with the decisions it allows.
func tools(id string, calls ...string) client.Interrupt {
	raw := `{"action_requests":[`
	configs := `"review_configs":[`
	for i := 0; i < len(calls); i += 2 {
		if i > 0 {
			raw += ","
			configs += ","
		}
		raw += `{"name":"` + calls[i] + `","args":{"path":"/tmp/` + id + `"}}`
		configs += `{"action_name":"` + calls[i] + `","allowed_decisions":` + calls[i+1] + `}`
	}
	return client.Interrupt{ID: id, ThreadID: "t-" + id, Payload: client.Parse([]byte(raw + "]," + configs + "]}"))}
}

// The one rule: every slot approved, or the interrupt left out, naming
// what the slot that refuses allows; never approved in part.
func TestApprovalsApproveEverySlotOrNone(t *testing.T) {
	all := `["approve","edit","reject"]`
	its := []client.Interrupt{
		tools("aaaa1", "bash", all, "write", all),
		tools("bbbb2", "bash", all, "delete", `["reject"]`),
		{ID: "cccc3", ThreadID: "t3", Payload: client.Parse([]byte(`"continue?"`))}, // one slot: a question
	}
	drafts, left := Approvals(its)
	if len(drafts) != 1 || drafts[0].Interrupt.ID != "aaaa1" || len(drafts[0].Decisions) != 2 {
		t.Fatalf("drafts: %+v", drafts)
	}
	for _, d := range drafts[0].Decisions {
		if d.Type != client.Approve {
			t.Fatalf("a slot not approved: %+v", drafts[0].Decisions)
		}
	}
	if len(left) != 2 || left[0].Interrupt.ID != "bbbb2" || !slices.Equal(left[0].Allowed, []client.DecisionType{client.Reject}) {
		t.Fatalf("left: %+v", left)
	}
	if left[1].Interrupt.ID != "cccc3" || slices.Contains(left[1].Allowed, client.Approve) {
		t.Fatalf("a question taken for an approval: %+v", left[1])
	}
	if n := Approvable(its); n != 1 {
		t.Fatalf("Approvable = %d, want 1", n)
	}
}

// approve --all --tool: only the tool's interrupts; one that also calls
// another tool is left out naming it; --match looks in the arguments.
func TestApprovalsOfToolNameTheOtherCalls(t *testing.T) {
	all := `["approve","reject"]`
	its := []client.Interrupt{
		tools("aaaa1", "bash", all),
		tools("bbbb2", "bash", all, "write", all),
		tools("cccc3", "write", all),
		tools("dddd4", "bash", `["reject"]`),
		{ID: "eeee5", ThreadID: "t5", Payload: client.Parse([]byte(`"bash?"`))},
	}
	drafts, left := ApprovalsOfTool(its, "bash", "")
	if len(drafts) != 1 || drafts[0].Interrupt.ID != "aaaa1" {
		t.Fatalf("drafts: %+v", drafts)
	}
	if len(left) != 2 || !slices.Equal(left[0].Others, []string{"write"}) || left[1].Interrupt.ID != "dddd4" || len(left[1].Allowed) != 1 {
		t.Fatalf("left in order, each with why: %+v", left)
	}
	drafts, left = ApprovalsOfTool(its, "bash", "TMP/AAAA")
	if len(drafts) != 1 || drafts[0].Interrupt.ID != "aaaa1" || len(left) != 0 {
		t.Fatalf("--match in the arguments, any case: %+v %+v", drafts, left)
	}
	if drafts, left = ApprovalsOfTool(its, "bash", "nowhere"); len(drafts)+len(left) != 0 {
		t.Fatalf("nothing matches: %+v %+v", drafts, left)
	}
}
