package review

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
)

// watch tells each interrupt once, oldest first; a listing that fails is
// said with when it is tried again, and its return too.
func TestWatchTellsEachOnceAndSaysFailures(t *testing.T) {
	now := time.Now()
	older := tools("aaaa1111", "bash", `["approve"]`)
	older.UpdatedAt = now.Add(-time.Minute)
	newer := tools("bbbb2222", "bash", `["approve"]`)
	newer.UpdatedAt = now
	b := fake.New(newer, older) // as a server lists them: newest first
	s := session(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var mu sync.Mutex
	var told []string
	var failed, back int
	done := make(chan error, 1)
	go func() {
		done <- s.Watch(ctx, Watcher{
			Interval: 5 * time.Millisecond,
			New: func(it client.Interrupt) error {
				mu.Lock()
				defer mu.Unlock()
				told = append(told, it.ID)
				return nil
			},
			Failed: func(err error, retry time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				if retry <= 0 || err == nil {
					t.Errorf("failed %v, retry in %s", err, retry)
				}
				failed++
			},
			Back: func() { mu.Lock(); back++; mu.Unlock() },
		})
	}()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			good := ok()
			mu.Unlock()
			if good {
				return
			}
			if time.Now().After(deadline) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("%s: told %v, failed %d, back %d", what, told, failed, back)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	waitFor("the two waiting", func() bool { return len(told) == 2 })
	if told[0] != "aaaa1111" || told[1] != "bbbb2222" {
		t.Fatalf("not oldest first: %v", told)
	}
	b.SetListErr(errors.New("the server is down"))
	waitFor("the failure said", func() bool { return failed > 0 })
	third := tools("cccc3333", "bash", `["approve"]`)
	b.Add(third)
	b.SetListErr(nil)
	waitFor("back, and the new one told", func() bool { return back == 1 && len(told) == 3 })
	if told[2] != "cccc3333" {
		t.Fatalf("told again: %v", told)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch ended with %v", err)
	}
}
