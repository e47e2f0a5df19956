package langgraph_test

// The watcher's cheap look (look.go): the same request as any read (its
// credentials, one kept-alive connection), the usual retries and errors
// when the answer is not a clean 200, and Settled.

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

// Idle looks carry the credentials and headers of every read, and reuse
// one connection rather than opening one per look.
func TestLookSendsCredentialsOnOneConnection(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.Seed(5)
	h := srv.Handler()
	var mu sync.Mutex
	var bad []string
	looks := 0
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.URL.Path == "/threads/search" {
			looks++
		}
		for k, want := range map[string]string{"X-Api-Key": "key-1", "Authorization": "Bearer tok-1", "X-Tenant": "t1", "User-Agent": "hitl", "Accept": "application/json", "Content-Type": "application/json"} {
			if got := r.Header.Get(k); got != want && (k != "Content-Type" || r.Method == http.MethodPost) {
				bad = append(bad, r.URL.Path+" "+k+"="+got)
			}
		}
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	var conns atomic.Int64
	hs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	hs.Start()
	t.Cleanup(hs.Close)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL, APIKey: "key-1", BearerToken: "tok-1", Headers: map[string]string{"X-Tenant": "t1"}}})
	if err != nil {
		t.Fatal(err)
	}
	first := pendingOf(t, b)
	pendingOf(t, b) // the first poll after the listing reads what was just made
	mu.Lock()
	before := looks
	mu.Unlock()
	opened := conns.Load()
	for range 20 {
		if got := pendingOf(t, b); len(got) != len(first) {
			t.Fatalf("an idle poll listed %d interrupts, then %d", len(first), len(got))
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if looks-before != 20 {
		t.Errorf("20 idle polls made %d searches", looks-before)
	}
	reused(t, 20, conns.Load()-opened, 0)
	if len(bad) > 0 {
		t.Errorf("requests without the configured headers: %v", bad)
	}
}

// A look answered otherwise than with a clean 200 is asked again the usual
// way: a passing 503 is retried and the change it hid is seen; a lasting
// one is the usual error.
func TestLookFailsLikeAnyRead(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.RunDelay = 20 * time.Millisecond
	srv.Seed(5)
	h := srv.Handler()
	var fail atomic.Int64 // searches to refuse
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads/search" && fail.Add(-1) >= 0 {
			http.Error(w, `{"detail":"overloaded"}`, http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL}})
	if err != nil {
		t.Fatal(err)
	}
	before := pendingOf(t, b)
	pendingOf(t, b)
	thread, err := srv.Spawn("asker", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitInterrupted(t, hs.URL, thread)
	fail.Store(1)
	after := pendingOf(t, b)
	if len(after) != len(before)+1 || after[0].ThreadID != thread {
		t.Fatalf("after a refused look: %d interrupts (was %d), first of thread %s, want %s", len(after), len(before), after[0].ThreadID, thread)
	}
	fail.Store(1 << 30)
	_, err = b.Pending(context.Background())
	if err == nil || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("a server that keeps refusing: %v", err)
	}
}

// waitInterrupted waits until thread is interrupted on the server at u.
func waitInterrupted(t *testing.T, u, thread string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(u + "/threads/" + thread)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), `"interrupted"`) {
			return
		}
	}
	t.Fatalf("thread %s not interrupted in 10s", thread)
}

// Settled says "nothing changed" only while a watcher runs and keeps its
// reading fresh, and its version moves when an interrupt arrives.
func TestSettledFollowsTheWatcher(t *testing.T) {
	t.Parallel()
	srv, _, url := counted(t, 5)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: url}, Live: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var s client.Settled = b
	pendingOf(t, b)
	if _, ok := s.Settled(); ok {
		t.Fatal("settled with no watcher")
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := b.Changes(ctx)
	settled := func() uint64 {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if v, ok := s.Settled(); ok {
				return v
			}
		}
		t.Fatal("the watcher never settled")
		return 0
	}
	v0 := settled()
	time.Sleep(100 * time.Millisecond) // several idle looks
	if v := settled(); v != v0 {
		t.Fatalf("idle looks moved the version from %d to %d", v0, v)
	}
	if _, err := srv.Spawn("asker", nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); settled() == v0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the version did not move when an interrupt arrived")
		}
	}
	cancel()
	for range ch {
	}
	if _, ok := s.Settled(); ok {
		t.Fatal("settled after the watcher stopped")
	}
}

// lookServer is the demo with 3 threads behind a test server that counts
// its searches and connections; gate, when it returns false, has answered
// the request itself.
func lookServer(t *testing.T, gate func(http.ResponseWriter, *http.Request) bool) (*httptest.Server, *atomic.Int64, *connCounter) {
	t.Helper()
	srv := demo.New()
	srv.Seed(3)
	h := srv.Handler()
	var searches atomic.Int64
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gate != nil && !gate(w, r) {
			return
		}
		if r.URL.Path == "/threads/search" {
			searches.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	var cc connCounter
	cc.watch(hs)
	hs.Start()
	t.Cleanup(hs.Close)
	return hs, &searches, &cc
}

// Credentials in the server's URL (user:password@host) go with every look
// as with every read: a look written by hand carries them too.
func TestLookSendsTheURLsCredentials(t *testing.T) {
	t.Parallel()
	var refused atomic.Int64
	hs, searches, cc := lookServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		if u, p, ok := r.BasicAuth(); !ok || u != "ann" || p != "s3cret" {
			refused.Add(1)
			http.Error(w, "who are you", http.StatusUnauthorized)
			return false
		}
		return true
	})
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: strings.Replace(hs.URL, "http://", "http://ann:s3cret@", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	first := pendingOf(t, b)
	pendingOf(t, b)
	before, opened := searches.Load(), cc.opened.Load()
	for range 20 {
		if got := pendingOf(t, b); len(got) != len(first) {
			t.Fatalf("an idle poll listed %d interrupts, then %d", len(first), len(got))
		}
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("%d requests went without the URL's credentials", n)
	}
	if n := searches.Load() - before; n != 20 {
		t.Errorf("20 idle polls made %d searches (want 20: one look each)", n)
	}
	reused(t, 20, cc.opened.Load()-opened, 0)
}

// A poll made with a context that ends when it returns (a command's, a
// TUI read's) leaves the next look alone: the end of the earlier context
// does not cut it, whatever the moment it comes.
func TestLookNotCutByAnEarlierContext(t *testing.T) {
	t.Parallel()
	hs, searches, cc := lookServer(t, nil)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL}})
	if err != nil {
		t.Fatal(err)
	}
	pendingOf(t, b)
	pendingOf(t, b)
	before, opened := searches.Load(), cc.opened.Load()
	const rounds = 200
	for range rounds {
		ctx, cancel := context.WithCancel(context.Background())
		if _, err := b.Pending(ctx); err != nil {
			t.Fatal(err)
		}
		cancel() // its end runs while the next look starts
		pendingOf(t, b)
	}
	if n := searches.Load() - before; n != 2*rounds {
		t.Errorf("%d idle polls made %d searches (want one look each: a look cut short is asked again)", 2*rounds, n)
	}
	reused(t, 2*rounds, cc.opened.Load()-opened, 0)
}
