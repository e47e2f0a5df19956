package decide_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
)

// "Answered elsewhere" shows the other answer as one line of JSON: its
// indent read as \n and runs of spaces.
func TestWinnerTextCompactsTheAnswer(t *testing.T) {
	got := decide.WinnerText(&client.Winner{Reviewer: "bob", Value: json.RawMessage("{\n  \"decisions\": [\n    {\"type\": \"approve\"}\n  ]\n}")})
	if want := ` (by bob, answer {"decisions":[{"type":"approve"}]})`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// seesEnd records whether Verify was handed an ending.
type seesEnd struct {
	*fake.Backend
	ended *bool
}

func (b seesEnd) Verify(ctx context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	*b.ended = s.Items[0].Resume.End != nil
	return b.Backend.Verify(ctx, s, rc)
}

// A dismiss left without an outcome (killed mid-send) is looked up again
// as an ending, not as a resume.
func TestEndingIntentReconciledAsAnEnding(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	subs, err := p.Prepare([]decide.Draft{{Interrupt: it, Decisions: []client.Decision{{Type: client.Dismiss, Message: "by phone"}}}})
	if err != nil || subs[0].Items[0].Resume.End == nil || subs[0].Items[0].Resume.End.Kind != client.EndDismiss {
		t.Fatalf("prepared %+v %v", subs, err)
	}
	s := subs[0]
	p.Journal.Intend([]journal.Entry{{DecisionID: s.DecisionID, Server: b.Server(), ThreadID: s.ThreadID, InterruptID: it.ID, Decisions: s.Items[0].Decisions}})
	b.Resume(context.Background(), s)
	var ended bool
	p.Backend = seesEnd{b, &ended}
	results, err := p.Reconcile(context.Background(), nil)
	if err != nil || len(results) != 1 || results[0].Kind != decide.Sent || !ended {
		t.Fatalf("%v %v (verified as an ending: %v)", results, err, ended)
	}
}

// noEnd is a backend that cannot end a thread (the interface is hidden).
type noEnd struct{ client.Backend }

func (b noEnd) Features() client.Features {
	f := b.Backend.Features()
	f.Ender = nil
	return f
}
