package langgraph

import (
	"context"
	"net/url"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// threadFacts is what the thread list does not say about a thread and that
// costs a request to learn: which interrupts were answered already (a
// fan-out thread keeps listing answered branches), which are being answered
// by a run in progress, and, for a breakpoint, where it stopped. It holds
// for the thread's updated_at it was read at.
type threadFacts struct {
	updated   time.Time
	answered  map[string]bool // interrupt ids whose task has a result
	answering map[string]*run // interrupt ids an active run resumes
	state     *threadState    // read for a thread with several tasks or no interrupt value
	runs      []run           // the active runs, for a busy thread
}

// threadInterrupts reads a thread's waiting interrupts. Answered branches
// (their task has a result) and interrupts an active run is answering are
// left out; the others of a busy thread are marked Busy. A thread that is
// interrupted but lists no interrupt value is read through its state: its
// tasks may carry them, or it stopped at a static breakpoint.
func (b *Backend) threadInterrupts(ctx context.Context, t *thread, cached bool) ([]client.Interrupt, error) {
	n := t.Interrupts.count()
	switch {
	case t.Status == "interrupted" && n == 0:
	case t.Status == "busy" && n > 0:
	case t.Status == "interrupted" && len(t.Interrupts) > 1:
	case t.Status == "interrupted" && b.keyOrder.Load() != orderKept && t.hasKeyOrder():
		// Whether the thread keeps the graph's key order is not known
		// yet, or it does not (a JSONB column): the state tells.
	case t.Status == "interrupted":
		return t.interrupts(b.Server(), nil), nil
	default:
		return nil, nil
	}
	f, err := b.facts(ctx, t, cached)
	if err != nil {
		return nil, err
	}
	if t.StateUpdatedAt == nil && f.state != nil && f.state.CreatedAt != nil {
		// The JS server has no state_updated_at: the state's checkpoint
		// says when it last changed, so that a claim on one branch (a
		// PATCH that moved updated_at) does not make its siblings new.
		tt := *t
		tt.StateUpdatedAt = f.state.CreatedAt
		t = &tt
	}
	if n == 0 {
		return b.stateInterrupts(t, f.state), nil
	}
	skip := map[string]bool{}
	for id := range f.answered {
		skip[id] = true
	}
	for id := range f.answering {
		skip[id] = true
	}
	its := t.interrupts(b.Server(), skip)
	b.inGraphOrder(t, f.state, its)
	if t.Status == "busy" {
		for i := range its {
			its[i].Busy = true
		}
	}
	return its, nil
}

// stateInterrupts are the interrupts a thread's state carries in its tasks,
// or its breakpoint when it has none.
func (b *Backend) stateInterrupts(t *thread, st *threadState) []client.Interrupt {
	if st == nil {
		return nil
	}
	var out []client.Interrupt
	for _, task := range st.Tasks {
		if task.answered() {
			continue
		}
		for i, w := range task.Interrupts {
			out = append(out, t.base(b.Server(), interruptID(w, t.ThreadID, task.ID, i), w.Value, w.payload()))
		}
	}
	if len(out) > 0 {
		return out
	}
	it := t.base(b.Server(), breakpointID(t.ThreadID, st.Checkpoint.CheckpointID), nil, client.Breakpoint(st.Next))
	it.Checkpoint = st.Checkpoint.CheckpointID
	return []client.Interrupt{it}
}

// facts reads (or, when cached and the thread has not changed, reuses) what
// the thread list does not say.
func (b *Backend) facts(ctx context.Context, t *thread, cached bool) (threadFacts, error) {
	if cached {
		b.mu.Lock()
		f, ok := b.state[t.ThreadID]
		b.mu.Unlock()
		if ok && f.updated.Equal(t.UpdatedAt) {
			return f, nil
		}
	}
	f := threadFacts{updated: t.UpdatedAt, answered: map[string]bool{}, answering: map[string]*run{}}
	if t.Status == "interrupted" || t.Interrupts.count() > 0 {
		st, err := b.readState(ctx, t.ThreadID)
		if err != nil {
			return f, err
		}
		f.state = st
		f.answered = answeredIDs(t, st)
	}
	if t.Status == "busy" {
		runs, err := b.activeRuns(ctx, t.ThreadID)
		if err != nil {
			return f, err
		}
		f.runs = runs
		for i := range runs {
			for _, e := range t.Interrupts {
				for j, w := range e.Interrupts {
					id := interruptID(w, t.ThreadID, e.TaskID, j)
					if _, ok := runs[i].resumes(id); ok {
						f.answering[id] = &runs[i]
					}
				}
			}
		}
	}
	b.mu.Lock()
	b.state[t.ThreadID] = f
	b.mu.Unlock()
	return f, nil
}

// forget drops cached facts of threads no longer waiting.
func (b *Backend) forget(keep map[string]*entry) {
	b.mu.Lock()
	for id := range b.state {
		if keep[id] == nil {
			delete(b.state, id)
		}
	}
	b.mu.Unlock()
}

func (b *Backend) readState(ctx context.Context, threadID string) (*threadState, error) {
	var st threadState
	resp, err := b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(threadID) + "/state")
	if err := b.Check(resp, err, "read the state of thread "+threadID, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// activeRuns lists the thread's runs that have not ended.
func (b *Backend) activeRuns(ctx context.Context, threadID string) ([]run, error) {
	var out []run
	// Pending first: a run moves from pending to running, so one read in
	// this order finds it in one list or the other (running first missed
	// a run that started between the two reads, seen on langgraphjs).
	for _, status := range []string{"pending", "running"} {
		var list runList
		resp, err := b.Reads.R().SetContext(ctx).SetQueryParams(map[string]string{"status": status, "limit": "100"}).
			Get("/threads/" + url.PathEscape(threadID) + "/runs")
		if err := b.Check(resp, err, "list the runs of thread "+threadID, &list); err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// What hitl knows of a server's thread.interrupts: whether it keeps the
// key order the graph wrote (Backend.keyOrder).
const (
	orderUnknown int32 = iota
	orderKept
	orderChanged
)

// inGraphOrder gives each interrupt the value of the thread's state, which
// keeps the graph's key order, where thread.interrupts has the same value
// in another order: the pg runtime keeps thread.interrupts in a JSONB
// column, which orders an object's keys by length (`to, body, subject`
// for a graph that wrote `to, subject, body`). The first value that tells
// settles which kind of server this is: one that keeps the order is then
// read without the state.
func (b *Backend) inGraphOrder(t *thread, st *threadState, its []client.Interrupt) {
	if st == nil {
		return
	}
	byID := map[string]wireInterrupt{}
	for _, task := range st.Tasks {
		for i, w := range task.Interrupts {
			byID[interruptID(w, t.ThreadID, task.ID, i)] = w
		}
	}
	for i := range its {
		w, ok := byID[its[i].ID]
		if !ok || len(w.Value) == 0 {
			continue
		}
		switch sameJSON(its[i].Raw, w.Value) {
		case sameBytes:
			if !jsonbOrdered(w.Value) {
				b.keyOrder.CompareAndSwap(orderUnknown, orderKept)
			}
		case sameValue:
			b.keyOrder.Store(orderChanged)
			p := w.payload()
			if its[i].Payload.ResponseSchema != nil && len(w.ResponseSchema) == 0 {
				continue // the state lacks the schema the thread has: keep the thread's
			}
			its[i].Payload = p
			its[i].WithValue(w.Value)
		}
	}
}

// hasKeyOrder reports whether any of the thread's interrupt values has an
// object of two keys or more: one whose order a server could have changed.
func (t *thread) hasKeyOrder() bool {
	for _, e := range t.Interrupts {
		for _, w := range e.Interrupts {
			if multiKey(w.Value) {
				return true
			}
		}
	}
	return false
}
