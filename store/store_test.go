package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/pgtest"
)

// each runs f against SQLite and against PostgreSQL.
func each(t *testing.T, f func(t *testing.T, spec string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, "sqlite:"+filepath.Join(t.TempDir(), "hub.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, pgtest.Database(t)) })
}

func open(t *testing.T, spec string) *Store {
	t.Helper()
	s, err := Open(context.Background(), spec, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// A request and its answer outlive the process that stored them; a
// finished request's body is not kept (its answer is).
func TestRequestsSurviveReopening(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		s := open(t, spec)
		now := time.Now().UTC()
		if err := s.Publish(ctx, Request{ID: "req-1", Publisher: "ci", Agent: "claude", SessionID: "s", CreatedAt: now, Data: []byte(`{"a":1}`)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Publish(ctx, Request{ID: "req-2", Publisher: "ci", Agent: "claude\x00", SessionID: "s", CreatedAt: now.Add(time.Millisecond), Data: []byte(`{"b":2}`)}); err != nil {
			t.Fatal(err)
		}
		ok, err := s.Finish(ctx, "req-1", 0, Finish{Status: Answered, Response: []byte(`{"decisions":[]}`), RespondedBy: "alice", DecisionID: "d1", At: now})
		if err != nil || !ok {
			t.Fatalf("finish: %v %v", ok, err)
		}
		_ = s.Close()

		s = open(t, spec)
		r, found, err := s.Get(ctx, "req-1")
		if err != nil || !found || r.Status != Answered || r.RespondedBy != "alice" || string(r.Response) != `{"decisions":[]}` || r.Data != nil {
			t.Fatalf("req-1 after reopening: %+v %v %v", r, found, err)
		}
		p, err := s.Pending(ctx)
		if err != nil || len(p) != 1 || p[0].ID != "req-2" || p[0].Agent != "claude\uFFFD" {
			t.Fatalf("pending after reopening: %+v %v", p, err)
		}
		evs, err := s.Events(ctx, 0, "h", 10)
		if err != nil || len(evs) != 3 || evs[0].Type != "hitl_asked" || evs[2].Type != "hitl_answered" || evs[2].RequestID != "req-1" {
			t.Fatalf("events: %+v %v", evs, err)
		}
		// A second finish changes nothing.
		ok, err = s.Finish(ctx, "req-1", 0, Finish{Status: Withdrawn, Reason: "late", At: now})
		if err != nil || ok {
			t.Fatalf("second finish: %v %v", ok, err)
		}
	})
}

// Of many decisions on one request at once, exactly one takes it.
func TestOneFinishWins(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		a, b := open(t, spec), (*Store)(nil)
		if strings.HasPrefix(spec, "sqlite:") {
			b = open(t, spec) // a second handle on the file
		} else {
			b = open(t, spec) // a second hub on the database
		}
		for round := range 10 {
			id := fmt.Sprintf("req-%d", round)
			if err := a.Publish(ctx, Request{ID: id, Publisher: "ci", CreatedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
			var wins atomic.Int32
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := a
					if i%2 == 1 {
						s = b
					}
					e := Entry{Reviewer: fmt.Sprint(i), Source: "hook", Door: "http", RequestID: id, Outcome: OutcomeSent}
					ok, err := s.Finish(ctx, id, 0, Finish{Status: Answered, RespondedBy: fmt.Sprint(i), At: time.Now(), Audit: &e})
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
				t.Fatalf("round %d: %d decisions took the request", round, n)
			}
			// The audit log has the one taken, written with it; the
			// others, not taken, wrote nothing.
			r, _, _ := a.Standing(ctx, id)
			h, err := b.History(ctx, Filter{RequestID: id})
			if err != nil || len(h) != 1 || h[0].Reviewer != r.RespondedBy || h[0].Outcome != OutcomeSent {
				t.Fatalf("round %d: taken by %q, the audit log has %+v (%v)", round, r.RespondedBy, h, err)
			}
		}
	})
}

// An approval recorded on what was read is refused when the request
// changed since, and its audit entry with it.
func TestApprovalOnAStaleReadIsRefused(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		s := open(t, spec)
		_ = s.Publish(ctx, Request{ID: "r", Publisher: "ci", CreatedAt: time.Now()})
		r, _, _ := s.Get(ctx, "r")
		if ok, err := s.SetApproval(ctx, "r", r.Version, []byte(`{"approvers":["alice"]}`), time.Now(), &Entry{Reviewer: "alice", RequestID: "r", Outcome: OutcomeApproved}); !ok || err != nil {
			t.Fatalf("first: %v %v", ok, err)
		}
		if ok, err := s.SetApproval(ctx, "r", r.Version, []byte(`{"approvers":["bob"]}`), time.Now(), &Entry{Reviewer: "bob", RequestID: "r", Outcome: OutcomeApproved}); ok || err != nil {
			t.Fatalf("on a stale read: %v %v", ok, err)
		}
		if h, err := s.History(ctx, Filter{RequestID: "r"}); err != nil || len(h) != 1 || h[0].Reviewer != "alice" {
			t.Fatalf("the audit log: %+v %v", h, err)
		}
		r, _, _ = s.Get(ctx, "r")
		if string(r.Approval) != `{"approvers":["alice"]}` {
			t.Fatalf("approval: %s", r.Approval)
		}
	})
}

// A hub learns of another hub's change without asking: LISTEN/NOTIFY.
func TestAnotherHubsChangeIsSignalled(t *testing.T) {
	ctx := context.Background()
	spec := pgtest.Database(t)
	a, b := open(t, spec), open(t, spec)
	changed := b.Changed()
	if err := a.Publish(ctx, Request{ID: "r", Publisher: "ci", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("hub b was not told of hub a's request")
	}
	if ok, _ := b.Has(ctx, "r"); !ok {
		t.Fatal("hub b does not see it")
	}
}

// A store written by a newer hitl is refused, saying what to do.
func TestNewerSchemaIsRefused(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		s := open(t, spec)
		if _, err := s.db.Exec(s.q("UPDATE schema_version SET version = ?"), SchemaVersion()+1); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		_, err := Open(context.Background(), spec, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("schema version %d, newer than this hitl knows (%d)", SchemaVersion()+1, SchemaVersion())) ||
			!strings.Contains(err.Error(), "give this one another store") || strings.Contains(err.Error(), "xxxxx") && !strings.Contains(spec, "@") {
			t.Fatalf("open: %v", err)
		}
	})
}

// The audit log links a completing decision to its first approval, and
// filters.
func TestAuditLinksTheFirstApproval(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		s := open(t, spec)
		first, err := s.Audit(ctx, Entry{Reviewer: "alice", Source: "hook", Door: "http", RequestID: "r", Tools: []string{"Bash"}, Decision: "approve",
			Value: []byte(`{"decisions":[{"type":"approve"}]}`), Approvers: []string{"alice"}, Outcome: OutcomeApproved})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = s.Audit(ctx, Entry{Reviewer: "carol", Source: "langgraph", Door: "ssh", RequestID: "x", Tools: []string{"Read"}, Outcome: OutcomeSent, Approvers: []string{"carol"}})
		second, err := s.Audit(ctx, Entry{Reviewer: "bob", Source: "hook", Door: "ssh", RequestID: "r", Tools: []string{"Bash"}, Decision: "approve",
			Approvers: []string{"alice", "bob"}, Outcome: OutcomeSent})
		if err != nil {
			t.Fatal(err)
		}
		h, err := s.History(ctx, Filter{Tool: "Bash"})
		if err != nil || len(h) != 2 || h[0].ID != second || h[0].First != first || h[1].Value == nil {
			t.Fatalf("history: %+v %v", h, err)
		}
		h, _ = s.History(ctx, Filter{Reviewer: "carol"})
		if len(h) != 1 || h[0].Source != "langgraph" {
			t.Fatalf("by reviewer: %+v", h)
		}
	})
}

// An outcome has one spelling, however an older hub wrote it: read as
// today's, filtered by today's, and still linked as a first approval. A
// request is found by the short id the screens show, ambiguity and all.
func TestAuditOutcomesAndShortIDs(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		s := open(t, spec)
		old, err := s.Audit(ctx, Entry{Reviewer: "alice", Source: "hook", Door: "http", RequestID: "req-a810aa", Approvers: []string{"alice"}, Outcome: "approval recorded"})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = s.Audit(ctx, Entry{Reviewer: "bob", Source: "hook", Door: "http", RequestID: "req-a810bb", Outcome: "handled elsewhere"})
		second, _ := s.Audit(ctx, Entry{Reviewer: "bob", Source: "hook", Door: "http", RequestID: "req-a810aa", Approvers: []string{"alice", "bob"}, Outcome: OutcomeSent})
		h, err := s.History(ctx, Filter{Outcome: OutcomeApproved})
		if err != nil || len(h) != 1 || h[0].ID != old || h[0].Outcome != "approval-recorded" {
			t.Fatalf("approval-recorded: %+v %v", h, err)
		}
		if h, _ = s.History(ctx, Filter{Outcome: "handled-elsewhere"}); len(h) != 1 || h[0].Outcome != OutcomeConflict {
			t.Fatalf("handled-elsewhere: %+v", h)
		}
		if h, _ = s.History(ctx, Filter{RequestID: "req-a810aa"}); len(h) != 2 || h[0].ID != second || h[0].First != old {
			t.Fatalf("by request: %+v", h)
		}
		if ids, err := s.AuditedRequests(ctx, "req-a810", 3); err != nil || strings.Join(ids, ",") != "req-a810aa,req-a810bb" {
			t.Fatalf("req-a810: %v %v", ids, err)
		}
		if ids, _ := s.AuditedRequests(ctx, "req-a810b", 3); strings.Join(ids, ",") != "req-a810bb" {
			t.Fatalf("req-a810b: %v", ids)
		}
		if ids, _ := s.AuditedRequests(ctx, "req_a8%", 3); len(ids) != 0 {
			t.Fatalf("a prefix is not a pattern: %v", ids)
		}
		for _, o := range []string{"approval recorded", "approval-recorded", "sent", "approval-dropped"} {
			if _, ok := OutcomeOf(o); !ok {
				t.Errorf("%q not known", o)
			}
		}
		if _, ok := OutcomeOf("bogus"); ok {
			t.Error("bogus known")
		}
	})
}

// A waiter on one request is told of its change, not of another's; on
// PostgreSQL, of another hub's change too.
func TestRequestChangedIsPerRequest(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		a := open(t, spec)
		b := a
		if !strings.HasPrefix(spec, "sqlite:") {
			b = open(t, spec)
		}
		for _, id := range []string{"r1", "r2"} {
			if err := a.Publish(ctx, Request{ID: id, Publisher: "ci", CreatedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(100 * time.Millisecond) // b hears of the publishing first
		w1, w2 := b.RequestChanged("r1"), b.RequestChanged("r2")
		if ok, err := a.Finish(ctx, "r2", 0, Finish{Status: Withdrawn, At: time.Now()}); !ok || err != nil {
			t.Fatal(ok, err)
		}
		select {
		case <-w2:
		case <-time.After(10 * time.Second):
			t.Fatal("the waiter on r2 was not told")
		}
		select {
		case <-w1:
			t.Fatal("the waiter on r1 was told of r2's change")
		case <-time.After(200 * time.Millisecond):
		}
	})
}

// Retention: a finished request is readable until pruned; a pending one
// is never pruned; a hub's own events go sooner than the shared log.
func TestPruneKeepsWhatWaits(t *testing.T) {
	each(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		s := open(t, spec)
		t0 := time.Now().UTC()
		_ = s.Publish(ctx, Request{ID: "done", Publisher: "ci", CreatedAt: t0})
		_ = s.Publish(ctx, Request{ID: "waits", Publisher: "ci", CreatedAt: t0})
		if ok, err := s.Finish(ctx, "done", 0, Finish{Status: Answered, RespondedBy: "alice", At: t0}); !ok || err != nil {
			t.Fatal(ok, err)
		}
		_ = s.Append(ctx, Event{Type: "hitl_asked", Hub: "h1", Data: []byte(`{}`), At: t0})
		if n, err := s.Prune(ctx, t0.Add(-time.Second), t0.Add(time.Second)); n != 0 || err != nil {
			t.Fatalf("within retention: pruned %d, %v", n, err)
		}
		if _, ok, _ := s.Get(ctx, "done"); !ok {
			t.Fatal("a finished request went within its retention")
		}
		if evs, _ := s.Events(ctx, 0, "h1", 10); len(evs) != 3 {
			t.Fatalf("events: %+v (a hub's own event should be gone, the log's stay)", evs)
		}
		if n, err := s.Prune(ctx, t0.Add(time.Second), t0.Add(time.Second)); n != 1 || err != nil {
			t.Fatalf("past retention: pruned %d, %v", n, err)
		}
		if _, ok, _ := s.Get(ctx, "done"); ok {
			t.Fatal("a finished request outlived its retention")
		}
		if _, ok, _ := s.Get(ctx, "waits"); !ok {
			t.Fatal("a pending request was pruned")
		}
	})
}

// Of two hubs on one PostgreSQL, one is elected to watch; when its
// connection goes (the hub dies), the other is, without asking again in
// a loop. The elected one's word of a change reaches the other.
func TestOneHubIsElected(t *testing.T) {
	spec := pgtest.Database(t)
	a, b := open(t, spec), open(t, spec)
	actx, stopA := context.WithCancel(context.Background())
	defer stopA()
	ea, _ := a.Lead(actx, 42)
	select {
	case <-ea:
	case <-time.After(10 * time.Second):
		t.Fatal("the first hub was not elected")
	}
	bctx, stopB := context.WithCancel(context.Background())
	defer stopB()
	eb, _ := b.Lead(bctx, 42)
	select {
	case <-eb:
		t.Fatal("two hubs elected")
	case <-time.After(500 * time.Millisecond):
	}
	heard := b.UpstreamChanged()
	if err := a.TellUpstreamChanged(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-heard:
	case <-time.After(10 * time.Second):
		t.Fatal("the other hub did not hear of the change")
	}
	stopA() // hub a's lock connection goes
	select {
	case <-eb:
	case <-time.After(10 * time.Second):
		t.Fatal("the second hub was not elected when the first went")
	}
}
