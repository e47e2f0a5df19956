package ktimer

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hitl-sh/hitl/internal/rawconn"
)

// Timer is a one-shot timer; its value is the time it fired.
type Timer struct {
	C <-chan time.Time
	c chan time.Time

	mu     sync.Mutex
	f      *os.File // the timerfd; nil: a fallback is in use
	rc     syscall.RawConn
	armed  bool      // armed by the last Reset, and its expiry not yet sent
	due    time.Time // when the last Reset's arming is due, at the latest
	closed bool

	fallback *time.Timer // where no timerfd could be made
}

// New returns a timer that fires once after d.
func New(d time.Duration) *Timer {
	c := make(chan time.Time, 1)
	t := &Timer{C: c, c: c}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err == nil {
		t.f = os.NewFile(uintptr(fd), "timerfd")
		if t.rc, err = t.f.SyscallConn(); err != nil {
			t.f.Close()
			t.f = nil
		}
	}
	if t.f == nil {
		t.fallback = time.NewTimer(d)
		t.C = t.fallback.C
		return t
	}
	t.Reset(d)
	go t.wait(t.rc)
	return t
}

// Reset arms the timer to fire after d (at once when d ≤ 0), dropping an
// earlier arming, fired and unread or not.
func (t *Timer) Reset(d time.Duration) { t.arm(max(d, 1)) } // 0 would disarm

// Stop disarms the timer, dropping a fired and unread value.
func (t *Timer) Stop() { t.arm(0) }

// arm arms the timer to fire after d, or disarms it (d = 0), dropping a
// fired and unread value.
func (t *Timer) arm(d time.Duration) {
	if t.fallback != nil {
		if d > 0 {
			t.fallback.Reset(d)
		} else {
			t.fallback.Stop()
		}
		return
	}
	t.open(func() {
		t.armed = d > 0
		t.due = time.Now().Add(d) // before the kernel's: its expiry is never earlier
		t.set(d)
	})
}

// Close stops the timer and releases what it holds; C is not closed.
func (t *Timer) Close() {
	if t.fallback != nil {
		t.fallback.Stop()
		return
	}
	t.open(func() {
		t.closed, t.armed = true, false
		t.f.Close() // ends wait's read
	})
}

// open runs f with t.mu held, a fired and unread value dropped, unless the
// timer is closed.
func (t *Timer) open(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.drain()
	f()
}

// drain drops a fired and unread value. With t.mu held.
func (t *Timer) drain() {
	select {
	case <-t.c:
	default:
	}
}

// set arms the timerfd to expire after d, or disarms it (d = 0), with a raw
// system call (an ordinary one would wake sysmon). With t.mu held.
func (t *Timer) set(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	_ = t.rc.Control(func(fd uintptr) {
		_, _, _ = unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	})
}

// afterRead, when set (by a test), runs after each expiry is read.
var afterRead func()

// wait reads the timerfd's expiries until it is closed, and sends each
// that belongs to the current arming: an expiry read after a Reset has
// armed the timer again (read before the new arming is due) or after a
// Stop is an earlier arming's, and dropped. The time is the monotonic
// clock the timerfd counts in (time.Now's, read without a system call),
// so no expiry of the current arming is read before t.due.
func (t *Timer) wait(rc syscall.RawConn) {
	var buf [8]byte
	r := rawconn.NewReader(rc)
	for {
		if _, err := r.Read(buf[:]); err != nil {
			if errors.Is(err, syscall.ECANCELED) {
				continue // the clock was set (not for CLOCK_MONOTONIC)
			}
			return // closed
		}
		now := time.Now()
		if afterRead != nil {
			afterRead()
		}
		t.mu.Lock()
		if t.armed && !t.closed && !now.Before(t.due) {
			t.armed = false
			select {
			case t.c <- now:
			default:
			}
		}
		t.mu.Unlock()
	}
}
