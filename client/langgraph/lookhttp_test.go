package langgraph_test

// The look over the read client's net/http (look.go): one kept-alive
// connection for the watcher's looks, over TLS as configured, with the read
// client's cookies, a server that closes connections, a caller that gives
// up.

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

// connCounter counts a test server's connections opened and closed.
type connCounter struct{ opened, closed atomic.Int64 }

func (c *connCounter) watch(hs *httptest.Server) {
	hs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			c.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			c.closed.Add(1)
		}
	}
}

// reused fails t when polls idle polls opened more than a stray new
// connection or two: net/http gives a kept-alive connection back to its
// pool only when the request's write is seen done within 50 ms of the
// answer (Transport's maxWriteWaitBeforeConnReuse, which Go's own tests
// raise for the same reason), and on a loaded machine a poll now and then
// misses that and dials again. A look that breaks the keep-alive opens a
// connection at every poll.
func reused(t *testing.T, polls int, opened, closed int64) {
	t.Helper()
	if most := int64(max(1, polls/100)); opened > most || closed > most {
		t.Errorf("%d idle polls opened %d connections and closed %d (want at most %d: one kept alive)", polls, opened, closed, most)
	}
}

// The watcher's idle looks share one kept-alive connection.
func TestLooksKeepOneConnection(t *testing.T) {
	t.Parallel()
	hs, searches, cc := lookServer(t, nil)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL}, Live: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	pendingOf(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	ch := b.Changes(ctx)
	looks := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); searches.Load() < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the watcher made %d searches in 5 s", searches.Load())
			}
		}
	}
	looks(searches.Load() + 5) // the watcher's first looks
	opened, closed := cc.opened.Load(), cc.closed.Load()
	looks(searches.Load() + 30)
	reused(t, 30, cc.opened.Load()-opened, cc.closed.Load()-closed)
	cancel()
	for range ch {
	}
}

// Over https (the profile's insecure setting, since the test server's
// certificate is its own), with an auth proxy's cookie: the looks carry the
// cookie, list what the server lists, and keep one connection.
func TestLookOverTLSWithCookies(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.Seed(4)
	h := srv.Handler()
	var mu sync.Mutex
	var searches, without int
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads/search" {
			mu.Lock()
			searches++
			if ck, err := r.Cookie("session"); err != nil || ck.Value != "s1" {
				without++
			}
			mu.Unlock()
		}
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1", Path: "/"})
		h.ServeHTTP(w, r)
	}))
	var cc connCounter
	cc.watch(hs)
	hs.StartTLS()
	t.Cleanup(hs.Close)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL, InsecureSkipVerify: true}})
	if err != nil {
		t.Fatal(err)
	}
	first := pendingOf(t, b)
	pendingOf(t, b)
	mu.Lock()
	before, withoutBefore := searches, without
	mu.Unlock()
	opened := cc.opened.Load()
	for range 10 {
		if got := pendingOf(t, b); len(got) != len(first) {
			t.Fatalf("an idle poll over TLS listed %d interrupts, then %d", len(first), len(got))
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if searches-before != 10 || without != withoutBefore {
		t.Errorf("10 idle polls: %d searches, %d of them without the session cookie", searches-before, without-withoutBefore)
	}
	reused(t, 10, cc.opened.Load()-opened, 0)
}

// A server that closes every connection after its answer: each look
// dials again, asks once, and lists what is there.
func TestLookServerClosesConnections(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.Seed(4)
	h := srv.Handler()
	var searches atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads/search" {
			searches.Add(1)
		}
		w.Header().Set("Connection", "close")
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL}})
	if err != nil {
		t.Fatal(err)
	}
	first := pendingOf(t, b)
	pendingOf(t, b)
	before := searches.Load()
	for range 10 {
		if got := pendingOf(t, b); len(got) != len(first) {
			t.Fatalf("an idle poll listed %d interrupts, then %d", len(first), len(got))
		}
	}
	if n := searches.Load() - before; n != 10 {
		t.Errorf("10 idle polls made %d searches (want one each)", n)
	}
}

// A look the caller gives up on ends at once, even if the server never
// answers.
func TestLookCancelledEndsAtOnce(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.Seed(2)
	h := srv.Handler()
	var hang atomic.Bool
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads/search" && hang.Load() {
			<-release
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(release); hs.Close() })
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL}})
	if err != nil {
		t.Fatal(err)
	}
	pendingOf(t, b)
	pendingOf(t, b)
	hang.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	at := time.Now()
	if _, err := b.Pending(ctx); err == nil {
		t.Fatal("a poll of a server that never answers succeeded")
	}
	if d := time.Since(at); d > 3*time.Second {
		t.Fatalf("a poll given 200 ms ended after %s", d)
	}
}
