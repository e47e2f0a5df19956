package ktimer_test

import (
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/ktimer"
)

// Waits added in any order, from many goroutines, each fire once, not
// before their time; a shorter wait added after a longer one (the shared
// timer armed again, earlier) is not held up by it.
func TestAfterSharedWaits(t *testing.T) {
	long := time.Now()
	longC := ktimer.After(2 * time.Second)
	var wg sync.WaitGroup
	late := make(chan string, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := time.Duration(i%8) * 15 * time.Millisecond
			start := time.Now()
			select {
			case v := <-ktimer.After(d):
				if v.Sub(start) < d {
					late <- "early: " + v.Sub(start).String() + " < " + d.String()
				}
			case <-time.After(time.Second):
				late <- "a " + d.String() + " wait did not fire within 1s (the 2s one armed the timer)"
			}
		}()
	}
	wg.Wait()
	close(late)
	for s := range late {
		t.Error(s)
	}
	select {
	case v := <-longC:
		if v.Sub(long) < 2*time.Second {
			t.Fatalf("the 2s wait fired after %s", v.Sub(long))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the 2s wait never fired")
	}
}

// A wait that is due already (d ≤ 0) fires at once.
func TestAfterDueAlready(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		select {
		case <-ktimer.After(d):
		case <-time.After(time.Second):
			t.Fatalf("After(%s) did not fire within 1s", d)
		}
	}
}
