package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// ApprovalText says where a team rule's approvals of the interrupt stand
// and what they approved: "1 of 2 approvals (bob: edit Bash with
// {"command":"npm publish --dry-run"})"; args false leaves the edited
// input out (a list's row). "" when none stands. Not made inert: the
// caller's writer does.
func ApprovalText(it *client.Interrupt, args bool) string {
	a := it.Approval
	if a == nil {
		return ""
	}
	n := "approvals"
	if a.Needed == 1 {
		n = "approval"
	}
	s := fmt.Sprintf("%d of %d %s (%s: %s)", len(a.Approvers), a.Needed, n, strings.Join(a.Approvers, ", "), Approved(it, args))
	if len(a.Approvers) == 0 {
		s = fmt.Sprintf("%d of %d %s (%s)", len(a.Approvers), a.Needed, n, Approved(it, args))
	}
	if len(a.Dropped) > 0 {
		// A reload took them out of the team: their approvals do not count.
		s += "; dropped: " + strings.Join(a.Dropped, ", ") + " (no longer an approver)"
	}
	return s
}

// Approved says what the interrupt's pending approval approved:
// "approve delete_records, reject notify: not now". A value hitl cannot
// read into the interrupt's decisions is shown as it is.
func Approved(it *client.Interrupt, args bool) string {
	a := it.Approval
	if a == nil {
		return ""
	}
	if len(a.Decisions) == 0 {
		var b bytes.Buffer
		if json.Compact(&b, a.Value) != nil {
			b.Reset()
			b.Write(a.Value)
		}
		return "the resume value " + b.String()
	}
	var parts []string
	for i, d := range a.Decisions {
		what := string(d.Type)
		if i < len(it.Actions) {
			what += " " + it.Actions[i].Name
		}
		switch {
		case d.Type == client.Edit && len(d.Args) > 0 && args:
			what += " with " + strings.Join(strings.Fields(string(d.Args)), " ")
		case d.Message != "":
			what += ": " + d.Message
		}
		parts = append(parts, what)
	}
	return strings.Join(parts, ", ")
}
