package langgraph

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hitl-sh/hitl/client/transport"
)

// BenchmarkLook is one idle look whose answer did not change, against a
// server that answers every request with the same bytes at once: the
// client's share of a look (scripts/bench measures the whole process).
func BenchmarkLook(b *testing.B) {
	body := `[{"thread_id":"t1","status":"interrupted","updated_at":"2026-11-28T00:00:00Z"}]`
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Pagination-Total", "1")
		io.WriteString(w, body)
	}))
	b.Cleanup(hs.Close)
	bk, err := New(Options{Options: transport.Options{URL: hs.URL, APIKey: "k"}})
	if err != nil {
		b.Fatal(err)
	}
	q := query{limit: watermarkPage, sel: lightSelect}
	ctx := context.Background()
	if _, _, ok := bk.looker.ask(ctx, bk, q); !ok {
		b.Fatal("the look was not answered")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, _, ok := bk.looker.ask(ctx, bk, q); !ok {
			b.Fatal("the look was not answered")
		}
	}
}
