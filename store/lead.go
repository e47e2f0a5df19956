package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Lead elects one hub, among those on one store, for the job key names:
// elected is closed when this hub holds it, lost when it no longer does
// (its connection to the database went; ask again). With PostgreSQL the
// job is an advisory lock, held on a connection of its own while ctx
// lasts: when the hub that holds it dies, its connection goes, and the
// lock with it, to the next hub waiting. With SQLite (one hub) this hub is
// elected at once.
func (s *Store) Lead(ctx context.Context, key int64) (elected, lost <-chan struct{}) {
	e, l := make(chan struct{}), make(chan struct{})
	if s.kind != Postgres {
		close(e)
		return e, l
	}
	go func() {
		defer close(l)
		for ctx.Err() == nil {
			conn, err := pgx.Connect(ctx, s.dsn)
			if err == nil {
				// Waits, without asking again, until the lock is free.
				if _, err = conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err == nil {
					close(e)
					// Held while the connection lasts: a read that ends
					// only when it goes (or ctx does).
					for err == nil {
						_, err = conn.WaitForNotification(ctx)
					}
					_ = conn.Close(context.Background())
					return
				}
				_ = conn.Close(context.Background())
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	return e, l
}

// upstreamPayload, as a notification's payload, tells the hubs on the
// store that the elected watcher saw the LangGraph server change.
const upstreamPayload = "@upstream"

// UpstreamChanged is closed when the hub elected to watch the LangGraph
// server next tells of a change (TellUpstreamChanged).
func (s *Store) UpstreamChanged() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.upstream
}

// TellUpstreamChanged tells every hub on the store (by NOTIFY) that the
// LangGraph server changed.
func (s *Store) TellUpstreamChanged(ctx context.Context) error {
	if s.kind != Postgres {
		return nil
	}
	_, err := s.db.ExecContext(ctx, "SELECT pg_notify($1, $2)", notifyChannel, upstreamPayload)
	return err
}

func (s *Store) signalUpstream() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.upstream)
	s.upstream = make(chan struct{})
}
