package rawconn

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// conn is a TCP connection read and written with raw system calls.
type conn struct {
	net.Conn
	rc syscall.RawConn
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
	return &conn{Conn: c, rc: rc}
}

func (c *conn) Read(p []byte) (int, error)  { return Read(c.rc, p) }
func (c *conn) Write(p []byte) (int, error) { return Write(c.rc, p) }

// Read reads into p from a non-blocking descriptor with a raw system call,
// waiting for it in Go's poller when it has nothing yet (EOF at its end).
// internal/ktimer reads its timerfd with it.
func Read(rc syscall.RawConn, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var err error
	werr := rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return false // wait until it can be read
			case e != 0:
				err = e
			case r == 0:
				err = io.EOF
			default:
				n = int(r)
			}
			return true
		}
	})
	if werr != nil {
		return 0, werr
	}
	return n, err
}

// Write writes all of p to a non-blocking descriptor with raw system
// calls, waiting in Go's poller while it is full.
func Write(rc syscall.RawConn, p []byte) (int, error) {
	written := 0
	var err error
	werr := rc.Write(func(fd uintptr) bool {
		for written < len(p) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[written])), uintptr(len(p)-written))
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return false // wait until it can be written
			case e != 0:
				err = e
				return true
			}
			written += int(r)
		}
		return true
	})
	if werr != nil {
		return written, werr
	}
	return written, err
}
