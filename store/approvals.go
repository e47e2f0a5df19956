package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// SourceApproval is where a two-person rule's approvals of an interrupt
// stand, for a source that keeps none itself (an A2A agent, opencode):
// keyed by the source and the interrupt's id, in the store every hub on it
// reads. It changes as the door's requests' approvals do (SetApproval):
// only on what was read (its version), so that of two hubs' approvers
// deciding at once one is judged again on the other's approval, and
// exactly one of them sends.
type SourceApproval struct {
	// Source is the source's server, as hitl names it.
	Source, InterruptID string
	// Approval is the client.Approval (JSON).
	Approval []byte
	// State: Approving (waiting for more approvers), Sending (an approver
	// completed it and the decision is being sent), Sent.
	State     string
	ChangedAt time.Time
	// Version grows with every change; 0: none stored.
	Version int64
}

// States of a SourceApproval.
const (
	Approving = "approving"
	Sending   = "sending"
	Sent      = "sent"
)

const sourceApprovalColumns = "source, interrupt_id, approval, state, changed_at, version"

func scanSourceApproval(row rowScanner) (SourceApproval, error) {
	var a SourceApproval
	var at int64
	err := row.Scan(&a.Source, &a.InterruptID, &a.Approval, &a.State, &at, &a.Version)
	a.ChangedAt = timeOf(at)
	return a, err
}

// SourceApproval reads the approvals of a source's interrupt; Version 0
// when none is stored.
func (s *Store) SourceApproval(ctx context.Context, source, id string) (SourceApproval, error) {
	source, id = text(source), text(id)
	a, err := scanSourceApproval(s.db.QueryRowContext(ctx, s.q("SELECT "+sourceApprovalColumns+" FROM source_approvals WHERE source = ? AND interrupt_id = ?"), source, id))
	if errors.Is(err, sql.ErrNoRows) {
		return SourceApproval{Source: source, InterruptID: id}, nil
	}
	return a, err
}

// SourceApprovals are the source's approvals that wait for more approvers
// (what its interrupts' rows show).
func (s *Store) SourceApprovals(ctx context.Context, source string) ([]SourceApproval, error) {
	return queryAll(ctx, s, "SELECT "+sourceApprovalColumns+" FROM source_approvals WHERE source = ? AND state = ?", scanSourceApproval, text(source), Approving)
}

// SetSourceApproval stores a (its Source, InterruptID, Approval, State)
// if the approvals of that interrupt are as read at version (0: none was
// stored); a with no State and no Approval removes them. ok false: they
// changed since (another approver's, maybe on another hub): nothing was
// written; read again. audit, when not nil, is appended to the team's
// audit log in the same transaction. Every hub is told (Changed).
func (s *Store) SetSourceApproval(ctx context.Context, a SourceApproval, version int64, audit *Entry) (ok bool, err error) {
	if a.ChangedAt.IsZero() {
		a.ChangedAt = time.Now().UTC()
	}
	a.Source, a.InterruptID = text(a.Source), text(a.InterruptID)
	err = s.write(ctx, nil, func(tx *sql.Tx) error {
		var res sql.Result
		var err error
		switch {
		case version == 0 && a.State == "" && a.Approval == nil:
			var n int
			if err := tx.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM source_approvals WHERE source = ? AND interrupt_id = ?"), a.Source, a.InterruptID).Scan(&n); err != nil {
				return err
			}
			if n != 0 {
				return errNotPending
			}
			ok = true
			return nil
		case version == 0:
			res, err = tx.ExecContext(ctx, s.q(`INSERT INTO source_approvals (`+sourceApprovalColumns+`) VALUES (?, ?, ?, ?, ?, 1)
				ON CONFLICT (source, interrupt_id) DO NOTHING`), a.Source, a.InterruptID, a.Approval, a.State, nanos(a.ChangedAt))
		case a.State == "" && a.Approval == nil:
			res, err = tx.ExecContext(ctx, s.q("DELETE FROM source_approvals WHERE source = ? AND interrupt_id = ? AND version = ?"), a.Source, a.InterruptID, version)
		default:
			res, err = tx.ExecContext(ctx, s.q(`UPDATE source_approvals SET approval = ?, state = ?, changed_at = ?, version = version + 1
				WHERE source = ? AND interrupt_id = ? AND version = ?`), a.Approval, a.State, nanos(a.ChangedAt), a.Source, a.InterruptID, version)
		}
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errNotPending
		}
		ok = true
		if audit != nil {
			if _, err := s.audit(ctx, tx, *audit); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errNotPending) {
		return false, nil
	}
	return ok, err
}
