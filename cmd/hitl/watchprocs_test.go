package main

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/demo"
)

// restRecorder stands for internal/procs: it keeps watch's wishes, and
// checks that nothing is printed while watch asked to rest.
type restRecorder struct {
	mu       sync.Mutex
	out      strings.Builder
	resting  bool
	asked    []bool
	atLines  []int // lines printed when each wish was made
	badWrite string
}

func (r *restRecorder) rest(one bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resting = one
	r.asked = append(r.asked, one)
	r.atLines = append(r.atLines, strings.Count(r.out.String(), "\n"))
}

func (r *restRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resting && r.badWrite == "" {
		r.badWrite = string(p)
	}
	return r.out.Write(p)
}

func (r *restRecorder) state() (out string, resting bool, asked []bool, atLines []int, bad string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String(), r.resting, append([]bool(nil), r.asked...), append([]int(nil), r.atLines...), r.badWrite
}

// hitl watch rests (one processor) once its first listing is printed and
// while it waits; an arrival brings the default back before it is
// printed, and the rest after. It never prints while resting.
func TestWatchRestsBetweenListings(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := demo.New()
	srv.Seed(150) // 150 threads, some with several interrupts
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &restRecorder{}
	e := &env{stdin: strings.NewReader(""), stdout: newTermOut(rec), stderr: newTermOut(io.Discard), getenv: envOf(t).getenv, rest: rec.rest}
	done := make(chan int)
	go func() { done <- runEnv(ctx, e, []string{"--url", srv.URL(), "watch", "--json", "--interval", "10s"}) }()
	waitFor := func(what string, ok func(out string, resting bool) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			out, resting, asked, _, _ := rec.state()
			if ok(out, resting) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d lines printed, asked %v", what, strings.Count(out, "\n"), asked)
			}
		}
	}
	waitFor("rest after the first listing", func(_ string, resting bool) bool { return resting })
	first, _, asked, atLines, _ := rec.state()
	listed := strings.Count(first, "\n")
	if !asked[0] || listed < 150 || atLines[0] != listed {
		t.Fatalf("the first wish was rest=%v with %d lines printed, want rest once the first listing's %d are", asked[0], atLines[0], listed)
	}
	th, err := srv.Spawn("asker", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor("the arrival printed, then rest", func(out string, resting bool) bool {
		return strings.Contains(out, th) && resting
	})
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("watch exited %d", code)
	}
	out, resting, asked, atLines, bad := rec.state()
	if bad != "" {
		t.Fatalf("printed while resting: %q (asked %v at lines %v)", bad, asked, atLines)
	}
	if resting {
		t.Fatalf("watch ended resting (asked %v)", asked)
	}
	if !strings.HasPrefix(out, first) || !strings.Contains(out[len(first):], th) {
		t.Fatalf("the arrival (thread %s) was not printed after the first listing", th)
	}
	for i := 1; i < len(asked); i++ {
		if asked[i] == asked[i-1] {
			t.Fatalf("asked %v: the same wish twice in a row", asked)
		}
	}
}
