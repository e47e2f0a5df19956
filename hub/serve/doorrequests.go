package serve

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hub"
)

// doorRequests are the requests publishers put up on the hub's door
// (coding agents' hooks), as one source of the hub's inbox (hub.Merged),
// beside its LangGraph servers, A2A agents and opencode servers. A request
// is answered in process; the hub's rule gate (hub.Shared) has already
// counted its approvers when it gets here.
type doorRequests struct {
	c *coord.Server
}

// coordServer names the coordinator's requests in the audit log.
const coordServer = "hitl serve --http"

// source is the door's requests as a source of the hub's inbox.
func (d *doorRequests) source() hub.Source {
	return hub.Source{Name: "the coding agents' requests (the hub's door)", Backend: d, Owns: d.mine}
}

func (d *doorRequests) mine(id string) bool {
	_, ok := d.c.Lookup(id)
	return ok
}

func (d *doorRequests) Server() string { return coordServer }

// Features: the door's requests signal their changes, say their version
// and keep their approvals on the coordinator (where its HTTP door counts
// them too).
func (d *doorRequests) Features() client.Features {
	return client.Features{Notifier: d, Settled: d, ApprovalKeeper: d}
}

// Pending lists the requests newest first, as a backend lists.
func (d *doorRequests) Pending(context.Context) ([]client.Interrupt, error) {
	var out []client.Interrupt
	reqs := d.c.Pending()
	for i := len(reqs) - 1; i >= 0; i-- {
		out = append(out, reqs[i].Interrupt(coordServer))
	}
	return out, nil
}

// Settled moves with every change of the requests (their ids and
// approvals).
func (d *doorRequests) Settled() (uint64, bool) {
	h := fnv.New64a()
	for _, r := range d.c.Pending() {
		fmt.Fprint(h, "|", r.RequestID)
		if r.Approval != nil {
			fmt.Fprint(h, ":", strings.Join(r.Approval.Approvers, ","))
		}
	}
	return h.Sum64(), true
}

func (d *doorRequests) Changes(ctx context.Context) <-chan struct{} { return d.c.Changes(ctx) }

func (d *doorRequests) Standing(_ context.Context, its []client.Interrupt) ([]client.Standing, error) {
	out := make([]client.Standing, 0, len(its))
	for _, it := range its {
		r, ok := d.c.Lookup(it.ID)
		s := client.Standing{ID: it.ID, Presence: client.Waiting}
		switch {
		case !ok:
			s.Presence = client.Gone
		case r.Status == coord.Answered:
			s.Presence, s.By = client.Answered, &client.Winner{Reviewer: r.RespondedBy, At: r.AnsweredAt, Value: r.Response}
		case r.Status == coord.Withdrawn:
			s.Presence, s.By = client.Answered, withdrawal(r)
		}
		out = append(out, s)
	}
	return out, nil
}

func (d *doorRequests) Resume(_ context.Context, s *client.Submission) (client.Receipt, error) {
	if len(s.Items) != 1 {
		return client.Receipt{}, errors.New("a coding agent's request takes one answer at a time: nothing sent")
	}
	it := s.Items[0]
	if it.Resume.End != nil {
		return client.Receipt{}, fmt.Errorf("a coding agent's request cannot be %s: it has no thread on the server to end; reject it instead (nothing sent)", it.Resume.End.Words())
	}
	approvers := s.Approvers
	if len(approvers) == 0 {
		approvers = []string{s.Reviewer}
	}
	leased, waiting := d.c.Waiting(it.Interrupt.ID)
	err := d.c.Resolve(it.Interrupt.ID, approvers, it.Resume.Value, s.DecisionID)
	switch {
	case errors.Is(err, coord.ErrUnknown), errors.Is(err, coord.ErrHandled):
		return client.Receipt{}, client.ErrAlreadyHandled
	case err != nil:
		return client.Receipt{}, err
	}
	rc := client.Receipt{Acknowledged: true}
	if leased && !waiting {
		rc.Unheard = d.c.NobodyWaits()
	}
	return rc, nil
}

func (d *doorRequests) Verify(_ context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	if v, ok := client.Acknowledged(s, rc); ok {
		return v, nil
	}
	it := s.Items[0].Interrupt
	r, _ := d.c.Lookup(it.ID)
	v := client.Verdict{ID: it.ID, Took: client.Mine}
	switch {
	case r.Status == coord.Pending:
		v.Took = client.NotTaken
	case r.Status == coord.Withdrawn:
		v.Took, v.Winner = client.Theirs, withdrawal(r)
	case r.DecisionID != s.DecisionID:
		v.Took, v.Winner = client.Theirs, &client.Winner{Reviewer: r.RespondedBy, At: r.AnsweredAt, Value: r.Response}
	}
	return []client.Verdict{v}, nil
}

func (d *doorRequests) Follow(_ context.Context, _ *client.Submission, rc client.Receipt) client.Outcome {
	return client.Outcome{Status: client.Accepted, Error: rc.Unheard}
}

// Approval of a request lives on the coordinator, where its HTTP door
// counts them too.
func (d *doorRequests) Approval(_ context.Context, it client.Interrupt) (*client.Approval, error) {
	for _, r := range d.c.Pending() {
		if r.RequestID == it.ID && r.Approval != nil {
			a := *r.Approval
			return &a, nil
		}
	}
	return nil, nil
}

func (d *doorRequests) RecordApproval(_ context.Context, it client.Interrupt, a *client.Approval) error {
	if err := d.c.SetApproval(it.ID, a); err != nil && a != nil {
		return err
	}
	return nil
}

// withdrawal says who withdrew a request, and why.
func withdrawal(r coord.Standing) *client.Winner {
	w := &client.Winner{Withdrawn: r.Reason, WithdrawnBy: client.WithdrawnByAgent}
	if r.ByHub {
		w.WithdrawnBy = client.WithdrawnByHub
	}
	return w
}
