package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/events"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hub"
)

// oneInbox is what the hub's SSH sessions read when it has an HTTP door
// too: the LangGraph server's interrupts and the requests publishers put
// up on the coordinator (coding agents' hooks), in one list. A request is
// answered in process; the hub's rule gate (hub.Shared) has already
// counted its approvers when it gets here.
type oneInbox struct {
	hub.Upstream
	c *coord.Server

	// The LangGraph server's failure, while it lasts: the publishers'
	// requests are listed without it (client.SourceDown), and a watched
	// read does not wait on a server known down more often than every
	// upstreamRetry.
	mu     sync.Mutex
	down   error
	downAt time.Time
	// last is the server's last listing: shown while it is down (with
	// the source's status), rather than as if its interrupts were
	// answered.
	last []client.Interrupt
}

// upstreamRetry is how often a watched read asks a LangGraph server that
// was down again.
const upstreamRetry = 3 * time.Second

// coordServer names the coordinator's requests in the audit log.
const coordServer = "hitl serve --http"

func (o *oneInbox) mine(id string) bool {
	_, ok := o.c.Lookup(id)
	return ok
}

func (o *oneInbox) requests() []client.Interrupt {
	var out []client.Interrupt
	reqs := o.c.Pending()
	for i := len(reqs) - 1; i >= 0; i-- { // newest first, as a backend lists
		out = append(out, reqs[i].Interrupt(coordServer))
	}
	return out
}

// Features are the server's, feature for feature, each answered by the
// merged inbox where a request of the coordinator's needs its own answer
// (the listing and its signals, claims, conversations, approvals) and
// passed on as it is otherwise.
func (o *oneInbox) Features() client.Features {
	f := o.Upstream.Features()
	if f.Notifier != nil {
		f.Notifier = o
	}
	if f.Settled != nil {
		f.Settled = o
	}
	if f.Progressive != nil {
		f.Progressive = o
	}
	if f.Claimer != nil {
		f.Claimer = o
	}
	if f.Conversational != nil {
		f.Conversational = o
	}
	if f.ApprovalKeeper != nil {
		f.ApprovalKeeper = o
	}
	return f
}

// Pending lists both sources; the LangGraph server failing hides nothing
// of the publishers' requests: they are listed, with a client.SourceDown
// saying which source is down.
func (o *oneInbox) Pending(ctx context.Context) ([]client.Interrupt, error) {
	o.mu.Lock()
	down, at, last := o.down, o.downAt, o.last
	o.mu.Unlock()
	if down != nil && client.WatchedDoes(ctx) && time.Since(at) < upstreamRetry {
		return append(o.requests(), last...), o.sourceDown(down)
	}
	its, err := o.Upstream.Pending(ctx)
	if ctx.Err() != nil && err != nil {
		return nil, err // cancelled: says nothing of the server
	}
	o.mu.Lock()
	o.down, o.downAt = err, time.Now()
	if err == nil {
		o.last = its
	} else {
		its = o.last
	}
	o.mu.Unlock()
	if err != nil {
		return append(o.requests(), its...), o.sourceDown(err)
	}
	return append(o.requests(), its...), nil
}

func (o *oneInbox) sourceDown(err error) error {
	return &client.SourceDown{Source: "the LangGraph server at " + o.Upstream.Server(), Err: err}
}

// PendingProgress is the server's long listing in progress, the
// coordinator's requests first as in Pending.
func (o *oneInbox) PendingProgress(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	p := o.Upstream.Features().Progressive
	if p == nil {
		return o.Pending(ctx)
	}
	reqs := o.requests()
	its, err := p.PendingProgress(ctx, func(pr client.Progress) {
		pr.Items = append(slices.Clip(reqs), pr.Items...)
		report(pr)
	})
	if ctx.Err() != nil && err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.down, o.downAt = err, time.Now()
	if err == nil {
		o.last = its
	} else {
		its = o.last
	}
	o.mu.Unlock()
	if err != nil {
		// The server down hides nothing of the coordinator's requests.
		return append(o.requests(), its...), o.sourceDown(err)
	}
	return append(o.requests(), its...), nil
}

// Settled is the server's watcher's version moved by every change of the
// coordinator's requests too (their ids and approvals).
func (o *oneInbox) Settled() (uint64, bool) {
	v, ok := o.Upstream.Features().Settled.Settled()
	h := fnv.New64a()
	fmt.Fprint(h, v)
	for _, r := range o.c.Pending() {
		fmt.Fprint(h, "|", r.RequestID)
		if r.Approval != nil {
			fmt.Fprint(h, ":", strings.Join(r.Approval.Approvers, ","))
		}
	}
	return h.Sum64(), ok
}

func (o *oneInbox) Changes(ctx context.Context) <-chan struct{} {
	a, b := o.Upstream.Changes(ctx), o.c.Changes(ctx)
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for a != nil || b != nil {
			select {
			case _, ok := <-a:
				if !ok {
					a = nil
					continue
				}
			case _, ok := <-b:
				if !ok {
					b = nil
					continue
				}
			}
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out
}

// split cuts its into the coordinator's and the server's.
func (o *oneInbox) split(its []client.Interrupt) (mine, theirs []client.Interrupt) {
	for _, it := range its {
		if o.mine(it.ID) {
			mine = append(mine, it)
		} else {
			theirs = append(theirs, it)
		}
	}
	return mine, theirs
}

func (o *oneInbox) Standing(ctx context.Context, its []client.Interrupt) ([]client.Standing, error) {
	mine, theirs := o.split(its)
	var st []client.Standing
	if len(theirs) > 0 {
		s, err := o.Upstream.Standing(ctx, theirs)
		if err != nil {
			return nil, err
		}
		st = s
	}
	byID := map[string]client.Standing{}
	for _, s := range st {
		byID[s.ID] = s
	}
	for _, it := range mine {
		r, _ := o.c.Lookup(it.ID)
		s := client.Standing{ID: it.ID, Presence: client.Waiting}
		switch r.Status {
		case coord.Answered:
			s.Presence, s.By = client.Answered, &client.Winner{Reviewer: r.RespondedBy, At: r.AnsweredAt, Value: r.Response}
		case coord.Withdrawn:
			s.Presence, s.By = client.Answered, &client.Winner{Withdrawn: r.Reason}
		}
		byID[it.ID] = s
	}
	out := make([]client.Standing, 0, len(its))
	for _, it := range its {
		out = append(out, byID[it.ID])
	}
	return out, nil
}

func (o *oneInbox) coordItem(s *client.Submission) (client.Item, bool) {
	if len(s.Items) == 1 && o.mine(s.Items[0].Interrupt.ID) {
		return s.Items[0], true
	}
	return client.Item{}, false
}

func (o *oneInbox) Resume(ctx context.Context, s *client.Submission) (client.Receipt, error) {
	it, ok := o.coordItem(s)
	if !ok {
		return o.Upstream.Resume(ctx, s)
	}
	if it.Resume.End != nil {
		return client.Receipt{}, fmt.Errorf("a coding agent's request cannot be %s: it has no thread on the server to end; reject it instead (nothing sent)", it.Resume.End.Words())
	}
	approvers := s.Approvers
	if len(approvers) == 0 {
		approvers = []string{s.Reviewer}
	}
	leased, waiting := o.c.Waiting(it.Interrupt.ID)
	err := o.c.Resolve(it.Interrupt.ID, approvers, it.Resume.Value, s.DecisionID)
	switch {
	case errors.Is(err, coord.ErrUnknown), errors.Is(err, coord.ErrHandled):
		return client.Receipt{}, client.ErrAlreadyHandled
	case err != nil:
		return client.Receipt{}, err
	}
	rc := client.Receipt{Acknowledged: true}
	if leased && !waiting {
		rc.Unheard = events.NobodyWaits
	}
	return rc, nil
}

func (o *oneInbox) Verify(ctx context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	if _, ok := o.coordItem(s); !ok {
		return o.Upstream.Verify(ctx, s, rc)
	}
	if v, ok := client.Acknowledged(s, rc); ok {
		return v, nil
	}
	it := s.Items[0].Interrupt
	r, _ := o.c.Lookup(it.ID)
	v := client.Verdict{ID: it.ID, Took: client.Mine}
	switch {
	case r.Status == coord.Pending:
		v.Took = client.NotTaken
	case r.Status == coord.Withdrawn:
		v.Took, v.Winner = client.Theirs, &client.Winner{Withdrawn: r.Reason}
	case r.DecisionID != s.DecisionID:
		v.Took, v.Winner = client.Theirs, &client.Winner{Reviewer: r.RespondedBy, At: r.AnsweredAt, Value: r.Response}
	}
	return []client.Verdict{v}, nil
}

func (o *oneInbox) Follow(ctx context.Context, s *client.Submission, rc client.Receipt) client.Outcome {
	if _, ok := o.coordItem(s); ok {
		return client.Outcome{Status: client.Accepted, Error: rc.Unheard}
	}
	return o.Upstream.Follow(ctx, s, rc)
}

// Claims: a coordinator's request has nowhere to keep them.
func (o *oneInbox) Claim(ctx context.Context, it client.Interrupt, c client.Claim) error {
	if o.mine(it.ID) {
		return nil
	}
	return o.Upstream.Claim(ctx, it, c)
}

func (o *oneInbox) Release(ctx context.Context, it client.Interrupt, c client.Claim) error {
	if o.mine(it.ID) {
		return nil
	}
	return o.Upstream.Release(ctx, it, c)
}

func (o *oneInbox) Conversation(ctx context.Context, thread string) ([]client.Message, error) {
	for _, r := range o.c.Pending() {
		if r.SessionID == thread {
			return nil, fmt.Errorf("session %s is a coding agent's: its conversation is in the agent's transcript, not on the hub", thread)
		}
	}
	return o.Upstream.Conversation(ctx, thread)
}

// Approvals of a coordinator's request live on the coordinator, where its
// HTTP door counts them too.
func (o *oneInbox) Approval(ctx context.Context, it client.Interrupt) (*client.Approval, error) {
	if !o.mine(it.ID) {
		return o.Upstream.Approval(ctx, it)
	}
	for _, r := range o.c.Pending() {
		if r.RequestID == it.ID && r.Approval != nil {
			a := *r.Approval
			return &a, nil
		}
	}
	return nil, nil
}

func (o *oneInbox) RecordApproval(ctx context.Context, it client.Interrupt, a *client.Approval) error {
	if !o.mine(it.ID) {
		return o.Upstream.RecordApproval(ctx, it, a)
	}
	if err := o.c.SetApproval(it.ID, a); err != nil && a != nil {
		return err
	}
	return nil
}
