package ktimer

import (
	"container/heap"
	"sync"
	"time"
)

// After is time.After on the kernel's timer: the channel receives the time
// once, d from now. Every After of the process shares one Timer, armed for
// the earliest wait: an app's periodic read, its clock and its renderer's
// rest (tui), and every session of a hub, wake the process once for each
// moment due, not three to five times (see the package comment).
//
// As with time.After, a wait cannot be stopped; one nobody receives any
// more is dropped when it is due.
func After(d time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	shared.add(time.Now().Add(d), c)
	return c
}

// shared is the one Timer behind After, started at the first call.
var shared waits

type waits struct {
	once sync.Once
	mu   sync.Mutex
	t    *Timer
	due  dueHeap
	at   time.Time // what t is armed for; zero: disarmed
}

func (w *waits) add(at time.Time, c chan time.Time) {
	w.once.Do(func() {
		w.t = New(time.Hour)
		w.t.Stop()
		go w.run()
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	heap.Push(&w.due, wait{at, c})
	if w.at.IsZero() || at.Before(w.at) {
		w.at = at
		w.t.Reset(time.Until(at))
	}
}

// run sends each wait its time when due, and arms the timer for the next.
// An expiry that crosses a Reset made by add is harmless: the timer is
// armed again for the earliest wait left, whatever woke it.
func (w *waits) run() {
	for range w.t.C {
		now := time.Now()
		w.mu.Lock()
		for len(w.due) > 0 && !w.due[0].at.After(now) {
			heap.Pop(&w.due).(wait).c <- now // buffered, and sent once
		}
		w.at = time.Time{}
		if len(w.due) > 0 {
			w.at = w.due[0].at
			w.t.Reset(w.at.Sub(now))
		}
		w.mu.Unlock()
	}
}

type wait struct {
	at time.Time
	c  chan time.Time
}

// dueHeap is a min-heap of waits by time (container/heap).
type dueHeap []wait

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(wait)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = wait{}
	*h = old[:len(old)-1]
	return x
}
