package hub

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
)

// Upstream is what the hub needs of the backend it serves: a LangGraph
// server's backend (claims, failed runs, conversations, a change stream).
type Upstream interface {
	client.Backend
	client.Notifier
	client.Claimer
	client.FailureLister
	client.Conversational
	client.Batcher
	client.ApprovalKeeper
}

// Shared is the one backend every session of the hub works with: one
// watcher of the server's changes, one listing, one parsed copy of each
// interrupt, whatever the number of sessions. A session's periodic poll and
// its read after a change signal (client.WatchedWillDo) are answered from
// the shared listing and cost the server nothing; a listing a reviewer asks
// for (a refresh, the read after a send) goes to the server, and becomes
// the shared listing. Decisions, claims and conversations go straight
// through.
type Shared struct {
	Upstream

	// Team is the team in force: its rules gate decisions (approvals.go).
	Team func() *team.Config
	// Log gets a line per decision.
	Log *slog.Logger
	// Audit, when set, takes every decision into the team's audit log
	// (the hub's store).
	Audit func(ctx context.Context, e store.Entry)

	mu      sync.Mutex
	items   []client.Interrupt
	err     error
	at      time.Time // when items was listed; zero: never
	version uint64    // moves whenever items or err changes (Settled)
	subs    map[chan struct{}]struct{}
	started bool

	// failures are cached too: every session reads them every few
	// seconds.
	fmu      sync.Mutex
	failures []client.Failure
	fTotal   int
	fErr     error
	fAt      time.Time
	fLimit   int
}

// failuresFresh is how long a listing of failed threads serves every
// session.
const failuresFresh = 8 * time.Second

// NewShared wraps up; Watch starts its one watcher.
func NewShared(up Upstream) *Shared {
	return &Shared{Upstream: up, subs: map[chan struct{}]struct{}{}}
}

// Watch follows the server's changes until ctx ends: on each change it
// lists once and tells every session. poll is how often it lists when the
// backend's stream says nothing (a safety net).
func (s *Shared) Watch(ctx context.Context, poll time.Duration) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return
	}
	s.started = true
	s.mu.Unlock()
	changes := s.Upstream.Changes(ctx)
	s.list(client.WatchedWillDo(ctx))
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				changes = nil // the stream ended: poll only
				continue
			}
		case <-t.C:
		}
		if s.list(client.WatchedWillDo(ctx)) {
			s.signal()
		}
	}
}

// list reads the listing into the cache; it reports whether it changed.
func (s *Shared) list(ctx context.Context) bool {
	items, err := s.Upstream.Pending(ctx)
	if ctx.Err() != nil {
		return false
	}
	return s.store(items, err)
}

func (s *Shared) store(items []client.Interrupt, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := (err == nil) != (s.err == nil) || !same(items, s.items)
	if _, partial := client.DownSource(err); err == nil || partial {
		// A source down: the others' interrupts are good, and shown.
		s.items = items
	}
	if err != nil && s.err != nil && err.Error() != s.err.Error() {
		changed = true
	}
	if changed || s.at.IsZero() {
		s.version++
	}
	s.err, s.at = err, time.Now()
	return changed
}

// same compares two listings by what a session shows of them: the ids,
// when each was last updated, and the claims on it.
func same(a, b []client.Interrupt) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || !a[i].UpdatedAt.Equal(b[i].UpdatedAt) || len(a[i].Claims) != len(b[i].Claims) ||
			a[i].Busy != b[i].Busy || !sameApproval(a[i].Approval, b[i].Approval) {
			return false
		}
		for j := range a[i].Claims {
			if a[i].Claims[j] != b[i].Claims[j] {
				return false
			}
		}
	}
	return true
}

// sameApproval: a recorded approval does not move the interrupt's
// updated_at (see client/langgraph/approvals.go), so it is compared itself.
func sameApproval(a, b *client.Approval) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Words() == b.Words() && bytes.Equal(a.Value, b.Value)
}

// signal tells every session that the listing changed.
func (s *Shared) signal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default: // one waiting signal is enough
		}
	}
}

// Features are the upstream's, feature for feature: where the hub shares
// one (the listing and its progress, its signals and version, failed runs)
// the shared backend answers it, and every other passes on as it is. The
// hub offers exactly what its upstream offers.
func (s *Shared) Features() client.Features {
	f := s.Upstream.Features()
	if f.Notifier != nil {
		f.Notifier = s // the one watcher (Watch)
	}
	if f.Settled != nil {
		f.Settled = s // the shared listing's version
	}
	if f.Progressive != nil {
		f.Progressive = s
	}
	if f.FailureLister != nil {
		f.FailureLister = s
	}
	if f.Attentive != nil {
		f.Attentive = s // the one watcher serves the team: its pace stays
	}
	return f
}

// Attend is client.Attentive: a session's reviewer coming or going leaves
// the shared watcher's pace as it is. It looks for everyone, the HTTP door
// and its publishers included, and a hub exists to notify.
func (s *Shared) Attend(bool) {}

// Pending answers a session: from the shared listing when the session's
// watcher-driven read will do, from the server otherwise.
func (s *Shared) Pending(ctx context.Context) ([]client.Interrupt, error) {
	return s.PendingProgress(ctx, nil)
}

// PendingProgress is Pending, showing a long listing's progress where the
// upstream can (a session's refresh of thousands of interrupts).
func (s *Shared) PendingProgress(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	if client.WatchedDoes(ctx) {
		s.mu.Lock()
		items, err, at := s.items, s.err, s.at
		s.mu.Unlock()
		if !at.IsZero() {
			if _, partial := client.DownSource(err); err != nil && !partial {
				return nil, err
			}
			return slices.Clone(items), err
		}
	}
	var items []client.Interrupt
	var err error
	if p := s.Upstream.Features().Progressive; p != nil && report != nil {
		items, err = p.PendingProgress(ctx, report)
	} else {
		items, err = s.Upstream.Pending(ctx)
	}
	if ctx.Err() == nil && s.store(items, err) {
		s.signal()
	}
	if _, partial := client.DownSource(err); err != nil && !partial {
		return nil, err
	}
	return slices.Clone(items), err
}

// Settled is the shared listing's version, and whether a session's
// watcher-driven read would be answered from it now (it is, once the
// watcher listed without an error).
func (s *Shared) Settled() (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, !s.at.IsZero() && s.err == nil
}

// Changes subscribes a session to the shared watcher's signals.
func (s *Shared) Changes(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	out := make(chan struct{})
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	go func() {
		defer close(out)
		defer func() {
			s.mu.Lock()
			delete(s.subs, ch)
			s.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				select {
				case out <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

// downFor is the failure of the source of it, while it lasts (a merged
// inbox's sources are independent: nil when its source is up); down, the
// listing's, for an upstream of one source.
func (s *Shared) downFor(it client.Interrupt, down *client.SourceDown) *client.SourceDown {
	if m, ok := s.Upstream.(*Merged); ok {
		return m.DownFor(it)
	}
	return down
}

// Sessions is how many sessions listen for changes.
func (s *Shared) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

// Failures answers every session from one listing a few seconds old at
// most.
func (s *Shared) Failures(ctx context.Context, limit int) ([]client.Failure, int, error) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if !s.fAt.IsZero() && time.Since(s.fAt) < failuresFresh && limit <= s.fLimit {
		return trim(s.failures, limit), s.fTotal, s.fErr
	}
	fs, total, err := s.Upstream.Failures(ctx, limit)
	if ctx.Err() != nil {
		return fs, total, err
	}
	s.failures, s.fTotal, s.fErr, s.fAt, s.fLimit = fs, total, err, time.Now(), limit
	return trim(fs, limit), total, err
}

func trim(fs []client.Failure, limit int) []client.Failure {
	if limit > 0 && len(fs) > limit {
		return fs[:limit]
	}
	return fs
}
