package coord

import (
	"context"
	"fmt"
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

// lease is this hub's count of the open waits on one request.
type lease struct {
	d       time.Duration
	waiters int
	timer   *time.Timer
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
// starts again: they ran out meanwhile, or run out when their publisher's
// waits said).
func (s *Server) rearm() {
	reqs, err := s.st.Pending(s.ctx)
	if err != nil {
		return
	}
	s.lmu.Lock()
	defer s.lmu.Unlock()
	for _, r := range reqs {
		if r.Lease > 0 {
			until := r.LeaseUntil
			if until.IsZero() {
				until = r.CreatedAt.Add(r.Lease)
			}
			s.arm(r.ID, r.Lease, until)
		}
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
			_ = s.st.Hold(s.ctx, r.ID, until)
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
	s.lmu.Unlock()
	for range 20 {
		r, ok, err := s.st.Standing(s.ctx, id)
		if err != nil || !ok || r.Status != store.Pending {
			s.endLease(id)
			return
		}
		if now := s.opts.Now(); r.LeaseUntil.After(now) {
			// A wait on another hub held it: look again then.
			s.lmu.Lock()
			if l := s.leases[id]; l != nil && l.waiters == 0 {
				s.arm(id, l.d, r.LeaseUntil)
			}
			s.lmu.Unlock()
			return
		}
		reason := fmt.Sprintf("its hook stopped waiting (none for %s: killed, or cut off from the hub): nothing waits for an answer", r.Lease.Round(time.Second))
		done, err := s.finish(s.ctx, requestOf(r), store.Finish{Status: store.Withdrawn, Reason: reason},
			wire.Change{RequestID: id, Status: wire.Withdrawn, Reason: reason})
		if err != nil {
			return
		}
		if done {
			s.log("request withdrawn", "request", id, "reason", reason)
			return
		}
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
