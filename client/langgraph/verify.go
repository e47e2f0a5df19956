package langgraph

import (
	"context"
	"fmt"
	"net/url"
	"sort"

	"github.com/hitl-sh/hitl/client"
)

// maxRuns is how many runs of one thread Verify reads. The JS server lists
// runs oldest first and ignores offset past the first page, so one large
// page is the only way to see them all; a thread with more runs than this
// cannot be verified and is reported as unknown.
const maxRuns = 1000

// Verify reads the thread's runs and decides, for each interrupt, which run
// took it: the oldest run whose resume names it, skipping runs that failed
// (they may not have applied it) unless it is this submission's. Runs of a
// thread never run at once, so the oldest one runs first and takes the
// interrupt; a later one finds it answered and does nothing. When this
// submission's run has ended, its checkpoints confirm it: a run that
// answered an interrupt wrote a checkpoint after it, or left a result on
// the interrupt's task; a stale one wrote nothing.
func (b *Backend) Verify(ctx context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	runs, err := b.allRuns(ctx, s.ThreadID)
	if err != nil {
		return nil, err
	}
	var mine *run
	for i := range runs {
		if (rc.RunID != "" && runs[i].RunID == rc.RunID) || (rc.RunID == "" && runs[i].meta(metaDecision) == s.DecisionID) {
			mine = &runs[i]
		}
	}
	out := make([]client.Verdict, len(s.Items))
	if mine == nil && rc.RunID != "" {
		// The run the server created is not listed: is another run
		// carrying this decision?
		for i := range runs {
			if runs[i].meta(metaDecision) == s.DecisionID {
				mine = &runs[i]
			}
		}
	}
	if mine == nil {
		if rc.RunID != "" {
			if len(runs) >= maxRuns {
				return nil, fmt.Errorf("thread %s has more than %d runs: hitl cannot read them all to verify the decision", s.ThreadID, maxRuns)
			}
			// No run carries the decision. If every interrupt it answered
			// still waits, the server lost the run: the answer never took
			// effect. Otherwise hitl cannot tell.
			waits, err := b.allWait(ctx, s)
			if err != nil {
				return nil, err
			}
			if !waits {
				return nil, fmt.Errorf("the server does not list run %s that it created on thread %s, and the interrupt no longer waits", rc.RunID, s.ThreadID)
			}
			for i, it := range s.Items {
				out[i] = client.Verdict{ID: it.Interrupt.ID, Took: client.Lost, RunID: rc.RunID}
			}
			return out, nil
		}
		for i := 1; i < len(runs); i++ {
			if !runs[i].showsDecision() {
				// A run after the thread's first that shows neither a
				// resume nor metadata: on a server that keeps neither
				// (aegra) it may be this very decision.
				return nil, fmt.Errorf("the server does not show what run %s of thread %s was started with, so hitl cannot tell whether it carries this decision", runs[i].RunID, s.ThreadID)
			}
		}
		for i, it := range s.Items {
			out[i] = client.Verdict{ID: it.Interrupt.ID, Took: client.NotTaken}
		}
		return out, nil
	}
	if !mine.showsDecision() && !s.Items[0].Resume.Continue && s.Items[0].Resume.End == nil {
		return b.verifyWithoutEvidence(ctx, s, mine, runs)
	}
	stale, err := b.refusedAsStale(ctx, s.ThreadID, runs, mine)
	if err != nil {
		return nil, err
	}
	var wrote *bool
	var st *threadState
	for i, it := range s.Items {
		id := it.Interrupt.ID
		v := client.Verdict{ID: id, Took: client.Mine, RunID: mine.RunID, Active: mine.active()}
		if it.Resume.End != nil {
			v.Took = verifyEnd(runs, id, mine)
			out[i] = v
			continue
		}
		if it.Resume.Continue {
			v.Took, err = b.verifyContinue(ctx, s, it.Interrupt, mine)
			if err != nil {
				return nil, err
			}
			if v.Took == client.Theirs {
				if w := b.continuedBy(ctx, s.ThreadID, id, it.Interrupt.Checkpoint, runs); w != nil && w.RunID != mine.RunID {
					v.Winner = describe(w, id)
				}
			}
			out[i] = v
			continue
		}
		if w := winnerOf(runs, id, mine.RunID); w != nil && w.RunID != mine.RunID {
			v.Took, v.Winner = client.Theirs, describe(w, id)
			out[i] = v
			continue
		}
		if stale {
			v.Took = client.Theirs // strict resume refused it: see strict.go
		}
		if mine.active() || mine.failed() {
			out[i] = v
			continue
		}
		// Mine by the runs; the checkpoints must agree.
		if wrote == nil {
			w, err := b.wroteCheckpoint(ctx, s)
			if err != nil {
				return nil, err
			}
			wrote = &w
		}
		if !*wrote {
			if st == nil {
				if st, err = b.readState(ctx, s.ThreadID); err != nil {
					return nil, err
				}
			}
			if !tookInPlace(st, runs, mine, s.ThreadID, id) {
				// The thread shows nothing this run did with the answer:
				// another client answered it in a way the runs do not show
				// (a plain resume value), and this run found nothing to do.
				v.Took = client.Theirs
			}
		}
		out[i] = v
	}
	return out, nil
}

// allWait reports whether every interrupt of the submission waits on its
// thread now (behind another run, too).
func (b *Backend) allWait(ctx context.Context, s *client.Submission) (bool, error) {
	its := make([]client.Interrupt, len(s.Items))
	for i, it := range s.Items {
		its[i] = it.Interrupt
	}
	st, err := b.Standing(ctx, its)
	if err != nil {
		return false, err
	}
	for _, x := range st {
		if x.Presence != client.Waiting && x.Presence != client.ThreadBusy {
			return false, nil
		}
	}
	return len(st) > 0, nil
}

// continuedBy is the run that continued the thread from breakpoint id (at
// checkpoint cp, when known): the writer of the checkpoint whose parent is
// the breakpoint's, or nil where id is no breakpoint of the thread's last
// 100 checkpoints or the server does not tell.
func (b *Backend) continuedBy(ctx context.Context, threadID, id, cp string, runs []run) *run {
	cps, err := b.history(ctx, threadID, nil, 100)
	if err != nil {
		return nil
	}
	for _, c := range cps {
		if cp == "" && breakpointID(threadID, c.Checkpoint.CheckpointID) == id {
			cp = c.Checkpoint.CheckpointID
		}
	}
	if cp == "" {
		return nil
	}
	for _, c := range cps {
		if c.Parent == nil || c.Parent.CheckpointID != cp {
			continue
		}
		id, _ := c.Metadata["run_id"].(string)
		for i := range runs {
			if id != "" && runs[i].RunID == id {
				return &runs[i]
			}
		}
	}
	// Nothing written after it yet: the one run in progress that resumes
	// nothing is continuing it.
	var going *run
	for i := range runs {
		if runs[i].active() && runs[i].Kwargs.Command == nil {
			if going != nil {
				return nil
			}
			going = &runs[i]
		}
	}
	return going
}

// verifyContinue decides whether this run continued the breakpoint: its
// first checkpoint follows the breakpoint's.
func (b *Backend) verifyContinue(ctx context.Context, s *client.Submission, it client.Interrupt, mine *run) (client.Took, error) {
	cps, err := b.history(ctx, s.ThreadID, map[string]any{metaDecision: s.DecisionID}, 100)
	if err != nil {
		return "", err
	}
	if len(cps) == 0 {
		if mine.active() {
			return client.InFlight, nil
		}
		if mine.failed() {
			return client.Mine, nil
		}
		return client.Theirs, nil
	}
	oldest := cps[len(cps)-1]
	if oldest.Parent != nil && it.Checkpoint != "" && oldest.Parent.CheckpointID != it.Checkpoint {
		return client.Theirs, nil
	}
	return client.Mine, nil
}

// wroteCheckpoint reports whether the submission's run wrote any checkpoint.
func (b *Backend) wroteCheckpoint(ctx context.Context, s *client.Submission) (bool, error) {
	cps, err := b.history(ctx, s.ThreadID, map[string]any{metaDecision: s.DecisionID}, 1)
	return len(cps) > 0, err
}

// tookInPlace reports whether the thread's current state positively shows
// that run mine, which ended without writing a checkpoint, took interrupt
// id. Such a run may still have taken it: a branch answered while its
// siblings still wait leaves its result on its task; a task that interrupts
// again after its resume (a node calling interrupt() twice, the functional
// API's next task, a second interrupting tool, a sub-agent's next question)
// stays in the same checkpoint with a new interrupt. So mine took id when
//
//   - the task holding id carries a result; or
//   - id waits nowhere any more, and no run but mine could have answered it
//     since the current checkpoint was written (onlyMineSince).
//
// A task that still holds id unanswered was not taken by this run.
func tookInPlace(st *threadState, runs []run, mine *run, threadID, id string) bool {
	for _, task := range st.Tasks {
		for i, w := range task.Interrupts {
			if interruptID(w, threadID, task.ID, i) == id {
				return task.answered()
			}
		}
	}
	return onlyMineSince(st, runs, mine, id)
}

// onlyMineSince reports whether mine is the one run that could have answered
// interrupt id since the run that wrote the thread's current checkpoint:
// every run created between the two failed, or named id in its resume map
// (winnerOf already found mine the oldest of those), or was another hitl
// decision answering other interrupts by id. A run that resumed with a
// plain value, or started from new input, could have answered id without
// naming it: then it is not positively mine.
func onlyMineSince(st *threadState, runs []run, mine *run, id string) bool {
	writer, _ := st.Metadata["run_id"].(string)
	if writer == "" {
		return false // the checkpoint does not say which run wrote it
	}
	since := lastRun(runs, writer)
	if since < 0 {
		return false
	}
	for i := since + 1; i < len(runs); i++ {
		r := &runs[i]
		if r.RunID == mine.RunID {
			return true
		}
		_, named := r.resumes(id)
		byID := r.meta(metaDecision) != "" && r.Kwargs.Command != nil
		if named || byID || r.failed() {
			continue
		}
		return false
	}
	return false
}

// allRuns reads every run of the thread, oldest first.
func (b *Backend) allRuns(ctx context.Context, threadID string) ([]run, error) {
	var runs runList
	resp, err := b.Reads.R().SetContext(ctx).SetQueryParam("limit", fmt.Sprint(maxRuns)).
		Get("/threads/" + url.PathEscape(threadID) + "/runs")
	if err := b.Check(resp, err, "list the runs of thread "+threadID, &runs); err != nil {
		return nil, err
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if !runs[i].CreatedAt.Equal(runs[j].CreatedAt) {
			return runs[i].CreatedAt.Before(runs[j].CreatedAt)
		}
		return runs[i].RunID < runs[j].RunID
	})
	return runs, nil
}

// history reads the thread's checkpoints whose metadata matches, newest first.
func (b *Backend) history(ctx context.Context, threadID string, meta map[string]any, limit int) ([]checkpoint, error) {
	var cps checkpointList
	body := map[string]any{"limit": limit}
	if meta != nil {
		// aegra answers 500 to any metadata filter, an empty one too.
		body["metadata"] = meta
	}
	resp, err := b.Reads.R().SetContext(ctx).SetBody(body).
		Post("/threads/" + url.PathEscape(threadID) + "/history")
	if err := b.Check(resp, err, "read the history of thread "+threadID, &cps); err != nil {
		return nil, err
	}
	return cps, nil
}

// winnerOf is the run that took interrupt id: the oldest run whose resume
// names it, passing over failed runs other than mine. runs are oldest first.
func winnerOf(runs []run, id, mine string) *run {
	for i := range runs {
		r := &runs[i]
		if _, ok := r.resumes(id); !ok {
			continue
		}
		if r.RunID == mine || !r.failed() {
			return r
		}
	}
	return nil
}

// describe says who a run's decision came from and what it was.
func describe(r *run, id string) *client.Winner {
	v, _ := r.resumes(id)
	return &client.Winner{RunID: r.RunID, Reviewer: r.meta(metaReviewer), At: r.CreatedAt, Value: v}
}

// showsDecision reports whether the server shows, on this submission's own
// run, what hitl sent: the resume (kwargs.command) or the decision id in
// the run's metadata. A server that keeps neither (aegra) cannot tell one
// reviewer's run from another's answer to the same interrupt.
func (r *run) showsDecision() bool {
	return r.Kwargs.Command != nil || r.meta(metaDecision) != ""
}

// verifyWithoutEvidence decides what it can on a server whose runs do not
// show what they resumed. A run in progress is unconfirmed (never in
// flight, which counts as sent: two such runs of one interrupt may both
// be going, and the server shows neither's answer). For a run that ended,
// the checkpoints name the run that wrote each: when the checkpoint this
// decision's run started from (its first one's parent, or the current one
// where it wrote none) is where the interrupt was raised, and no run but
// this one (failed ones aside) was created on the thread after the run
// that wrote it, no other answer could have taken the interrupt: mine.
// Otherwise a run that wrote checkpoints ran the graph, but whether with
// this answer or after another reviewer's the server does not say
// (unconfirmed); one that wrote none did nothing with an interrupt that
// still waits (another answer took it, or none), and one whose interrupt
// was answered in place (a branch of several) is unconfirmed.
func (b *Backend) verifyWithoutEvidence(ctx context.Context, s *client.Submission, mine *run, runs []run) ([]client.Verdict, error) {
	out := make([]client.Verdict, len(s.Items))
	for i, it := range s.Items {
		out[i] = client.Verdict{ID: it.Interrupt.ID, Took: client.Unconfirmed, RunID: mine.RunID, Active: mine.active()}
	}
	if mine.active() || mine.failed() {
		return out, nil
	}
	cps, err := b.history(ctx, s.ThreadID, nil, 100)
	if err != nil {
		return nil, err
	}
	wrote, from := false, ""
	for _, c := range cps { // newest first: the last of mine is its first
		if id, _ := c.Metadata["run_id"].(string); id == mine.RunID {
			wrote, from = true, ""
			if c.Parent != nil {
				from = c.Parent.CheckpointID
			}
		}
	}
	var st *threadState
	if !wrote {
		if st, err = b.readState(ctx, s.ThreadID); err != nil {
			return nil, err
		}
		from = st.Checkpoint.CheckpointID
	}
	var start *checkpoint
	for i := range cps {
		if from != "" && cps[i].Checkpoint.CheckpointID == from {
			start = &cps[i]
		}
	}
	for i, it := range s.Items {
		id := it.Interrupt.ID
		if st != nil && stillHeld(st.Tasks, s.ThreadID, id) {
			out[i].Took = client.Theirs // it waits still: this run did nothing
			continue
		}
		if start == nil || !raisedIn(start.Tasks, s.ThreadID, id) {
			continue
		}
		if writer, _ := start.Metadata["run_id"].(string); aloneSince(runs, mine, writer) {
			out[i].Took = client.Mine
		}
	}
	return out, nil
}

// aloneSince reports whether mine is the one run, failed ones aside,
// created on the thread after the run writer (runs oldest first) and
// before mine ended: a run created once mine had ended started from
// where mine left the thread, and could not take the interrupt mine
// started from.
func aloneSince(runs []run, mine *run, writer string) bool {
	if writer == "" {
		return false
	}
	since := lastRun(runs, writer)
	if since < 0 {
		return false
	}
	seen := false
	for i := since + 1; i < len(runs); i++ {
		switch {
		case runs[i].RunID == mine.RunID:
			seen = true
		case !mine.active() && !mine.UpdatedAt.IsZero() && runs[i].CreatedAt.After(mine.UpdatedAt):
			// Created after mine ended.
		case !runs[i].failed():
			return false
		}
	}
	return seen
}

// stillHeld reports whether a task still holds interrupt id unanswered.
func stillHeld(tasks []stateTask, threadID, id string) bool {
	for _, task := range tasks {
		for i, w := range task.Interrupts {
			if interruptID(w, threadID, task.ID, i) == id {
				return !task.answered()
			}
		}
	}
	return false
}

// raisedIn reports whether a task holds interrupt id, answered or not.
func raisedIn(tasks []stateTask, threadID, id string) bool {
	for _, task := range tasks {
		for i, w := range task.Interrupts {
			if interruptID(w, threadID, task.ID, i) == id {
				return true
			}
		}
	}
	return false
}

// lastRun is the index of the last of runs with id, -1 when none is.
func lastRun(runs []run, id string) int {
	at := -1
	for i := range runs {
		if runs[i].RunID == id {
			at = i
		}
	}
	return at
}
