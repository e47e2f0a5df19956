package hub

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/team"
)

// keeper is an upstream that keeps approvals in memory and records what
// was sent; nothing else of it is used by the gate.
type keeper struct {
	Upstream
	approvals map[string]*client.Approval
	sent      []*client.Submission
}

func (k *keeper) Approval(_ context.Context, it client.Interrupt) (*client.Approval, error) {
	return k.approvals[it.ID], nil
}

func (k *keeper) RecordApproval(_ context.Context, it client.Interrupt, a *client.Approval) error {
	k.approvals[it.ID] = a
	return nil
}

func (k *keeper) Resume(_ context.Context, s *client.Submission) (client.Receipt, error) {
	k.sent = append(k.sent, s)
	return client.Receipt{Acknowledged: true, RunID: "run"}, nil
}

var ops = client.Interrupt{ID: "i1", ThreadID: "t1", Payload: client.Payload{Actions: []client.Action{{Name: "delete_records"}, {Name: "notify"}}}}

func sub(who string, ds ...client.Decision) *client.Submission {
	v, _ := json.Marshal(map[string]any{"decisions": ds})
	return &client.Submission{Reviewer: who, ThreadID: "t1", Items: []client.Item{{Interrupt: ops, Decisions: ds, Resume: client.Resume{Value: v}}}}
}

func TestTwoPersonRule(t *testing.T) {
	k := &keeper{approvals: map[string]*client.Approval{}}
	s := NewShared(k)
	s.Team = func() *team.Config {
		return &team.Config{
			Reviewers: map[string]team.Reviewer{"alice": {Role: team.Approver}, "bob": {Role: team.Approver}, "carol": {Role: team.Approver}, "vic": {Role: team.Viewer}},
			Rules:     []team.Rule{{Tools: []string{"delete_*"}, Approvals: 2}},
		}
	}
	approve, reject := client.Decision{Type: client.Approve}, client.Decision{Type: client.Reject, Message: "no"}
	edit := client.Decision{Type: client.Edit, Args: json.RawMessage(`{"table":"x"}`)}
	ctx := context.Background()
	pending := func(err error, want string) {
		t.Helper()
		if !errors.Is(err, client.ErrAwaitingApproval) || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want one saying %q", err, want)
		}
		if len(k.sent) != 0 {
			t.Fatalf("sent %d", len(k.sent))
		}
	}

	// A viewer decides nothing, whatever the path.
	if _, err := s.Resume(ctx, sub("vic", reject, reject)); err == nil || len(k.sent) != 0 {
		t.Fatalf("a viewer's decision: %v", err)
	}
	_, err := s.Resume(ctx, sub("alice", approve, approve))
	pending(err, "1 of 2 approvals (alice) recorded for delete_records")
	// alice again: refused, nothing recorded, naming the approval that stands.
	_, err = s.Resume(ctx, sub("alice", approve, approve))
	if !errors.Is(err, client.ErrRefused) || errors.Is(err, client.ErrAwaitingApproval) ||
		!strings.Contains(err.Error(), "you approved this decision already (1 of 2 approvals (alice))") || len(k.sent) != 0 {
		t.Fatalf("alice twice: %v (sent %d)", err, len(k.sent))
	}
	// Another decision replaces the first approval, and says so.
	_, err = s.Resume(ctx, sub("bob", edit, approve))
	pending(err, "1 of 2 approvals (bob) recorded for delete_records; it replaces the approval of another decision (1 of 2 approvals (alice))")
	// Approving a rejected delete needs nobody else.
	if _, err := s.Resume(ctx, sub("carol", reject, approve)); err != nil || len(k.sent) != 1 || k.sent[0].Approvers != nil {
		t.Fatalf("reject: %v, sent %v", err, k.sent)
	}
	k.sent = nil
	// The same decision confirmed by another approver: one resume, naming both.
	if _, err := s.Resume(ctx, sub("carol", edit, approve)); err != nil || len(k.sent) != 1 {
		t.Fatalf("confirm: %v, sent %v", err, k.sent)
	}
	if got := strings.Join(k.sent[0].Approvers, ","); got != "bob,carol" {
		t.Fatalf("approvers %q", got)
	}
	if k.approvals["i1"] != nil {
		t.Fatalf("the spent approval stays: %+v", k.approvals["i1"])
	}
}

// The gate counts by client.Count, as the HTTP door's own requests do: a
// replaced approver counts toward nothing, and is told where it stands now.
func TestReplacedApprovalCountsForNothing(t *testing.T) {
	k := &keeper{approvals: map[string]*client.Approval{}}
	s := NewShared(k)
	s.Team = func() *team.Config {
		return &team.Config{
			Reviewers: map[string]team.Reviewer{"alice": {Role: team.Approver}, "bob": {Role: team.Approver}},
			Rules:     []team.Rule{{Tools: []string{"delete_*"}, Approvals: 2}},
		}
	}
	approve := client.Decision{Type: client.Approve}
	edit := client.Decision{Type: client.Edit, Args: json.RawMessage(`{"table":"x"}`)}
	ctx := context.Background()
	for _, c := range []struct {
		who  string
		ds   []client.Decision
		want string
	}{
		{"alice", []client.Decision{approve, approve}, "1 of 2 approvals (alice) recorded"},
		{"bob", []client.Decision{edit, approve}, "it replaces the approval of another decision (1 of 2 approvals (alice))"},
		{"alice", []client.Decision{approve, approve}, "1 of 2 approvals (alice) recorded for delete_records; it replaces the approval of another decision (1 of 2 approvals (bob))"},
		{"bob", []client.Decision{edit, approve}, "(1 of 2 approvals (alice))"},
		{"bob", []client.Decision{approve, approve}, "1 of 2 approvals (bob) recorded"},
	} {
		_, err := s.Resume(ctx, sub(c.who, c.ds...))
		if !errors.Is(err, client.ErrAwaitingApproval) || !strings.Contains(err.Error(), c.want) || len(k.sent) != 0 {
			t.Fatalf("%s: %v (sent %d), want %q", c.who, err, len(k.sent), c.want)
		}
	}
	if _, err := s.Resume(ctx, sub("bob", approve, approve)); !errors.Is(err, client.ErrRefused) ||
		!strings.Contains(err.Error(), "you approved this decision already (1 of 2 approvals (bob))") || len(k.sent) != 0 {
		t.Fatalf("bob twice: %v", err)
	}
	if a := k.approvals["i1"]; a == nil || a.Words() != "1 of 2 approvals (bob)" || len(a.Decisions) != 2 {
		t.Fatalf("recorded %+v", a)
	}
}
