package review

import (
	"encoding/json"
	"slices"
	"strings"
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
	drafts, left := Approvals(its, "bob")
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
	if n := Approvable(its, "bob"); n != 1 {
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
	drafts, left := ApprovalsOfTool(its, "bob", "bash", "")
	if len(drafts) != 1 || drafts[0].Interrupt.ID != "aaaa1" {
		t.Fatalf("drafts: %+v", drafts)
	}
	if len(left) != 2 || !slices.Equal(left[0].Others, []string{"write"}) || left[1].Interrupt.ID != "dddd4" || len(left[1].Allowed) != 1 {
		t.Fatalf("left in order, each with why: %+v", left)
	}
	drafts, left = ApprovalsOfTool(its, "bob", "bash", "TMP/AAAA")
	if len(drafts) != 1 || drafts[0].Interrupt.ID != "aaaa1" || len(left) != 0 {
		t.Fatalf("--match in the arguments, any case: %+v %+v", drafts, left)
	}
	if drafts, left = ApprovalsOfTool(its, "bob", "bash", "nowhere"); len(drafts)+len(left) != 0 {
		t.Fatalf("nothing matches: %+v %+v", drafts, left)
	}
}

// A first approval standing on an interrupt is confirmed in bulk only when
// it is the plain approve the bulk sends: alice's edit is left out, saying
// so (a bulk approve would replace it); one's own approval too; a plain
// approve of alice's is confirmed, and what y does is said of each.
func TestApprovalsLeaveOutAStandingApprovalOfAnotherDecision(t *testing.T) {
	all := `["approve","edit","reject"]`
	edited := tools("aaaa1", "Bash", all)
	edited.Approval = &client.Approval{Approvers: []string{"alice"}, Needed: 2, Tools: []string{"Bash"},
		Decisions: []client.Decision{{Type: client.Edit, Args: json.RawMessage(`{"command":"npm publish --dry-run"}`)}}}
	plain := tools("bbbb2", "Bash", all)
	plain.Approval = &client.Approval{Approvers: []string{"alice"}, Needed: 2, Decisions: []client.Decision{{Type: client.Approve}}}
	mine := tools("cccc3", "Bash", all)
	mine.Approval = &client.Approval{Approvers: []string{"bob"}, Needed: 2, Decisions: []client.Decision{{Type: client.Approve}}}
	unread := tools("dddd4", "Bash", all)
	unread.Approval = &client.Approval{Approvers: []string{"alice"}, Needed: 2, Value: json.RawMessage(`{"x":1}`)}
	fresh := tools("eeee5", "Bash", all)
	drafts, left := Approvals([]client.Interrupt{edited, plain, mine, unread, fresh}, "bob")
	if len(drafts) != 2 || drafts[0].Interrupt.ID != "bbbb2" || drafts[1].Interrupt.ID != "eeee5" {
		t.Fatalf("drafts: %+v", drafts)
	}
	if len(left) != 3 {
		t.Fatalf("left: %+v", left)
	}
	for i, want := range []string{
		"alice's approval is an edit (edit Bash): a bulk approve of what is shown would replace it",
		"you approved it already (1 of 2 approvals (bob)): another approver confirms it",
		"alice's approval is a resume value hitl cannot read into this call's decisions (the resume value {\"x\":1}): a bulk approve of what is shown would replace it",
	} {
		if got := left[i].Why(); got != want {
			t.Errorf("left %d: %q, want %q", i, got, want)
		}
	}
	var es []Effect
	for _, d := range drafts {
		es = append(es, Does(d.Interrupt, "bob", 2, true))
	}
	if es[0].Words() != "confirms alice's approval (sends)" || es[1].Words() != "records your approval (1 of 2 approvals (bob)), nothing sent" {
		t.Fatalf("words: %q, %q", es[0].Words(), es[1].Words())
	}
	if s := Summary(es); s != "sends 1 and records 1 approval (nothing sent for it)" {
		t.Fatalf("summary: %q", s)
	}
	if s := Summary(es[:1]); s != "sends them once" {
		t.Fatalf("summary: %q", s)
	}
	// Not told the rule: the approval standing says it; nothing says: it
	// may be recorded, where a team rule may ask.
	if w := Does(plain, "bob", 0, true).Words(); w != "confirms alice's approval (sends)" {
		t.Fatalf("from the standing approval: %q", w)
	}
	if w := Does(fresh, "bob", 0, true).Words(); !strings.HasPrefix(w, "sends, or records your approval") {
		t.Fatalf("not told: %q", w)
	}
	if w := Does(fresh, "bob", 0, false).Words(); w != "sends" {
		t.Fatalf("no rule: %q", w)
	}
	// Through a hub's door the CLI does not know whose token it is: a
	// standing approval may be its own, which the hub refuses (seen in a
	// trial: "confirms bob's approval (sends)" to bob, then exit 4).
	if w := Does(plain, "", 0, true).Words(); w != "confirms alice's approval (sends); if that approval is yours, the hub refuses this one" {
		t.Fatalf("unnamed: %q", w)
	}
	if w := Does(fresh, "", 2, true).Words(); strings.Contains(w, "yours, the hub refuses") {
		t.Fatalf("unnamed, nothing standing: %q", w)
	}
}

// Branches of a thread go in one resume: one approval only recorded holds
// the others of it, and that is said, never "sends".
func TestInOneResumeHoldsWhatGoesWithARecordedApproval(t *testing.T) {
	es := []Effect{{Kind: Records, Next: &client.Approval{Approvers: []string{"bob"}, Needed: 2}}, {Kind: Sends}, {Kind: Sends}}
	got := InOneResume(es, []string{"aaaa1", "bbbb2", "cccc3"}, [][]string{{"aaaa1", "bbbb2"}, {"cccc3"}})
	if got[0].Kind != Records || got[1].Kind != Held || got[1].With != "aaaa1" || got[2].Kind != Sends {
		t.Fatalf("effects: %+v", got)
	}
	if w := got[1].Words(); !strings.HasPrefix(w, "nothing sent: it goes in one resume with aaaa1") {
		t.Fatalf("words: %q", w)
	}
	if s := Summary(got); s != "sends 1, records 1 approval (nothing sent for it) and sends nothing for 1 in one resume with those" {
		t.Fatalf("summary: %q", s)
	}
}
