package langgraph

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/internal/rawconn"
)

// The look's own connection.
//
// Through net/http, a request is handed between three goroutines (the
// caller, the connection's writer and its reader), and on a machine with
// idle processors each hand-over wakes one: measured on the 2-core machine
// of docs/performance.md, a poller making the look five times a second
// through net/http costs 7.7 s of CPU an hour, the same poller writing the
// request and reading the answer on the goroutine that asks, 6.3. So the
// look keeps one HTTP/1.1 connection of its own and uses it in turn: the
// request written with the standard library's (*http.Request).Write, the
// answer read with http.ReadResponse, nothing of HTTP written by hand.
//
// It is used only where it asks exactly what the read client would: the
// same address, no proxy, the read client's TLS settings, its cookies, its
// timeout. Anything else (a proxy, another transport), and any failure on
// this connection, leaves the look to the read client, whose retries and
// error messages are the usual ones; the connection is then dropped and
// dialled again at the next look.
type lookConn struct {
	mu   sync.Mutex // the connection is used by one look at a time, and closed between looks
	conn net.Conn
	lr   io.LimitedReader // conn, read at most lookMaxHeader+lookMaxBody bytes a look
	br   *bufio.Reader    // lr, buffered
	bw   *bufio.Writer
}

// lookMaxHeader bounds what one look reads before its answer's body (its
// status line and headers), lookMaxBody after: a hostile or broken server
// cannot make a look read without end (net/http's transport bounds an
// answer's headers the same way).
const (
	lookMaxHeader = 1 << 20
	lookMaxBody   = transport.MaxBody + 64<<10
)

// errNoDirect: the read client's transport is not one the look can copy
// (a proxy is set, or a transport of another kind).
var errNoDirect = errors.New("the look goes through the read client")

// do sends req on the look's connection and reads the answer's body into
// out (at most transport.MaxBody bytes). It returns the answer (its body
// read and closed) or an error, after which the caller asks the usual way.
func (c *lookConn) do(ctx context.Context, hc *http.Client, req *http.Request, out *bytes.Buffer) (*http.Response, error) {
	tr, ok := hc.Transport.(*http.Transport)
	if !ok || hc.Transport == nil {
		return nil, errNoDirect
	}
	if tr.Proxy != nil {
		if p, err := tr.Proxy(req); err != nil || p != nil {
			return nil, errNoDirect
		}
	}
	if hc.Jar != nil {
		for _, ck := range hc.Jar.Cookies(req.URL) {
			req.AddCookie(ck)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		if err := c.dial(ctx, tr, req.URL); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(hc.Timeout)
	if hc.Timeout <= 0 {
		deadline = time.Now().Add(30 * time.Second)
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.conn.SetDeadline(deadline)
	c.lr.N = lookMaxHeader
	conn := c.conn
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) }) // a cancelled look stops at once
	resp, err := c.roundTrip(req, out)
	if !stop() || err != nil {
		c.closeLocked()
		if err == nil {
			err = ctx.Err()
		}
		return nil, err
	}
	if resp.Close || !resp.ProtoAtLeast(1, 1) {
		c.closeLocked() // the server closes it
	} else {
		// No deadline between looks: a deadline is a Go timer, and the
		// runtime's monitor thread wakes for the next Go timer
		// (internal/ktimer).
		_ = c.conn.SetDeadline(time.Time{})
	}
	if hc.Jar != nil {
		if rc := resp.Cookies(); len(rc) > 0 {
			hc.Jar.SetCookies(req.URL, rc)
		}
	}
	return resp, nil
}

// roundTrip writes req and reads its answer, the body whole (to its end,
// so that the connection can carry the next look).
func (c *lookConn) roundTrip(req *http.Request, out *bytes.Buffer) (*http.Response, error) {
	if err := req.Write(c.bw); err != nil {
		return nil, err
	}
	if err := c.bw.Flush(); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(c.br, req)
	if err != nil {
		return nil, err
	}
	c.lr.N += lookMaxBody
	if err := readAnswer(resp, out); err != nil {
		return nil, err
	}
	return resp, nil
}

// readAnswer reads and closes a look's answer: a 200's body whole into out
// (to its end, so that the connection can carry the next request), another
// status's skipped (the usual way asks again, and reads its error).
func readAnswer(resp *http.Response, out *bytes.Buffer) error {
	defer resp.Body.Close()
	out.Reset()
	if resp.StatusCode != http.StatusOK {
		if n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)); err != nil || n == 64<<10 {
			return errors.New("an answer too large to skip")
		}
		return nil
	}
	if _, err := out.ReadFrom(io.LimitReader(resp.Body, transport.MaxBody+1)); err != nil {
		return err
	}
	if out.Len() > transport.MaxBody {
		return errors.New("an answer too large")
	}
	return nil
}

// dial opens the connection as the read client's transport would: its
// dialer, and for https its TLS settings (HTTP/1.1 only).
func (c *lookConn) dial(ctx context.Context, tr *http.Transport, u *url.URL) error {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	dial := tr.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	conn, err := dial(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	conn = rawconn.Wrap(conn) // fewer wake-ups of an idle process (internal/rawconn)
	if u.Scheme == "https" {
		cfg := &tls.Config{}
		if tr.TLSClientConfig != nil {
			cfg = tr.TLSClientConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = conn.Close()
			return err
		}
		conn = tc
	}
	c.conn, c.lr.R = conn, conn
	c.br, c.bw = bufio.NewReader(&c.lr), bufio.NewWriter(conn)
	return nil
}

// close drops the connection (the watcher stopped).
func (c *lookConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeLocked()
}

func (c *lookConn) closeLocked() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn, c.lr.R, c.br, c.bw = nil, nil, nil, nil
	}
}
