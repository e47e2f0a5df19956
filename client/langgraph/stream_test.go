package langgraph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

// watched is a backend whose watcher looks every live, and its change
// signals; the watcher stops with the test.
func watched(t *testing.T, url string, live time.Duration) (*langgraph.Backend, <-chan struct{}) {
	t.Helper()
	return watchedWith(t, url, nil, live)
}

// watchedWith is watched, listing only the threads whose metadata has meta.
func watchedWith(t *testing.T, url string, meta map[string]string, live time.Duration) (*langgraph.Backend, <-chan struct{}) {
	t.Helper()
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: url}, Metadata: meta, Live: live})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return b, b.Changes(ctx)
}

func signalWithin(t *testing.T, ch <-chan struct{}, d time.Duration) bool {
	t.Helper()
	select {
	case _, ok := <-ch:
		if !ok {
			t.Fatal("Changes closed")
		}
		return true
	case <-time.After(d):
		return false
	}
}

// A watched backend says at once when an interrupt appears, and a reader
// woken by it gets the new list without asking the server again.
func TestChangesSignalsANewInterrupt(t *testing.T) {
	t.Parallel()
	srv, c, url := counted(t, 20)
	b, ch := watched(t, url, 50*time.Millisecond)
	if !signalWithin(t, ch, 2*time.Second) {
		t.Fatal("no signal for the first listing")
	}
	n := len(pendingOf(t, b))
	time.Sleep(200 * time.Millisecond)
	select {
	case <-ch:
		t.Fatal("a signal while nothing changed")
	default:
	}
	at := time.Now()
	thread, err := srv.Spawn("asker", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !signalWithin(t, ch, time.Second) {
		t.Fatal("no signal for a new interrupt")
	}
	c.reset()
	its, err := b.Pending(client.WatchedWillDo(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	if len(its) != n+1 || its[0].ThreadID != thread {
		t.Fatalf("after the signal: %d interrupts (was %d), first of %s", len(its), n, its[0].ThreadID)
	}
	if c.requests.Load() != 0 {
		t.Errorf("the woken reader asked again: %v", c.paths)
	}
	t.Logf("signalled %v after the interrupt", time.Since(at))
}

// A listing asked for after something happened shows it, on a watched
// backend too: only a caller that says the watcher's listing will do (a
// reader woken by a signal) is answered from it.
func TestWatchedBackendListsFresh(t *testing.T) {
	t.Parallel()
	srv, c, url := counted(t, 20)
	b, ch := watched(t, url, time.Hour) // the watcher looks once, then never again
	if !signalWithin(t, ch, 2*time.Second) {
		t.Fatal("no signal for the first listing")
	}
	thread, err := srv.Spawn("asker", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.reset()
	if its, err := b.Pending(client.WatchedWillDo(context.Background())); err != nil || len(its) == 0 || its[0].ThreadID == thread {
		t.Fatalf("the watcher's listing (%v): %d interrupts, new thread first: %v", err, len(its), len(its) > 0 && its[0].ThreadID == thread)
	}
	if c.requests.Load() != 0 {
		t.Errorf("a reader the watcher's listing does for asked the server: %v", c.paths)
	}
	if its := pendingOf(t, b); len(its) == 0 || its[0].ThreadID != thread {
		t.Fatalf("a listing asked for after the spawn does not show it first: %d interrupts", len(its))
	}
}

// The stream of a resumable run in flight says when it pauses, well before
// the next look; other runs' streams are never read (on langgraphjs a
// second reader takes events from the agent's own client).
func TestChangesJoinsOnlyResumableRuns(t *testing.T) {
	t.Parallel()
	for _, resumable := range []bool{true, false} {
		srv, c, url := counted(t, 0)
		srv.RunDelay = 500 * time.Millisecond
		_, body := call(t, "POST", url+"/threads", map[string]any{})
		var th struct {
			ThreadID string `json:"thread_id"`
		}
		json.Unmarshal(body, &th)
		run, _ := json.Marshal(map[string]any{"assistant_id": "asker", "input": map[string]any{}, "stream_resumable": resumable})
		resp, err := http.Post(url+"/threads/"+th.ThreadID+"/runs", "application/json", bytes.NewReader(run))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		start := time.Now()
		_, ch := watched(t, url, 3*time.Second)
		signalWithin(t, ch, time.Second) // the first listing: a busy thread
		got := signalWithin(t, ch, 1500*time.Millisecond)
		joined := false
		c.mu.Lock()
		for _, p := range c.paths {
			joined = joined || strings.HasSuffix(p, "/stream")
		}
		c.mu.Unlock()
		if got != resumable || joined != resumable {
			t.Fatalf("resumable %v: signal within 1.5s %v, joined %v", resumable, got, joined)
		}
		if got {
			t.Logf("signalled %v after the run started (it took 500ms)", time.Since(start))
		}
	}
}

// A caller that waits while the watcher takes the first listing sees that
// listing's pages as they arrive.
func TestProgressOfTheWatchersListing(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.Seed(300)
	h := srv.Handler()
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads/search" {
			time.Sleep(30 * time.Millisecond)
		}
		h.ServeHTTP(w, r)
	})
	hs := httptest.NewServer(slow)
	t.Cleanup(hs.Close)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL}, PageSize: 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Changes(ctx)
	time.Sleep(50 * time.Millisecond) // the watcher has the turn
	var reports []int
	all, err := b.PendingProgress(ctx, func(p client.Progress) { reports = append(reports, len(p.Items)) })
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) < 2 || reports[0] >= len(all) {
		t.Fatalf("reports %v for %d interrupts", reports, len(all))
	}
}

// A run's stream that cannot be read the first time (a refused request, a
// proxy's 503) is joined again: the pause still arrives before the next
// look, an hour away here. Once, a join that failed left the run to that
// look.
func TestChangesJoinsAgainAfterAFailedJoin(t *testing.T) {
	t.Parallel()
	for _, fails := range []int32{0, 1, 2} {
		srv, c, _ := counted(t, 0)
		srv.RunDelay = 500 * time.Millisecond
		var streams atomic.Int32
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/stream") && streams.Add(1) <= fails {
				http.Error(w, "upstream busy", http.StatusServiceUnavailable)
				return
			}
			c.ServeHTTP(w, r)
		}))
		t.Cleanup(hs.Close)
		_, body := call(t, "POST", hs.URL+"/threads", map[string]any{})
		var th struct {
			ThreadID string `json:"thread_id"`
		}
		json.Unmarshal(body, &th)
		run, _ := json.Marshal(map[string]any{"assistant_id": "asker", "input": map[string]any{}, "stream_resumable": true})
		resp, err := http.Post(hs.URL+"/threads/"+th.ThreadID+"/runs", "application/json", bytes.NewReader(run))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		_, ch := watched(t, hs.URL, time.Hour)
		signalWithin(t, ch, time.Second) // the first listing: a busy thread
		if !signalWithin(t, ch, 2*time.Second) {
			t.Fatalf("%d failed joins: no signal of the pause (%d stream requests)", fails, streams.Load())
		}
		if n := streams.Load(); n != fails+1 {
			t.Fatalf("%d failed joins: the run's stream was asked for %d times", fails, n)
		}
	}
}
