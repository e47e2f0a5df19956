package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A team's two-person rule (hitl serve): for an action a rule names, an
// approver's approve or edit is recorded as the first approval of that exact
// resume value, and nothing is sent; a second approver who confirms the same
// value sends it. Approvals live where every hub reads them (LangGraph: the
// thread's metadata), so a hub restarted between the two loses nothing.

// Approval is an interrupt's decision approved by fewer approvers than its
// rule needs.
type Approval struct {
	// Approvers approved Value, first one first.
	Approvers []string `json:"approvers"`
	// Needed is how many distinct approvers the rule asks for.
	Needed int `json:"needed"`
	// Value is the exact resume value approved; Decisions are the
	// decisions it encodes (what a second approver confirms).
	Value     json.RawMessage `json:"value"`
	Decisions []Decision      `json:"decisions"`
	// Tools are the tools whose rule asks for the approvals.
	Tools []string  `json:"tools,omitempty"`
	Since time.Time `json:"since,omitzero"`
}

// Has reports whether name approved already.
func (a *Approval) Has(name string) bool { return a != nil && slices.Contains(a.Approvers, name) }

// Words says where it stands: "1 of 2 approvals (alice)".
func (a *Approval) Words() string {
	if a == nil {
		return ""
	}
	n := "approvals"
	if a.Needed == 1 {
		n = "approval"
	}
	return fmt.Sprintf("%d of %d %s (%s)", len(a.Approvers), a.Needed, n, strings.Join(a.Approvers, ", "))
}

// ApprovalKeeper is a backend that keeps approvals where every hub of the
// server reads them.
type ApprovalKeeper interface {
	// Approval reads the interrupt's approval from the server now (nil:
	// none).
	Approval(ctx context.Context, it Interrupt) (*Approval, error)
	// RecordApproval records a on the interrupt; nil clears it.
	RecordApproval(ctx context.Context, it Interrupt, a *Approval) error
}

// ErrAwaitingApproval marks a decision that was recorded as an approval and
// not sent: its rule needs more approvers.
var ErrAwaitingApproval = errors.New("recorded as an approval; not sent until enough approvers approve the same decision")
