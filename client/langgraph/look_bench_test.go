package langgraph

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/hitl-sh/hitl/client/transport"
)

// BenchmarkLook is one idle look whose answer did not change, against a
// server that answers every request with the same bytes at once: the
// client's share of a look (scripts/bench measures the whole process).
func BenchmarkLook(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	body := `[{"thread_id":"t1","status":"interrupted","updated_at":"2026-11-28T00:00:00Z"}]`
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Sat, 28 Nov 2026 07:00:00 GMT\r\nX-Pagination-Total: 1\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if _, err := conn.Write(answer); err != nil {
						return
					}
				}
			}()
		}
	}()
	bk, err := New(Options{Options: transport.Options{URL: "http://" + ln.Addr().String(), APIKey: "k"}})
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
