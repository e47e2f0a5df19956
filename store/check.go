package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Report is what Check found of a store that a hub can use.
type Report struct {
	Kind, Where string
	// Schema is the store's schema version now (0: none yet); Known is
	// this hitl's (SchemaVersion): a hub brings Schema up to Known at
	// start.
	Schema, Known int
}

// String says it in one line.
func (r Report) String() string {
	s := fmt.Sprintf("store: OK: %s %s, writable, ", r.Kind, r.Where)
	switch {
	case r.Schema == 0:
		s += fmt.Sprintf("no schema yet (the hub creates schema %d at start)", r.Known)
	case r.Schema < r.Known:
		s += fmt.Sprintf("schema %d (the hub brings it to %d at start)", r.Schema, r.Known)
	default:
		s += fmt.Sprintf("schema %d", r.Schema)
	}
	return s
}

// Check looks at the store spec names (as Open reads spec and dir)
// without changing it: it is reached, its schema is one this hitl knows
// (not newer), and it takes writes (a write in a transaction that is
// rolled back). The error says what to do.
func Check(ctx context.Context, spec, dir string) (Report, error) {
	r := Report{Known: SchemaVersion()}
	var db *sql.DB
	switch {
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		r.Kind, r.Where = Postgres, Shown(spec)
		var err error
		if db, err = sql.Open("pgx", spec); err != nil {
			return r, fmt.Errorf("store %s: %v", r.Where, errors.Unwrap(err))
		}
	case spec == "", strings.HasPrefix(spec, "sqlite:"), strings.HasSuffix(spec, ".db"):
		r.Kind = SQLite
		path := strings.TrimPrefix(spec, "sqlite:")
		if path == "" {
			path = filepath.Join(dir, DefaultFile)
		}
		r.Where = path
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			// Created at start: its directory must take it.
			d := filepath.Dir(path)
			for ; ; d = filepath.Dir(d) {
				if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
					break
				}
			}
			f, err := os.CreateTemp(d, ".hitl-check-*")
			if err != nil {
				return r, fmt.Errorf("store %s: the hub cannot create it: %v: make %s writable by the hub's user, or give another store (hitl serve --store, or hub.store in the config)", path, err, d)
			}
			_ = f.Close()
			_ = os.Remove(f.Name())
			return r, nil
		}
		var err error
		if db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_txlock=immediate"); err != nil {
			return r, fmt.Errorf("store %s: %v", path, err)
		}
	default:
		return r, fmt.Errorf("store %q: give postgres://USER@HOST/DB, sqlite:PATH, or nothing (SQLite in the state directory)", Shown(spec))
	}
	defer db.Close()
	s := &Store{kind: r.Kind, where: r.Where}
	if err := db.PingContext(ctx); err != nil {
		return r, s.unreachable(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return r, s.unreachable(err)
	}
	defer tx.Rollback() //nolint:errcheck // it is rolled back whatever happens: a check changes nothing
	var exists bool
	if r.Kind == Postgres {
		err = tx.QueryRowContext(ctx, "SELECT to_regclass('schema_version') IS NOT NULL").Scan(&exists)
	} else {
		err = tx.QueryRowContext(ctx, "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").Scan(&exists)
	}
	if err != nil {
		return r, fmt.Errorf("store %s: cannot read it: %v", r.Where, err)
	}
	// Writable: what the hub writes first, in this transaction, rolled
	// back. A store with no schema yet must take the hub's tables.
	write := "CREATE TABLE hitl_check_write (x INTEGER)"
	if exists {
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_version").Scan(&r.Schema); err != nil {
			return r, fmt.Errorf("store %s: cannot read its schema version: %v", r.Where, err)
		}
		if r.Schema > r.Known {
			return r, newerSchema(r.Where, r.Schema, r.Known)
		}
		write = "UPDATE schema_version SET version = version"
		if r.Schema < r.Known {
			write = "CREATE TABLE hitl_check_write (x INTEGER)"
		}
	}
	if _, err := tx.ExecContext(ctx, write); err != nil {
		return r, fmt.Errorf("store %s: the hub cannot write it: %v: %s", r.Where, err, cannotWrite(r.Kind))
	}
	return r, nil
}

func cannotWrite(kind string) string {
	if kind == Postgres {
		return "give the URL of a role that may create tables and write in that database (GRANT CREATE ON SCHEMA public, and ALL ON ALL TABLES IN SCHEMA public, TO it), not a read-only replica's"
	}
	return "make the file (and its directory) writable by the hub's user"
}

func newerSchema(where string, version, known int) error {
	return fmt.Errorf("store %s has schema version %d, newer than this hitl knows (%d): a newer hitl wrote it. Run that hitl (or a newer one), or give this one another store (hitl serve --store, or hub.store in the config)", where, version, known)
}

// reachHint says what to do about a store that cannot be reached.
func reachHint(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return "PostgreSQL refused the login: fix the user or password in the store's URL (keep a password out of the config file: hub.store_env names a variable holding the URL)"
		case "3D000":
			return "that database does not exist: create it (createdb, or CREATE DATABASE as a role that may), or fix the URL's database name"
		}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "no such host"), strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "no route to host"):
		return "is PostgreSQL running there and listening on that address? Start it, or fix the host and port in the store's URL (hitl serve --store, hub.store or hub.store_env)"
	case strings.Contains(msg, "password authentication failed"), strings.Contains(msg, "SASL"):
		return "PostgreSQL refused the login: fix the user or password in the store's URL (keep a password out of the config file: hub.store_env names a variable holding the URL)"
	}
	return "check the store's URL (hitl serve --store, hub.store or hub.store_env) and that the database answers"
}
