package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A source's interrupt's approvals (an A2A agent's, opencode's) are kept
// in the store: they outlive the process that recorded them, a change on
// a stale read is refused (and its audit entry with it), and of approvers
// recording on one read at once, on two hubs, exactly one is taken.
func TestSourceApprovalsKeptAndChangedOnlyAsRead(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		s := open(t, spec)
		const src = "http://agent.example:9999/"
		if a, err := s.SourceApproval(ctx, src, "i1"); err != nil || a.Version != 0 || a.Approval != nil {
			t.Fatalf("none yet: %+v %v", a, err)
		}
		first := Entry{Reviewer: "alice", Source: "a2a", Door: "http", RequestID: "i1", Outcome: OutcomeApproved, Approvers: []string{"alice"}}
		if ok, err := s.SetSourceApproval(ctx, SourceApproval{Source: src, InterruptID: "i1", Approval: []byte(`{"approvers":["alice"]}`), State: Approving}, 0, &first); !ok || err != nil {
			t.Fatalf("first approval: %v %v", ok, err)
		}
		// bob read none too: refused, nothing written, no audit entry.
		bob := Entry{Reviewer: "bob", Source: "a2a", Door: "ssh", RequestID: "i1", Outcome: OutcomeApproved, Approvers: []string{"bob"}}
		if ok, err := s.SetSourceApproval(ctx, SourceApproval{Source: src, InterruptID: "i1", Approval: []byte(`{"approvers":["bob"]}`), State: Approving}, 0, &bob); ok || err != nil {
			t.Fatalf("an approval on a stale read: %v %v", ok, err)
		}
		_ = s.Close()

		s = open(t, spec) // a restarted hub
		a, err := s.SourceApproval(ctx, src, "i1")
		if err != nil || a.Version != 1 || a.State != Approving || string(a.Approval) != `{"approvers":["alice"]}` {
			t.Fatalf("after reopening: %+v %v", a, err)
		}
		if l, err := s.SourceApprovals(ctx, src); err != nil || len(l) != 1 || l[0].InterruptID != "i1" {
			t.Fatalf("listing: %+v %v", l, err)
		}
		if l, err := s.SourceApprovals(ctx, "http://other.example/"); err != nil || len(l) != 0 {
			t.Fatalf("another source's listing: %+v %v", l, err)
		}
		if h, _ := s.History(ctx, Filter{RequestID: "i1"}); len(h) != 1 || h[0].Reviewer != "alice" {
			t.Fatalf("audit: %+v", h)
		}

		// Two hubs (two handles), eight approvers completing it at once on
		// the version read: one claims it for sending.
		b := open(t, spec)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h := s
				if i%2 == 1 {
					h = b
				}
				ok, err := h.SetSourceApproval(ctx, SourceApproval{Source: src, InterruptID: "i1", Approval: []byte(fmt.Sprintf(`{"approvers":["alice","r%d"]}`, i)), State: Sending}, a.Version, nil)
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := wins.Load(); n != 1 {
			t.Fatalf("%d approvers claimed one approval", n)
		}
		a, _ = b.SourceApproval(ctx, src, "i1")
		if a.State != Sending || a.Version != 2 || !strings.HasPrefix(string(a.Approval), `{"approvers":["alice","r`) {
			t.Fatalf("claimed: %+v", a)
		}
		if l, _ := s.SourceApprovals(ctx, src); len(l) != 0 {
			t.Fatalf("an approval being sent is listed as waiting: %+v", l)
		}
		if ok, err := s.SetSourceApproval(ctx, SourceApproval{Source: src, InterruptID: "i1", Approval: a.Approval, State: Sent}, a.Version, nil); !ok || err != nil {
			t.Fatalf("sent: %v %v", ok, err)
		}
		// Kept while the retention lasts, then pruned; one still waiting
		// for approvers is kept.
		if ok, _ := s.SetSourceApproval(ctx, SourceApproval{Source: src, InterruptID: "i2", Approval: []byte(`{}`), State: Approving}, 0, nil); !ok {
			t.Fatal("i2")
		}
		if _, err := s.Prune(ctx, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if a, _ := s.SourceApproval(ctx, src, "i1"); a.State != Sent {
			t.Fatalf("pruned within the retention: %+v", a)
		}
		if _, err := s.Prune(ctx, time.Now().Add(time.Hour), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if a, _ := s.SourceApproval(ctx, src, "i1"); a.Version != 0 {
			t.Fatalf("not pruned: %+v", a)
		}
		if a, _ := s.SourceApproval(ctx, src, "i2"); a.State != Approving {
			t.Fatalf("a waiting approval pruned: %+v", a)
		}
		// Removed, on the version read only.
		a, _ = s.SourceApproval(ctx, src, "i2")
		if ok, _ := s.SetSourceApproval(ctx, SourceApproval{Source: src, InterruptID: "i2"}, a.Version+1, nil); ok {
			t.Fatal("removed on a version never read")
		}
		if ok, _ := s.SetSourceApproval(ctx, SourceApproval{Source: src, InterruptID: "i2"}, a.Version, nil); !ok {
			t.Fatal("not removed")
		}
		if a, _ := s.SourceApproval(ctx, src, "i2"); a.Version != 0 {
			t.Fatalf("still there: %+v", a)
		}
	})
}
