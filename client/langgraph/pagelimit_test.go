package langgraph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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
