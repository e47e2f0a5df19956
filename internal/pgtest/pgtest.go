// Package pgtest gives a test a PostgreSQL database of its own, on the
// throwaway cluster scripts/test starts (scripts/postgres-test-cluster),
// whose URL it exports as HITL_TEST_POSTGRES_URL.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the variable scripts/test sets to the cluster's URL (a role
// that may CREATE DATABASE).
const Env = "HITL_TEST_POSTGRES_URL"

// Database creates a database for t alone and returns its URL; it is
// dropped when t ends. Without the cluster the test is skipped, unless
// scripts/test (or CI) runs it: then it fails, as a missing server would.
func Database(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(Env)
	if admin == "" {
		if os.Getenv("HITL_TEST_LANGGRAPH_URL") != "" || os.Getenv("CI") != "" {
			t.Fatalf("%s is not set, though scripts/test ran: it starts PostgreSQL with scripts/postgres-test-cluster", Env)
		}
		t.Skipf("no PostgreSQL: run the tests with scripts/test, or export %s=$(scripts/postgres-test-cluster start DIR)", Env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("PostgreSQL at %s: %v", Env, err)
	}
	defer conn.Close(context.Background())
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "hitl_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, admin); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(ctx)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
