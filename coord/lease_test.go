package coord

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/store"
)

// waitStatus polls request id's standing until it is want, or fails after
// d; as a reviewer: a look of its publisher holds its lease.
func waitStatus(t *testing.T, srv *httptest.Server, id, want string, d time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		_, st := call(t, srv, aliceTok, "GET", "/hitl/requests/"+id, nil)
		if st["status"] == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("request %s is %v after %s, want %s", id, st, d, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func publishLeased(t *testing.T, srv *httptest.Server, seconds float64) string {
	t.Helper()
	code, st := call(t, srv, ciTok, "POST", "/hitl/requests", map[string]any{"agent": "claude", "data": bashData, "lease_seconds": seconds})
	if code != 201 {
		t.Fatalf("publish: %d %v", code, st)
	}
	return st["request_id"].(string)
}

// A leased request stands while its publisher waits on it, longer than the
// lease, and is withdrawn once no wait has been open for the lease; a
// decision after that is told nothing waits for it.
func TestALeaseHoldsWhileThePublisherWaits(t *testing.T) {
	srv := httptest.NewServer(New(Options{Team: testTeam()}).Handler())
	defer srv.Close()
	id := publishLeased(t, srv, 0.3)
	_, st := call(t, srv, ciTok, "GET", "/hitl/requests/"+id+"?wait=1s", nil)
	if st["status"] != "pending" || st["publisher_waiting"] != true {
		t.Fatalf("after a wait of 1 s on a lease of 0.3 s: %v", st)
	}
	st = waitStatus(t, srv, id, "withdrawn", 5*time.Second)
	if r, _ := st["reason"].(string); !strings.Contains(r, "nothing waits for an answer") {
		t.Fatalf("the reason: %v", st)
	}
	code, out := call(t, srv, aliceTok, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}})
	if code != 409 || !strings.Contains(out["message"].(string), "nothing waits for an answer") {
		t.Fatalf("respond after the lease: %d %v", code, out)
	}
}

// A hub that stops with a leased request up, its publisher gone, and
// starts again on the same store withdraws it when the lease runs out: the
// lease is in the store, and the timers are armed again.
func TestALeaseOutlivesARestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hub.db")
	st, err := store.Open(ctx, "sqlite:"+path, "")
	if err != nil {
		t.Fatal(err)
	}
	first := New(Options{Team: testTeam(), Store: st})
	srv := httptest.NewServer(first.Handler())
	id := publishLeased(t, srv, 0.5)
	srv.Close()
	first.Close()
	if r, ok, _ := st.Standing(ctx, id); !ok || r.Status != store.Pending || r.Lease != 500*time.Millisecond || r.LeaseUntil.IsZero() {
		t.Fatalf("the stored request: %+v", r)
	}
	second := New(Options{Team: testTeam(), Store: st})
	defer second.Close()
	srv = httptest.NewServer(second.Handler())
	defer srv.Close()
	got := waitStatus(t, srv, id, "withdrawn", 5*time.Second)
	if r, _ := got["reason"].(string); !strings.Contains(r, "its hook stopped waiting") {
		t.Fatalf("the reason: %v", got)
	}
	_ = st.Close()
}

// Two hubs on one store: the publisher's wait on one holds the lease
// against the other hub's timer.
func TestALeaseHeldByAWaitOnAnotherHub(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hub.db")
	open := func() *store.Store {
		st, err := store.Open(ctx, "sqlite:"+path, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	a := New(Options{Team: testTeam(), Store: open(), Hub: "a"})
	defer a.Close()
	b := New(Options{Team: testTeam(), Store: open(), Hub: "b"})
	defer b.Close()
	sa, sb := httptest.NewServer(a.Handler()), httptest.NewServer(b.Handler())
	defer sa.Close()
	defer sb.Close()
	id := publishLeased(t, sa, 0.3) // hub a's timer runs
	_, st := call(t, sb, ciTok, "GET", "/hitl/requests/"+id+"?wait=1500ms", nil)
	if st["status"] != "pending" {
		t.Fatalf("withdrawn while its publisher waited on the other hub: %v", st)
	}
	waitStatus(t, sa, id, "withdrawn", 5*time.Second)
}

// A decision taken while its publisher waits says so (publisher_waiting),
// though the wait ends with the answer as it is taken.
func TestADecisionWhileThePublisherWaitsSaysSo(t *testing.T) {
	c := New(Options{Team: testTeam()})
	defer c.Close()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	id := publishLeased(t, srv, 5)
	done := make(chan map[string]any, 1)
	go func() {
		_, st := call(t, srv, ciTok, "GET", "/hitl/requests/"+id+"?wait=10s", nil)
		done <- st
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, waiting := c.Waiting(id); waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the publisher's wait never reached the hub")
		}
	}
	code, out := call(t, srv, aliceTok, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}})
	if code != 200 || out["publisher_waiting"] != true {
		t.Fatalf("respond: %d %v", code, out)
	}
	if st := <-done; st["status"] != "answered" || st["responded_by"] != "alice" {
		t.Fatalf("the publisher's wait: %v", st)
	}
}
