package langgraph

import (
	"context"
	"strconv"
	"testing"

	"github.com/hitl-sh/hitl/client/transport"
)

// BenchmarkLook is one idle look whose answer did not change, against a
// server that answers every request with the same bytes at once: the
// client's share of a look (scripts/bench measures the whole process).
func BenchmarkLook(b *testing.B) {
	body := `[{"thread_id":"t1","status":"interrupted","updated_at":"2026-11-28T00:00:00Z"}]`
	answer := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Sat, 28 Nov 2026 07:00:00 GMT\r\nX-Pagination-Total: 1\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	u := rawServer(b, func(int64) string { return answer })
	bk, err := New(Options{Options: transport.Options{URL: u, APIKey: "k"}})
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
