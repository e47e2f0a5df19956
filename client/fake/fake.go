// Package fake is an in-memory backend for fast tests of what sits above
// the backends (the decision pipeline, the TUI): it keeps interrupts, takes
// resumes the way a LangGraph server does (a stale resume is acknowledged
// and does nothing), remembers which decision answered what, and can be
// told to fail in the ways a network fails.
package fake

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Backend is the fake. Its fields are safe to set before use; use the
// methods once tests run concurrently.
type Backend struct {
	mu       sync.Mutex
	items    []client.Interrupt
	answered map[string]answer
	busy     map[string]bool // thread ids running another task
	// Sent is every resume value taken, by interrupt id.
	Sent map[string]client.Resume
	// Resumes counts every Resume call that reached the "server".
	Resumes int

	// ListErr fails Pending.
	ListErr error
	// SendErr fails Resume without taking anything.
	SendErr error
	// LoseAnswer takes the resume, then fails as if the answer were lost
	// (a reset after the server acted).
	LoseAnswer bool
	// VerifyErr fails Verify (the server cannot be read).
	VerifyErr error
	// Outcome is what Follow reports (default: finished).
	Outcome client.Outcome
	// Messages are the threads' conversations, by thread id.
	Messages map[string][]client.Message

	// claims are the reviewers' claims, by interrupt id, then client.
	claims map[string]map[string]client.Claim
	// ClaimErr fails Claim and Release (a server that refuses them).
	ClaimErr error
	// failures are the threads whose run failed (SetFailures).
	failures []client.Failure
	// gone are the decisions whose run a Restart lost.
	gone map[string]bool
}

// Conversation is the thread's messages (Messages).
func (f *Backend) Conversation(_ context.Context, thread string) ([]client.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Messages[thread], nil
}

type answer struct {
	item     client.Interrupt // what was answered (Restart brings it back)
	decision string
	reviewer string
	value    client.Resume
	at       time.Time
}

// New returns a fake holding items.
func New(items ...client.Interrupt) *Backend {
	return &Backend{items: items, answered: map[string]answer{}, busy: map[string]bool{}, Sent: map[string]client.Resume{},
		claims: map[string]map[string]client.Claim{}}
}

// Server names the fake.
func (f *Backend) Server() string { return "http://fake" }

// Add makes more interrupts pending.
func (f *Backend) Add(its ...client.Interrupt) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items = append(f.items, its...)
}

// Set replaces what is pending.
func (f *Backend) Set(its ...client.Interrupt) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items = append([]client.Interrupt(nil), its...)
}

// Items is what is pending now.
func (f *Backend) Items() []client.Interrupt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]client.Interrupt(nil), f.items...)
}

// SetBusy marks a thread as running another task (or not).
func (f *Backend) SetBusy(thread string, busy bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.busy[thread] = busy
}

// AnswerElsewhere answers id as another reviewer would.
func (f *Backend) AnswerElsewhere(id, reviewer string, value client.Resume) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.take(id, answer{decision: "elsewhere", reviewer: reviewer, value: value, at: time.Now()}, false)
}

// Restart is an in-memory server restarting while runs were going: every
// interrupt a decision answered waits again and the decisions' runs are
// gone, so Verify finds the run it was given lost.
func (f *Backend) Restart() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone == nil {
		f.gone = map[string]bool{}
	}
	for id, a := range f.answered {
		if a.decision == "elsewhere" {
			continue
		}
		f.gone[a.decision] = true
		delete(f.answered, id)
		delete(f.Sent, id)
		f.items = append(f.items, a.item)
	}
}

// SetListErr and SetSendErr change the failures while tests run.
func (f *Backend) SetListErr(err error) {
	f.mu.Lock()
	f.ListErr = err
	f.mu.Unlock()
}

func (f *Backend) SetVerifyErr(err error) {
	f.mu.Lock()
	f.VerifyErr = err
	f.mu.Unlock()
}

func (f *Backend) SetSendErr(err error) {
	f.mu.Lock()
	f.SendErr = err
	f.mu.Unlock()
}

// SentValue is the resume taken for id.
func (f *Backend) SentValue(id string) (client.Resume, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.Sent[id]
	return r, ok
}

// take answers id, if it waits; it reports whether it did. An interrupt
// held by a failed thread waits only for a decision that answers it
// again (retry): the thread then leaves the failures.
func (f *Backend) take(id string, a answer, retry bool) bool {
	for i, it := range f.items {
		if it.ID == id {
			f.items = append(f.items[:i:i], f.items[i+1:]...)
			a.item = it
			f.answered[id] = a
			delete(f.claims, id)
			return true
		}
	}
	if i := f.heldBy(id); retry && i >= 0 {
		f.failures = append(f.failures[:i:i], f.failures[i+1:]...)
		f.answered[id] = a
		delete(f.claims, id)
		return true
	}
	return false
}

// heldBy is the failure that holds interrupt id (-1: none).
func (f *Backend) heldBy(id string) int {
	for i, x := range f.failures {
		for _, it := range x.Interrupts {
			if it.ID == id {
				return i
			}
		}
	}
	return -1
}

// SetFailures replaces the threads whose run failed; their interrupts are
// marked Retry.
func (f *Backend) SetFailures(fs ...client.Failure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = nil
	for _, x := range fs {
		x.Interrupts = append([]client.Interrupt(nil), x.Interrupts...)
		for i := range x.Interrupts {
			x.Interrupts[i].Retry = true
		}
		f.failures = append(f.failures, x)
	}
}

// Failures lists the threads whose run failed, as set.
func (f *Backend) Failures(_ context.Context, limit int) ([]client.Failure, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ListErr != nil {
		return nil, 0, f.ListErr
	}
	out := append([]client.Failure(nil), f.failures...)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, len(f.failures), nil
}

// Claim records c on it (by c.Client), as a server that keeps claims would.
func (f *Backend) Claim(_ context.Context, it client.Interrupt, c client.Claim) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ClaimErr != nil {
		return f.ClaimErr
	}
	if f.claims[it.ID] == nil {
		f.claims[it.ID] = map[string]client.Claim{}
	}
	f.claims[it.ID][c.Client] = c
	return nil
}

// Release clears c's claim on it.
func (f *Backend) Release(_ context.Context, it client.Interrupt, c client.Claim) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ClaimErr != nil {
		return f.ClaimErr
	}
	delete(f.claims[it.ID], c.Client)
	return nil
}

// SetClaimErr changes the claims' failure while tests run.
func (f *Backend) SetClaimErr(err error) {
	f.mu.Lock()
	f.ClaimErr = err
	f.mu.Unlock()
}

// Claims are the claims on interrupt id, by client.
func (f *Backend) Claims(id string) map[string]client.Claim {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]client.Claim{}
	for k, v := range f.claims[id] {
		out[k] = v
	}
	return out
}

// claimsOf lists the claims on id, in a stable order.
func (f *Backend) claimsOf(id string) []client.Claim {
	var out []client.Claim
	for _, c := range f.claims[id] {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Client < out[j].Client })
	return out
}

// Pending lists what waits, busy threads' interrupts marked.
func (f *Backend) Pending(context.Context) ([]client.Interrupt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ListErr != nil {
		return nil, f.ListErr
	}
	out := append([]client.Interrupt(nil), f.items...)
	for i := range out {
		out[i].Busy = f.busy[out[i].ThreadID]
		out[i].Claims = f.claimsOf(out[i].ID)
	}
	return out, nil
}

// Standing says waiting, busy, answered (by whom) or gone.
func (f *Backend) Standing(_ context.Context, its []client.Interrupt) ([]client.Standing, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ListErr != nil {
		return nil, f.ListErr
	}
	out := make([]client.Standing, len(its))
	for i, it := range its {
		out[i] = client.Standing{ID: it.ID, Presence: client.Gone}
		if a, ok := f.answered[it.ID]; ok {
			out[i].Presence = client.Answered
			out[i].By = &client.Winner{Reviewer: a.reviewer, At: a.at, Value: a.value.Value}
			continue
		}
		for _, x := range f.items {
			if x.ID == it.ID {
				out[i].Presence = client.Waiting
				if f.busy[x.ThreadID] {
					out[i].Presence = client.ThreadBusy
				}
			}
		}
		if it.Retry && f.heldBy(it.ID) >= 0 {
			out[i].Presence = client.Waiting
		}
	}
	return out, nil
}

// Resume takes every waiting interrupt of the submission; answered ones
// are left as they are (a stale resume does nothing, and is acknowledged).
// EndsThreads: the fake records an ending as it records a resume.
func (f *Backend) EndsThreads() bool { return true }

func (f *Backend) Resume(_ context.Context, s *client.Submission) (client.Receipt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.SendErr != nil {
		return client.Receipt{}, f.SendErr
	}
	if f.busy[s.ThreadID] {
		return client.Receipt{}, client.ErrBusy
	}
	f.Resumes++
	for _, it := range s.Items {
		if f.take(it.Interrupt.ID, answer{decision: s.DecisionID, reviewer: s.Reviewer, value: it.Resume, at: time.Now()}, it.Interrupt.Retry) {
			f.Sent[it.Interrupt.ID] = it.Resume
		}
	}
	if f.LoseAnswer {
		return client.Receipt{}, &client.SendError{Err: errLost, MaybeSent: true}
	}
	return client.Receipt{Acknowledged: true, RunID: "run-" + s.DecisionID[:min(8, len(s.DecisionID))]}, nil
}

type lostError struct{}

func (lostError) Error() string { return "the server closed the connection without answering" }

var errLost error = lostError{}

// Verify says which decision answered each interrupt.
func (f *Backend) Verify(_ context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.VerifyErr != nil {
		return nil, f.VerifyErr
	}
	out := make([]client.Verdict, len(s.Items))
	for i, it := range s.Items {
		v := client.Verdict{ID: it.Interrupt.ID, Took: client.NotTaken}
		if f.gone[s.DecisionID] && rc.RunID != "" {
			v.Took = client.Lost // a run was created, and the restart lost it
			if _, ok := f.answered[it.Interrupt.ID]; ok {
				return nil, errors.New("the server does not list the run, and the interrupt no longer waits")
			}
		}
		if a, ok := f.answered[it.Interrupt.ID]; ok {
			v.Took = client.Mine
			if a.decision != s.DecisionID {
				v.Took, v.Winner = client.Theirs, &client.Winner{Reviewer: a.reviewer, At: a.at, Value: a.value.Value}
			}
		}
		out[i] = v
	}
	return out, nil
}

// Follow reports Outcome (finished unless set).
func (f *Backend) Follow(context.Context, *client.Submission, client.Receipt) client.Outcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Outcome.Status == "" {
		return client.Outcome{Status: client.Finished}
	}
	return f.Outcome
}

// Batches: one resume may answer several interrupts of a thread.
func (f *Backend) Batches() bool { return true }
