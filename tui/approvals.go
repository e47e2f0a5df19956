package tui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/present"
)

// A team's two-person rule (hitl serve): an interrupt whose decision was
// approved by fewer approvers than its rule needs shows where it stands on
// its row and in its detail; an approver who did not approve it yet
// confirms the same decision with the approve key (the confirm screen shows
// it, with the diff of any edit), or decides otherwise: a reject needs one
// reviewer, an edit or a different approve becomes a new first approval
// that replaces the old one.

// approvalText is the detail's word on the interrupt's approval.
func (m *Model) approvalText(it *client.Interrupt) string {
	a := it.Approval
	if a == nil {
		return ""
	}
	s := "✔ " + safe(a.Words()) + ": " + safe(present.Approved(it, true))
	switch {
	case a.Has(m.opts.Reviewer):
		return s + ". Waiting for another approver."
	case m.viewOnly():
		return s + "."
	}
	return s + fmt.Sprintf(". %s confirms this same decision; an edit makes a new first approval that replaces it; %s needs no second approver.",
		name(m.keys.Approve), name(m.keys.Reject))
}

// confirmApproval puts the approval's decisions in the reviewer's draft
// and opens the confirm screen; false when there is none to confirm.
func (m *Model) confirmApproval(it *client.Interrupt, d *draft) bool {
	a := it.Approval
	if a == nil || len(a.Approvers) == 0 || a.Has(m.opts.Reviewer) || len(a.Decisions) != len(d.decisions) {
		return false
	}
	for i := range a.Decisions {
		x := a.Decisions[i]
		d.decisions[i] = &x
	}
	d.confirming = true
	m.toConfirm(it)
	who := safe(strings.Join(a.Approvers, ", "))
	if a.Needed > 0 && len(a.Approvers)+1 < a.Needed {
		// Not the last approval the rule asks for: recorded, not sent.
		m.setStatus(fmt.Sprintf("Confirming %s's approval (%s): yours is recorded beside it; nothing is sent until %d approve.", who, safe(a.Words()), a.Needed), true)
		return true
	}
	m.setStatus(fmt.Sprintf("Confirming %s's approval (%s): the same decision is sent, naming %s and you.", who, safe(a.Words()), who), true)
	return true
}

// onApprovalRecorded: the decision was recorded as an approval and not
// sent. The draft is on the server now; the list shows it.
func (m *Model) onApprovalRecorded(r *decide.Result) (tea.Cmd, bool) {
	if r.Kind != decide.ApprovalRecorded {
		return nil, false
	}
	var ids []string
	for _, id := range r.Submission.IDs() {
		delete(m.drafts, id)
		ids = append(ids, present.ShortID(id))
	}
	msg := r.Err().Error()
	if cause := errors.Unwrap(r.Err()); cause != nil {
		msg = cause.Error()
	}
	m.setStatus(strings.Join(ids, ", ")+": "+safe(msg)+".", true)
	m.home()
	m.startGrace("")
	return tea.Batch(pollAfter(0), m.syncClaims()), true
}
