package hub

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/a2a"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/opencode"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/store"
)

// A merged inbox of one source offers exactly what that source offers,
// whatever its kind, and so does the shared watcher over it.
func TestMergedOffersWhatItsSourceOffers(t *testing.T) {
	o := transport.Options{URL: "http://127.0.0.1:1"}
	lg, err := langgraph.New(langgraph.Options{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := a2a.New(a2a.Options{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	oc, err := opencode.New(opencode.Options{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []client.Backend{lg, ag, oc, fake.New()} {
		m := NewMerged(Source{Name: "it", Backend: b})
		backendtest.SameFeatures(t, b, m)
		backendtest.SameFeatures(t, b, NewShared(m))
	}
	// Several: what any of them offers.
	m := NewMerged(Source{Name: "agent", Backend: ag}, Source{Name: "opencode", Backend: oc})
	if got := strings.Join(m.Features().Names(), ","); got != "Notifier,Redactor,Messenger" {
		t.Errorf("an A2A agent and opencode offer %s", got)
	}
}

func prompt(id, thread string) client.Interrupt {
	raw := json.RawMessage(`"` + id + `?"`)
	it := client.Interrupt{ID: id, ThreadID: thread, Payload: client.Parse(raw)}
	it.WithValue(raw)
	return it
}

// One source down hides nothing of the others: they are listed, with its
// last listing, and the error names that source alone; a decision goes to
// the source of its interrupt, and only there.
func TestMergedSourcesAreIndependent(t *testing.T) {
	a, b := fake.New(prompt("a1", "ta")), fake.New(prompt("b1", "tb"))
	m := NewMerged(Source{Name: "the agent at A", Kind: "a2a", Backend: a}, Source{Name: "the opencode server at B", Kind: "opencode", Backend: b})
	ctx := context.Background()
	its, err := m.Pending(ctx)
	if err != nil || len(its) != 2 || its[0].ID != "a1" || its[1].ID != "b1" {
		t.Fatalf("both up: %v %+v", err, its)
	}
	a.SetListErr(errors.New("connection refused"))
	b.Add(prompt("b2", "tb2"))
	its, err = m.Pending(ctx)
	down, partial := client.DownSource(err)
	if !partial || down.Source != "the agent at A" || !strings.Contains(down.Err.Error(), "connection refused") {
		t.Fatalf("A down: %v", err)
	}
	var ids []string
	for _, it := range its {
		ids = append(ids, it.ID)
	}
	if len(ids) != 3 || ids[0] != "a1" || !strings.Contains(strings.Join(ids, ","), "b1") || !strings.Contains(strings.Join(ids, ","), "b2") {
		t.Fatalf("A down lists %v: want A's last listing and B's", ids)
	}
	if m.DownFor(its[0]) == nil || m.DownFor(its[1]) != nil {
		t.Fatalf("DownFor: A's %v, B's %v", m.DownFor(its[0]), m.DownFor(its[1]))
	}
	if m.KindOf("b1") != "opencode" || m.KindOf("a1") != "a2a" {
		t.Fatalf("kinds: %q %q", m.KindOf("a1"), m.KindOf("b1"))
	}
	// A decision on B's interrupt reaches B, not A.
	it := its[1]
	if it.ID != "b1" {
		it = its[2]
	}
	r, err := client.Encode(&it.Payload, []client.Decision{{Type: client.Respond, Message: "yes"}}, client.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sub := &client.Submission{DecisionID: "d1", Reviewer: "alice", ThreadID: it.ThreadID, Items: []client.Item{{Interrupt: it, Resume: r}}}
	if _, err := m.Resume(ctx, sub); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.SentValue("b1"); !ok {
		t.Fatal("B did not get the answer to its interrupt")
	}
	if a.Resumes != 0 {
		t.Fatalf("A got %d resumes", a.Resumes)
	}
	// Every source down: an error, not a partial listing.
	b.SetListErr(errors.New("refused too"))
	if _, err := NewMerged(Source{Name: "A", Backend: a}, Source{Name: "B", Backend: b}).Pending(ctx); err == nil {
		t.Fatal("every source down listed without an error")
	} else if _, partial := client.DownSource(err); partial {
		t.Fatalf("every source down is said as one down: %v", err)
	}
}

// A source that keeps no approvals has them kept in the hub's store, and
// listed on its interrupts, by this hub and any other on the store.
func TestMergedKeepsApprovalsForASourceThatKeepsNone(t *testing.T) {
	ag, err := a2a.New(a2a.Options{Options: transport.Options{URL: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	f := fake.New(prompt("a1", "ta"))
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "hub.db"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := NewMerged(Source{Name: "agent", Backend: ag}, Source{Name: "fake", Backend: f})
	if err := m.RecordApproval(ctx, prompt("a1", "ta"), &client.Approval{Approvers: []string{"alice"}, Needed: 2}); err == nil {
		t.Fatal("an approval recorded with no store to keep it")
	}
	m.Store = st
	its, _ := m.Pending(ctx)
	var mine client.Interrupt
	for _, it := range its {
		if it.ID == "a1" {
			mine = it
		}
	}
	if f.Features().ApprovalKeeper != nil || mine.ID == "" {
		t.Fatalf("the fake keeps approvals, or a1 is not listed: %+v", its)
	}
	if err := m.RecordApproval(ctx, mine, &client.Approval{Approvers: []string{"alice"}, Needed: 2}); err != nil {
		t.Fatal(err)
	}
	if a, _ := m.Approval(ctx, mine); !a.Has("alice") {
		t.Fatalf("approval not kept: %+v", a)
	}
	other := NewMerged(Source{Name: "agent", Backend: ag}, Source{Name: "fake", Backend: f})
	other.Store = st
	for _, m := range []*Merged{m, other} {
		its, _ = m.Pending(ctx)
		for _, it := range its {
			if it.ID == "a1" && !it.Approval.Has("alice") {
				t.Fatalf("the listing does not carry the kept approval: %+v", it.Approval)
			}
		}
	}
}
