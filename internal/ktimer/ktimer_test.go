package ktimer_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/ktimer"
)

// recv is the timer's next value within d, or false.
func recv(t *ktimer.Timer, d time.Duration) (time.Time, bool) {
	select {
	case v := <-t.C:
		return v, true
	case <-time.After(d):
		return time.Time{}, false
	}
}

func TestFiresOnceNotBefore(t *testing.T) {
	start := time.Now()
	tm := ktimer.New(50 * time.Millisecond)
	defer tm.Close()
	v, ok := recv(tm, 5*time.Second)
	if !ok {
		t.Fatal("the timer did not fire in 5 s")
	}
	if v.Sub(start) < 50*time.Millisecond {
		t.Fatalf("fired after %s, before its 50ms", v.Sub(start))
	}
	if _, ok := recv(tm, 200*time.Millisecond); ok {
		t.Fatal("a one-shot timer fired twice")
	}
}

func TestResetDropsAnEarlierArming(t *testing.T) {
	tm := ktimer.New(time.Millisecond)
	defer tm.Close()
	time.Sleep(50 * time.Millisecond) // fired, unread (or its expiry unread)
	at := time.Now()
	tm.Reset(300 * time.Millisecond)
	v, ok := recv(tm, 5*time.Second)
	if !ok {
		t.Fatal("the reset timer did not fire in 5 s")
	}
	if v.Sub(at) < 300*time.Millisecond {
		t.Fatalf("received a value %s after Reset(300ms): the earlier arming's", v.Sub(at))
	}
}

func TestStop(t *testing.T) {
	tm := ktimer.New(20 * time.Millisecond)
	defer tm.Close()
	tm.Stop()
	if _, ok := recv(tm, 200*time.Millisecond); ok {
		t.Fatal("a stopped timer fired")
	}
	time.Sleep(30 * time.Millisecond)
	tm.Stop() // fired and dropped before Stop, or never fired: nothing to read
	if _, ok := recv(tm, 100*time.Millisecond); ok {
		t.Fatal("a value from before Stop was received")
	}
	tm.Reset(10 * time.Millisecond)
	if _, ok := recv(tm, 5*time.Second); !ok {
		t.Fatal("a timer reset after Stop did not fire")
	}
}

func TestResetToZeroFiresAtOnce(t *testing.T) {
	tm := ktimer.New(time.Hour)
	defer tm.Close()
	tm.Reset(0)
	if _, ok := recv(tm, 5*time.Second); !ok {
		t.Fatal("Reset(0) did not fire")
	}
}

// A timer reset again and again (the watcher's loop) fires for each arming
// it is waited on, never for one it was reset from.
func TestManyResets(t *testing.T) {
	tm := ktimer.New(0)
	defer tm.Close()
	if _, ok := recv(tm, 5*time.Second); !ok {
		t.Fatal("New(0) did not fire")
	}
	for i := range 200 {
		at := time.Now()
		d := time.Duration(i%3) * time.Millisecond
		tm.Reset(d)
		v, ok := recv(tm, 5*time.Second)
		if !ok {
			t.Fatalf("arming %d (%s) did not fire", i, d)
		}
		if v.Before(at) {
			t.Fatalf("arming %d received a value from before its Reset", i)
		}
	}
}

func TestCloseEndsItsGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 50 {
		tm := ktimer.New(time.Hour)
		tm.Close()
		tm.Close() // twice is harmless
		tm.Reset(time.Millisecond)
		tm.Stop()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after 50 timers were closed, %d before", n, before)
	}
}
