package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/diff"
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
	// Dropped approved Value but are no longer approvers of the team (a
	// reload took them out): their approvals do not count (rules.Prune).
	Dropped []string `json:"dropped,omitempty"`
}

// Has reports whether name approved already.
func (a *Approval) Has(name string) bool { return a != nil && slices.Contains(a.Approvers, name) }

// Words says where it stands: "1 of 2 approvals (alice)".
func (a *Approval) Words() string {
	if a == nil {
		return ""
	}
	s := a.Counted()
	if len(a.Dropped) > 0 {
		s += "; dropped: " + strings.Join(a.Dropped, ", ") + " (no longer an approver)"
	}
	return s
}

// Counted is Words without who was dropped: "1 of 2 approvals (alice)".
func (a *Approval) Counted() string {
	if a == nil {
		return ""
	}
	n := "approvals"
	if a.Needed == 1 {
		n = "approval"
	}
	s := fmt.Sprintf("%d of %d %s", len(a.Approvers), a.Needed, n)
	if len(a.Approvers) > 0 {
		s += " (" + strings.Join(a.Approvers, ", ") + ")"
	}
	return s
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

// Tally is what one approver's approval of a resume value does to the
// approval standing on an interrupt: the team's one rule, which every path
// (a hub's Resume, its HTTP door's own requests) counts with Count.
type Tally struct {
	// Already: reviewer approved this same value already; nothing changes.
	Already bool
	// Next is the approval with this one counted: the same value's
	// approvers and reviewer, or reviewer alone on another value.
	Next *Approval
	// Complete: Next has enough approvers; the value is sent, naming
	// Next.Approvers.
	Complete bool
	// Replaced is the approval of another value that Next replaces.
	Replaced *Approval
}

// Count counts reviewer's approval of value on prev (nil: none), under a
// rule that needs needed distinct approvers. Approvals count only toward
// the exact same value (diff.Equal); another value replaces the pending
// approval. Next's Decisions and Tools are the caller's to fill.
func Count(prev *Approval, reviewer string, value json.RawMessage, needed int, now time.Time) Tally {
	if prev != nil && len(prev.Approvers) == 0 {
		prev = nil
	}
	if prev != nil && diff.Equal(prev.Value, value) {
		if prev.Has(reviewer) {
			return Tally{Already: true, Next: prev}
		}
		next := *prev
		next.Approvers = append(slices.Clone(prev.Approvers), reviewer)
		next.Needed = needed
		return Tally{Next: &next, Complete: len(next.Approvers) >= needed}
	}
	next := &Approval{Approvers: []string{reviewer}, Needed: needed, Value: value, Since: now.UTC()}
	return Tally{Next: next, Complete: needed <= 1, Replaced: prev}
}

// Message is what the approver is told of a tally that sent nothing;
// tools are the tools whose rule asks for it.
func (t Tally) Message(tools []string) string {
	names := strings.Join(tools, ", ")
	if t.Already {
		return fmt.Sprintf("%s: you approved this decision already (%s); %s needs another approver, who confirms the same decision: nothing sent",
			names, t.Next.Words(), names)
	}
	return t.Recorded(tools) + NothingSent
}

// NothingSent ends the message of an approval recorded.
const NothingSent = ": nothing is sent until another approver confirms the same decision"

// Recorded says what was recorded: "1 of 2 approvals (bob) recorded for
// Bash; it replaces the approval of another decision (1 of 2 approvals
// (alice))".
func (t Tally) Recorded(tools []string) string {
	s := fmt.Sprintf("%s recorded for %s", t.Next.Counted(), strings.Join(tools, ", "))
	if len(t.Next.Dropped) > 0 {
		// Who was dropped after what was recorded, in a sentence of its
		// own ("…; dropped: alice (…) recorded for Bash" read as if alice
		// were recorded).
		s += fmt.Sprintf("; the approval of %s was dropped (no longer an approver)", strings.Join(t.Next.Dropped, ", "))
	}
	if t.Replaced != nil {
		s += fmt.Sprintf("; it replaces the approval of another decision (%s)", t.Replaced.Words())
	}
	return s
}
