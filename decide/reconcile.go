package decide

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// Reconcile resolves the decisions of this backend's server whose outcome
// the journal does not know (the process died after writing the intent, or
// the network broke and the server could not be read), and those whose run
// was still going when hitl stopped following it (the server may have
// finished it since, or lost it): it reads the server and appends the
// outcome. A decision whose run the server lost is pending again. match, when set, picks which entries to look at.
// Decisions still impossible to resolve come back as Unknown.
func (p *Pipeline) Reconcile(ctx context.Context, match func(journal.Entry) bool) ([]*Result, error) {
	if p.Journal == nil {
		return nil, nil
	}
	open, err := p.Journal.Unsettled(p.Backend.Server())
	if err != nil {
		return nil, err
	}
	var order []string
	subs := map[string]*client.Submission{}
	runs := map[string]string{}
	running := map[string]bool{}          // decisions last known as still running
	for i := len(open) - 1; i >= 0; i-- { // oldest first
		e := open[i]
		if match != nil && !match(e) {
			continue
		}
		s := subs[e.DecisionID]
		if s == nil {
			s = &client.Submission{DecisionID: e.DecisionID, Reviewer: e.Reviewer, ThreadID: e.ThreadID}
			subs[e.DecisionID] = s
			order = append(order, e.DecisionID)
		}
		resume := client.Resume{Value: e.Resume, Continue: len(e.Resume) == 0 || string(e.Resume) == "null"}
		if end, _ := client.Ends(e.Decisions); end != nil {
			resume = client.Resume{End: end} // an ending is verified as one
		}
		it := client.Interrupt{ID: e.InterruptID, ThreadID: e.ThreadID, Server: e.Server, Raw: json.RawMessage("null")}
		it.Schema, it.Title = e.Schema, e.Title
		s.Items = append(s.Items, client.Item{Interrupt: it, Decisions: e.Decisions, Resume: resume})
		if e.RunID != "" {
			runs[e.DecisionID] = e.RunID
		}
		if e.Outcome == journal.Running {
			running[e.DecisionID] = true
		}
	}
	var out []*Result
	for _, id := range order {
		if r := p.reconcile(ctx, subs[id], client.Receipt{RunID: runs[id]}, running[id]); r != nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// reconcile looks up one decision. One last known as still running (the
// run was going when hitl stopped following it) whose run is still going,
// or that the server cannot tell more of now, is left as it is (nil).
func (p *Pipeline) reconcile(ctx context.Context, s *client.Submission, rc client.Receipt, running bool) *Result {
	res := &Result{Submission: s}
	verdicts, err := p.Backend.Verify(ctx, s, rc)
	if err != nil {
		if running {
			return nil
		}
		return res.fail(Unknown, fmt.Errorf("could not read the server: %w", err))
	}
	if allLost(verdicts) {
		return p.lost(s, rc, res)
	}
	if running && stillGoing(verdicts) {
		return nil
	}
	if allNotTaken(verdicts) {
		res.fail(NotSent, fmt.Errorf("the server has no trace of it: it was never taken"))
		p.record(s, res, journal.NotSent, true)
		return res
	}
	if rc.RunID == "" {
		rc.RunID = verdicts[0].RunID
	}
	rc.Acknowledged = true
	follow, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return p.conclude(follow, follow, s, rc, verdicts, res)
}

// stillGoing reports whether the verdicts find this decision's run still going.
func stillGoing(vs []client.Verdict) bool {
	for _, v := range vs {
		if (v.Took == client.Mine || v.Took == client.InFlight) && v.Active {
			return true
		}
	}
	return false
}
