package review

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/decide"
)

// approve sends an approval of the interrupt id names through the session's
// pipeline.
func approve(t *testing.T, s *Session, id string) *decide.Result {
	t.Helper()
	it, err := s.Find(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Pipeline()
	subs, err := p.Prepare([]decide.Draft{{Interrupt: it, Decisions: []client.Decision{{Type: client.Approve}}}})
	if err != nil {
		t.Fatal(err)
	}
	return p.Send(context.Background(), subs[0])
}

// A decision whose answer was lost is of unknown outcome until check reads
// the server: then it is what the server says.
func TestCheckLooksUpWhatALostAnswerDid(t *testing.T) {
	b := fake.New(tools("abcd1111", "bash", `["approve"]`), tools("efgh2222", "bash", `["approve"]`))
	s := session(t, b)
	ctx := context.Background()
	if _, err := s.Check(ctx, "abc"); kindOf(err) != Usage {
		t.Fatalf("a short id: %v", err)
	}
	if c, err := s.Check(ctx, ""); err != nil || len(c.Results)+len(c.Running) != 0 {
		t.Fatalf("nothing to check: %+v %v", c, err)
	}
	b.LoseAnswer = true
	b.SetVerifyErr(errors.New("the server cannot be read"))
	if r := approve(t, s, "abcd"); r.Kind != decide.Unknown {
		t.Fatalf("a lost answer: %s", r.Text())
	}
	b.LoseAnswer = false
	b.SetVerifyErr(nil)
	if un := s.Unresolved(); len(un) != 1 || un[0].InterruptID != "abcd1111" {
		t.Fatalf("unresolved: %+v", un)
	}
	if c, err := s.Check(ctx, "efgh"); err != nil || len(c.Results) != 0 {
		t.Fatalf("another interrupt's check: %+v %v", c, err)
	}
	c, err := s.Check(ctx, "ABCD")
	if err != nil || len(c.Results) != 1 || c.Unknown() != 0 || c.Results[0].Kind != decide.Sent {
		t.Fatalf("checked: %+v %v", c, err)
	}
	if un := s.Unresolved(); len(un) != 0 {
		t.Fatalf("still unresolved: %+v", un)
	}
}

// forget makes a handled interrupt pending here again, by a prefix.
func TestForgetMakesAHandledOnePendingAgain(t *testing.T) {
	b := fake.New(tools("abcd1111", "bash", `["approve"]`))
	s := session(t, b)
	ctx := context.Background()
	if _, err := s.Forget("abcd"); kindOf(err) != Refused || !strings.Contains(err.Error(), "no handled interrupt") {
		t.Fatalf("nothing handled: %v", err)
	}
	if r := approve(t, s, "abcd"); r.Kind != decide.Sent {
		t.Fatalf("send: %s", r.Text())
	}
	b.Set(tools("abcd1111", "bash", `["approve"]`)) // the server lists it again
	if its, _ := s.Pending(ctx); len(its) != 0 {
		t.Fatalf("a handled interrupt listed: %+v", its)
	}
	if _, err := s.Forget("ab"); kindOf(err) != Usage {
		t.Fatalf("a short id: %v", err)
	}
	id, err := s.Forget("ABCD")
	if err != nil || id != "abcd1111" {
		t.Fatalf("forget: %q %v", id, err)
	}
	if its, _ := s.Pending(ctx); len(its) != 1 {
		t.Fatalf("not pending again: %+v", its)
	}
}

// The failed runs come with the decision this machine sent there, for the
// CLI and the TUI alike.
func TestReadFailuresNameThisMachinesDecision(t *testing.T) {
	b := fake.New(tools("abcd1111", "bash", `["approve"]`))
	s := session(t, b)
	if r := approve(t, s, "abcd"); r.Kind != decide.Sent {
		t.Fatalf("send: %s", r.Text())
	}
	b.SetFailures(client.Failure{ThreadID: "t-abcd1111", GraphID: "g", Error: "boom"}, client.Failure{ThreadID: "t-other", GraphID: "g"})
	runs, err := ReadFailures(context.Background(), b, s.Journal, b.Server())
	if err != nil || runs.AuditErr != nil || runs.Total != 2 || len(runs.Threads) != 2 {
		t.Fatalf("%+v %v", runs, err)
	}
	for _, f := range runs.Threads {
		if mine := f.ThreadID == "t-abcd1111"; mine != (f.Sent != nil) || (mine && f.Sent.InterruptID != "abcd1111") {
			t.Fatalf("thread %s: sent %+v", f.ThreadID, f.Sent)
		}
	}
	runs, err = ReadFailures(context.Background(), b, nil, b.Server())
	if err != nil || len(runs.Threads) != 2 || runs.Threads[0].Sent != nil || runs.Threads[1].Sent != nil {
		t.Fatalf("without a journal: %+v %v", runs, err)
	}
}
