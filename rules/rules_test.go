package rules

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/team"
)

func twoForBash() *team.Config {
	return &team.Config{
		Reviewers: map[string]team.Reviewer{"alice": {Role: team.Approver}, "bob": {Role: team.Approver}, "vic": {Role: team.Viewer}},
		Rules:     []team.Rule{{Tools: []string{"Bash", "delete_*"}, Approvals: 2}},
	}
}

func TestNeedCountsEachApprovedAction(t *testing.T) {
	p := client.Parse(json.RawMessage(`{"actionRequests":[{"name":"Read","args":{}},{"name":"delete_records","args":{}}],"reviewConfigs":[]}`))
	for _, c := range []struct {
		ds   []client.Decision
		want int
	}{
		{[]client.Decision{{Type: client.Reject}, {Type: client.Approve}}, 2},
		{[]client.Decision{{Type: client.Approve}, {Type: client.Edit}}, 2},
		{[]client.Decision{{Type: client.Approve}, {Type: client.Reject}}, 1},
		{[]client.Decision{{Type: client.Approve}}, 1},
	} {
		if n := NeedOf(twoForBash(), &p, c.ds); n.Approvals != c.want {
			t.Errorf("%v: %d approvals, want %d (%v)", c.ds, n.Approvals, c.want, n.Tools)
		}
	}
}

func TestJudge(t *testing.T) {
	tm := twoForBash()
	p := client.Parse(json.RawMessage(`{"action_requests":[{"name":"Bash","args":{"command":"ls"}}],"review_configs":[{"action_name":"Bash","allowed_decisions":["approve","reject"]}]}`))
	val := json.RawMessage(`{"decisions":[{"type":"approve"}]}`)
	ds := []client.Decision{{Type: client.Approve}}
	if _, err := Judge(tm, &p, ds, nil, "vic", val, time.Now()); err == nil {
		t.Fatal("a viewer's decision was judged")
	}
	v, err := Judge(tm, &p, ds, nil, "alice", val, time.Now())
	if err != nil || v.Send || v.Tally.Next.Words() != "1 of 2 approvals (alice)" {
		t.Fatalf("alice: %+v %v", v, err)
	}
	first := v.Tally.Next
	delete(tm.Reviewers, "alice")
	v, _ = Judge(tm, &p, ds, first, "bob", val, time.Now())
	if v.Send || !v.Pruned || v.Tally.Next.Words() != "1 of 2 approvals (bob); dropped: alice (no longer an approver)" {
		t.Fatalf("bob after alice left: %+v %s", v, v.Tally.Next.Words())
	}
}
