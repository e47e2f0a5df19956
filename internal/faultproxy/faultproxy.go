// Package faultproxy is a reverse proxy for tests that breaks the network on
// purpose, between a client under test and a real server, at precise points:
// before the request reaches the server, or after the server has answered
// (so it has acted) but before the client has heard it.
//
//	p, err := faultproxy.New(upstreamURL)
//	...
//	if err := p.Start(); err != nil { ... }
//	defer p.Close()
//	p.Inject(faultproxy.Rule{
//		Method: "POST", Path: "/threads/*/runs", Times: 1,
//		Fault:  faultproxy.ResetAfterUpstream(),
//	})
//	// point the client at p.URL(), then look at p.Log()
//
// Requests that no rule applies to are proxied with net/http/httputil's
// ReverseProxy, flushing as bytes arrive, so event streams and long
// GET .../join requests behave as they do without the proxy.
//
// The proxy speaks HTTP/1.1 on 127.0.0.1 and holds each request body in
// memory. It never logs or keeps request headers (they may carry API keys):
// the Log has methods, paths, bodies and what happened.
package faultproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// Entry is one request the proxy received, in the Log.
type Entry struct {
	Method string
	Path   string // the request's path, without its query
	Body   []byte // the request's body as the proxy read it
	// Fault is the fault the request got (the zero Fault when no rule
	// applied); Err says if a delay was cut short.
	Fault Fault
	// Forwarded reports whether the request was sent to the upstream.
	Forwarded bool
	// UpstreamStatus is the upstream's status code; 0 if it did not answer
	// (yet, for a request still in flight).
	UpstreamStatus int
	// Err says what failed or was cut short on the way: reading the request,
	// a delay, reaching the upstream or reading its answer. Empty when nothing
	// was.
	Err string
}

// Proxy is a fault-injecting reverse proxy. Its methods are safe for
// concurrent use.
type Proxy struct {
	upstream  *url.URL
	transport *http.Transport
	rp        *httputil.ReverseProxy
	srv       *http.Server

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // running handlers

	mu      sync.Mutex
	url     string
	started bool
	closed  bool
	rules   []*rule
	log     []Entry
}

// New returns a proxy to the server at upstream (an http or https URL; a
// path in it prefixes every request's). Start it before use.
func New(upstream string) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: %q is not an http(s) URL", upstream)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{upstream: u, ctx: ctx, cancel: cancel}
	quiet := log.New(io.Discard, "", 0)
	p.transport = http.DefaultTransport.(*http.Transport).Clone()
	p.transport.Proxy = nil               // the upstream itself, whatever the environment says
	p.transport.DisableCompression = true // pass bytes as they are
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(p.upstream)
			p.update(pr.In.Context(), func(e *Entry) { e.Forwarded = true })
		},
		Transport:     p.transport,
		FlushInterval: -1,
		ErrorLog:      quiet,
		ModifyResponse: func(res *http.Response) error {
			p.update(res.Request.Context(), func(e *Entry) { e.UpstreamStatus = res.StatusCode })
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.update(r.Context(), func(e *Entry) { e.Err = "upstream: " + err.Error() })
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	p.srv = &http.Server{Handler: p, ErrorLog: quiet, ReadHeaderTimeout: 10 * time.Second}
	return p, nil
}

// Start listens on 127.0.0.1 on a free port and serves in the background.
func (p *Proxy) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.closed {
		return errors.New("faultproxy: Start called twice or after Close")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("faultproxy: %w", err)
	}
	p.started = true
	p.url = "http://" + l.Addr().String()
	go p.srv.Serve(l) //nolint:errcheck // ends with ErrServerClosed on Close
	return nil
}

// URL is the proxy's base URL ("http://127.0.0.1:port"), once started.
func (p *Proxy) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Close stops the proxy: it stops listening, releases every stall and delay
// (their connections are reset), cancels requests in flight to the upstream,
// closes every connection and waits for its handlers to end. Calling it
// again does nothing.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	err := p.srv.Close()
	p.wg.Wait()
	p.transport.CloseIdleConnections()
	return err
}

// Inject adds a rule after those already injected. It panics if r.Path is
// neither empty nor begins with "/".
func (p *Proxy) Inject(r Rule) {
	n := newRule(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, n)
}

// Clear removes every rule: requests from now on pass through untouched.
func (p *Proxy) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = nil
}

// Log returns a copy of the requests received so far, in the order they
// arrived.
func (p *Proxy) Log() []Entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Entry, len(p.log))
	for i, e := range p.log {
		e.Body = bytes.Clone(e.Body)
		out[i] = e
	}
	return out
}

// entryKey carries a request's index in the log through its context.
type entryKey struct{}

// update changes the log entry of the request whose context is ctx.
func (p *Proxy) update(ctx context.Context, f func(*Entry)) {
	i, ok := ctx.Value(entryKey{}).(int)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f(&p.log[i])
}

// enter counts a handler in, unless the proxy is closing.
func (p *Proxy) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Add(1)
	return true
}

// ServeHTTP proxies one request, applying the first rule that matches it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.enter() {
		reset(w)
		return
	}
	defer p.wg.Done()
	// The request's context ends when the client goes away or the proxy closes.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(p.ctx, cancel)()

	body, err := io.ReadAll(r.Body)
	f, i := p.arrive(r, body, err)
	if err != nil {
		return // the client broke off its own request
	}
	r = r.WithContext(context.WithValue(ctx, entryKey{}, i))
	r.Body = io.NopCloser(bytes.NewReader(body))

	if f.delay > 0 && !sleep(r.Context(), f.delay) {
		why := "the client left during the delay"
		if p.ctx.Err() != nil {
			why = "the proxy closed during the delay"
			reset(w)
		}
		p.update(r.Context(), func(e *Entry) { e.Err = why })
		return
	}
	switch f.kind {
	case pass:
		p.rp.ServeHTTP(w, r)
	case resetBeforeUpstream:
		reset(w)
	case resetAfterUpstream:
		p.forward(r)
		reset(w)
	case badGatewayAfterUpstream:
		p.forward(r)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "502 Bad Gateway (injected by faultproxy after the upstream answered)\n") //nolint:errcheck // the client may be gone
	case truncateAfterUpstream:
		truncate(w, p.forward(r), f.keep)
	case stall:
		p.stall(w, r, f)
	}
}

// arrive logs a request and picks the fault it gets: that of the first
// rule, in injection order, that matches it and has uses left.
func (p *Proxy) arrive(r *http.Request, body []byte, readErr error) (Fault, int) {
	p.mu.Lock()
	rules := append([]*rule(nil), p.rules...)
	p.mu.Unlock()
	// Predicates run without the lock; a rule may run out meanwhile, hence
	// the second look at left below.
	var matched []*rule
	if readErr == nil {
		for _, n := range rules {
			if n.matches(r, body) {
				matched = append(matched, n)
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var f Fault
	for _, n := range matched {
		if n.left == 0 {
			continue
		}
		if n.left > 0 {
			n.left--
		}
		f = n.Fault
		break
	}
	e := Entry{Method: r.Method, Path: r.URL.Path, Body: body, Fault: f}
	if readErr != nil {
		e.Err = "reading the request: " + readErr.Error()
	}
	p.log = append(p.log, e)
	return f, len(p.log) - 1
}

// forward sends r to the upstream and reads its whole response into memory.
// The exchange runs to its end even if the client goes away (the point is
// that the server acts), but not beyond Close.
func (p *Proxy) forward(r *http.Request) (res *buffered) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	defer context.AfterFunc(p.ctx, cancel)()
	res = &buffered{header: http.Header{}}
	defer func() {
		// ReverseProxy aborts with ErrAbortHandler when the upstream's body
		// breaks off; here that is only something to log.
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler { //nolint:errorlint // a sentinel panic value, never wrapped
				panic(v)
			}
			p.update(ctx, func(e *Entry) { e.Err = "upstream: the response body broke off" })
		}
	}()
	p.rp.ServeHTTP(res, r.WithContext(ctx))
	return res
}

// truncate sends the client res's status and headers with a Content-Length
// of the whole body, then only keep bytes of it, then closes the connection.
func truncate(w http.ResponseWriter, res *buffered, keep int) {
	n := len(res.body)
	if keep <= 0 {
		keep = n / 2
	}
	keep = max(min(keep, n-1), 0)
	h := w.Header()
	for k, v := range res.header {
		h[k] = v
	}
	h.Del("Transfer-Encoding")
	h.Set("Content-Length", fmt.Sprint(n))
	w.WriteHeader(res.status())
	w.Write(res.body[:keep]) //nolint:errcheck // the client may be gone
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	conn, _, err := rc.Hijack()
	if err != nil {
		return
	}
	// A clean close (FIN), not a reset: a Go client reports a short body as
	// io.ErrUnexpectedEOF only when it reads an end of file (after a reset it
	// reports ECONNRESET), and a reset with SO_LINGER 0 discards whatever the
	// kernel has not sent yet.
	conn.Close()
}

// stall holds the client's connection without answering until f's time has
// passed or the proxy closes, then resets it; or lets the client go if it
// leaves first. The connection is hijacked at once, so that closing the
// server does not close it first and the end is always a reset.
func (p *Proxy) stall(w http.ResponseWriter, r *http.Request, f Fault) {
	upstream := make(chan struct{})
	if f.forward {
		go func() {
			defer close(upstream)
			p.forward(r)
		}()
	} else {
		close(upstream)
	}
	defer func() { <-upstream }()

	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		io.Copy(io.Discard, buf) //nolint:errcheck // ends when the client leaves or conn closes
	}()
	var timeout <-chan time.Time
	if f.hold > 0 {
		t := time.NewTimer(f.hold)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
	case <-p.ctx.Done():
	case <-gone:
	}
	resetConn(conn)
	<-gone
}

// reset resets the client's connection: TCP RST, nothing more sent.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	resetConn(conn)
}

func resetConn(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // at worst the close is a clean one
	}
	conn.Close()
}

// sleep waits d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// buffered is a ResponseWriter that keeps a whole response in memory.
type buffered struct {
	header http.Header
	code   int
	body   []byte
}

func (b *buffered) Header() http.Header { return b.header }

func (b *buffered) WriteHeader(code int) {
	if b.code == 0 && code >= 200 { // 1xx are interim: ReverseProxy clears their headers itself
		b.code = code
	}
}

func (b *buffered) Write(p []byte) (int, error) {
	if b.code == 0 {
		b.code = http.StatusOK
	}
	b.body = append(b.body, p...)
	return len(p), nil
}

func (b *buffered) Flush() {}

func (b *buffered) status() int {
	if b.code == 0 {
		return http.StatusOK
	}
	return b.code
}
