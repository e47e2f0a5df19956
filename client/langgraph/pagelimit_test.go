package langgraph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
)

// A server that takes at most 100 threads a page (aegra refuses a larger
// limit with FastAPI's 422) is listed whole, in pages it takes.
func TestListingWithinTheServersLargestPage(t *testing.T) {
	const n = 250
	var refused atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var q struct {
			Limit  int `json:"limit"`
			Offset int `json:"offset"`
		}
		json.NewDecoder(r.Body).Decode(&q)
		if q.Limit > 100 {
			refused.Add(1)
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintf(w, `{"detail":[{"type":"less_than_equal","loc":["body","limit"],"msg":"Input should be less than or equal to 100","input":%d,"ctx":{"le":100}}]}`, q.Limit)
			return
		}
		var page []map[string]any
		for i := q.Offset; i < n && i < q.Offset+q.Limit; i++ {
			at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Second).Format(time.RFC3339)
			page = append(page, map[string]any{"thread_id": fmt.Sprintf("t%03d", i), "status": "interrupted",
				"created_at": at, "updated_at": at, "metadata": map[string]any{"graph_id": "g"},
				"interrupts": map[string]any{"task": []any{map[string]any{"id": fmt.Sprintf("%032d", i), "value": "ok?"}}}})
		}
		json.NewEncoder(w).Encode(page)
	}))
	defer hs.Close()
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL, ReadRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	its, err := b.Pending(context.Background())
	if err != nil || len(its) != n {
		t.Fatalf("%d listed of %d: %v", len(its), n, err)
	}
	// The listings at once (interrupted, busy) may each be refused once;
	// after that none asks for more than the server's most.
	before := refused.Load()
	if its, err := b.Pending(context.Background()); err != nil || len(its) != n {
		t.Fatalf("again: %d listed of %d: %v", len(its), n, err)
	}
	if refused.Load() != before || before == 0 {
		t.Fatalf("refused %d times, then %d more", before, refused.Load()-before)
	}
}

// Threads answered while hitl pages (they leave the search, and every
// later one moves up) do not make it skip the first threads of the next
// page.
func TestListingWhileThreadsLeave(t *testing.T) {
	const n = 150
	var gone atomic.Int32 // how many of the newest threads were answered
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var q struct {
			Limit  int    `json:"limit"`
			Offset int    `json:"offset"`
			Status string `json:"status"`
		}
		json.NewDecoder(r.Body).Decode(&q)
		page := []map[string]any{}
		if q.Status == "interrupted" {
			first := int(gone.Load())
			for i := first + q.Offset; i < n && i < first+q.Offset+q.Limit; i++ {
				at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Second).Format(time.RFC3339)
				page = append(page, map[string]any{"thread_id": fmt.Sprintf("t%03d", i), "status": "interrupted",
					"created_at": at, "updated_at": at, "metadata": map[string]any{"graph_id": "g"},
					"interrupts": map[string]any{"task": []any{map[string]any{"id": fmt.Sprintf("%032d", i), "value": "ok?"}}}})
			}
			if q.Offset == 0 {
				gone.Store(4) // four answered right after the first page
			}
		}
		json.NewEncoder(w).Encode(page)
	}))
	defer hs.Close()
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL, ReadRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, it := range its {
		listed[it.ThreadID] = true
	}
	for i := 4; i < n; i++ {
		if id := fmt.Sprintf("t%03d", i); !listed[id] {
			t.Fatalf("%s, still waiting, was skipped (%d listed)", id, len(its))
		}
	}
}

// Threads that leave the listing while hitl pages through it (answered,
// deleted) move every later one up: more of them than the pages overlap
// would skip threads that still wait. On each real server: the moment the
// first page is answered, three of its threads are deleted; every other
// thread must still be listed (the next page lacks the thread that ended
// the first, and hitl reads again from a page earlier).
func TestListingWhileMoreThreadsLeaveThanThePagesOverlap(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		if tg.kind == "" {
			t.Skip("the demo has its own test of paging (TestListingWhileThreadsLeave)")
		}
		meta := tag(t)
		const n = 12
		made := map[string]bool{}
		for range n {
			made[start(t, tg, tg.single, anyMap(meta))] = true
		}
		u, _ := url.Parse(tg.url)
		p := httputil.NewSingleHostReverseProxy(u)
		var done atomic.Bool
		var deleted []string
		p.ModifyResponse = func(r *http.Response) error {
			if r.Request.Method != "POST" || r.Request.URL.Path != "/threads/search" || done.Load() {
				return nil
			}
			body, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				return err
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var page []struct {
				ThreadID string `json:"thread_id"`
				Status   string `json:"status"`
			}
			if json.Unmarshal(body, &page) != nil || len(page) < 4 || page[0].Status != "interrupted" || !done.CompareAndSwap(false, true) {
				return nil
			}
			// The first page of waiting threads: three of it leave.
			for _, th := range page[:3] {
				if code, b := call(t, "DELETE", tg.url+"/threads/"+th.ThreadID, nil); code >= 300 {
					return fmt.Errorf("delete %s: %d %s", th.ThreadID, code, b)
				}
				deleted = append(deleted, th.ThreadID)
			}
			return nil
		}
		hs := httptest.NewServer(p)
		t.Cleanup(hs.Close)
		b := backend(t, target{url: hs.URL}, meta, 4)
		its := pendingOf(t, b)
		if !done.Load() || len(deleted) != 3 {
			t.Fatalf("the first page was not seen: %d deleted", len(deleted))
		}
		listed := map[string]bool{}
		for _, it := range its {
			listed[it.ThreadID] = true
		}
		for _, id := range deleted {
			delete(made, id)
		}
		for id := range made {
			if !listed[id] {
				t.Errorf("thread %s, still waiting, was skipped", id)
			}
		}
	})
}
