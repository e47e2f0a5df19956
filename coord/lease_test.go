package coord

import (
	"context"
	"fmt"
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

// A hub that stops with leased requests up, and starts again on the same
// store after their leases ran out, gives each a full lease (and the time
// a hook takes to ask again) from its start: a publisher that kept asking
// comes back and nothing is withdrawn; a request nobody comes back for is
// withdrawn then, and the reason says no hook came back since the start.
func TestALeaseOutlivesARestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hub.db")
	st, err := store.Open(ctx, "sqlite:"+path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	first := New(Options{Team: testTeam(), Store: st})
	srv := httptest.NewServer(first.Handler())
	back := publishLeased(t, srv, 0.5) // its publisher comes back
	gone := publishLeased(t, srv, 0.5) // its publisher died with the hub down
	srv.Close()
	first.Close()
	if r, ok, _ := st.Standing(ctx, gone); !ok || r.Status != store.Pending || r.Lease != 500*time.Millisecond || r.LeaseUntil.IsZero() {
		t.Fatalf("the stored request: %+v", r)
	}
	// The hub is down for longer than the lease.
	time.Sleep(time.Second)
	if r, _, _ := st.Standing(ctx, gone); !r.LeaseUntil.Before(time.Now()) {
		t.Fatalf("the stored lease has not run out while the hub was down: %+v", r)
	}
	started := time.Now()
	second := New(Options{Team: testTeam(), Store: st})
	defer second.Close()
	srv = httptest.NewServer(second.Handler())
	defer srv.Close()
	// Its publisher asks again 1 s after the start (a hook retries a lost
	// hub at most 2 s apart): the request is there, still pending.
	time.Sleep(time.Second)
	_, got := call(t, srv, ciTok, "GET", "/hitl/requests/"+back+"?wait=10ms", nil)
	if got["status"] != "pending" {
		t.Fatalf("the request whose publisher came back 1 s after the start: %v", got)
	}
	for _, id := range []string{back, gone} {
		if r, _, _ := st.Standing(ctx, id); r.Status != store.Pending {
			t.Fatalf("request %s withdrawn %s after the start: %q", id, time.Since(started).Round(time.Millisecond), r.Reason)
		}
	}
	// The other is withdrawn a lease and rejoin after the start, saying so.
	got = waitStatus(t, srv, gone, "withdrawn", 10*time.Second)
	if after := time.Since(started); after < 500*time.Millisecond+rejoin {
		t.Fatalf("withdrawn %s after the start, before its hook could come back", after)
	}
	if r, _ := got["reason"].(string); r != "no hook came back for it within 4s of the hub's start: nothing waits for an answer" {
		t.Fatalf("the reason: %v", got)
	}
	// The one whose publisher came back, then stopped, is withdrawn a
	// lease after that, in the running hub's words.
	got = waitStatus(t, srv, back, "withdrawn", 10*time.Second)
	if r, _ := got["reason"].(string); !strings.HasPrefix(r, "its hook stopped waiting (none for 500ms:") {
		t.Fatalf("the reason: %v", got)
	}
}

// A hub that starts again while its request's publisher waits on another
// hub on the store does not cut the lease that wait holds: the request
// stands while the wait lasts, beyond the restarted hub's own timer.
func TestARestartKeepsALeaseHeldOnAnotherHub(t *testing.T) {
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
	sta := open()
	a := New(Options{Team: testTeam(), Store: sta, Hub: "a"})
	b := New(Options{Team: testTeam(), Store: open(), Hub: "b"})
	defer b.Close()
	sa, sb := httptest.NewServer(a.Handler()), httptest.NewServer(b.Handler())
	defer sb.Close()
	id := publishLeased(t, sa, 0.3)
	sa.Close()
	a.Close() // hub a stops; its hook moves to hub b
	const wait = 5 * time.Second
	done := make(chan map[string]any, 1)
	go func() {
		_, st := call(t, sb, ciTok, "GET", "/hitl/requests/"+id+"?wait="+wait.String(), nil)
		done <- st
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, waiting := b.Waiting(id); waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the publisher's wait never reached hub b")
		}
	}
	held, _, _ := sta.Standing(ctx, id)
	// Hub a starts again: its timer is a lease and rejoin from now, sooner
	// than the wait on b ends.
	again := New(Options{Team: testTeam(), Store: sta, Hub: "a"})
	defer again.Close()
	if r, _, _ := sta.Standing(ctx, id); r.LeaseUntil.Before(held.LeaseUntil) {
		t.Fatalf("hub a's start cut the lease held on hub b: %s, was %s", r.LeaseUntil, held.LeaseUntil)
	}
	if st := <-done; st["status"] != "pending" {
		t.Fatalf("withdrawn while its publisher waited on hub b: %v", st)
	}
}

// A request withdrawn with approvals on it leaves each approver's story in
// the team's audit log: their approval was dropped with the request
// (OutcomeWithdrawn), naming the approvals and why.
func TestAWithdrawalWithApprovalsIsAudited(t *testing.T) {
	c := New(Options{Team: rulesTeam()})
	defer c.Close()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	id := publishLeased(t, srv, 0.3)
	quiet := publishLeased(t, srv, 0.3) // no approval: no entry
	approve := map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}
	if code, said := respondAs(t, srv, aliceTok, id, approve); code != 202 {
		t.Fatalf("alice's approval: %d %s", code, said)
	}
	waitStatus(t, srv, id, "withdrawn", 5*time.Second)
	waitStatus(t, srv, quiet, "withdrawn", 5*time.Second)
	es, err := c.Store().History(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(es) - 1; i >= 0; i-- {
		got = append(got, es[i].RequestID+" "+es[i].Reviewer+": "+es[i].Outcome+" ["+strings.Join(es[i].Approvers, ",")+"] "+es[i].Door)
	}
	want := []string{id + " alice: approval-recorded [alice] http", id + " alice: withdrawn [alice] lease"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the audit log:\n got %q\nwant %q", got, want)
	}
	e := es[0]
	if e.Source != "publisher" || e.Role != "approver" || e.Decision != "approve" || fmt.Sprint(e.Tools) != "[Bash]" ||
		e.Message != "the request was withdrawn with 1 of 2 approvals (alice): its hook stopped waiting (none for 300ms: killed, or cut off from the hub): nothing waits for an answer" {
		t.Fatalf("the withdrawal's entry: %+v", e)
	}
	if hist, err := c.Store().History(context.Background(), store.Filter{Outcome: store.OutcomeWithdrawn}); err != nil || len(hist) != 1 {
		t.Fatalf("--outcome withdrawn: %v %v", hist, err)
	}
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
