package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/demo"
)

// watch prints a new interrupt well within its poll interval (the backend
// says when something changed), each once, and a large first listing page
// by page.
func TestWatchPrintsNewInterruptsAtOnce(t *testing.T) {
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
		done <- run(ctx, []string{"--url", srv.URL(), "watch", "--json", "--interval", "10s"}, strings.NewReader(""), out, io.Discard, os.Getenv)
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
