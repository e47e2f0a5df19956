package langgraph_test

// What a poll costs once the inbox is listed: the watermark poll asks only
// what changed, and what changed is read by id. These run against the
// embedded server, behind a counter of requests and bytes.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

// counter counts the requests that pass and the bytes of their answers.
type counter struct {
	h        http.Handler
	requests atomic.Int64
	bytes    atomic.Int64
	mu       sync.Mutex
	paths    []string
}

func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.requests.Add(1)
	c.mu.Lock()
	c.paths = append(c.paths, r.Method+" "+r.URL.Path)
	c.mu.Unlock()
	c.h.ServeHTTP(&countingWriter{ResponseWriter: w, n: &c.bytes}, r)
}

func (c *counter) reset() {
	c.requests.Store(0)
	c.bytes.Store(0)
	c.mu.Lock()
	c.paths = nil
	c.mu.Unlock()
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n.Add(int64(len(b)))
	return w.ResponseWriter.Write(b)
}

func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// counted starts the embedded server with burst interrupts behind a counter.
func counted(t *testing.T, burst int) (*demo.Server, *counter, string) {
	t.Helper()
	srv := demo.New()
	srv.RunDelay = 20 * time.Millisecond
	srv.Seed(burst)
	c := &counter{h: srv.Handler()}
	hs := httptest.NewServer(c)
	t.Cleanup(hs.Close)
	return srv, c, hs.URL
}

func newBackend(t *testing.T, url string) *langgraph.Backend {
	t.Helper()
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: url}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// warm makes the first poll after the first listing. The listing's
// watermark is the server's Date less a margin (see list), so that poll
// reads the ids and times of every thread changed in the seconds before
// the listing: here, all of them, as they were just made.
func warm(t *testing.T, b *langgraph.Backend, c *counter) {
	t.Helper()
	c.reset()
	pendingOf(t, b)
	if n := c.requests.Load(); n > 8 {
		t.Errorf("the first poll after the listing took %d requests: %v", n, c.paths)
	}
}

func ids(its []client.Interrupt) []string {
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = it.ID
	}
	return out
}

func TestIdlePollAsksOnceAndSmall(t *testing.T) {
	t.Parallel()
	_, c, url := counted(t, 300)
	b := newBackend(t, url)
	first := pendingOf(t, b)
	if len(first) < 300 {
		t.Fatalf("first listing: %d interrupts", len(first))
	}
	warm(t, b, c)
	for range 3 {
		c.reset()
		again := pendingOf(t, b)
		if n, by := c.requests.Load(), c.bytes.Load(); n > 2 || by > 10<<10 {
			t.Fatalf("an idle poll of %d interrupts took %d requests and %d bytes: %v", len(again), n, by, c.paths)
		}
		if !slices.Equal(ids(again), ids(first)) {
			t.Fatal("an idle poll changed the list")
		}
	}
}

// Every change shows at the next poll, and costs the threads that changed:
// a new interrupt, an answered one gone, a thread deleted.
func TestPollSeesEveryChange(t *testing.T) {
	t.Parallel()
	srv, c, url := counted(t, 40)
	b := newBackend(t, url)
	before := pendingOf(t, b)
	warm(t, b, c)

	// A new interrupt appears, first in the list.
	thread, err := srv.Spawn("support", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "email"}}})
	if err != nil {
		t.Fatal(err)
	}
	c.reset()
	after := pendingOf(t, b)
	if len(after) != len(before)+1 || after[0].ThreadID != thread {
		t.Fatalf("new thread %s: %d then %d, first %s", thread, len(before), len(after), after[0].ThreadID)
	}
	if n := c.requests.Load(); n > 2 {
		t.Errorf("one new thread took %d requests: %v", n, c.paths)
	}

	// An answered interrupt goes: its thread's run leaves it busy, then idle.
	it := after[0]
	resume, _ := json.Marshal(map[string]any{"assistant_id": "support", "command": map[string]any{"resume": map[string]any{it.ID: map[string]any{"decisions": []any{map[string]string{"type": "approve"}}}}}})
	resp, err := http.Post(url+"/threads/"+thread+"/runs/wait", "application/json", bytes.NewReader(resume))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := pendingOf(t, b)
	for _, g := range got {
		if g.ThreadID == thread {
			t.Fatalf("answered thread %s still listed", thread)
		}
	}
	if len(got) != len(before) {
		t.Fatalf("after the answer: %d, want %d", len(got), len(before))
	}

	// A deleted thread goes too, though no poll can see it change.
	gone := got[len(got)-1].ThreadID
	req, _ := http.NewRequest(http.MethodDelete, url+"/threads/"+gone, nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %v %v", resp, err)
	}
	for _, g := range pendingOf(t, b) {
		if g.ThreadID == gone {
			t.Fatalf("deleted thread %s still listed", gone)
		}
	}
	// And the next poll is idle again.
	c.reset()
	pendingOf(t, b)
	if n := c.requests.Load(); n > 1 {
		t.Errorf("idle after a resync: %d requests: %v", n, c.paths)
	}
}

// Breakpoints and fan-out threads need their state read once, not at
// every poll.
func TestBreakpointsCostNothingWhenIdle(t *testing.T) {
	t.Parallel()
	srv, c, url := counted(t, 0)
	for range 5 {
		if _, err := srv.Spawn("release", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Spawn("fanout", nil); err != nil {
			t.Fatal(err)
		}
	}
	b := newBackend(t, url)
	pendingOf(t, b)
	warm(t, b, c)
	c.reset()
	pendingOf(t, b)
	if n := c.requests.Load(); n != 1 {
		t.Fatalf("idle poll with 10 breakpoint and fan-out threads: %d requests: %v", n, c.paths)
	}
}

// A long listing reports what it has, page by page.
func TestProgressReportsEachPage(t *testing.T) {
	t.Parallel()
	_, _, url := counted(t, 250)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: url}, PageSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	var reports []client.Progress
	all, err := b.PendingProgress(context.Background(), func(p client.Progress) { reports = append(reports, p) })
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) < 2 || len(reports[0].Items) == 0 || len(reports[0].Items) >= len(all) {
		t.Fatalf("%d reports for %d interrupts", len(reports), len(all))
	}
	last := reports[len(reports)-1]
	if last.Threads < 250 || last.Total < 250 {
		t.Fatalf("last report: %d of %d threads", last.Threads, last.Total)
	}
	for i := 1; i < len(reports); i++ {
		if len(reports[i].Items) < len(reports[i-1].Items) {
			t.Fatal("a report has fewer items than the one before")
		}
	}
}

// A server that does not sort by updated_at cannot be polled by watermark:
// it is listed in full at every poll, and nothing is missed.
func TestUnsortedServerIsListedInFull(t *testing.T) {
	t.Parallel()
	srv := demo.New()
	srv.Seed(20)
	h := srv.Handler()
	var mu sync.Mutex
	shuffle := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/threads/search" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var list []map[string]any
		json.Unmarshal(rec.Body.Bytes(), &list)
		slices.Reverse(list) // oldest first, whatever was asked
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("X-Pagination-Total", rec.Header().Get("X-Pagination-Total"))
		json.NewEncoder(w).Encode(list)
	})
	hs := httptest.NewServer(shuffle)
	t.Cleanup(hs.Close)
	b := newBackend(t, hs.URL)
	prev := pendingOf(t, b)
	n := len(prev)
	for i := range 3 {
		if _, err := srv.Spawn("asker", nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
		its := pendingOf(t, b)
		if got := len(its); got != n+i+1 {
			seen := map[string]int{}
			for _, it := range its {
				seen[it.ThreadID]++
			}
			for _, p := range prev {
				if seen[p.ThreadID] == 0 {
					t.Logf("missing %s %s %s", p.ThreadID, p.GraphID, p.Schema)
				}
			}
			t.Fatalf("poll %d: %d interrupts in %d threads, want %d", i, got, len(seen), n+i+1)
		}
		prev = its
	}
}
