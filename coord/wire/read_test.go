package wire_test

import (
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/coord/wire"
)

// A pending approval carries what it approved: its decisions, read from
// its value (the edited input included), so a second approver sees it and
// confirms that very value; a value that is not an answer to the request
// carries none (nothing to confirm with one key).
func TestPendingApprovalCarriesItsDecision(t *testing.T) {
	data := `{"action_requests":[{"name":"Bash","args":{"command":"npm publish"}}],"review_configs":[{"action_name":"Bash","allowed_decisions":["approve","edit","reject"]}]}`
	req := func(value string) client.Interrupt {
		return wire.ReadRequest([]byte(`{"request_id":"req-1","agent":"claude","session_id":"s","data":` + data +
			`,"approval":{"approvers":["bob"],"needed":2,"value":` + value + `,"decisions":[{"type":"approve"}]}}`)).Interrupt("hub")
	}
	it := req(`{"decisions":[{"type":"edit","edited_action":{"name":"Bash","args":{"command":"npm publish --dry-run"}}}]}`)
	if it.Approval == nil || len(it.Approval.Decisions) != 1 {
		t.Fatalf("approval %+v", it.Approval)
	}
	d := it.Approval.Decisions[0]
	if d.Type != client.Edit || !strings.Contains(string(d.Args), "npm publish --dry-run") {
		t.Fatalf("decision %+v", d)
	}
	// The coordinator's word on the decisions is not taken: an unreadable value has none.
	if it := req(`{"decisions":[{"type":"approve","args":{"command":"rm -rf /"}}]}`); it.Approval == nil || it.Approval.Decisions != nil {
		t.Fatalf("approval %+v", it.Approval)
	}
}
