package realserver

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// Settle waits out a busy thread and a running run, then tells a thread
// left idle with its interrupt (langhost's lost update) from one that
// waits as it should, or ended.
func TestSettle(t *testing.T) {
	for _, c := range []struct {
		name, settled string
		lost          bool
	}{
		{"interrupted", `{"status":"interrupted","interrupts":{"t":[{"id":"i1"}]}}`, false},
		{"idle with its interrupt", `{"status":"idle","interrupts":{"t":[{"id":"i1"}]}}`, true},
		{"idle, ended", `{"status":"idle","interrupts":{}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var reads atomic.Int32
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := reads.Add(1)
				switch r.URL.Path {
				case "/threads/th/runs":
					if n < 5 {
						w.Write([]byte(`[{"status":"running"}]`))
						return
					}
					w.Write([]byte(`[{"status":"success"}]`))
				default:
					if n < 3 {
						w.Write([]byte(`{"status":"busy"}`))
						return
					}
					w.Write([]byte(c.settled))
				}
			}))
			defer hs.Close()
			if got := settle(t, hs.URL, "th", 300*time.Millisecond); got != c.lost {
				t.Fatalf("Settle = %v, want %v", got, c.lost)
			}
			if reads.Load() < 6 {
				t.Fatalf("settled after %d reads, while the thread was busy or its run running", reads.Load())
			}
		})
	}
}
