package langgraph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

// inMemory answers every request of b with h, in the calling goroutine:
// no socket, so that a test's clock (testing/synctest) moves only when
// everything waits on it.
type inMemory struct{ h http.Handler }

func (m inMemory) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// watchedInMemory is a backend of the demo server srv, reached in memory
// through a counter, watched at the default pace until the test ends.
func watchedInMemory(t *testing.T, srv *demo.Server) (*langgraph.Backend, *counter, <-chan struct{}) {
	t.Helper()
	c := &counter{h: srv.Handler()}
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: "http://demo.invalid"}})
	if err != nil {
		t.Fatal(err)
	}
	rt := inMemory{c}
	b.Reads.SetTransport(rt)
	b.Writes.SetTransport(rt)
	b.Long.SetTransport(rt)
	b.HTTPClient().Transport = rt
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return b, c, b.Changes(ctx)
}

// signalled reports whether a change signal is waiting.
func signalled(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// While the reviewer is there the watcher looks five times a second; left
// alone (Attend(false)) about ten times a minute, and a reviewer coming
// back (Attend(true)) brings a look at once. Counted at the server, on a
// clock the test moves.
func TestWatcherLooksSeldomWhileNobodyIsThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := demo.New()
		srv.Seed(5)
		b, c, ch := watchedInMemory(t, srv)
		<-ch // the first listing
		synctest.Wait()

		c.reset()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := c.requests.Load(); n < 250 {
			t.Fatalf("while the reviewer is there: %d requests a minute, want about 300 (five looks a second)", n)
		}

		b.Attend(false)
		time.Sleep(10 * time.Second) // the look under way when told
		synctest.Wait()
		c.reset()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := c.requests.Load(); n > 12 || n < 8 {
			t.Fatalf("left alone: %d requests in a minute, want at most 12 (about 10): %v", n, c.paths)
		}

		// Something arrives while nobody is there: seen at the next look,
		// unless the reviewer comes back first, which looks at once.
		time.Sleep(time.Second) // just after a look
		synctest.Wait()
		signalled(ch)
		if _, err := srv.Spawn("asker", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if signalled(ch) {
			t.Fatal("left alone, the watcher looked within a second of the last look")
		}
		c.reset()
		b.Attend(true)
		synctest.Wait() // no time passes
		if !signalled(ch) {
			t.Fatalf("back: no look at once (%d requests)", c.requests.Load())
		}
	})
}

// A run the watcher joined while the reviewer was there still says the
// moment it pauses once nobody is there: not at the next look, seconds on.
func TestJoinedRunPausesAtOnceWhileNobodyIsThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := demo.New()
		srv.RunDelay = 20 * time.Second
		srv.Seed(0)
		b, c, ch := watchedInMemory(t, srv)
		<-ch
		synctest.Wait()
		var th struct {
			ThreadID string `json:"thread_id"`
		}
		post := func(path string, body any, into any) {
			t.Helper()
			raw, _ := json.Marshal(body)
			req := httptest.NewRequest("POST", path, bytes.NewReader(raw))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			c.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
			}
			if into != nil {
				json.Unmarshal(rec.Body.Bytes(), into)
			}
		}
		post("/threads", map[string]any{}, &th)
		post("/threads/"+th.ThreadID+"/runs", map[string]any{"assistant_id": "asker", "input": map[string]any{}, "stream_resumable": true}, nil)
		start := time.Now()
		time.Sleep(time.Second) // the watcher sees the busy thread and joins its run
		synctest.Wait()
		joined := false
		c.mu.Lock()
		for _, p := range c.paths {
			joined = joined || (strings.HasPrefix(p, "GET /threads/"+th.ThreadID+"/runs/") && strings.HasSuffix(p, "/stream"))
		}
		c.mu.Unlock()
		if !joined {
			t.Fatalf("the run was not joined: %v", c.paths)
		}
		b.Attend(false)
		signalled(ch)
		paused := start.Add(srv.RunDelay)
		for !signalled(ch) {
			time.Sleep(10 * time.Millisecond)
			synctest.Wait()
		}
		if late := time.Since(paused); late > 100*time.Millisecond {
			t.Fatalf("the pause was signalled %v after it happened, left alone", late)
		}
	})
}
