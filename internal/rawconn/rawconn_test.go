package rawconn_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/rawconn"
)

// pair is a TCP connection on loopback, wrapped, and its peer.
func pair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("no connection accepted")
	}
	w := rawconn.Wrap(c)
	t.Cleanup(func() { w.Close(); peer.Close() })
	if runtime.GOOS == "linux" && w == c {
		t.Fatal("a TCP connection was not wrapped on Linux")
	}
	return w, peer
}

// Far more than the socket buffers hold goes both ways intact: writes and
// reads that would block wait for the socket and go on.
func TestLargeTransfersBothWays(t *testing.T) {
	w, peer := pair(t)
	data := make([]byte, 8<<20)
	_, _ = rand.Read(data)
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(data))))
		got <- b
	}()
	if n, err := w.Write(data); err != nil || n != len(data) {
		t.Fatalf("write: %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, data) {
		t.Fatalf("the peer read %d bytes, not what was written", len(b))
	}
	go func() { _, _ = peer.Write(data) }()
	b, err := io.ReadAll(io.LimitReader(w, int64(len(data))))
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("read %d bytes, %v: not what the peer wrote", len(b), err)
	}
}

// The peer's close is the end of the stream; a deadline stops a read that
// would wait; a closed connection says so.
func TestEndDeadlineClose(t *testing.T) {
	w, peer := pair(t)
	_ = w.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	start := time.Now()
	_, err := w.Read(make([]byte, 16))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("the deadline did not stop the read")
	}
	_ = w.SetReadDeadline(time.Time{})
	_, _ = peer.Write([]byte("last"))
	peer.Close()
	b, err := io.ReadAll(w)
	if err != nil || string(b) != "last" {
		t.Fatalf("read to the end: %q, %v", b, err)
	}
	w.Close()
	if _, err := w.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a write on a closed connection: %v", err)
	}
}

// What is not a TCP connection is returned as it is.
func TestOtherConnectionsAsTheyAre(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if rawconn.Wrap(a) != a {
		t.Fatal("a pipe was wrapped")
	}
}
