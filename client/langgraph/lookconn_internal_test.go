package langgraph

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A server whose answer's headers never end: the look stops after a
// bounded read, with an error (the usual way then asks, and says what is
// wrong), and drops the connection.
func TestLookConnBoundsWhatItReads(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var sent atomic.Int64
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = http.ReadRequest(bufio.NewReader(conn))
		if _, err := conn.Write([]byte("HTTP/1.1 200 OK\r\nX-Endless: ")); err != nil {
			return
		}
		chunk := []byte(strings.Repeat("a", 64<<10))
		for {
			n, err := conn.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	req, err := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/threads/search", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 20 * time.Second}
	var c lookConn
	var out bytes.Buffer
	at := time.Now()
	if _, err := c.do(context.Background(), hc, req, []byte("{}"), &out); err == nil {
		t.Fatal("an answer whose headers never end was read as an answer")
	}
	if d := time.Since(at); d > 15*time.Second {
		t.Fatalf("the look gave up after %s", d)
	}
	if c.conn != nil {
		t.Error("the connection was kept after a broken answer")
	}
	// What the server got through: at most the bound, plus what the
	// kernel's buffers hold.
	if n := sent.Load(); n > lookMaxHeader+16<<20 {
		t.Errorf("the look read %d bytes of headers (bound %d)", n, lookMaxHeader)
	}
}
