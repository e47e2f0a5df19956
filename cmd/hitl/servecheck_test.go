package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/pgtest"
	"github.com/hitl-sh/hitl/store"
	"github.com/jackc/pgx/v5"
)

// serveCheck runs hitl serve --check with the team config and args, and
// returns its exit code, stdout and stderr.
func serveCheck(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cfg := filepath.Join(dir, "config.yaml")
	if _, err := os.Stat(cfg); err != nil {
		if err := os.WriteFile(cfg, []byte(teamYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(builtBinary(t), append([]string{"serve", "--check"}, args...)...)
	cmd.Env = hermeticEnv("HITL_CONFIG="+cfg, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return exitCode(err), out.String(), errb.String()
}

// setSchema writes a schema version into a store, as a newer hitl would.
func setSchema(t *testing.T, driver, dsn string, v int) {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("UPDATE schema_version SET version = %d", v)); err != nil {
		t.Fatal(err)
	}
}

// serve --check looks at the store without changing it: SQLite.
func TestServeCheckStoreSQLite(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "state", "hitl", "hub", "hub.db")
	code, out, errs := serveCheck(t, dir)
	if code != 0 || !strings.Contains(out, "store: OK: sqlite "+db+", writable, no schema yet (the hub creates schema") {
		t.Fatalf("a new SQLite store: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatal("--check created the database")
	}
	st, err := store.Open(context.Background(), "", filepath.Dir(db))
	if err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	if code, out, errs := serveCheck(t, dir); code != 0 || !strings.Contains(out, fmt.Sprintf("store: OK: sqlite %s, writable, schema %d\n", db, store.SchemaVersion())) {
		t.Fatalf("a SQLite store at this hitl's schema: exit %d\n%s%s", code, out, errs)
	}
	setSchema(t, "sqlite", db, store.SchemaVersion()+1)
	code, out, errs = serveCheck(t, dir)
	if code != 1 || !strings.Contains(out, fmt.Sprintf("has schema version %d, newer than this hitl knows (%d): a newer hitl wrote it. Run that hitl", store.SchemaVersion()+1, store.SchemaVersion())) ||
		!strings.Contains(errs, "the hub's store is not usable: the store line above says why and what to do") {
		t.Fatalf("a newer schema: exit %d\n%s%s", code, out, errs)
	}
	// The team is still checked and said.
	if !strings.Contains(out, "team: OK: 3 reviewer(s)") {
		t.Fatalf("the team's line is missing:\n%s", out)
	}
	if code, out, _ := serveCheck(t, dir, "--store", "mysql://x"); code != 1 || !strings.Contains(out, `store "mysql://x": give postgres://USER@HOST/DB, sqlite:PATH`) {
		t.Fatalf("a store of no known kind: exit %d\n%s", code, out)
	}
}

// serve --check on PostgreSQL: a database that answers, one that does not
// exist, a server not listening (stopped, or the wrong port), a role that
// may only read, a newer schema; each says what to do, and a password in
// the URL is never printed.
func TestServeCheckStorePostgres(t *testing.T) {
	dsn := pgtest.Database(t)
	dir := t.TempDir()
	u, _ := url.Parse(dsn)
	if code, out, errs := serveCheck(t, dir, "--store", dsn); code != 0 || !strings.Contains(out, "store: OK: postgres "+store.Shown(dsn)+", writable, no schema yet") {
		t.Fatalf("an empty database: exit %d\n%s%s", code, out, errs)
	}
	st, err := store.Open(context.Background(), dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	if code, out, errs := serveCheck(t, dir, "--store", dsn); code != 0 || !strings.Contains(out, fmt.Sprintf(", writable, schema %d\n", store.SchemaVersion())) {
		t.Fatalf("a database at this hitl's schema: exit %d\n%s%s", code, out, errs)
	}

	missing := *u
	missing.Path = "/hitl_no_such_database"
	if code, out, _ := serveCheck(t, dir, "--store", missing.String()); code != 1 ||
		!strings.Contains(out, `database "hitl_no_such_database" does not exist`) || !strings.Contains(out, "create it (createdb") {
		t.Fatalf("a database that does not exist: exit %d\n%s", code, out)
	}

	// Nothing listens there (PostgreSQL stopped, or the wrong port); the
	// URL's password is not printed.
	down := *u
	down.Host = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	down.User = url.UserPassword(u.User.Username(), "s3cret-pw")
	code, out, errs := serveCheck(t, dir, "--store", down.String())
	if code != 1 || !strings.Contains(out, "connection refused") || !strings.Contains(out, "is PostgreSQL running there and listening on that address? Start it, or fix the host and port") {
		t.Fatalf("PostgreSQL not listening: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, "s3cret-pw") || !strings.Contains(out, ":xxxxx@") {
		t.Fatalf("the password is printed:\n%s%s", out, errs)
	}

	// A role that may read the hub's tables and not write them.
	admin, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	role := "hitl_reader_" + strings.TrimPrefix(strings.TrimPrefix(u.Path, "/"), "hitl_test_")
	for _, q := range []string{"CREATE ROLE " + role + " LOGIN", "GRANT USAGE ON SCHEMA public TO " + role, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role} {
		if _, err := admin.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), dsn); err == nil {
			_, _ = c.Exec(context.Background(), "DROP OWNED BY "+role)
			_, _ = c.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
			_ = c.Close(context.Background())
		}
	})
	reader := *u
	reader.User = url.User(role)
	if code, out, _ := serveCheck(t, dir, "--store", reader.String()); code != 1 ||
		!strings.Contains(out, "the hub cannot write it") || !strings.Contains(out, "permission denied") || !strings.Contains(out, "give the URL of a role that may create tables and write") {
		t.Fatalf("a read-only role: exit %d\n%s", code, out)
	}

	setSchema(t, "pgx", dsn, store.SchemaVersion()+1)
	if code, out, _ := serveCheck(t, dir, "--store", dsn); code != 1 || !strings.Contains(out, "newer than this hitl knows") {
		t.Fatalf("a newer schema: exit %d\n%s", code, out)
	}
}

// A hub.store URL with a password, in a config file other users can read:
// every command warns of it as of a token there, and the password is never
// printed: not by serve --check, not in the hub's log, not in the error of
// a store it cannot reach (in the URL's userinfo or as ?password=).
func TestStorePasswordIsNeverPrinted(t *testing.T) {
	dsn := pgtest.Database(t) // trust authentication: any password is taken
	const pw = "s3cr3t-store-pw"
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(u.User.Username(), pw)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	write := func(store string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(teamYAML+"hub:\n  store: \""+store+"\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(cfg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const warning = "password (hub.store)) and is readable by every user of this machine (mode 0644): run chmod 600"
	write(u.String())
	code, out, errs := serveCheck(t, dir)
	if code != 0 || !strings.Contains(out, "store: OK: postgres postgres://"+u.User.Username()+":xxxxx@") || !strings.Contains(errs, warning) {
		t.Fatalf("serve --check: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, pw) {
		t.Fatalf("serve --check printed the password:\n%s%s", out, errs)
	}

	// The hub, serving on it: its log.
	cmd := exec.Command(builtBinary(t), "serve", "--http", "127.0.0.1:0")
	cmd.Env = hermeticEnv("HITL_CONFIG="+cfg, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)
	var logs syncBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), "listens on http://"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the hub never listened:\n%s", logs.String())
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if !strings.Contains(logs.String(), warning) || !strings.Contains(logs.String(), `msg="store open" kind=postgres where=`) || !strings.Contains(logs.String(), "postgres://"+u.User.Username()+":xxxxx@") || strings.Contains(logs.String(), pw) {
		t.Fatalf("the hub's log:\n%s", logs.String())
	}

	// A store it cannot reach: the error names it without the password.
	down := *u
	down.Host = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	param := down
	param.User = url.User(u.User.Username())
	param.RawQuery = "password=" + pw + "&sslmode=disable"
	for _, store := range []string{down.String(), param.String()} {
		write(store)
		code, out, errs := serveCheck(t, dir)
		if code != 1 || !strings.Contains(out, "cannot reach it") || strings.Contains(out+errs, pw) {
			t.Fatalf("serve --check, %s: exit %d\n%s%s", store, code, out, errs)
		}
		cmd := exec.Command(builtBinary(t), "serve", "--http", "127.0.0.1:0")
		cmd.Env = hermeticEnv("HITL_CONFIG="+cfg, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)
		b, err := cmd.CombinedOutput()
		if exitCode(err) == 0 || !strings.Contains(string(b), "cannot reach it") || !strings.Contains(string(b), "xxxxx") || strings.Contains(string(b), pw) {
			t.Fatalf("serve on %s: exit %d\n%s", store, exitCode(err), b)
		}
	}
}

// hitl serve --ssh with no LangGraph server named says so at start, and
// which URL it reads instead; with one named, it does not.
func TestServeSaysItReadsTheDefaultServer(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHBqZ0r7w6H0b8fQbYH8M6qS1mQ9lqG9m8M6v2sQm3cX alice"
	if err := os.WriteFile(cfg, []byte("team:\n  reviewers:\n    alice: {keys: [\""+key+"\"], role: approver}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(builtBinary(t), append([]string{"serve", "--ssh", fmt.Sprintf("127.0.0.1:%d", freePort(t))}, args...)...)
		cmd.Env = hermeticEnv("HITL_CONFIG="+cfg, "XDG_STATE_HOME="+filepath.Join(dir, "state"))
		var logs syncBuffer
		cmd.Stderr = &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), "msg=listening"); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("the hub never listened:\n%s", logs.String())
			}
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		return logs.String()
	}
	if out := run(); !strings.Contains(out, `level=WARN msg="no LangGraph server named (--url, HITL_URL or a profile's url): the hub reads the default one`) || !strings.Contains(out, "server=http://127.0.0.1:2024") {
		t.Fatalf("no server named:\n%s", out)
	}
	if out := run("--url", "http://127.0.0.1:1"); strings.Contains(out, "no LangGraph server named") {
		t.Fatalf("a server named:\n%s", out)
	}
}

// history --team with no hub at the address says how to name it.
func TestTeamHistoryWithoutAHubSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	url := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	cmd := exec.Command(builtBinary(t), "--url", url, "history", "--team")
	cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME="+dir, "HITL_BEARER_TOKEN="+aliceToken)
	b, err := cmd.CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(b), "cannot reach the hub at "+url) || !strings.Contains(string(b), "Give the hub's address with --url or HITL_URL") {
		t.Fatalf("exit %d: %s", exitCode(err), b)
	}
}

// A wrong password for the store's PostgreSQL role: serve --check and
// serve's start say PostgreSQL refused the login and what to fix, and
// print neither password. The test cluster (scripts/postgres-test-cluster)
// trusts every role but hitl_password, which logs in by password (SCRAM).
func TestServeStoreWrongPassword(t *testing.T) {
	dsn := pgtest.Database(t)
	u, _ := url.Parse(dsn)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	// The role is the cluster's, shared by every database: made once, its
	// password set again by each run.
	if _, err := admin.Exec(ctx, "CREATE ROLE hitl_password LOGIN"); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "ALTER ROLE hitl_password PASSWORD 'right-pw-0123'"); err != nil {
		t.Fatal(err)
	}
	right, wrong := *u, *u
	right.User = url.UserPassword("hitl_password", "right-pw-0123")
	wrong.User = url.UserPassword("hitl_password", "wrong-pw-4567")
	if c, err := pgx.Connect(ctx, wrong.String()); err == nil {
		_ = c.Close(ctx)
		t.Fatal("the cluster took a wrong password: it was not started by this scripts/postgres-test-cluster (its pg_hba.conf asks hitl_password for one)")
	}
	// The right password logs in (the role may not write the database: not
	// a login refused).
	dir := t.TempDir()
	if _, out, errs := serveCheck(t, dir, "--store", right.String()); strings.Contains(out, "refused the login") || strings.Contains(out+errs, "right-pw-0123") {
		t.Fatalf("the right password:\n%s%s", out, errs)
	}
	code, out, errs := serveCheck(t, dir, "--store", wrong.String())
	if code != 1 || !strings.Contains(out, `password authentication failed for user "hitl_password"`) ||
		!strings.Contains(out, "PostgreSQL refused the login: fix the user or password in the store's URL") ||
		!strings.Contains(out, "hitl_password:xxxxx@") || strings.Contains(out+errs, "wrong-pw-4567") {
		t.Fatalf("serve --check, a wrong password: exit %d\n%s%s", code, out, errs)
	}
	cmd := exec.Command(builtBinary(t), "serve", "--http", "127.0.0.1:0", "--store", wrong.String())
	cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(dir, "config.yaml"), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)
	b, err := cmd.CombinedOutput()
	if exitCode(err) == 0 || !strings.Contains(string(b), "cannot reach it") || !strings.Contains(string(b), `password authentication failed for user "hitl_password"`) ||
		!strings.Contains(string(b), "PostgreSQL refused the login: fix the user or password") || strings.Contains(string(b), "wrong-pw-4567") {
		t.Fatalf("serve, a wrong password: exit %d\n%s", exitCode(err), b)
	}
}
