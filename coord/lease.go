package coord

import (
	"fmt"
	"time"

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

// lease is a request's tie to its publisher's waits.
type lease struct {
	d       time.Duration
	waiters int
	timer   *time.Timer
}

// maxLease caps a publisher's lease.
const maxLease = 10 * time.Minute

// startLease gives req a lease of seconds, running until its publisher's
// first wait; s.mu is held.
func (s *Server) startLease(req *request, seconds float64) {
	if seconds <= 0 {
		return
	}
	d := min(time.Duration(seconds*float64(time.Second)), maxLease)
	req.lease = &lease{d: d}
	s.runLease(req)
}

// runLease starts (again) the lease of a request nobody waits on; s.mu is
// held.
func (s *Server) runLease(req *request) {
	l := req.lease
	if l.timer != nil {
		l.timer.Stop()
	}
	l.timer = time.AfterFunc(l.d, func() { s.leaseOut(req) })
}

// attach marks a wait of req's publisher open, until the returned func is
// called; a request without a lease, or a caller other than its
// publisher, changes nothing.
func (s *Server) attach(req *request, p team.Principal) (detach func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := req.lease
	if l == nil || p.Kind != team.KindPublisher || req.status != Pending {
		return func() {}
	}
	l.waiters++
	if l.timer != nil {
		l.timer.Stop()
	}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		l.waiters--
		if l.waiters == 0 && req.status == Pending {
			s.runLease(req)
		}
	}
}

// leaseOut withdraws a request whose publisher stopped waiting on it.
func (s *Server) leaseOut(req *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.status != Pending || req.lease == nil || req.lease.waiters > 0 {
		return
	}
	reason := fmt.Sprintf("its hook stopped waiting (none for %s: killed, or cut off from the hub): nothing waits for an answer", req.lease.d.Round(time.Second))
	req.status, req.reason, req.answeredAt = Withdrawn, reason, s.opts.Now().UTC()
	s.finish(req)
	s.events.publish("hitl_answered", map[string]any{"request_id": req.ID, "status": Withdrawn, "reason": reason})
	s.log("%s: withdrawn (%s)", req.ID, reason)
}

// Waiting reports whether request id is tied to its publisher's waits
// (leased) and whether one is open now (waiting).
func (s *Server) Waiting(id string) (leased, waiting bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.reqs[id]
	if !ok || req.lease == nil {
		return false, false
	}
	return true, req.lease.waiters > 0
}

// endLease stops a finished request's lease; s.mu is held.
func (s *Server) endLease(req *request) {
	if req.lease != nil && req.lease.timer != nil {
		req.lease.timer.Stop()
	}
}
