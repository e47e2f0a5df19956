package coord

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/coord/wire"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
)

// A request put up with a lease ("lease_seconds") is tied to its
// publisher's waits (GET /hitl/requests/{id}?wait=…, which a hook sends
// again as soon as one ends): while none is open, the lease runs, and
// when it runs out the request is withdrawn. A hook killed outright (kill
// -9) or cut off from the hub so leaves the inbox within the lease, and a
// decision after that is told that nothing waits for it, rather than
// "sent". A hook that is back within the lease finds its request, and any
// answer given meanwhile.
//
// The lease is kept beside the request in the store (its length, and
// until when it stands as the publisher's waits left it: store.Hold): a
// wait open on one hub holds it for every hub on the store, and a hub
// that starts again sets its timers again for the leased requests that
// wait (rearm).
//
// A hub that starts again gives each leased request it finds waiting a
// full lease from its start, and the time a hook takes to try a lost hub
// again (rejoin), whatever the store said: the lease ran on while the
// hub was down, and its hook, which kept asking, could not wait on it. A
// hook that kept asking so comes back, and nothing is withdrawn; one that
// died is withdrawn a lease (and rejoin) after the start, and the reason
// says that no hook came back since. The start only ever lengthens a
// lease in the store (store.Extend): a request whose hook waits on
// another hub on the store keeps the longer lease that wait holds.

// rejoin is how long a hook that kept asking a lost hub may take to ask
// again once it is back: the hook tries at most 2 s apart (hookclient,
// a backoff jittered by up to half of that).
const rejoin = 3 * time.Second

// lease is this hub's count of the open waits on one request.
type lease struct {
	d       time.Duration
	waiters int
	timer   *time.Timer
	// fromStart: armed at this hub's start (rearm), and no wait on it
	// since, here or (as the store said) on another hub.
	fromStart bool
}

// maxLease caps a publisher's lease.
const maxLease = 10 * time.Minute

// leaseOf is the lease a publisher asked for, in seconds (0: none).
func leaseOf(seconds float64) time.Duration {
	if seconds <= 0 {
		return 0
	}
	return min(time.Duration(seconds*float64(time.Second)), maxLease)
}

// arm sets request id's timer to run out at until; s.lmu is held.
func (s *Server) arm(id string, d time.Duration, until time.Time) {
	l := s.leases[id]
	if l == nil {
		l = &lease{d: d}
		s.leases[id] = l
	}
	if l.timer != nil {
		l.timer.Stop()
	}
	l.timer = time.AfterFunc(max(until.Sub(s.opts.Now()), 10*time.Millisecond), func() { s.leaseOut(id) })
}

// rearm sets the timers of the pending leased requests again (a hub that
// starts again): each runs out when its publisher's waits said, and no
// sooner than a lease and rejoin after the start.
func (s *Server) rearm() {
	s.started = s.opts.Now()
	reqs, err := s.st.Pending(s.ctx)
	if err != nil {
		s.log("the store cannot be read, so no lease was set again", "error", err)
		return
	}
	type armed struct {
		id    string
		d     time.Duration
		until time.Time
	}
	var todo []armed
	for _, r := range reqs {
		if r.Lease <= 0 {
			continue
		}
		until := r.LeaseUntil
		if until.IsZero() {
			until = r.CreatedAt.Add(r.Lease)
		}
		if back := s.started.Add(r.Lease + rejoin); until.Before(back) {
			until = back
			// Every hub: not withdrawn before its hook could come back.
			if err := s.st.Extend(s.ctx, r.ID, until); err != nil {
				s.log("the store did not take a lease", "request", r.ID, "error", err)
			}
		}
		todo = append(todo, armed{r.ID, r.Lease, until})
	}
	s.lmu.Lock()
	defer s.lmu.Unlock()
	for _, a := range todo {
		s.arm(a.id, a.d, a.until)
		s.leases[a.id].fromStart = true
	}
}

// attach marks a wait of the publisher p on request r open for up to
// wait, until the returned func is called; a request without a lease, or
// a caller other than its publisher, changes nothing.
func (s *Server) attach(r store.Request, p team.Principal, wait time.Duration) (detach func()) {
	if r.Lease <= 0 || p.Kind != team.KindPublisher || r.Status != store.Pending {
		return func() {}
	}
	s.lmu.Lock()
	l := s.leases[r.ID]
	if l == nil {
		l = &lease{d: r.Lease}
		s.leases[r.ID] = l
	}
	l.waiters++
	l.fromStart = false
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	s.lmu.Unlock()
	// Every hub: the lease stands while this wait may last, and then some.
	_ = s.st.Hold(s.ctx, r.ID, s.opts.Now().Add(wait+r.Lease))
	return func() {
		s.lmu.Lock()
		defer s.lmu.Unlock()
		l.waiters--
		if l.waiters == 0 && s.leases[r.ID] == l {
			until := s.opts.Now().Add(l.d)
			// Also as the hub stops (its waits end): the store no longer
			// says a wait that is gone stands, and the hub's start (or
			// another hub) counts the lease from now.
			_ = s.st.Hold(context.WithoutCancel(s.ctx), r.ID, until)
			s.arm(r.ID, l.d, until)
		}
	}
}

// leaseOut withdraws request id if its publisher stopped waiting on it:
// no wait open here, and its lease in the store run out.
func (s *Server) leaseOut(id string) {
	if s.ctx.Err() != nil {
		return
	}
	s.lmu.Lock()
	l := s.leases[id]
	if l == nil || l.waiters > 0 {
		s.lmu.Unlock()
		return
	}
	fromStart := l.fromStart
	s.lmu.Unlock()
	for range 20 {
		r, ok, err := s.st.Standing(s.ctx, id)
		if err != nil || !ok || r.Status != store.Pending {
			s.endLease(id)
			return
		}
		now := s.opts.Now()
		if r.LeaseUntil.After(now) {
			// A wait on another hub held it: look again then.
			s.lmu.Lock()
			if l := s.leases[id]; l != nil && l.waiters == 0 {
				// Lengthened past this hub's timer: a wait since.
				l.fromStart = false
				s.arm(id, l.d, r.LeaseUntil)
			}
			s.lmu.Unlock()
			return
		}
		reason := fmt.Sprintf("its hook stopped waiting (none for %s: killed, or cut off from the hub): nothing waits for an answer", roundOff(r.Lease))
		if fromStart {
			reason = fmt.Sprintf("no hook came back for it within %s of the hub's start: nothing waits for an answer", roundOff(now.Sub(s.started)))
		}
		done, err := s.finish(s.ctx, requestOf(r), store.Finish{Status: store.Withdrawn, Reason: reason},
			wire.Change{RequestID: id, Status: wire.Withdrawn, Reason: reason})
		if err != nil {
			return
		}
		if done {
			s.log("request withdrawn", "request", id, "reason", reason)
			s.auditWithdrawal(r, "lease", reason)
			return
		}
	}
}

// roundOff is d as a reason says it: to the second, and to a tenth of
// one below a second (not "0s").
func roundOff(d time.Duration) time.Duration {
	if d < time.Second {
		return max(d.Round(100*time.Millisecond), 100*time.Millisecond)
	}
	return d.Round(time.Second)
}

// auditWithdrawal enters in the team's audit log what a withdrawal of rq
// (as read before it) did to the approvals it had: one entry for each
// approver whose approval no longer counts (OutcomeWithdrawn), naming the
// approvals dropped, so that an approver's story does not end at
// "approval recorded". door is what withdrew it: "lease" (its hook
// stopped waiting), "expiry", "http" (its publisher, through the door).
// A request without approvals has no entry: no reviewer decided on it.
func (s *Server) auditWithdrawal(rq store.Request, door, reason string) {
	req := requestOf(rq)
	a := req.Approval
	if a == nil || len(a.Approvers) == 0 {
		return
	}
	tools := a.Tools
	if len(tools) == 0 {
		tools = req.tools()
	}
	var kinds []string
	for _, d := range a.Decisions {
		kinds = append(kinds, string(d.Type))
	}
	source := rq.Source
	if source == "" {
		source = "publisher"
	}
	for _, who := range a.Approvers {
		// Only an approver's approval is recorded, and a reload drops one
		// whose reviewer is no longer an approver: each was one.
		s.audit(s.ctx, store.Entry{Reviewer: who, Role: string(team.Approver), Door: door, Hub: s.opts.Hub, Source: source, RequestID: req.ID, ThreadID: req.SessionID,
			Tools: tools, Decision: strings.Join(kinds, ","), Value: a.Value, Approvers: a.Approvers, Outcome: store.OutcomeWithdrawn,
			Message: fmt.Sprintf("the request was withdrawn with %s: %s", a.Words(), reason)})
	}
}

// Waiting reports whether request id is tied to its publisher's waits
// (leased) and whether one is open now on this hub (waiting).
func (s *Server) Waiting(id string) (leased, waiting bool) {
	s.lmu.Lock()
	l := s.leases[id]
	if l != nil {
		waiting = l.waiters > 0
	}
	s.lmu.Unlock()
	if l != nil {
		return true, waiting
	}
	r, ok, err := s.st.Standing(context.WithoutCancel(s.ctx), id)
	return err == nil && ok && r.Lease > 0, false
}

// endLease forgets a finished request's lease.
func (s *Server) endLease(id string) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if l := s.leases[id]; l != nil {
		if l.timer != nil {
			l.timer.Stop()
		}
		if l.waiters == 0 {
			delete(s.leases, id)
		}
	}
}

// stopLeases stops every lease timer (Close).
func (s *Server) stopLeases() {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	for _, l := range s.leases {
		if l.timer != nil {
			l.timer.Stop()
		}
	}
}
