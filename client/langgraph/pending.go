package langgraph

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Pending lists the waiting interrupts of every interrupted thread that
// matches the filters, and those of busy threads that no run is answering
// (marked Busy), newest thread first.
func (b *Backend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	return b.PendingProgress(ctx, nil)
}

// PendingProgress is Pending, reporting each page of a long listing as it
// arrives (client.Progressive).
func (b *Backend) PendingProgress(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	called := time.Now()
	if err := b.lockReporting(ctx, report); err != nil {
		return nil, err
	}
	defer b.unlock()
	v := &b.listing.view
	// A refresh that started after this call and ended while it waited
	// has read everything this call would. A caller that says the
	// watcher's listing will do (a reader woken by Changes comes here
	// right after the look that found the change) takes one that ended a
	// moment ago: no older than the watcher's cadence, since the watcher
	// would have said if a newer one had found a change (a periodic read
	// costs no request). Anyone else is answered from the server: a
	// listing asked for after something happened must show it.
	fresh := !v.done.Before(v.started) &&
		(v.started.After(called) ||
			(client.WatchedDoes(ctx) && b.watching.Load() > 0 &&
				time.Since(v.done) < time.Duration(b.lookEvery.Load())+b.opts.Live/2))
	if fresh {
		return slices.Clone(v.items), nil
	}
	if err := b.listing.refresh(ctx, report); err != nil {
		return nil, err
	}
	return slices.Clone(v.items), nil
}

// lock takes the turn to refresh the view, or gives up with ctx.
func (b *Backend) lock(ctx context.Context) error {
	select {
	case b.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *Backend) unlock() { <-b.turn }

// lockReporting takes the turn, reporting meanwhile the progress of the
// listing that holds it (the watcher's first listing, say).
func (b *Backend) lockReporting(ctx context.Context, report func(client.Progress)) error {
	var last *client.Progress
	for {
		p, changed := b.listing.board.read()
		if report != nil && p != nil && p != last {
			report(*p)
			last = p
		}
		select {
		case b.turn <- struct{}{}:
			return nil
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// board shares the progress of the listing in flight with the callers
// waiting for their turn.
type board struct {
	mu      sync.Mutex
	latest  *client.Progress // nil: no listing in flight
	changed chan struct{}    // closed when latest changes
}

func (p *board) publish(pr *client.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latest = pr
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}

func (p *board) read() (*client.Progress, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.latest, p.changed
}
