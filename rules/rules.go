// Package rules is the team's one rule engine: who may decide, and how
// many distinct approvers a decision needs before it is sent (the
// two-person rule). It decides on the parsed interrupt (client.Parse: every
// spelling hitl reads, the Python and JS middleware's, Agent Inbox's, a
// hook's request), whatever the source (a LangGraph server, a publisher's
// request) and whatever the door (an SSH session, the HTTP door, the CLI
// through it): the hub's gate (hub/approvals.go) and the coordinator
// (coord) both ask Judge.
//
// The rule: an approve or an edit of an action a team rule names needs that
// rule's number of distinct approvers of the exact same resume value,
// whatever the decisions on the other actions are. A reject (or a reply
// instead of the tool call) of a named action needs one approver. An
// approval given by someone who is no longer an approver of the team does
// not count: Prune drops it, and the approval says so (Dropped).
package rules

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/team"
)

// Team is what the rules ask of the team in force. *team.Config is one.
type Team interface {
	// RuleFor is the rule naming a tool; ok false: one approver decides.
	RuleFor(tool string) (team.Rule, bool)
	// MayDecide reports whether reviewer is an approver of the team.
	MayDecide(reviewer string) bool
}

// Need is what one decision needs of the team.
type Need struct {
	// Approvals is how many distinct approvers must give the same
	// decision (1: the one who gives it).
	Approvals int
	// Tools are the approved or edited tools whose rule asks for more
	// than one approver, in the order of the actions.
	Tools []string
}

// Gated reports whether the decision needs more than one approver.
func (n Need) Gated() bool { return n.Approvals > 1 }

// NeedOf is what decisions ds on the parsed payload p need: the most
// approvals any rule asks for an action they approve or edit. Each action
// is counted on its own, so a reject of one action never lets an approval
// of another through.
func NeedOf(t Team, p *client.Payload, ds []client.Decision) Need {
	n := Need{Approvals: 1}
	if t == nil || p == nil {
		return n
	}
	for i, a := range p.Actions {
		if i >= len(ds) {
			break
		}
		switch ds[i].Type {
		case client.Approve, client.Edit:
		default:
			continue
		}
		if r, ok := t.RuleFor(a.Name); ok && r.Approvals > 1 {
			n.Approvals = max(n.Approvals, r.Approvals)
			if !slices.Contains(n.Tools, a.Name) {
				n.Tools = append(n.Tools, a.Name)
			}
		}
	}
	return n
}

// Prune drops from a the approvers who are no longer approvers of the
// team (removed, or made viewers), and names them in the approval's
// Dropped, for every row to say. It returns a itself when nobody is
// dropped, and whether anybody was.
func Prune(t Team, a *client.Approval) (*client.Approval, bool) {
	if a == nil || t == nil {
		return a, false
	}
	keep, gone := []string{}, []string(nil)
	for _, name := range a.Approvers {
		if t.MayDecide(name) {
			keep = append(keep, name)
		} else {
			gone = append(gone, name)
		}
	}
	if len(gone) == 0 {
		return a, false
	}
	next := *a
	next.Approvers = keep
	next.Dropped = append(slices.Clone(a.Dropped), gone...)
	return &next, true
}

// Verdict is what the rules make of one reviewer's decision.
type Verdict struct {
	Need Need
	// Send: the decision is sent now; Approvers name who gave it (the
	// reviewer alone, or every approver of a gated decision, first one
	// first).
	Send      bool
	Approvers []string
	// Tally is the count of a gated decision (Need.Gated()): when it is
	// not Send, Tally.Next is the approval to record (its Decisions and
	// Tools filled), or Tally.Already says the reviewer gave it already.
	Tally client.Tally
	// Pruned: the pending approval lost approvers no longer of the team.
	Pruned bool
}

// ErrNotApprover is the error of Judge for a reviewer who may not decide.
type ErrNotApprover struct{ Reviewer string }

func (e *ErrNotApprover) Error() string {
	return e.Reviewer + " is not an approver of this hub: nothing sent"
}

// Judge decides one reviewer's decisions ds (the exact resume value
// value) on the parsed payload p, whose pending approval is prev (nil:
// none).
func Judge(t Team, p *client.Payload, ds []client.Decision, prev *client.Approval, reviewer string, value json.RawMessage, now time.Time) (Verdict, error) {
	if t == nil || !t.MayDecide(reviewer) {
		return Verdict{}, &ErrNotApprover{reviewer}
	}
	v := Verdict{Need: NeedOf(t, p, ds)}
	if !v.Need.Gated() {
		v.Send, v.Approvers = true, []string{reviewer}
		return v, nil
	}
	prev, v.Pruned = Prune(t, prev)
	v.Tally = client.Count(prev, reviewer, value, v.Need.Approvals, now)
	if v.Tally.Complete {
		v.Send, v.Approvers = true, slices.Clone(v.Tally.Next.Approvers)
		return v, nil
	}
	if !v.Tally.Already {
		next := *v.Tally.Next
		next.Decisions, next.Tools = slices.Clone(ds), v.Need.Tools
		switch {
		case v.Tally.Replaced != nil:
			next.Dropped = nil // another decision: who was dropped from the old one is no longer news
		case prev != nil && next.Dropped == nil:
			next.Dropped = prev.Dropped // every approver of it was dropped: the row still says so
		}
		v.Tally.Next = &next
	}
	return v, nil
}
