package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/demo"
)

// watch prints a new interrupt well within its poll interval (the backend
// says when something changed), each once, and a large first listing page
// by page.
func TestWatchPrintsNewInterruptsAtOnce(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := demo.New()
	srv.Seed(400)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--url", srv.URL(), "watch", "--json", "--interval", "10s"}, strings.NewReader(""), out, io.Discard, envOf(t).getenv)
	}()
	lines := func() int { return strings.Count(out.String(), "\n") }
	deadline := time.Now().Add(10 * time.Second)
	for lines() < 400 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	before := lines()
	if before < 400 {
		t.Fatalf("the first listing printed %d lines", before)
	}
	var took []time.Duration
	for range 3 {
		at := time.Now()
		th, err := srv.Spawn("asker", nil)
		if err != nil {
			t.Fatal(err)
		}
		for !strings.Contains(out.String(), th) && time.Since(at) < 5*time.Second {
			time.Sleep(5 * time.Millisecond)
		}
		took = append(took, time.Since(at))
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("watch exited %d", code)
	}
	for _, d := range took {
		if d > 2*time.Second {
			t.Fatalf("new interrupts printed after %v, with a 10s interval", took)
		}
	}
	t.Logf("printed after %v", took)
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var it listed
		if err := json.Unmarshal([]byte(line), &it); err != nil || seen[it.ID] {
			t.Fatalf("line %q: %v (seen before: %v)", line, err, seen[it.ID])
		}
		seen[it.ID] = true
	}
}

// A watch whose server starts failing says so on stderr, and says when it
// is back: the periodic read it skips while the watcher reads everything
// is not skipped once the watcher fails.
func TestWatchSaysWhenTheServerFails(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := demo.New()
	srv.Seed(3)
	h := srv.Handler()
	var failing atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, `{"detail":"down for maintenance"}`, http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errs := &syncBuffer{}, &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--url", hs.URL, "watch", "--json", "--interval", "100ms"}, strings.NewReader(""), out, errs, envOf(t).getenv)
	}()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d lines printed, stderr %q", what, strings.Count(out.String(), "\n"), errs.String())
			}
		}
	}
	waitFor("the first listing", func() bool { return strings.Count(out.String(), "\n") >= 3 })
	time.Sleep(500 * time.Millisecond) // idle looks, nothing to read
	if errs.String() != "" {
		t.Fatalf("an idle watch wrote %q", errs.String())
	}
	failing.Store(true)
	waitFor("the failure said", func() bool {
		return strings.Contains(errs.String(), "HTTP 503") && strings.Contains(errs.String(), "down for maintenance")
	})
	failing.Store(false)
	waitFor("the server back", func() bool { return strings.Contains(errs.String(), "connected again") })
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("watch exited %d", code)
	}
}
