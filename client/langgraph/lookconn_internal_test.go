package langgraph

import (
	"bufio"
	"bytes"
	"context"
	"io"
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

// rawServer answers each request it reads with answer(n), n counting the
// requests of every connection from 1.
func rawServer(t testing.TB, answer func(n int64) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if _, err := conn.Write([]byte(answer(n.Add(1)))); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// An answer after which the connection holds more than the next look's
// answer (a 1xx, then the answer itself; bytes past the Content-Length):
// the connection is dropped, and the next look reads its own answer, not
// what was left of the last.
func TestLookConnDropsAConnectionLeftAhead(t *testing.T) {
	t.Parallel()
	for name, first := range map[string]string{
		"103 then 200":        "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n\"A\"",
		"bytes past the body": "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n\"A\"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n\"X\"",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			u := rawServer(t, func(n int64) string {
				if n == 1 {
					return first
				}
				return "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n\"B\""
			})
			hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 10 * time.Second}
			var c lookConn
			var out bytes.Buffer
			look := func() {
				t.Helper()
				req, err := http.NewRequest(http.MethodPost, u+"/threads/search", strings.NewReader("{}"))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.do(context.Background(), hc, req, []byte("{}"), &out); err != nil {
					t.Fatal(err)
				}
			}
			look() // a 103 (the caller asks again the usual way), or "A"
			look()
			if got := out.String(); got != `"B"` {
				t.Fatalf("the second look read %s, want the second answer, \"B\"", got)
			}
		})
	}
}

// A server that accepts the connection and never answers the TLS
// handshake: the look gives up at its timeout, not never.
func TestLookConnHandshakeHasTheLooksDeadline(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var held []net.Conn // accepted, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, conn)
		}
	}()
	req, err := http.NewRequest(http.MethodPost, "https://"+ln.Addr().String()+"/threads/search", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 300 * time.Millisecond}
	var c lookConn
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := c.do(context.Background(), hc, req, []byte("{}"), &out)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a handshake never answered was read as an answer")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the look still waited for the handshake after 10 s (its timeout: 300ms)")
	}
}
