//go:build !linux

package ktimer

import "time"

// Timer is a one-shot timer; its value is the time it fired.
type Timer struct {
	C <-chan time.Time
	t *time.Timer
}

// New returns a timer that fires once after d.
func New(d time.Duration) *Timer {
	t := time.NewTimer(d)
	return &Timer{C: t.C, t: t}
}

// Reset arms the timer to fire after d, dropping an earlier arming.
func (t *Timer) Reset(d time.Duration) { t.t.Reset(d) }

// Stop disarms the timer, dropping a fired and unread value.
func (t *Timer) Stop() { t.t.Stop() }

// Close stops the timer.
func (t *Timer) Close() { t.t.Stop() }
