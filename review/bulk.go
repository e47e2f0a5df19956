package review

import (
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
)

// Approve in bulk, one rule for the CLI (hitl approve --all --tool) and
// the TUI (A on marked or filtered rows): an interrupt is approved only
// when every one of its slots allows approve; any other is left out, with
// why, never approved in part.

// Left is an interrupt a bulk approve leaves out, and why: it also calls
// Others (approve --all --tool), or a slot of it allows only Allowed.
type Left struct {
	Interrupt client.Interrupt
	Others    []string
	Allowed   []client.DecisionType
}

// approval is the draft that approves every slot of it, or why it cannot.
func approval(it client.Interrupt) (decide.Draft, *Left) {
	ds := make([]client.Decision, it.Slots())
	for i := range ds {
		if !it.Allows(i, client.Approve) {
			return decide.Draft{}, &Left{Interrupt: it, Allowed: it.AllowedAt(i)}
		}
		ds[i] = client.Decision{Type: client.Approve}
	}
	return decide.Draft{Interrupt: it, Decisions: ds}, nil
}

// Approvals is the bulk approve of its: a draft for each interrupt whose
// every slot allows approve, in order, and the rest left out.
func Approvals(its []client.Interrupt) (drafts []decide.Draft, left []Left) {
	for _, it := range its {
		d, l := approval(it)
		if l != nil {
			left = append(left, *l)
			continue
		}
		drafts = append(drafts, d)
	}
	return drafts, left
}

// Approvable counts the interrupts of its that Approvals approves.
func Approvable(its []client.Interrupt) int {
	d, _ := Approvals(its)
	return len(d)
}

// ApprovalsOfTool is the bulk approve of the interrupts of its that call
// tool, and, with match, whose summary or arguments contain it (any case):
// one that also calls other tools is left out naming them (it is approved
// by id after reading it), then Approvals' rule.
func ApprovalsOfTool(its []client.Interrupt, tool, match string) (drafts []decide.Draft, left []Left) {
	for _, it := range its {
		if len(it.Actions) == 0 {
			continue
		}
		var others []string
		mine := false
		for _, act := range it.Actions {
			if act.Name == tool {
				mine = true
			} else {
				others = append(others, act.Name)
			}
		}
		if !mine || !matches(it, match) {
			continue
		}
		if len(others) > 0 {
			left = append(left, Left{Interrupt: it, Others: others})
			continue
		}
		d, l := approval(it)
		if l != nil {
			left = append(left, *l)
			continue
		}
		drafts = append(drafts, d)
	}
	return drafts, left
}

// matches reports whether it's summary or arguments contain match.
func matches(it client.Interrupt, match string) bool {
	if match == "" {
		return true
	}
	text := strings.ToLower(present.Summary(it))
	for _, act := range it.Actions {
		text += " " + strings.ToLower(string(act.Args))
	}
	return strings.Contains(text, strings.ToLower(match))
}
