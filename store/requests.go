package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Request is a publisher's request and where it stands.
type Request struct {
	ID, Publisher, Agent, SessionID string
	// Source is whose request it is: "hook" (a coding agent's), else
	// "publisher"; it outlives the data it was read from.
	Source                  string
	CreatedAt               time.Time
	Data                    []byte // nil once pruned
	Status                  string // Pending, Answered, Withdrawn
	Response                []byte
	RespondedBy, DecisionID string
	AnsweredAt              time.Time
	Reason                  string
	Approval                []byte // the pending approval (JSON), nil for none
	ExpiresAt               time.Time
	// Lease, when not 0, ties the request to its publisher's waits: it is
	// withdrawn when none is open for that long (coord/lease.go).
	Lease time.Duration
	// LeaseUntil is when the lease runs out, as the publisher's waits left
	// it (Hold).
	LeaseUntil time.Time
	// Version grows with every change of the row: a change made on what
	// was read takes effect only if nothing changed it since.
	Version int64
}

// Statuses of a request.
const (
	Pending   = "pending"
	Answered  = "answered"
	Withdrawn = "withdrawn"
)

const requestColumns = "id, publisher, source, agent, session_id, created_at, data, status, response, responded_by, decision_id, answered_at, reason, approval, expires_at, version, lease_ms, lease_until"

func scanRequest(row rowScanner) (Request, error) {
	var r Request
	var created, answered, expires, lease, until int64
	err := row.Scan(&r.ID, &r.Publisher, &r.Source, &r.Agent, &r.SessionID, &created, &r.Data, &r.Status, &r.Response, &r.RespondedBy,
		&r.DecisionID, &answered, &r.Reason, &r.Approval, &expires, &r.Version, &lease, &until)
	r.Lease, r.LeaseUntil = time.Duration(lease)*time.Millisecond, timeOf(until)
	r.CreatedAt, r.AnsweredAt, r.ExpiresAt = timeOf(created), timeOf(answered), timeOf(expires)
	return r, err
}

// Publish stores a new pending request, and its hitl_asked event.
func (s *Store) Publish(ctx context.Context, r Request) error {
	return s.write(ctx, []string{r.ID}, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO requests (id, publisher, source, agent, session_id, created_at, data, status, expires_at, lease_ms, lease_until)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), r.ID, text(r.Publisher), text(r.Source), text(r.Agent), text(r.SessionID), nanos(r.CreatedAt), r.Data, Pending, nanos(r.ExpiresAt), r.Lease.Milliseconds(), nanos(r.LeaseUntil))
		if err != nil {
			return err
		}
		return s.event(ctx, tx, Event{Type: "hitl_asked", RequestID: r.ID, At: r.CreatedAt})
	})
}

// Get reads request id; ok false when the store has none.
func (s *Store) Get(ctx context.Context, id string) (Request, bool, error) {
	r, err := scanRequest(s.db.QueryRowContext(ctx, s.q("SELECT "+requestColumns+" FROM requests WHERE id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Request{}, false, nil
	}
	return r, err == nil, err
}

// Standing reads request id without its data: where it stands.
func (s *Store) Standing(ctx context.Context, id string) (Request, bool, error) {
	r, err := scanRequest(s.db.QueryRowContext(ctx, s.q("SELECT "+strings.Replace(requestColumns, " data,", " NULL,", 1)+" FROM requests WHERE id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Request{}, false, nil
	}
	return r, err == nil, err
}

// Has says whether the store holds request id (cheaper than Get: no data).
func (s *Store) Has(ctx context.Context, id string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM requests WHERE id = ?"), id).Scan(&n)
	return n > 0, err
}

// Pending lists the pending requests, oldest first.
func (s *Store) Pending(ctx context.Context) ([]Request, error) {
	return s.requests(ctx, "WHERE status = ? ORDER BY created_at, id", Pending)
}

// requests are the requests a WHERE clause (and its order) selects.
func (s *Store) requests(ctx context.Context, where string, args ...any) ([]Request, error) {
	return queryAll(ctx, s, "SELECT "+requestColumns+" FROM requests "+where, scanRequest, args...)
}

// Finish is how a pending request ends.
type Finish struct {
	Status                  string // Answered or Withdrawn
	Response                []byte
	RespondedBy, DecisionID string
	Reason                  string
	At                      time.Time
	// Event is the hitl_answered event's data.
	Event []byte
	// Audit, when not nil, is appended to the team's audit log in the
	// same transaction: the decision and its entry are both kept, or
	// neither (a hub killed between the two lost the entry).
	Audit *Entry
}

// Finish ends request id if it is still pending (and, when version is not
// 0, unchanged since it was read at that version). ok false: it was not
// pending (or had changed): someone else's change came first, and nothing
// was written. Of two hubs finishing one request at once, one wins. The
// request's data is forgotten: its standing and answer stay readable, its
// body (up to coord.MaxBody) is not kept on disk or in memory.
func (s *Store) Finish(ctx context.Context, id string, version int64, f Finish) (ok bool, err error) {
	err = s.write(ctx, []string{id}, func(tx *sql.Tx) error {
		q := `UPDATE requests SET status = ?, response = ?, responded_by = ?, decision_id = ?, reason = ?, answered_at = ?,
			approval = NULL, data = NULL, version = version + 1 WHERE id = ? AND status = ?`
		args := []any{f.Status, f.Response, text(f.RespondedBy), text(f.DecisionID), text(f.Reason), nanos(f.At), id, Pending}
		if version != 0 {
			q += " AND version = ?"
			args = append(args, version)
		}
		res, err := tx.ExecContext(ctx, s.q(q), args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errNotPending
		}
		ok = true
		if f.Audit != nil {
			if _, err := s.audit(ctx, tx, *f.Audit); err != nil {
				return err
			}
		}
		return s.event(ctx, tx, Event{Type: "hitl_answered", RequestID: id, Data: f.Event, At: f.At})
	})
	if errors.Is(err, errNotPending) {
		return false, nil
	}
	return ok, err
}

var errNotPending = errors.New("not pending")

// SetApproval records a pending request's approvals (nil: none) if it is
// unchanged since read at version; ok false when it changed (read again).
// audit, when not nil, is appended to the audit log in the same
// transaction.
func (s *Store) SetApproval(ctx context.Context, id string, version int64, approval []byte, at time.Time, audit *Entry) (ok bool, err error) {
	err = s.write(ctx, []string{id}, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q("UPDATE requests SET approval = ?, version = version + 1 WHERE id = ? AND status = ? AND version = ?"),
			approval, id, Pending, version)
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
		// A change of the list: reviewers read it again.
		return s.event(ctx, tx, Event{Type: "hitl_asked", RequestID: id, At: at})
	})
	if errors.Is(err, errNotPending) {
		return false, nil
	}
	return ok, err
}

// Hold sets when a pending request's lease runs out (its publisher's
// waits: coord/lease.go). It is no change of the request: no version, no
// event.
func (s *Store) Hold(ctx context.Context, id string, until time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE requests SET lease_until = ? WHERE id = ? AND status = ? AND lease_ms > 0"), nanos(until), id, Pending)
	return err
}

// Extend makes a pending request's lease run at least until until (a hub
// that starts again: coord/lease.go); a lease that runs longer (a wait on
// another hub holds it) is left as it is.
func (s *Store) Extend(ctx context.Context, id string, until time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE requests SET lease_until = ? WHERE id = ? AND status = ? AND lease_ms > 0 AND lease_until < ?"),
		nanos(until), id, Pending, nanos(until))
	return err
}

// NextExpiry is when the first pending request with an expiry expires.
func (s *Store) NextExpiry(ctx context.Context) (time.Time, bool, error) {
	var n sql.NullInt64
	err := s.db.QueryRowContext(ctx, s.q("SELECT MIN(expires_at) FROM requests WHERE status = ? AND expires_at > 0"), Pending).Scan(&n)
	if err != nil || !n.Valid {
		return time.Time{}, false, err
	}
	return timeOf(n.Int64), true, nil
}

// Expired lists the pending requests whose expiry is at or before now.
func (s *Store) Expired(ctx context.Context, now time.Time) ([]Request, error) {
	return s.requests(ctx, "WHERE status = ? AND expires_at > 0 AND expires_at <= ?", Pending, nanos(now))
}

// Prune forgets the requests finished before, and the events older than
// it; a hub's own events (what it saw of its LangGraph server: a reader
// lists that again when it reconnects) older than hubBefore; the sent
// approvals of sources' interrupts (store/approvals.go) changed before
// it. The audit log is kept.
func (s *Store) Prune(ctx context.Context, before, hubBefore time.Time) (int64, error) {
	var n int64
	err := s.quietly(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q("DELETE FROM requests WHERE status <> ? AND answered_at < ?"), Pending, nanos(before))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		if _, err = tx.ExecContext(ctx, s.q("DELETE FROM events WHERE hub <> '' AND at < ?"), nanos(hubBefore)); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, s.q("DELETE FROM events WHERE at < ?"), nanos(before)); err != nil {
			return err
		}
		// Approvals of sources' interrupts once sent (kept so that an
		// approver deciding at the same moment is told, not counted).
		_, err = tx.ExecContext(ctx, s.q("DELETE FROM source_approvals WHERE state <> ? AND changed_at < ?"), Approving, nanos(before))
		return err
	})
	return n, err
}
