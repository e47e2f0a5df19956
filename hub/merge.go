package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/store"
)

// Source is one of the sources a hub serves in one inbox: a LangGraph
// server, an A2A agent, an opencode server, the requests publishers put up
// on the hub's door (coding agents' hooks).
type Source struct {
	// Name says it to the reviewer, as in "the A2A agent at URL cannot be
	// listed" (client.SourceDown).
	Name string
	// Kind names it in the team's audit log (langgraph, a2a, opencode);
	// empty where the audit log finds it itself (the door's requests).
	Kind string
	// Backend is the source.
	Backend client.Backend
	// Owns, when set, says whether an interrupt id is this source's
	// without a listing (the door's requests, looked up in the store).
	Owns func(id string) bool
}

// Merged is a hub's inbox over several sources: their interrupts in one
// listing (in the order of the sources, each newest first), each decision,
// claim, conversation and approval passed to the source its interrupt
// came from. Sources are independent: one that cannot be listed is said
// (client.SourceDown), its last listing kept, and the others are listed
// as ever. It offers what its sources offer, feature for feature (one
// source: exactly that source's features, backendtest.SameFeatures), and
// answers each itself so that it reaches the right source.
type Merged struct {
	src []*mergedSource

	mu      sync.Mutex
	owner   map[string]int // interrupt id → source, from the listings
	threads map[string]int // thread id → source, from the listings

	// Store keeps the approvals of a source that keeps none itself
	// (client.ApprovalKeeper): an A2A agent, opencode; every hub on the
	// store reads them (approvals_store.go). Without it such a source's
	// two-person approvals cannot be recorded (and nothing is sent).
	Store *store.Store
}

type mergedSource struct {
	Source
	feat client.Features

	// The source's failure, while it lasts: a watched read does not wait
	// on a source known down more often than every SourceRetry; last is
	// its last listing, shown while it is down rather than as if its
	// interrupts were answered.
	mu     sync.Mutex
	down   error
	downAt time.Time
	last   []client.Interrupt
}

// maxOwned bounds the interrupts whose source is remembered.
const maxOwned = 100000

// SourceRetry is how often a watched read asks a source that was down
// again.
const SourceRetry = 3 * time.Second

// NewMerged serves sources in one inbox, in this order.
func NewMerged(sources ...Source) *Merged {
	m := &Merged{owner: map[string]int{}, threads: map[string]int{}}
	for _, s := range sources {
		m.src = append(m.src, &mergedSource{Source: s, feat: s.Backend.Features()})
	}
	return m
}

// Sources are the sources, in order.
func (m *Merged) Sources() []Source {
	out := make([]Source, len(m.src))
	for i, s := range m.src {
		out[i] = s.Source
	}
	return out
}

// Server names every source.
func (m *Merged) Server() string {
	var names []string
	for _, s := range m.src {
		names = append(names, s.Backend.Server())
	}
	return strings.Join(names, ", ")
}

// KindOf is the kind of the source an interrupt id came from (Source.Kind),
// "" when that source has none or the id is no source's.
func (m *Merged) KindOf(id string) string {
	if s := m.byID(id, ""); s != nil {
		return s.Kind
	}
	return ""
}

// Features are every source's: a feature is offered where one source
// offers it, and answered by the merged inbox, which passes each call to
// the source of its interrupt (a source without the feature: nothing to
// do, or an error saying so).
func (m *Merged) Features() client.Features {
	var f client.Features
	for _, s := range m.src {
		g := s.feat
		if g.Batcher != nil {
			f.Batcher = m
		}
		if g.Claimer != nil {
			f.Claimer = m
		}
		if g.Conversational != nil {
			f.Conversational = m
		}
		if g.Ender != nil {
			f.Ender = m
		}
		if g.FailureLister != nil {
			f.FailureLister = m
		}
		if g.Notifier != nil {
			f.Notifier = m
		}
		if g.Progressive != nil {
			f.Progressive = m
		}
		if g.RunController != nil {
			f.RunController = m
		}
		if g.Settled != nil {
			f.Settled = m
		}
		if g.Activity != nil {
			f.Activity = m
		}
		if g.ApprovalKeeper != nil {
			f.ApprovalKeeper = m
		}
		if g.Redactor != nil {
			f.Redactor = m
		}
		if g.Attentive != nil {
			f.Attentive = m
		}
		if g.Messenger != nil {
			f.Messenger = m
		}
	}
	return f
}

// byID is the source of an interrupt: the one that owns its id, the one
// that listed it, the one it names as its server, or the only one.
func (m *Merged) byID(id, server string) *mergedSource {
	for _, s := range m.src {
		if s.Owns != nil && s.Owns(id) {
			return s
		}
	}
	m.mu.Lock()
	i, ok := m.owner[id]
	m.mu.Unlock()
	if ok {
		return m.src[i]
	}
	if server != "" {
		for _, s := range m.src {
			if s.Backend.Server() == server {
				return s
			}
		}
	}
	if len(m.src) == 1 {
		return m.src[0]
	}
	return nil
}

func (m *Merged) of(it client.Interrupt) *mergedSource { return m.byID(it.ID, it.Server) }

func (m *Merged) byThread(thread string) *mergedSource {
	m.mu.Lock()
	i, ok := m.threads[thread]
	m.mu.Unlock()
	if ok {
		return m.src[i]
	}
	if len(m.src) == 1 {
		return m.src[0]
	}
	return nil
}

// notOurs is the error of a decision on an interrupt no source listed.
func notOurs(id string) error {
	return fmt.Errorf("interrupt %s is not in any of the hub's sources (refresh the inbox): nothing was sent", id)
}

// Pending lists every source at once; a source that fails hides nothing of
// the others: they are listed with its last listing and a
// client.SourceDown naming it. Every source failing is an error.
func (m *Merged) Pending(ctx context.Context) ([]client.Interrupt, error) {
	return m.pending(ctx, nil)
}

// PendingProgress is Pending, showing the progress of a source's long
// listing (a LangGraph server's thousands) after the others' interrupts.
func (m *Merged) PendingProgress(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	return m.pending(ctx, report)
}

func (m *Merged) pending(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	lists := make([][]client.Interrupt, len(m.src))
	errs := make([]error, len(m.src))
	var wg sync.WaitGroup
	var progressive []int
	for i, s := range m.src {
		if report != nil && s.feat.Progressive != nil {
			progressive = append(progressive, i)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], errs[i] = s.list(ctx, nil)
		}()
	}
	wg.Wait()
	for _, i := range progressive {
		lists[i], errs[i] = m.src[i].list(ctx, func(p client.Progress) {
			var items []client.Interrupt
			for j := range m.src {
				if j == i {
					items = append(items, p.Items...)
				} else {
					items = append(items, lists[j]...)
				}
			}
			p.Items = items
			report(p)
		})
	}
	if ctx.Err() != nil {
		for _, err := range errs {
			if err != nil {
				return nil, err // cancelled: says nothing of the sources
			}
		}
	}
	var all []client.Interrupt
	var names []string
	var downs []error
	hard := 0 // sources that could not be listed at all
	kept := m.storedApprovals(ctx, lists)
	m.mu.Lock()
	if len(m.owner) > maxOwned {
		// A hub that ran long forgets the interrupts of old listings: a
		// decision on one still finds its source by its server.
		clear(m.owner)
		clear(m.threads)
	}
	for i, its := range lists {
		for j := range its {
			it := &its[j]
			m.owner[it.ID] = i
			if it.ThreadID != "" {
				m.threads[it.ThreadID] = i
			}
			if it.Approval == nil {
				it.Approval = kept[i][it.ID]
			}
		}
		all = append(all, its...)
		if d, partial := client.DownSource(errs[i]); partial {
			// The source listed, but for a part of it (an A2A profile's
			// task the agent does not know).
			names = append(names, d.Source+" of "+m.src[i].Name)
			downs = append(downs, d.Err)
		} else if errs[i] != nil {
			names = append(names, m.src[i].Name)
			downs = append(downs, errs[i])
			hard++
		}
	}
	m.mu.Unlock()
	switch {
	case len(downs) == 0:
		return all, nil
	case hard == len(m.src) && len(all) == 0:
		if len(downs) == 1 {
			return nil, downs[0]
		}
		for i := range downs {
			downs[i] = fmt.Errorf("%s: %w", names[i], downs[i])
		}
		return nil, errors.Join(downs...)
	}
	return all, &client.SourceDown{Source: strings.Join(names, " and "), Err: errors.Join(downs...)}
}

// list is the source's listing, or its last one with its error while it is
// down.
func (s *mergedSource) list(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	s.mu.Lock()
	down, at, last := s.down, s.downAt, s.last
	s.mu.Unlock()
	if down != nil && client.WatchedDoes(ctx) && time.Since(at) < SourceRetry {
		return slices.Clone(last), down
	}
	var its []client.Interrupt
	var err error
	if report != nil {
		its, err = s.feat.Progressive.PendingProgress(ctx, report)
	} else {
		its, err = s.Backend.Pending(ctx)
	}
	if ctx.Err() != nil && err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, partial := client.DownSource(err); err != nil && !partial {
		s.down, s.downAt = err, time.Now()
		return slices.Clone(s.last), err
	}
	// Listed (a part of it that cannot be read is said, the rest good).
	s.down, s.downAt = nil, time.Now()
	s.last = its
	return its, err
}

// DownFor is the failure of the source of it, while it lasts; nil when
// that source was listed last time.
func (m *Merged) DownFor(it client.Interrupt) *client.SourceDown {
	s := m.of(it)
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down == nil {
		return nil
	}
	return &client.SourceDown{Source: s.Name, Err: s.down}
}

// Standing asks the source of the thread's interrupts; an interrupt no
// source knows is gone.
func (m *Merged) Standing(ctx context.Context, its []client.Interrupt) ([]client.Standing, error) {
	if len(its) == 0 {
		return nil, nil
	}
	s := m.of(its[0])
	if s == nil {
		out := make([]client.Standing, len(its))
		for i, it := range its {
			out[i] = client.Standing{ID: it.ID, Presence: client.Gone}
		}
		return out, nil
	}
	return s.Backend.Standing(ctx, its)
}

func (m *Merged) subSource(sub *client.Submission) (*mergedSource, error) {
	if len(sub.Items) == 0 {
		return nil, errors.New("nothing to send")
	}
	s := m.of(sub.Items[0].Interrupt)
	if s == nil {
		return nil, notOurs(sub.Items[0].Interrupt.ID)
	}
	return s, nil
}

// Resume sends the submission to its interrupts' source.
func (m *Merged) Resume(ctx context.Context, sub *client.Submission) (client.Receipt, error) {
	s, err := m.subSource(sub)
	if err != nil {
		return client.Receipt{}, err
	}
	for _, it := range sub.Items {
		if it.Resume.End != nil && !s.feat.Ends() {
			return client.Receipt{}, fmt.Errorf("%s cannot end a thread's work (%s): reject it instead; nothing sent", s.Name, it.Resume.End.Words())
		}
	}
	if len(sub.Items) > 1 && !s.feat.Batches() {
		return client.Receipt{}, fmt.Errorf("%s takes one answer at a time: nothing sent", s.Name)
	}
	return s.Backend.Resume(ctx, sub)
}

// Verify asks the submission's source.
func (m *Merged) Verify(ctx context.Context, sub *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	s, err := m.subSource(sub)
	if err != nil {
		return nil, err
	}
	return s.Backend.Verify(ctx, sub, rc)
}

// Follow asks the submission's source.
func (m *Merged) Follow(ctx context.Context, sub *client.Submission, rc client.Receipt) client.Outcome {
	s, err := m.subSource(sub)
	if err != nil {
		return client.Outcome{Status: client.Accepted, Error: err.Error()}
	}
	return s.Backend.Follow(ctx, sub, rc)
}

// Changes signals a change of any source that signals its own.
func (m *Merged) Changes(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	var wg sync.WaitGroup
	for _, s := range m.src {
		if s.feat.Notifier == nil {
			continue
		}
		ch := s.feat.Notifier.Changes(ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range ch {
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}()
	}
	go func() { wg.Wait(); close(out) }()
	return out
}

// Settled is every source's version in one; settled only where every
// source can say so.
func (m *Merged) Settled() (uint64, bool) {
	h := fnv.New64a()
	ok := true
	for _, s := range m.src {
		if s.feat.Settled == nil {
			ok = false
			continue
		}
		v, sok := s.feat.Settled.Settled()
		ok = ok && sok
		fmt.Fprint(h, v, "|")
	}
	return h.Sum64(), ok
}

// Activity is the newest change of any source that tells.
func (m *Merged) Activity() (time.Time, int, bool) {
	var newest time.Time
	threads, ok := 0, false
	for _, s := range m.src {
		if s.feat.Activity == nil {
			continue
		}
		t, n, sok := s.feat.Activity.Activity()
		if !sok {
			continue
		}
		ok = true
		threads += n
		if t.After(newest) {
			newest = t
		}
	}
	return newest, threads, ok
}

// Attend tells every source that listens.
func (m *Merged) Attend(there bool) {
	for _, s := range m.src {
		if s.feat.Attentive != nil {
			s.feat.Attentive.Attend(there)
		}
	}
}

// Redact hides every source's credentials.
func (m *Merged) Redact(text string) string {
	for _, s := range m.src {
		if s.feat.Redactor != nil {
			text = s.feat.Redactor.Redact(text)
		}
	}
	return text
}

// Batches: some source takes several branches of a thread at once (its
// own threads only: Resume refuses more for a source that does not).
func (m *Merged) Batches() bool {
	for _, s := range m.src {
		if s.feat.Batches() {
			return true
		}
	}
	return false
}

// EndsThreads: some source ends a thread's work (its own only: Resume
// refuses an ending for a source that does not).
func (m *Merged) EndsThreads() bool {
	for _, s := range m.src {
		if s.feat.Ends() {
			return true
		}
	}
	return false
}

// EndsThreadOf: the source that listed it ends a thread's work
// (client.InterruptEnder).
func (m *Merged) EndsThreadOf(it client.Interrupt) bool {
	s := m.of(it)
	return s != nil && s.feat.EndsAt(it)
}

// Message is the message the source of s's item i sends around its
// answer, where that source says one.
func (m *Merged) Message(sub *client.Submission, i int) (json.RawMessage, bool) {
	if i < 0 || i >= len(sub.Items) {
		return nil, false
	}
	if s := m.of(sub.Items[i].Interrupt); s != nil && s.feat.Messenger != nil {
		return s.feat.Messenger.Message(sub, i)
	}
	return nil, false
}

// Claim tells the interrupt's source, where it keeps claims.
func (m *Merged) Claim(ctx context.Context, it client.Interrupt, c client.Claim) error {
	if s := m.of(it); s != nil && s.feat.Claimer != nil {
		return s.feat.Claimer.Claim(ctx, it, c)
	}
	return nil
}

// Release tells the interrupt's source, where it keeps claims.
func (m *Merged) Release(ctx context.Context, it client.Interrupt, c client.Claim) error {
	if s := m.of(it); s != nil && s.feat.Claimer != nil {
		return s.feat.Claimer.Release(ctx, it, c)
	}
	return nil
}

// Conversation reads the thread's messages from its source.
func (m *Merged) Conversation(ctx context.Context, thread string) ([]client.Message, error) {
	s := m.byThread(thread)
	switch {
	case s == nil:
		return nil, fmt.Errorf("thread %s is not in the hub's inbox (refresh it)", thread)
	case s.feat.Conversational == nil:
		return nil, fmt.Errorf("the conversation of thread %s is not on the hub: its source (%s) keeps none the hub can read", thread, s.Name)
	}
	return s.feat.Conversational.Conversation(ctx, thread)
}

// ControlRun passes to the interrupt's source.
func (m *Merged) ControlRun(ctx context.Context, it client.Interrupt, a client.RunAction) (string, error) {
	s := m.of(it)
	if s == nil || s.feat.RunController == nil {
		return "", fmt.Errorf("the run of interrupt %s cannot be controlled from the hub: nothing was done", it.ID)
	}
	return s.feat.RunController.ControlRun(ctx, it, a)
}

// Failures are every source's failed runs, newest source first as
// listed; a source that cannot say hides nothing of the others.
func (m *Merged) Failures(ctx context.Context, limit int) ([]client.Failure, int, error) {
	var out []client.Failure
	total := 0
	var errs []error
	for _, s := range m.src {
		if s.feat.FailureLister == nil {
			continue
		}
		fs, n, err := s.feat.FailureLister.Failures(ctx, limit)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
			continue
		}
		out, total = append(out, fs...), total+n
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, total, errors.Join(errs...)
}
