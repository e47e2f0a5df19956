// Package store is where the team hub (hitl serve) keeps its state:
// publishers' requests and their answers, approvals, the event log that
// the door's streams resume from, and the team's audit log. SQLite in the
// hub's state directory by default (modernc.org/sqlite: pure Go, so
// release builds stay free of cgo; WAL mode), PostgreSQL when the config
// names one (github.com/jackc/pgx/v5): several hubs then share one store
// and learn of each other's changes by LISTEN/NOTIFY.
//
// The schema is versioned (migrations/, embedded): a store is brought up
// to this hitl's version when opened, and a store newer than this hitl is
// refused, with what to do.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/redact"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

//go:embed migrations
var migrations embed.FS

// Kinds of store.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Store is an open store. Its methods are safe for concurrent use.
type Store struct {
	db    *sql.DB
	kind  string
	where string // for messages: the file, or the URL without its password
	dsn   string

	mu      sync.Mutex
	changed chan struct{}            // closed at the next change, then replaced
	waiting map[string]chan struct{} // by request id: closed at its next change
	// upstream is closed when the watcher of the LangGraph server tells
	// of a change (lead.go), then replaced.
	upstream chan struct{}

	stop   context.CancelFunc
	listen sync.WaitGroup
}

// Memory is a store in memory that ends with the process (tests).
const Memory = "memory:"

// DefaultFile is the SQLite file's name in the hub's state directory.
const DefaultFile = "hub.db"

// Open opens the store spec names, and brings its schema up to date: ""
// is SQLite in dir (DefaultFile), "sqlite:PATH" (or a path ending in .db)
// a SQLite file, "postgres://…" or "postgresql://…" a PostgreSQL database.
func Open(ctx context.Context, spec, dir string) (*Store, error) {
	s := &Store{changed: make(chan struct{}), waiting: map[string]chan struct{}{}, upstream: make(chan struct{})}
	switch {
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		s.kind, s.dsn, s.where = Postgres, spec, Shown(spec)
		if _, err := pgx.ParseConfig(spec); err != nil {
			return nil, fmt.Errorf("store %s: %v", s.where, errors.Unwrap(err))
		}
		db, err := sql.Open("pgx", spec)
		if err != nil {
			return nil, fmt.Errorf("store %s: %v", s.where, err)
		}
		db.SetMaxOpenConns(16)
		db.SetMaxIdleConns(4)
		s.db = db
	case spec == Memory:
		// One connection: each of SQLite's in-memory databases is its
		// connection's own.
		s.kind, s.where = SQLite, "memory"
		db, err := sql.Open("sqlite", "file::memory:")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		db.SetConnMaxLifetime(0)
		s.db = db
	case spec == "", strings.HasPrefix(spec, "sqlite:"), strings.HasSuffix(spec, ".db"):
		path := strings.TrimPrefix(spec, "sqlite:")
		if path == "" {
			if dir == "" {
				return nil, errors.New("store: no state directory for the hub's database")
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("store: cannot make %s: %v", dir, err)
			}
			path = filepath.Join(dir, DefaultFile)
		}
		s.kind, s.where = SQLite, path
		// WAL: readers never wait for the writer; a writer waits its turn
		// (busy timeout) rather than failing; transactions take the write
		// lock when they begin (immediate), so two never deadlock on it.
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(10000)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("_txlock", "immediate")
		db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
		if err != nil {
			return nil, fmt.Errorf("store %s: %v", path, err)
		}
		// One writer at a time is SQLite's way; a few readers beside it.
		db.SetMaxOpenConns(4)
		s.db = db
	default:
		return nil, fmt.Errorf("store %q: give postgres://USER@HOST/DB, sqlite:PATH, or nothing (SQLite in the state directory)", Shown(spec))
	}
	if err := s.migrate(ctx); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	if s.kind == SQLite && spec != Memory {
		_ = os.Chmod(s.where, 0o600)
	}
	if s.kind == Postgres {
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		s.stop = cancel
		ready := make(chan error, 1)
		s.listen.Add(1)
		go s.listenLoop(lctx, ready)
		if err := <-ready; err != nil {
			cancel()
			s.listen.Wait()
			_ = s.db.Close()
			return nil, err
		}
	}
	return s, nil
}

// Kind is SQLite or Postgres.
func (s *Store) Kind() string { return s.kind }

// Where is the store's file or URL, without a password.
func (s *Store) Where() string { return s.where }

// Close ends the store.
func (s *Store) Close() error {
	if s.stop != nil {
		s.stop()
		s.listen.Wait()
	}
	return s.db.Close()
}

// Shown is a store's URL without its password (in its userinfo, or a
// credential parameter such as ?password=).
func Shown(spec string) string {
	u, err := url.Parse(spec)
	if err != nil {
		if len(Secrets(spec)) > 0 || strings.Contains(spec, "@") {
			return redact.URL(spec) // not a URL: hide all that may be one
		}
		return spec
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if q := u.Query(); len(q) > 0 {
		changed := false
		for k := range q {
			if redact.CredentialParam(k) {
				q.Set(k, "xxxxx")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// Secrets are the passwords a store's URL holds (its userinfo's, and
// credential parameters'): what the hub must never print.
func Secrets(spec string) []string {
	u, err := url.Parse(spec)
	if err != nil {
		// Not a URL: what lies between "://user:" and "@" is the likely
		// password.
		if i := strings.Index(spec, "://"); i >= 0 {
			auth := spec[i+3:]
			if at := strings.LastIndexByte(auth, '@'); at >= 0 {
				if _, pw, ok := strings.Cut(auth[:at], ":"); ok && pw != "" {
					return []string{pw}
				}
			}
		}
		return nil
	}
	var out []string
	if u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			out = append(out, pw)
		}
	}
	for k, vs := range u.Query() {
		if redact.CredentialParam(k) {
			for _, v := range vs {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// Changed is closed at the next change of the store (this hub's, or with
// PostgreSQL another hub's): read again, then wait on Changed again. Take
// it before reading, so that no change falls between.
func (s *Store) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// RequestChanged is closed at the next change of request id (or when this
// hub may have missed changes): cheaper to wait on than Changed, which
// every change closes. Take it before reading.
func (s *Store) RequestChanged(id string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.waiting[id]
	if !ok {
		ch = make(chan struct{})
		s.waiting[id] = ch
	}
	return ch
}

// everything, among the ids of a change, is a change of any request.
const everything = "*"

// signal tells this hub's readers of a change (Changed), and the waiters
// of requests ids (RequestChanged); everything among them: every waiter.
func (s *Store) signal(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
	if slices.Contains(ids, everything) {
		for id, ch := range s.waiting {
			close(ch)
			delete(s.waiting, id)
		}
		return
	}
	for _, id := range ids {
		if ch, ok := s.waiting[id]; ok {
			close(ch)
			delete(s.waiting, id)
		}
	}
}

// notifyChannel is the PostgreSQL channel hubs tell each other on.
const notifyChannel = "hitl_hub"

// listenLoop tells this hub of every change a hub commits to a PostgreSQL
// store (its own included): LISTEN on a connection of its own, kept
// open, reconnected when lost. ready gets the first connection's error.
func (s *Store) listenLoop(ctx context.Context, ready chan<- error) {
	defer s.listen.Done()
	first := true
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, s.dsn)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+notifyChannel)
		}
		if first {
			ready <- err
			first = false
			if err != nil {
				if conn != nil {
					_ = conn.Close(context.Background())
				}
				return
			}
		}
		if err == nil {
			// What changed while this hub was not listening: read again.
			s.signal(everything)
			s.signalUpstream()
			for {
				var n *pgconn.Notification
				if n, err = conn.WaitForNotification(ctx); err != nil {
					break
				}
				switch {
				case n.Payload == upstreamPayload:
					s.signalUpstream()
				case n.Payload == "":
					s.signal()
				default:
					s.signal(strings.Split(n.Payload, ",")...)
				}
			}
		}
		if conn != nil {
			_ = conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// migrate brings the schema to this hitl's version.
func (s *Store) migrate(ctx context.Context) error {
	steps, err := s.steps()
	if err != nil {
		return err
	}
	known := len(steps)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.unreachable(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return s.unreachable(err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit: a no-op
	if s.kind == Postgres {
		// Two hubs starting at once: one migrates, the other waits.
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7468697401)"); err != nil {
			return s.unreachable(err)
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"); err != nil {
		return fmt.Errorf("store %s: cannot create its schema: %v", s.where, err)
	}
	var version int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_version").Scan(&version); err != nil {
		return fmt.Errorf("store %s: cannot read its schema version: %v", s.where, err)
	}
	if version > known {
		return newerSchema(s.where, version, known)
	}
	for v := version + 1; v <= known; v++ {
		if _, err := tx.ExecContext(ctx, steps[v-1]); err != nil {
			return fmt.Errorf("store %s: migration %d failed: %v", s.where, v, err)
		}
	}
	if version < known {
		if _, err := tx.ExecContext(ctx, "DELETE FROM schema_version"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO schema_version (version) VALUES (?)"), known); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (s *Store) unreachable(err error) error {
	if s.kind == SQLite {
		return fmt.Errorf("store %s: cannot open it: %v: %s", s.where, err, cannotWrite(s.kind))
	}
	return fmt.Errorf("store %s: cannot reach it: %s: %s", s.where, oneLine(err), reachHint(err))
}

// oneLine is err's message on one line: pgx gives one line per address
// it tried (often the same twice).
func oneLine(err error) string {
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// steps are the kind's migrations, in order: NNN_name.sql, numbered from 1.
func (s *Store) steps() ([]string, error) {
	dir := "migrations/" + s.kind
	ents, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	var out []string
	for i, n := range names {
		num, _, _ := strings.Cut(n, "_")
		if v, err := strconv.Atoi(num); err != nil || v != i+1 {
			return nil, fmt.Errorf("store: migration %s is out of sequence", n)
		}
		b, err := migrations.ReadFile(dir + "/" + n)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// SchemaVersion is the version this hitl brings a store to.
func SchemaVersion() int {
	ents, _ := fs.ReadDir(migrations, "migrations/"+SQLite)
	return len(ents)
}

// q turns ? placeholders into PostgreSQL's $n.
// rowScanner is a row to scan: *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(...any) error }

// queryAll runs query (written with ?) and scans each row it selects.
func queryAll[T any](ctx context.Context, s *Store, query string, scan func(rowScanner) (T, error), args ...any) ([]T, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s *Store) q(query string) string {
	if s.kind != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// write runs f in a transaction and, when it commits, tells every hub of
// the change: of requests ids (everything: of any request; none: of no
// request's standing, the event log's, say).
func (s *Store) write(ctx context.Context, ids []string, f func(tx *sql.Tx) error) error {
	return s.commit(ctx, ids, true, f)
}

// quietly runs f in a transaction and tells no one: what it writes
// changes nothing a reader waits on (the audit log).
func (s *Store) quietly(ctx context.Context, f func(tx *sql.Tx) error) error {
	return s.commit(ctx, nil, false, f)
}

func (s *Store) commit(ctx context.Context, ids []string, tell bool, f func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.unreachable(err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit: a no-op
	if err := f(tx); err != nil {
		return err
	}
	if !tell {
		if err := tx.Commit(); err != nil {
			return err
		}
		return nil
	}
	payload := strings.Join(ids, ",")
	if len(payload) > 7000 {
		payload, ids = everything, []string{everything} // NOTIFY's limit is 8000 bytes
	}
	if s.kind == Postgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_notify($1, $2)", notifyChannel, payload); err != nil {
			return err
		}
		// This hub hears it too, by LISTEN, as every hub does: told twice
		// is harmless (a waiter reads again).
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.signal(ids...)
	return nil
}

// text makes s storable in a text column: PostgreSQL refuses NUL.
func text(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func timeOf(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
