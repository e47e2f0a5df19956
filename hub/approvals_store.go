package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/store"
)

// The approvals of a source that keeps none itself (an A2A agent,
// opencode: no client.ApprovalKeeper) live in the hub's store
// (store.SourceApproval), keyed by the source's server and the
// interrupt's id, as the door's own requests' approvals live on their
// rows: a hub restarted between two approvals, or another hub on the same
// PostgreSQL, has the first one. They change only as read (a version), so
// that approvers deciding at once, on one hub or two, are judged one after
// the other; the approver who completes them claims them for the send
// (store.Sending) before sending, so that exactly one of two completing
// at once sends; once sent they stay, marked sent, until the store's
// retention prunes them, so that an approver deciding at that moment is
// told it was sent rather than counted as a first approval.

// storedApproval is where an interrupt's approvals stand in the store.
type storedApproval struct {
	a       *client.Approval // nil: none
	state   string           // store.Approving, Sending, Sent; "": none
	at      time.Time
	version int64 // 0: none stored
}

// approvalStore is an upstream that keeps some interrupts' approvals in
// the hub's store (Merged: those of its sources that keep none).
type approvalStore interface {
	// StoredApproval reads the interrupt's approvals; ok false: they are
	// not kept in the store (its source keeps them: Approval).
	StoredApproval(ctx context.Context, it client.Interrupt) (a storedApproval, ok bool, err error)
	// SetStoredApproval stores a in state if they stand as read at
	// version (0: none); done false: they changed since, nothing written.
	// A nil a and an empty state remove them.
	SetStoredApproval(ctx context.Context, it client.Interrupt, version int64, a *client.Approval, state string) (done bool, err error)
}

// claimLasts is how long a claim for sending (store.Sending) is taken as a
// send under way; a claim older than that was left by a hub that stopped
// while sending: the decision may have been sent, and is not sent again.
const claimLasts = 2 * time.Minute

// spent says why approvals sent, or being sent, take no other approval
// ("" when they wait for approvers).
func (a storedApproval) spent(now time.Time) string {
	who := ""
	if a.a != nil && len(a.a.Approvers) > 0 {
		who = " (approvers " + strings.Join(a.a.Approvers, ", ") + ")"
	}
	switch {
	case a.state == store.Sent:
		return "the approvals of this interrupt were completed and the decision sent" + who + ": nothing more was sent"
	case a.state == store.Sending && now.Sub(a.at) < claimLasts:
		return "another approver completed the approvals of this interrupt and the decision is being sent" + who + ": nothing more was sent"
	case a.state == store.Sending:
		return "a hub stopped while sending this interrupt's completed approvals" + who +
			", so the decision may have reached the agent: nothing more was sent; reject it, or have the agent ask again"
	}
	return ""
}

// handledError is a decision not taken: another approver's, completing
// the same approvals, was sent (or is being sent).
type handledError struct{ msg string }

func (e *handledError) Error() string        { return e.msg }
func (e *handledError) Is(target error) bool { return target == client.ErrAlreadyHandled }

// errChanged: the store's approvals changed between reading and writing
// them (another approver's, maybe on another hub): judge again.
var errChanged = errors.New("the approvals changed as they were read")

// errNoStore is the error of an approval of a source that keeps none
// when the hub has no store to keep it in.
var errNoStore = errors.New("the hub has no store to keep this source's approvals in")

// keptHere is the interrupt's source when it keeps no approvals itself.
func (m *Merged) keptHere(it client.Interrupt) (*mergedSource, bool) {
	s := m.of(it)
	return s, s != nil && s.feat.ApprovalKeeper == nil
}

// StoredApproval reads the approvals of an interrupt whose source keeps
// none, from the store.
func (m *Merged) StoredApproval(ctx context.Context, it client.Interrupt) (storedApproval, bool, error) {
	s, ok := m.keptHere(it)
	if !ok {
		return storedApproval{}, false, nil
	}
	if m.Store == nil {
		return storedApproval{}, true, errNoStore
	}
	r, err := m.Store.SourceApproval(ctx, s.Backend.Server(), it.ID)
	if err != nil {
		return storedApproval{}, true, err
	}
	out := storedApproval{state: r.State, at: r.ChangedAt, version: r.Version}
	if len(r.Approval) > 0 {
		var a client.Approval
		if err := json.Unmarshal(r.Approval, &a); err != nil {
			return storedApproval{}, true, fmt.Errorf("the store's approval of interrupt %s cannot be read: %v", it.ID, err)
		}
		out.a = &a
	}
	return out, true, nil
}

// SetStoredApproval stores the approvals of an interrupt whose source
// keeps none, if they stand as read at version.
func (m *Merged) SetStoredApproval(ctx context.Context, it client.Interrupt, version int64, a *client.Approval, state string) (bool, error) {
	s, ok := m.keptHere(it)
	switch {
	case !ok:
		return false, notOurs(it.ID)
	case m.Store == nil:
		return false, errNoStore
	}
	r := store.SourceApproval{Source: s.Backend.Server(), InterruptID: it.ID, State: state}
	if a != nil {
		b, err := json.Marshal(a)
		if err != nil {
			return false, err
		}
		r.Approval = b
	}
	return m.Store.SetSourceApproval(ctx, r, version, nil)
}

// Approval is the interrupt's pending approval, kept by its source or,
// for a source that keeps none, in the hub's store (nil: none, or sent).
func (m *Merged) Approval(ctx context.Context, it client.Interrupt) (*client.Approval, error) {
	s := m.of(it)
	if s != nil && s.feat.ApprovalKeeper != nil {
		return s.feat.ApprovalKeeper.Approval(ctx, it)
	}
	if s == nil {
		return nil, nil
	}
	a, _, err := m.StoredApproval(ctx, it)
	if err != nil || a.state != store.Approving {
		return nil, err
	}
	return a.a, nil
}

// RecordApproval keeps a where Approval reads it (nil: none), on the
// approvals as they stand (the gate, Shared.Resume, changes the store's
// only as read).
func (m *Merged) RecordApproval(ctx context.Context, it client.Interrupt, a *client.Approval) error {
	s := m.of(it)
	if s != nil && s.feat.ApprovalKeeper != nil {
		return s.feat.ApprovalKeeper.RecordApproval(ctx, it, a)
	}
	if s == nil {
		return notOurs(it.ID)
	}
	state := store.Approving
	if a == nil {
		state = ""
	}
	for range 20 {
		cur, _, err := m.StoredApproval(ctx, it)
		if err != nil {
			return err
		}
		done, err := m.SetStoredApproval(ctx, it, cur.version, a, state)
		if err != nil || done {
			return err
		}
	}
	return errors.New("the approvals keep changing: the approval is not recorded")
}

// storedApprovals are the approvals waiting for approvers of the listed
// interrupts of each source that keeps none, by source and interrupt id
// (one read of the store per such source).
func (m *Merged) storedApprovals(ctx context.Context, lists [][]client.Interrupt) []map[string]*client.Approval {
	out := make([]map[string]*client.Approval, len(m.src))
	if m.Store == nil {
		return out
	}
	for i, s := range m.src {
		if s.feat.ApprovalKeeper != nil || len(lists[i]) == 0 {
			continue
		}
		rows, err := m.Store.SourceApprovals(ctx, s.Backend.Server())
		if err != nil {
			continue // the rows show none; a decision reads the store again
		}
		for _, r := range rows {
			var a client.Approval
			if json.Unmarshal(r.Approval, &a) != nil {
				continue
			}
			if out[i] == nil {
				out[i] = map[string]*client.Approval{}
			}
			out[i][r.InterruptID] = &a
		}
	}
	return out
}
