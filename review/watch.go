package review

import (
	"context"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// Watcher is what Session.Watch tells of what it finds.
type Watcher struct {
	// Interval is how often it looks when the backend does not say
	// that something changed (and how long it waits after a failure, at
	// first: twice as long each time, up to 30 s).
	Interval time.Duration
	// New is called once for each interrupt that waits, oldest first; an
	// error ends the watch.
	New func(client.Interrupt) error
	// Listed, when set, is called after each listing's new interrupts.
	Listed func()
	// Failed: a listing failed, the next in retry. Back: a listing works
	// again after one failed.
	Failed func(err error, retry time.Duration)
	Back   func()
}

// Watch tells each interrupt that waits (less what this machine handled)
// once, as it appears, until ctx ends (then nil). A backend that says when
// something changed (client.Notifier) wakes it at once, and one that can
// tell nothing changed (client.Settled) spares it a listing; a long
// listing is told page by page as it arrives (client.Progressive).
func (s *Session) Watch(ctx context.Context, w Watcher) error {
	interval := w.Interval
	// A backend that streams its changes wakes the loop at once.
	var changes <-chan struct{}
	if n := s.Features.Notifier; n != nil {
		changes = n.Changes(ctx)
	}
	seen := map[string]bool{}
	// show tells, oldest first, what has not been told yet.
	show := func(its []client.Interrupt) error {
		for i := len(its) - 1; i >= 0; i-- {
			it := its[i]
			if seen[it.ID] {
				continue
			}
			seen[it.ID] = true
			if err := w.New(it); err != nil {
				return err
			}
		}
		return nil
	}
	// A long listing (thousands of interrupts, a slow link) is told page
	// by page as it arrives.
	var shown error
	progress := func(p client.Progress) {
		if shown == nil {
			shown = show(journal.Unhandled(p.Items, s.Journal.Hidden()))
		}
	}
	wait := interval
	failing := false
	lctx := ctx // the first listing is fresh; later ones follow a change signal or a poll
	settled := s.Features.Settled
	var read uint64 // the version of the last listing, when settled says
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		shown = nil
		if settled != nil {
			read, _ = settled.Settled()
		}
		its, err := s.pendingProgress(lctx, progress)
		lctx = client.WatchedWillDo(ctx)
		if shown != nil {
			return shown
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			if w.Failed != nil {
				w.Failed(err, wait)
			}
			failing = true
			wait = min(wait*2, 30*time.Second)
		default:
			if failing && w.Back != nil {
				w.Back()
			}
			failing = false
			wait = interval
			// Oldest first, so that the output reads in the order things happened.
			if err := show(its); err != nil {
				return err
			}
			if w.Listed != nil {
				w.Listed()
			}
		}
		timer.Reset(wait)
	wait:
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
			// Nothing changed since the last listing (the watcher would
			// have said): no need to read it again.
			if v, ok := settledAt(settled, changes); ok && !failing && v == read {
				timer.Reset(wait)
				goto wait
			}
		case _, open := <-changes:
			if !open {
				changes = nil // the stream is gone: keep polling
			}
		}
	}
}

// settledAt is the backend's version when its watcher runs and a periodic
// listing would be answered from its reading (client.Settled).
func settledAt(s client.Settled, changes <-chan struct{}) (uint64, bool) {
	if s == nil || changes == nil {
		return 0, false
	}
	return s.Settled()
}

// pendingProgress is Pending, reporting a long listing's progress where
// the backend can.
func (s *Session) pendingProgress(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	p := s.Features.Progressive
	if p == nil {
		return s.Pending(ctx)
	}
	all, err := p.PendingProgress(ctx, report)
	if err := s.SourceDown(err); err != nil {
		return nil, err
	}
	return s.Unhandled(all), nil
}
