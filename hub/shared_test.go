package hub

import (
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// A first approval changes nothing but the interrupt's Approval: the
// sessions must still be told.
func TestSameSeesAnApproval(t *testing.T) {
	a := []client.Interrupt{{ID: "i1"}}
	b := []client.Interrupt{{ID: "i1", Approval: &client.Approval{Approvers: []string{"alice"}, Needed: 2, Value: []byte(`{}`)}}}
	c := []client.Interrupt{{ID: "i1", Approval: &client.Approval{Approvers: []string{"bob"}, Needed: 2, Value: []byte(`{}`)}}}
	if same(a, b) || same(b, c) || !same(b, b) || !same(a, a) {
		t.Fatal("same() misreads approvals")
	}
}
