package store

import (
	"context"
	"database/sql"
	"time"
)

// Event is one entry of the event log the door's streams (SSE) serve and
// resume from: its ID is the stream's event id, growing, never reused.
type Event struct {
	ID        int64
	Type      string
	RequestID string
	// Hub, when not "", is the one hub whose stream carries it (what that
	// hub saw of its LangGraph server); "" is every hub's.
	Hub  string
	Data []byte // nil: the request as it stands (RequestID)
	At   time.Time
}

// event appends ev in tx. With PostgreSQL, appends are serialized, so that
// ids commit in order and a reader that saw id N has seen every id below.
func (s *Store) event(ctx context.Context, tx *sql.Tx, ev Event) error {
	if s.kind == Postgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7468697402)"); err != nil {
			return err
		}
	}
	if ev.At.IsZero() {
		ev.At = time.Now()
	}
	_, err := tx.ExecContext(ctx, s.q("INSERT INTO events (at, type, request_id, hub, data) VALUES (?, ?, ?, ?, ?)"),
		nanos(ev.At), ev.Type, ev.RequestID, ev.Hub, ev.Data)
	return err
}

// Append adds an event of hub's own to the log.
func (s *Store) Append(ctx context.Context, ev Event) error {
	return s.write(ctx, nil, func(tx *sql.Tx) error { return s.event(ctx, tx, ev) })
}

// Events lists up to limit events after id after, that hub's stream
// carries, oldest first.
func (s *Store) Events(ctx context.Context, after int64, hub string, limit int) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT id, at, type, request_id, hub, data FROM events WHERE id > ? AND (hub = '' OR hub = ?) ORDER BY id LIMIT ?"),
		after, hub, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var ev Event
		var at int64
		if err := rows.Scan(&ev.ID, &at, &ev.Type, &ev.RequestID, &ev.Hub, &ev.Data); err != nil {
			return nil, err
		}
		ev.At = timeOf(at)
		out = append(out, ev)
	}
	return out, rows.Err()
}

// LastEvent is the id of the newest event (0 for none).
func (s *Store) LastEvent(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	err := s.db.QueryRowContext(ctx, "SELECT MAX(id) FROM events").Scan(&n)
	return n.Int64, err
}
