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
	"slices"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"

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
// look keeps one HTTP/1.1 connection of its own and uses it in turn.
//
// The request is written by the standard library's (*http.Request).Write
// and its bytes kept: the next look that asks the same (method, URL,
// headers, cookies and body) sends them again as they are. The answer is
// read by http.ReadResponse unless it is of the plainest form, which every
// server measured sends to a look: "HTTP/1.1 200", one Content-Length, no
// Transfer-Encoding, no Set-Cookie, kept alive. That form is read from the
// buffered bytes without net/http's parsing (readPlain), which allocated
// each header again at every look; anything else is left unread for
// http.ReadResponse. Side by side against the dev server, the two cut an
// idle `hitl watch` by about an eighth (docs/performance.md).
//
// What a look is made of is kept too, so that an idle look allocates next
// to nothing: the request itself (looker.request), the answer's headers
// and the response (readPlain), the connection's watch on the context
// (watchContext), the raw reads' and writes' state (internal/rawconn). The
// cookie jar is not asked until it holds a cookie (transport's givenJar),
// and whether a proxy is used is asked when dialling, the environment's
// proxy settings being read once in a process. This cut an idle watch's CPU
// by 14% against the demo and 4% against the dev server, side by side
// (run 6 of docs/performance.md).
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

	tr *http.Transport // the transport whose settings it was dialled with
	to url.URL         // and the URL

	watchedDone <-chan struct{} // the end of the context that stops a look (watchContext)
	watchedConn net.Conn        // on this connection
	stopWatch   func() bool
	cutMu       sync.Mutex // watchGen, and a watch's cut
	watchGen    uint64     // the current watch's number

	sent   sentRequest   // the last request written, and its bytes
	header http.Header   // the headers of a plain answer that a look reads (reused)
	resp   http.Response // a plain answer (reused, as header: good until the next look)
}

// sentRequest is a request as it went on the wire, and what it was made of.
type sentRequest struct {
	wire   []byte
	method string
	url    url.URL
	header http.Header
	body   []byte
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

// do sends req, whose body is body, on the look's connection and reads the
// answer's body into out (at most transport.MaxBody bytes). It returns the
// answer (its body read and closed) or an error, after which the caller
// asks the usual way.
func (c *lookConn) do(ctx context.Context, hc *http.Client, req *http.Request, body []byte, out *bytes.Buffer) (*http.Response, error) {
	tr, ok := hc.Transport.(*http.Transport)
	if !ok || hc.Transport == nil {
		return nil, errNoDirect
	}
	if hc.Jar != nil {
		if cookies := hc.Jar.Cookies(req.URL); len(cookies) > 0 {
			r := *req // the caller's request is kept from look to look
			r.Header = req.Header.Clone()
			for _, ck := range cookies {
				r.AddCookie(ck)
			}
			req = &r
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil && (c.tr != tr || c.to != *req.URL) {
		c.closeLocked() // another transport or address: asked again below
	}
	deadline := time.Now().Add(hc.Timeout)
	if hc.Timeout <= 0 {
		deadline = time.Now().Add(30 * time.Second)
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if c.conn == nil {
		// Whether a proxy is to be used is asked when dialling: the
		// environment's proxy settings are read once in a process.
		if tr.Proxy != nil {
			if p, err := tr.Proxy(req); err != nil || p != nil {
				return nil, errNoDirect
			}
		}
		// The dial and the TLS handshake have the look's deadline: a
		// server that accepts and then says nothing does not hold the
		// watcher.
		dctx, cancel := context.WithDeadline(ctx, deadline)
		err := c.dial(dctx, tr, req.URL)
		cancel()
		if err != nil {
			return nil, err
		}
		c.tr, c.to = tr, *req.URL
	}
	c.watchContext(ctx) // before the deadline: an earlier context's end may not cut this look
	_ = c.conn.SetDeadline(deadline)
	c.lr.N = lookMaxHeader
	resp, err := c.roundTrip(req, body, out)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // cancelled while it was asked: the connection may be cut
	}
	if err != nil {
		c.closeLocked()
		return nil, err
	}
	switch {
	case resp.Close || !resp.ProtoAtLeast(1, 1):
		c.closeLocked() // the server closes it
	case resp.StatusCode != http.StatusOK || c.br.Buffered() > 0:
		// Another status (a 1xx is followed by the answer itself), or
		// bytes past the answer's end: what comes next on this
		// connection may not be the next look's answer.
		c.closeLocked()
	default:
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

// watchContext makes ctx's end stop a look on the connection at once (its
// deadline set in the past). A watcher's looks share one context, so the
// watch is set once for it and the connection, not at every look.
//
// The watch of an earlier context may have begun to run when it is
// replaced (its context ended, and context.AfterFunc's stop then cannot
// stop it): each watch cuts the connection only while it is the current
// one (watchGen, under cutMu), so an earlier context's end cannot cut a
// later look.
func (c *lookConn) watchContext(ctx context.Context) {
	done := ctx.Done() // contexts compared by their end (a context may not be comparable)
	if c.stopWatch != nil && c.watchedDone == done && c.watchedConn == c.conn {
		return
	}
	gen := c.unwatch()
	conn := c.conn
	c.watchedDone, c.watchedConn = done, conn
	c.stopWatch = context.AfterFunc(ctx, func() {
		c.cutMu.Lock()
		defer c.cutMu.Unlock()
		if c.watchGen == gen {
			_ = conn.SetDeadline(time.Unix(1, 0))
		}
	})
}

// unwatch ends the current watch, and returns the next watch's number.
func (c *lookConn) unwatch() uint64 {
	c.cutMu.Lock()
	c.watchGen++
	gen := c.watchGen
	c.cutMu.Unlock()
	if c.stopWatch != nil {
		c.stopWatch()
	}
	c.stopWatch, c.watchedDone, c.watchedConn = nil, nil, nil
	return gen
}

// roundTrip writes req and reads its answer, the body whole (to its end,
// so that the connection can carry the next look).
func (c *lookConn) roundTrip(req *http.Request, body []byte, out *bytes.Buffer) (*http.Response, error) {
	wire, err := c.encode(req, body)
	if err != nil {
		return nil, err
	}
	if _, err := c.conn.Write(wire); err != nil {
		return nil, err
	}
	if resp, ok, err := c.readPlain(req, out); ok || err != nil {
		return resp, err
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

// encode is req on the wire, written by (*http.Request).Write, or the
// bytes of the last request sent when req asks the same.
func (c *lookConn) encode(req *http.Request, body []byte) ([]byte, error) {
	s := &c.sent
	if s.wire != nil && req.Method == s.method && *req.URL == s.url && bytes.Equal(body, s.body) && sameHeader(req.Header, s.header) {
		return s.wire, nil
	}
	var b bytes.Buffer
	w := *req // its body is read by Write: a copy, given one of its own
	w.Body = io.NopCloser(bytes.NewReader(body))
	if err := w.Write(&b); err != nil {
		return nil, err
	}
	*s = sentRequest{wire: b.Bytes(), method: req.Method, url: *req.URL, header: req.Header.Clone(), body: bytes.Clone(body)}
	return s.wire, nil
}

// sameHeader: a and b hold the same values under the same keys.
func sameHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

// readPlain reads an answer of the plainest form (see the top of this
// file): its body into out, and of its headers only Date and
// X-Pagination-Total, what a look reads (answeredOf). ok is false, with
// nothing read, for any other answer: http.ReadResponse then reads it from
// the same bytes. err is a failure to read (the connection is then dropped).
func (c *lookConn) readPlain(req *http.Request, out *bytes.Buffer) (resp *http.Response, ok bool, err error) {
	head, err := c.peekHead()
	if head == nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			err = nil // headers longer than the buffer: net/http reads them
		}
		return nil, false, err
	}
	line, rest, _ := bytes.Cut(head, crlf)
	if string(line) != "HTTP/1.1 200 OK" && string(line) != "HTTP/1.1 200" {
		return nil, false, nil
	}
	if c.header == nil {
		c.header = http.Header{}
	}
	length := -1
	var date, total []byte
	var saidDate, saidTotal bool
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, crlf)
		name, value, found := bytes.Cut(line, []byte(":"))
		value = bytes.Trim(value, " \t")
		if !found || !isToken(name) || !httpguts.ValidHeaderFieldValue(string(value)) {
			return nil, false, nil // a folded line, a stray byte: net/http says what it is
		}
		switch {
		case equalFold(name, "Content-Length"):
			n, good := digits(value)
			if length >= 0 || !good {
				return nil, false, nil
			}
			length = n
		case equalFold(name, "Connection"):
			if !equalFold(value, "keep-alive") {
				return nil, false, nil
			}
		case equalFold(name, "Transfer-Encoding"), equalFold(name, "Set-Cookie"), equalFold(name, "Trailer"):
			return nil, false, nil
		case equalFold(name, "Date"):
			if saidDate {
				return nil, false, nil
			}
			date, saidDate = value, true
		case equalFold(name, "X-Pagination-Total"):
			if saidTotal {
				return nil, false, nil
			}
			total, saidTotal = value, true
		}
	}
	keep(c.header, "Date", date, saidDate)
	keep(c.header, "X-Pagination-Total", total, saidTotal)
	if length < 0 || length > transport.MaxBody {
		return nil, false, nil
	}
	_, _ = c.br.Discard(len(head) + 2) // the headers and the empty line
	c.lr.N += lookMaxBody
	out.Reset()
	out.Grow(length)
	body := out.AvailableBuffer()[:length]
	if _, err := io.ReadFull(c.br, body); err != nil {
		return nil, false, err
	}
	out.Write(body) // its own free space: nothing is copied
	c.resp = http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: c.header, ContentLength: int64(length), Body: http.NoBody, Request: req,
	}
	return &c.resp, true, nil
}

var crlf = []byte("\r\n")

// keep sets h's key to value when said, or deletes it; the value held is
// kept when it says the same (no copy at every look).
func keep(h http.Header, key string, value []byte, said bool) {
	switch old := h[key]; {
	case !said:
		delete(h, key)
	case len(old) != 1 || old[0] != string(value):
		h[key] = []string{string(value)}
	}
}

// peekHead is the answer's status line and headers, each ending in CRLF,
// buffered and not read; nil when a line ends otherwise (a bare LF, which
// net/http reads), or with the error that stopped the wait when the empty
// line that ends them does not come (bufio.ErrBufferFull: they are longer
// than the buffer).
func (c *lookConn) peekHead() ([]byte, error) {
	for n := 1; ; {
		data, err := c.br.Peek(n)
		if err != nil {
			return nil, err
		}
		end := bytes.Index(data, []byte("\r\n\r\n"))
		head := data
		if end >= 0 {
			head = data[:end+2]
		}
		if bareLF(head) {
			return nil, nil
		}
		if end >= 0 {
			return head, nil
		}
		// All that is buffered, else one byte more than that (a read).
		if b := c.br.Buffered(); b > len(data) {
			n = b
		} else {
			n = len(data) + 1
		}
	}
}

// bareLF: b has a line feed that no carriage return precedes.
func bareLF(b []byte) bool {
	for i, ch := range b {
		if ch == '\n' && (i == 0 || b[i-1] != '\r') {
			return true
		}
	}
	return false
}

// isToken: s is a header name as RFC 9110 writes one.
func isToken(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for _, ch := range s {
		if !httpguts.IsTokenRune(rune(ch)) {
			return false
		}
	}
	return true
}

// equalFold is ASCII case-insensitive equality.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// digits is a Content-Length: decimal digits only, at most 10 of them.
func digits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int(ch-'0')
	}
	return n, true
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
	c.br = bufio.NewReader(&c.lr)
	return nil
}

// close drops the connection (the watcher stopped).
func (c *lookConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeLocked()
}

func (c *lookConn) closeLocked() {
	c.unwatch()
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn, c.lr.R, c.br = nil, nil, nil
	}
}
