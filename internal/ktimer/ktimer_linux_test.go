package ktimer

import (
	"testing"
	"time"
)

// On Linux the timer is the kernel's (a timerfd), not a fallback.
func TestLinuxUsesATimerfd(t *testing.T) {
	tm := New(0)
	defer tm.Close()
	if tm.f == nil || tm.fallback != nil {
		t.Fatal("the timer fell back to a Go timer on Linux")
	}
}

// An expiry read just before a Reset or a Stop (the reader then waiting
// for the lock the Reset holds) is the earlier arming's, and not sent.
func TestAnExpiryReadBeforeResetIsDropped(t *testing.T) {
	read, goOn := make(chan struct{}), make(chan struct{})
	afterRead = func() { read <- struct{}{}; <-goOn }
	defer func() { afterRead = nil }()
	tm := New(time.Millisecond)
	defer func() { close(goOn); tm.Close() }()
	<-read // the 1 ms arming's expiry is read, not yet sent
	tm.Reset(time.Hour)
	goOn <- struct{}{}
	select {
	case <-tm.C:
		t.Fatal("received the earlier arming's expiry after Reset(1h)")
	case <-time.After(100 * time.Millisecond):
	}
	tm.Stop()
	tm.Reset(time.Millisecond)
	<-read
	tm.Stop()
	goOn <- struct{}{}
	select {
	case <-tm.C:
		t.Fatal("received an expiry after Stop")
	case <-time.After(100 * time.Millisecond):
	}
}
