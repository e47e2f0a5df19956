package rawconn

import (
	"io"
	"net"
	"sync"
	"syscall"
	"unsafe"
)

// conn is a TCP connection read and written with raw system calls.
type conn struct {
	net.Conn
	r *Reader
	w *writer
}

// Wrap returns c read and written with raw system calls when it is a TCP
// connection, and c itself otherwise.
func Wrap(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	w := &writer{rc: rc}
	w.fn = w.write
	return &conn{Conn: c, r: NewReader(rc), w: w}
}

func (c *conn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *conn) Write(p []byte) (int, error) { return c.w.Write(p) }

// Reader reads a non-blocking descriptor with a raw system call, waiting
// for it in Go's poller when it has nothing yet (EOF at its end).
// internal/ktimer reads its timerfd with one.
//
// Its function for syscall.RawConn is made once, with the state it reads
// and writes: a read allocates nothing (a watcher reads five times a
// second). Reads are one at a time (the lock), as the descriptor's are.
type Reader struct {
	mu  sync.Mutex
	rc  syscall.RawConn
	p   []byte
	n   int
	err error
	fn  func(uintptr) bool
}

// NewReader is a Reader of rc.
func NewReader(rc syscall.RawConn) *Reader {
	r := &Reader{rc: rc}
	r.fn = r.read
	return r
}

// Read reads into p.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p, r.n, r.err = p, 0, nil
	werr := r.rc.Read(r.fn)
	n, err := r.n, r.err
	r.p, r.err = nil, nil
	if werr != nil {
		return 0, werr
	}
	return n, err
}

func (r *Reader) read(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return false // wait until it can be read
		case e != 0:
			r.err = e
		case n == 0:
			r.err = io.EOF
		default:
			r.n = int(n)
		}
		return true
	}
}

// writer writes all of p to a non-blocking descriptor with raw system
// calls, waiting in Go's poller while it is full; like Reader, it
// allocates nothing.
type writer struct {
	mu      sync.Mutex
	rc      syscall.RawConn
	p       []byte
	written int
	err     error
	fn      func(uintptr) bool
}

func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.p, w.written, w.err = p, 0, nil
	werr := w.rc.Write(w.fn)
	written, err := w.written, w.err
	w.p, w.err = nil, nil
	if werr != nil {
		return written, werr
	}
	return written, err
}

func (w *writer) write(fd uintptr) bool {
	for w.written < len(w.p) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&w.p[w.written])), uintptr(len(w.p)-w.written))
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return false // wait until it can be written
		case e != 0:
			w.err = e
			return true
		}
		w.written += int(n)
	}
	return true
}
