package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/internal/pgtest"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
)

// agent is a source that keeps no approvals (as an A2A agent or opencode),
// recording every submission that reached it.
type agent struct {
	*fake.Backend
	mu   sync.Mutex
	subs []*client.Submission
}

func (a *agent) Resume(ctx context.Context, s *client.Submission) (client.Receipt, error) {
	a.mu.Lock()
	a.subs = append(a.subs, s)
	a.mu.Unlock()
	return a.Backend.Resume(ctx, s)
}

// sent is every submission of interrupt id that reached the agent.
func (a *agent) sent(id string) []*client.Submission {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*client.Submission
	for _, s := range a.subs {
		if s.Items[0].Interrupt.ID == id {
			out = append(out, s)
		}
	}
	return out
}

func deletion(id string) client.Interrupt {
	return client.Interrupt{ID: id, ThreadID: "task-" + id, Payload: client.Payload{Actions: []client.Action{{Name: "delete_records"}}}}
}

func approveOf(who string, it client.Interrupt) *client.Submission {
	ds := []client.Decision{{Type: client.Approve}}
	v, _ := json.Marshal(map[string]any{"decisions": ds})
	return &client.Submission{Reviewer: who, ThreadID: it.ThreadID, DecisionID: who + "-" + it.ID,
		Items: []client.Item{{Interrupt: it, Decisions: ds, Resume: client.Resume{Value: v}}}}
}

// storeHub is one hub on a store: its merged inbox over the agent, and
// the gate over that.
type storeHub struct {
	st     *store.Store
	shared *Shared
	team   *team.Config
}

func openStoreHub(t *testing.T, spec string, a *agent, tm *team.Config) *storeHub {
	t.Helper()
	st, err := store.Open(context.Background(), spec, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	m := NewMerged(Source{Name: "the A2A agent", Kind: "a2a", Backend: a})
	m.Store = st
	h := &storeHub{st: st, shared: NewShared(m), team: tm}
	h.shared.Team = func() *team.Config { return h.team }
	return h
}

func eachStore(t *testing.T, f func(t *testing.T, spec string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, "sqlite:"+filepath.Join(t.TempDir(), "hub.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, pgtest.Database(t)) })
}

func twoPersonTeam(names ...string) *team.Config {
	t := &team.Config{Reviewers: map[string]team.Reviewer{}, Rules: []team.Rule{{Tools: []string{"delete_*"}, Approvals: 2}}}
	for _, n := range names {
		t.Reviewers[n] = team.Reviewer{Role: team.Approver}
	}
	return t
}

// The two-person approvals of a source that keeps none (an A2A agent,
// opencode) live in the hub's store: a first approval outlives the hub
// that recorded it; two hubs on one store share them; approvers racing,
// on one hub or two, send once (first approvals at once: both counted;
// confirmations at once: one sends, the other is told); a reviewer
// removed from the team loses theirs at reload.
func TestStoredApprovalsOfASourceThatKeepsNone(t *testing.T) {
	eachStore(t, func(t *testing.T, spec string) {
		ctx := context.Background()
		a := &agent{Backend: fake.New()}
		tm := twoPersonTeam("alice", "bob", "carol")
		for i := range 8 {
			a.Add(deletion(fmt.Sprint("r", i)))
		}
		a.Add(deletion("i1"), deletion("i2"))

		// alice's approval, then the hub stops; started again, it has it
		// and bob's completes it: sent once, naming both.
		h := openStoreHub(t, spec, a, tm)
		if _, err := h.shared.Resume(ctx, approveOf("alice", deletion("i1"))); !errors.Is(err, client.ErrAwaitingApproval) {
			t.Fatalf("alice: %v", err)
		}
		_ = h.st.Close()
		h = openStoreHub(t, spec, a, tm)
		its, err := h.shared.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range its {
			if it.ID == "i1" && it.Approval.Words() != "1 of 2 approvals (alice)" {
				t.Fatalf("after the restart i1 shows %q", it.Approval.Words())
			}
		}
		if _, err := h.shared.Resume(ctx, approveOf("bob", deletion("i1"))); err != nil {
			t.Fatalf("bob after the restart: %v", err)
		}
		if s := a.sent("i1"); len(s) != 1 || strings.Join(s[0].Approvers, ",") != "alice,bob" {
			t.Fatalf("i1 reached the agent %d times: %+v", len(s), s)
		}
		// carol, a moment late: told it was sent, nothing sent, not counted.
		if _, err := h.shared.Resume(ctx, approveOf("carol", deletion("i1"))); !errors.Is(err, client.ErrAlreadyHandled) ||
			!strings.Contains(err.Error(), "completed and the decision sent (approvers alice, bob)") || len(a.sent("i1")) != 1 {
			t.Fatalf("carol after the send: %v (sent %d)", err, len(a.sent("i1")))
		}

		// Two hubs: first approvals at once on A and B are both counted,
		// and the later one sends; a first approval and two confirmations
		// at once send once.
		b := openStoreHub(t, spec, a, tm)
		for i := range 8 {
			it := deletion(fmt.Sprint("r", i))
			hubs := []*storeHub{h, b}
			who := []string{"alice", "bob"}
			if i%2 == 1 {
				// alice first; bob on A and carol on B confirm at once.
				if _, err := h.shared.Resume(ctx, approveOf("alice", it)); !errors.Is(err, client.ErrAwaitingApproval) {
					t.Fatalf("round %d: alice: %v", i, err)
				}
				who = []string{"bob", "carol"}
			}
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for j := range 2 {
				wg.Add(1)
				go func() { defer wg.Done(); _, errs[j] = hubs[j].shared.Resume(ctx, approveOf(who[j], it)) }()
			}
			wg.Wait()
			s := a.sent(it.ID)
			if len(s) != 1 {
				t.Fatalf("round %d: %s and %s at once reached the agent %d times (%v, %v)", i, who[0], who[1], len(s), errs[0], errs[1])
			}
			sender, other := 0, 1
			if errs[0] != nil {
				sender, other = 1, 0
			}
			if errs[sender] != nil {
				t.Fatalf("round %d: neither was sent: %v, %v", i, errs[0], errs[1])
			}
			if i%2 == 0 {
				// Both counted: the one judged second sent, naming both.
				if !errors.Is(errs[other], client.ErrAwaitingApproval) || strings.Join(s[0].Approvers, ",") != who[other]+","+who[sender] {
					t.Fatalf("round %d: %v; approvers %v", i, errs[other], s[0].Approvers)
				}
			} else if !errors.Is(errs[other], client.ErrAlreadyHandled) || strings.Join(s[0].Approvers, ",") != "alice,"+who[sender] {
				t.Fatalf("round %d: %s: %v; approvers %v", i, who[other], errs[other], s[0].Approvers)
			}
		}

		// alice approves on A; the team reloaded without her on B: her
		// approval is dropped there (and on every hub), bob's is a first.
		if _, err := h.shared.Resume(ctx, approveOf("alice", deletion("i2"))); !errors.Is(err, client.ErrAwaitingApproval) {
			t.Fatalf("alice: %v", err)
		}
		var audit []store.Entry
		b.shared.Audit = func(_ context.Context, e store.Entry) { audit = append(audit, e) }
		b.team = twoPersonTeam("bob", "carol")
		if n := b.shared.PruneApprovals(ctx); n != 1 {
			t.Fatalf("pruned %d", n)
		}
		if len(audit) != 1 || audit[0].Reviewer != "alice" || audit[0].Outcome != store.OutcomeDropped || audit[0].RequestID != "i2" {
			t.Fatalf("audit: %+v", audit)
		}
		h.team = b.team
		its, _ = h.shared.Pending(ctx)
		for _, it := range its {
			if it.ID == "i2" && it.Approval.Words() != "0 of 2 approvals; dropped: alice (no longer an approver)" {
				t.Fatalf("on hub A i2 shows %q", it.Approval.Words())
			}
		}
		if _, err := h.shared.Resume(ctx, approveOf("bob", deletion("i2"))); !errors.Is(err, client.ErrAwaitingApproval) ||
			!strings.Contains(err.Error(), "1 of 2 approvals (bob)") || len(a.sent("i2")) != 0 {
			t.Fatalf("bob after alice was dropped: %v (sent %d)", err, len(a.sent("i2")))
		}
	})
}
