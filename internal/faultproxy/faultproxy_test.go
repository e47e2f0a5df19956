package faultproxy_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/faultproxy"
)

// upstream is an httptest server that counts what it actually received.
type upstream struct {
	*httptest.Server
	mu       sync.Mutex
	received []string // "METHOD /path body"
	apiKeys  []string // X-Api-Key of each request
	release  chan struct{}
}

// payload is the upstream's body: 100 known bytes (in two parts that
// wait for release on /halves); /stream sends two events instead.
var payload = []byte(strings.Repeat("0123456789", 10))

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{release: make(chan struct{})}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.received = append(u.received, r.Method+" "+r.URL.Path+" "+string(body))
		u.apiKeys = append(u.apiKeys, r.Header.Get("X-Api-Key"))
		u.mu.Unlock()
		switch r.URL.Path {
		case "/stream":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: one\ndata: 1\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-u.release:
			case <-r.Context().Done():
				return
			}
			fmt.Fprint(w, "event: two\ndata: 2\n\n")
		case "/halves":
			w.Header().Set("Content-Length", fmt.Sprint(len(payload)))
			w.Write(payload[:50])
			w.(http.Flusher).Flush()
			select {
			case <-u.release:
			case <-r.Context().Done():
				return
			}
			w.Write(payload[50:])
		case "/chunked":
			w.Header().Set("X-Upstream", "yes")
			w.Write(payload[:50])
			w.(http.Flusher).Flush()
			w.Write(payload[50:])
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Upstream", "yes")
			w.WriteHeader(http.StatusCreated)
			w.Write(payload)
		}
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) got() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.received...)
}

// waitGot waits until the upstream has received n requests.
func (u *upstream) waitGot(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(u.got()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the upstream received %d requests, want %d", len(u.got()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func start(t *testing.T, upstreamURL string) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(upstreamURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// newClient is a client with its own connections, so that no test reuses
// another's.
func newClient(timeout time.Duration) *http.Client {
	return &http.Client{Transport: &http.Transport{}, Timeout: timeout}
}

func post(c *http.Client, url, body string) (*http.Response, error) {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "secret-key")
	return c.Do(req)
}

// answer is a whole answer, or why there is none.
type answer struct {
	code int
	body string
	err  error
}

// read reads a whole answer: read(c.Get(url)).
func read(res *http.Response, err error) answer {
	if err != nil {
		return answer{err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(b), err}
}

// ok fails the test if there was no whole answer.
func (a answer) ok(t *testing.T) (int, string) {
	t.Helper()
	if a.err != nil {
		t.Fatal(a.err)
	}
	return a.code, a.body
}

func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

func onlyEntry(t *testing.T, p *faultproxy.Proxy) faultproxy.Entry {
	t.Helper()
	log := p.Log()
	if len(log) != 1 {
		t.Fatalf("log has %d entries, want 1: %+v", len(log), log)
	}
	return log[0]
}

func TestPassThrough(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	res, err := post(newClient(5*time.Second), p.URL()+"/threads/t1/runs", `{"a":1}`)
	if err == nil && res.Header.Get("X-Upstream") != "yes" {
		t.Errorf("upstream header lost: %v", res.Header)
	}
	code, body := read(res, err).ok(t)
	if code != http.StatusCreated || body != string(payload) {
		t.Fatalf("got %d %q", code, body)
	}
	if got := u.got(); len(got) != 1 || got[0] != `POST /threads/t1/runs {"a":1}` {
		t.Fatalf("upstream received %q", got)
	}
	if u.apiKeys[0] != "secret-key" {
		t.Errorf("the API key did not reach the upstream")
	}
	e := onlyEntry(t, p)
	if e.Method != "POST" || e.Path != "/threads/t1/runs" || string(e.Body) != `{"a":1}` ||
		!e.Forwarded || e.UpstreamStatus != http.StatusCreated || !e.Fault.IsZero() || e.Err != "" {
		t.Fatalf("entry %+v", e)
	}
}

func TestResetBeforeUpstream(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	p.Inject(faultproxy.Rule{Method: "POST", Path: "/threads/*/runs", Fault: faultproxy.ResetBeforeUpstream()})
	_, err := post(newClient(5*time.Second), p.URL()+"/threads/t1/runs", `{}`)
	if !isReset(err) {
		t.Fatalf("want a connection reset, got %v", err)
	}
	if got := u.got(); len(got) != 0 {
		t.Fatalf("the upstream received %q", got)
	}
	e := onlyEntry(t, p)
	if e.Forwarded || e.UpstreamStatus != 0 || e.Fault != faultproxy.ResetBeforeUpstream() || string(e.Body) != "{}" {
		t.Fatalf("entry %+v", e)
	}
}

func TestResetAfterUpstream(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	p.Inject(faultproxy.Rule{Method: "POST", Path: "/threads/*/runs", Fault: faultproxy.ResetAfterUpstream()})
	_, err := post(newClient(5*time.Second), p.URL()+"/threads/t1/runs", `{}`)
	if !isReset(err) {
		t.Fatalf("want a connection reset, got %v", err)
	}
	if got := u.got(); len(got) != 1 {
		t.Fatalf("the upstream received %q, want the one request", got)
	}
	e := onlyEntry(t, p)
	if !e.Forwarded || e.UpstreamStatus != http.StatusCreated || e.Fault != faultproxy.ResetAfterUpstream() {
		t.Fatalf("entry %+v", e)
	}
}

func TestBadGatewayAfterUpstream(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	p.Inject(faultproxy.Rule{Path: "/threads/*/runs", Fault: faultproxy.BadGatewayAfterUpstream()})
	code, body := read(post(newClient(5*time.Second), p.URL()+"/threads/t1/runs", `{}`)).ok(t)
	if code != http.StatusBadGateway || !strings.Contains(body, "Bad Gateway") || strings.Contains(body, string(payload)) {
		t.Fatalf("got %d %q", code, body)
	}
	if got := u.got(); len(got) != 1 {
		t.Fatalf("the upstream received %q, want the one request", got)
	}
	e := onlyEntry(t, p)
	if !e.Forwarded || e.UpstreamStatus != http.StatusCreated || e.Fault != faultproxy.BadGatewayAfterUpstream() {
		t.Fatalf("entry %+v", e)
	}
}

func TestTruncateAfterUpstream(t *testing.T) {
	for _, tc := range []struct {
		name       string
		path       string
		keep, want int
		status     int
	}{
		{"half", "/threads/t1/runs", 0, 50, http.StatusCreated},
		{"ten bytes", "/threads/t1/runs", 10, 10, http.StatusCreated},
		{"never the whole body", "/threads/t1/runs", 1000, 99, http.StatusCreated},
		{"chunked upstream", "/chunked", 0, 50, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t)
			p := start(t, u.URL)
			p.Inject(faultproxy.Rule{Fault: faultproxy.TruncateAfterUpstream(tc.keep)})
			res, err := post(newClient(5*time.Second), p.URL()+tc.path, `{}`)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != tc.status || res.Header.Get("X-Upstream") != "yes" || res.ContentLength != int64(len(payload)) {
				t.Fatalf("got %d, Content-Length %d, headers %v", res.StatusCode, res.ContentLength, res.Header)
			}
			b, err := io.ReadAll(res.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("want unexpected EOF, got %v", err)
			}
			if !bytes.Equal(b, payload[:tc.want]) {
				t.Fatalf("got body %q, want the first %d bytes", b, tc.want)
			}
			if got := u.got(); len(got) != 1 {
				t.Fatalf("the upstream received %q, want the one request", got)
			}
			if e := onlyEntry(t, p); !e.Forwarded || e.UpstreamStatus != tc.status {
				t.Fatalf("entry %+v", e)
			}
		})
	}
}

func TestStallTimesOut(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   faultproxy.Fault
		reaches int
	}{
		{"not forwarded", faultproxy.Stall(0), 0},
		{"forwarded", faultproxy.StallForwarded(0), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t)
			p := start(t, u.URL)
			p.Inject(faultproxy.Rule{Method: "GET", Path: "/threads/*/runs/*/join", Fault: tc.fault})
			began := time.Now()
			_, err := newClient(300 * time.Millisecond).Get(p.URL() + "/threads/t1/runs/r1/join")
			var nerr net.Error
			if !errors.As(err, &nerr) || !nerr.Timeout() {
				t.Fatalf("want a timeout, got %v", err)
			}
			if d := time.Since(began); d < 300*time.Millisecond {
				t.Fatalf("the client gave up after %v only", d)
			}
			if tc.reaches > 0 {
				u.waitGot(t, tc.reaches)
			}
			// Closing waits for the forwarded exchange to end: nothing arrives after.
			p.Close()
			if got := u.got(); len(got) != tc.reaches {
				t.Fatalf("the upstream received %q, want %d requests", got, tc.reaches)
			}
			if e := onlyEntry(t, p); e.Forwarded != (tc.reaches > 0) || e.Fault != tc.fault {
				t.Fatalf("entry %+v", e)
			}
		})
	}
}

func TestStallReleasedByClose(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Stall(0)})
	errc := make(chan error, 1)
	go func() {
		_, err := newClient(0).Get(p.URL() + "/threads/t1/runs/r1/join")
		errc <- err
	}()
	for len(p.Log()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-errc:
		t.Fatalf("the stalled request ended on its own: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	closed := make(chan struct{})
	go func() {
		p.Close()
		close(closed)
	}()
	select {
	case err := <-errc:
		if !isReset(err) {
			t.Fatalf("want a connection reset, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not release the stalled request")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if got := u.got(); len(got) != 0 {
		t.Fatalf("the upstream received %q", got)
	}
}

func TestStallFor(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Stall(150 * time.Millisecond)})
	began := time.Now()
	_, err := newClient(5 * time.Second).Get(p.URL() + "/x")
	if !isReset(err) {
		t.Fatalf("want a connection reset, got %v", err)
	}
	if d := time.Since(began); d < 150*time.Millisecond || d > 3*time.Second {
		t.Fatalf("the stall lasted %v, want 150ms", d)
	}
}

func TestDelay(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	p.Inject(faultproxy.Rule{Method: "POST", Fault: faultproxy.Delay(200 * time.Millisecond)})
	began := time.Now()
	code, body := read(post(newClient(5*time.Second), p.URL()+"/threads/t1/runs", `{}`)).ok(t)
	if d := time.Since(began); d < 200*time.Millisecond {
		t.Fatalf("answered after %v, want at least 200ms", d)
	}
	if code != http.StatusCreated || body != string(payload) {
		t.Fatalf("got %d %q", code, body)
	}
	if e := onlyEntry(t, p); !e.Forwarded || e.Fault != faultproxy.Delay(200*time.Millisecond) || e.Fault.String() != "Delay(200ms)" {
		t.Fatalf("entry %+v", e)
	}
}

func TestDelayThenFault(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	f := faultproxy.ResetBeforeUpstream().WithDelay(100 * time.Millisecond)
	p.Inject(faultproxy.Rule{Fault: f})
	began := time.Now()
	_, err := post(newClient(5*time.Second), p.URL()+"/x", `{}`)
	if !isReset(err) || time.Since(began) < 100*time.Millisecond {
		t.Fatalf("got %v after %v", err, time.Since(began))
	}
	if len(u.got()) != 0 || onlyEntry(t, p).Fault != f {
		t.Fatalf("upstream %q, log %+v", u.got(), p.Log())
	}
}

func TestDelayReleasedByClose(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Delay(time.Hour)})
	errc := make(chan error, 1)
	go func() {
		_, err := post(newClient(0), p.URL()+"/x", `{}`)
		errc <- err
	}()
	for len(p.Log()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	p.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("the delayed request got an answer")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not release the delayed request")
	}
	if len(u.got()) != 0 {
		t.Fatalf("the upstream received %q", u.got())
	}
	if e := onlyEntry(t, p); e.Forwarded || e.Err != "the proxy closed during the delay" {
		t.Fatalf("entry %+v", e)
	}
}

func TestTimesOnceThenPassThrough(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	p.Inject(faultproxy.Rule{Method: "POST", Path: "/threads/*/runs", Times: 1, Fault: faultproxy.ResetBeforeUpstream()})
	c := newClient(5 * time.Second)
	if _, err := post(c, p.URL()+"/threads/t1/runs", `{}`); !isReset(err) {
		t.Fatalf("first: want a connection reset, got %v", err)
	}
	for i := range 2 {
		if code, _ := read(post(c, p.URL()+"/threads/t1/runs", `{}`)).ok(t); code != http.StatusCreated {
			t.Fatalf("request %d after the fault: %d", i+2, code)
		}
	}
	log := p.Log()
	if len(log) != 3 || log[0].Fault != faultproxy.ResetBeforeUpstream() || !log[1].Fault.IsZero() || !log[2].Fault.IsZero() {
		t.Fatalf("log %+v", log)
	}
	if len(u.got()) != 2 {
		t.Fatalf("the upstream received %q", u.got())
	}
}

func TestRuleMatching(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	bad := faultproxy.BadGatewayAfterUpstream()
	p.Inject(faultproxy.Rule{Method: "POST", Path: "/threads/*/runs", Body: func(b []byte) bool {
		return bytes.Contains(b, []byte(`"resume"`))
	}, Fault: bad})
	c := newClient(5 * time.Second)
	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/threads/t1/runs", `{"command":{"resume":1}}`, http.StatusBadGateway},
		{"post", "/threads/t%2F1/runs", `{"command":{"resume":1}}`, http.StatusBadGateway},
		{"POST", "/threads/t1/runs", `{"input":{}}`, http.StatusCreated},            // body predicate
		{"GET", "/threads/t1/runs", `{"command":{"resume":1}}`, http.StatusCreated}, // method
		{"POST", "/threads/t1/runs/wait", `{"resume":1}`, http.StatusCreated},       // one segment more
		{"POST", "/threads/t1/runs/", `{"resume":1}`, http.StatusCreated},           // trailing slash
		{"POST", "/threads//runs", `{"resume":1}`, http.StatusCreated},              // * is never empty
		{"POST", "/threads/t1/runs?x=1", `{"resume":1}`, http.StatusBadGateway},     // the query does not count
	} {
		req, _ := http.NewRequest(tc.method, p.URL()+tc.path, strings.NewReader(tc.body))
		res, err := c.Do(req)
		if code, _ := read(res, err).ok(t); code != tc.want {
			t.Errorf("%s %s %s: got %d, want %d", tc.method, tc.path, tc.body, code, tc.want)
		}
	}

	// The first matching rule with uses left wins; Clear removes them all.
	p.Clear()
	p.Inject(faultproxy.Rule{Path: "/a", Times: 1, Fault: bad})
	p.Inject(faultproxy.Rule{Path: "/a", Times: 1, Fault: faultproxy.TruncateAfterUpstream(1)})
	p.Inject(faultproxy.Rule{Path: "/b", Fault: bad})
	if code, _ := read(c.Get(p.URL() + "/a")).ok(t); code != http.StatusBadGateway {
		t.Errorf("first /a: %d", code)
	}
	if a := read(c.Get(p.URL() + "/a")); !errors.Is(a.err, io.ErrUnexpectedEOF) {
		t.Errorf("second /a: want the truncation, got %v", a.err)
	}
	if code, _ := read(c.Get(p.URL() + "/a")).ok(t); code != http.StatusCreated {
		t.Errorf("third /a: %d", code)
	}
	p.Clear()
	if code, _ := read(c.Get(p.URL() + "/b")).ok(t); code != http.StatusCreated {
		t.Errorf("/b after Clear: %d", code)
	}
}

func TestInjectRefusesARelativePath(t *testing.T) {
	p, err := faultproxy.New("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	p.Inject(faultproxy.Rule{Path: "threads/*"})
}

// Bytes reach the client as the upstream sends them: an event stream, and
// also a body of known length (which ReverseProxy would otherwise buffer).
func TestStreamingFlushesAsBytesArrive(t *testing.T) {
	for _, tc := range []struct{ path, first, rest string }{
		{"/stream", "event: one\ndata: 1\n\n", "event: two\ndata: 2\n\n"},
		{"/halves", string(payload[:50]), string(payload[50:])},
	} {
		t.Run(tc.path, func(t *testing.T) {
			u := newUpstream(t)
			p := start(t, u.URL)
			// Without flushing not even the headers would come through.
			res, err := newClient(5 * time.Second).Get(p.URL() + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			first := make(chan string, 1)
			go func() {
				b := make([]byte, len(tc.first))
				n, _ := io.ReadFull(res.Body, b)
				first <- string(b[:n])
			}()
			select {
			case s := <-first:
				if s != tc.first {
					t.Fatalf("first part %q", s)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("the first part did not come through before the upstream went on")
			}
			close(u.release)
			rest, err := io.ReadAll(res.Body)
			if err != nil || string(rest) != tc.rest {
				t.Fatalf("rest %q, %v", rest, err)
			}
		})
	}
}

func TestConcurrentRequests(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	const n, faults = 40, 7
	p.Inject(faultproxy.Rule{Method: "POST", Path: "/threads/*/runs", Times: faults, Fault: faultproxy.ResetAfterUpstream()})
	p.Inject(faultproxy.Rule{Method: "POST", Path: "/threads/*/runs", Times: faults, Fault: faultproxy.ResetBeforeUpstream()})
	c := newClient(10 * time.Second)
	var (
		wg             sync.WaitGroup
		mu             sync.Mutex
		resets, served int
	)
	for i := range n {
		wg.Go(func() {
			res, err := post(c, fmt.Sprintf("%s/threads/t%d/runs", p.URL(), i), `{}`)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case isReset(err):
				resets++
			case err != nil:
				t.Errorf("request %d: %v", i, err)
			default:
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				served++
			}
			_ = p.Log() // read the log while others write it
		})
	}
	wg.Wait()
	if resets != 2*faults || served != n-2*faults {
		t.Fatalf("%d resets, %d served; want %d and %d", resets, served, 2*faults, n-2*faults)
	}
	if got := len(u.got()); got != n-faults {
		t.Fatalf("the upstream received %d requests, want %d", got, n-faults)
	}
	count := map[faultproxy.Fault]int{}
	for _, e := range p.Log() {
		count[e.Fault]++
	}
	if len(p.Log()) != n || count[faultproxy.ResetAfterUpstream()] != faults || count[faultproxy.ResetBeforeUpstream()] != faults {
		t.Fatalf("log: %d entries, faults %v", len(p.Log()), count)
	}
}

// A Go client sends an idempotent request (GET, no body) again, by itself,
// when a connection it reused breaks before the answer: a ResetBeforeUpstream
// with Times 1 is then invisible to it. Tests that mean to show a failed read
// must use a fresh connection, Times 0, or look at the Log.
func TestGoClientRetriesIdempotentRequestsOnReusedConnections(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u.URL)
	c := newClient(5 * time.Second)
	read(c.Get(p.URL() + "/threads/t1/state")).ok(t) // the connection is now idle, to be reused
	p.Inject(faultproxy.Rule{Method: "GET", Times: 1, Fault: faultproxy.ResetBeforeUpstream()})
	if code, _ := read(c.Get(p.URL() + "/threads/t1/state")).ok(t); code != http.StatusCreated {
		t.Fatalf("got %d", code)
	}
	log := p.Log()
	if len(log) != 3 || log[1].Fault != faultproxy.ResetBeforeUpstream() || !log[2].Fault.IsZero() {
		t.Fatalf("log %+v", log)
	}
}

func TestUpstreamDown(t *testing.T) {
	u := newUpstream(t)
	url := u.URL
	u.Close()
	p := start(t, url)
	code, _ := read(newClient(5 * time.Second).Get(p.URL() + "/x")).ok(t)
	if code != http.StatusBadGateway {
		t.Fatalf("got %d", code)
	}
	if e := onlyEntry(t, p); !e.Forwarded || e.UpstreamStatus != 0 || !strings.Contains(e.Err, "upstream") {
		t.Fatalf("entry %+v", e)
	}
}

func TestNew(t *testing.T) {
	for _, bad := range []string{"", "127.0.0.1:2024", "ftp://x", "http://", "://"} {
		if _, err := faultproxy.New(bad); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	p, err := faultproxy.New("http://127.0.0.1:1/base")
	if err != nil {
		t.Fatal(err)
	}
	if p.URL() != "" {
		t.Errorf("URL before Start: %q", p.URL())
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q", p.URL())
	}
	if p.Start() == nil {
		t.Error("second Start accepted")
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
	if err := p.Close(); err != nil {
		t.Error("second Close:", err)
	}
}

func TestFaultNames(t *testing.T) {
	for f, want := range map[faultproxy.Fault]string{
		{}:                                         "none",
		faultproxy.ResetBeforeUpstream():           "ResetBeforeUpstream",
		faultproxy.ResetAfterUpstream():            "ResetAfterUpstream",
		faultproxy.BadGatewayAfterUpstream():       "BadGatewayAfterUpstream",
		faultproxy.TruncateAfterUpstream(0):        "TruncateAfterUpstream(0)",
		faultproxy.Stall(0):                        "Stall(0s)",
		faultproxy.StallForwarded(time.Second):     "StallForwarded(1s)",
		faultproxy.Delay(time.Second):              "Delay(1s)",
		faultproxy.Stall(0).WithDelay(time.Second): "Stall(0s)+Delay(1s)",
	} {
		if f.String() != want {
			t.Errorf("%q, want %q", f.String(), want)
		}
	}
}
