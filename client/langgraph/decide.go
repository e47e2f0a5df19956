package langgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// Standing reads the thread now and says, for each interrupt, whether it
// is still waiting, answered (or being answered by a run in progress), or
// waiting behind a run of another branch.
func (b *Backend) Standing(ctx context.Context, its []client.Interrupt) ([]client.Standing, error) {
	out := make([]client.Standing, len(its))
	if len(its) == 0 {
		return out, nil
	}
	threadID := its[0].ThreadID
	t, err := b.thread(ctx, threadID)
	if err != nil {
		return nil, err
	}
	if t == nil {
		for i, it := range its {
			out[i] = client.Standing{ID: it.ID, Presence: client.Gone}
		}
		return out, nil
	}
	if t.Status == "busy" && t.Interrupts.count() == 0 {
		// A server that shows neither a thread's interrupts nor what its
		// runs resume (aegra) cannot say whether the run in progress
		// answers this interrupt: wait (a while) for it to end, and look.
		if after := b.afterRunsWithoutEvidence(ctx, threadID); after != nil {
			t = after
		}
	}
	waiting := map[string]bool{}
	if t.Status == "interrupted" || t.Status == "busy" {
		list, err := b.threadInterrupts(ctx, t, false)
		if err != nil {
			return nil, err
		}
		for _, w := range list {
			waiting[w.ID] = true
		}
	}
	if t.Status == "busy" && t.Interrupts.count() == 0 {
		// A server that lists no interrupt on a thread (aegra): the
		// state, still at the checkpoint the run started from, holds
		// those that wait behind it.
		st, err := b.readState(ctx, threadID)
		if err != nil {
			return nil, err
		}
		for _, task := range st.Tasks {
			if task.answered() {
				continue
			}
			for i, w := range task.Interrupts {
				waiting[interruptID(w, threadID, task.ID, i)] = true
			}
		}
	}
	if t.Status == "error" {
		// The run that failed did not take what the thread's state still
		// holds: asked to answer it again (Retry), hitl may. Otherwise
		// the earlier answer stands, as before the failure.
		for _, it := range its {
			if !it.Retry {
				continue
			}
			ok, err := b.held(ctx, t, it.ID)
			if err != nil {
				return nil, err
			}
			waiting[it.ID] = ok
		}
	}
	var runs []run
	readRuns := func() []run {
		if runs == nil {
			if runs, err = b.allRuns(ctx, threadID); err != nil {
				runs = []run{} // who answered is a courtesy: the presence stands all the same
			}
		}
		return runs
	}
	for i, it := range its {
		switch {
		case waiting[it.ID] && t.Status == "busy":
			// A run in progress may be answering this very interrupt: the
			// runs say so even when the server is slow to show it on the
			// thread (its run list updates before its thread status).
			if w := winnerOf(readRuns(), it.ID, ""); w != nil {
				out[i] = client.Standing{ID: it.ID, Presence: client.Answered, By: describe(w, it.ID)}
			} else {
				out[i] = client.Standing{ID: it.ID, Presence: client.ThreadBusy}
			}
		case waiting[it.ID]:
			out[i] = client.Standing{ID: it.ID, Presence: client.Waiting}
		default:
			out[i] = client.Standing{ID: it.ID, Presence: client.Answered}
			if w := winnerOf(readRuns(), it.ID, ""); w != nil {
				out[i].By = describe(w, it.ID)
			} else if w := b.continuedBy(ctx, threadID, it.ID, it.Checkpoint, readRuns()); w != nil {
				// A breakpoint, continued by a run whose input names no
				// interrupt.
				out[i].By = describe(w, it.ID)
			}
		}
	}
	return out, nil
}

// standingWait bounds how long Standing waits for a run whose resume the
// server does not show to end.
const standingWait = 20 * time.Second

// afterRunsWithoutEvidence waits, up to standingWait, for the thread's
// runs in progress to end when none of them shows what it resumes, and
// reads the thread again; nil when there was none or the thread could not
// be read.
func (b *Backend) afterRunsWithoutEvidence(ctx context.Context, threadID string) *thread {
	runs, err := b.activeRuns(ctx, threadID)
	if err != nil || len(runs) == 0 {
		return nil
	}
	for i := range runs {
		if runs[i].showsDecision() || len(runs[i].Metadata) > 0 {
			// It says which interrupt it answers, or it is a LangGraph
			// server's run (their runs always carry metadata, and a run
			// that resumes carries its command): not worth a wait.
			return nil
		}
	}
	wctx, cancel := context.WithTimeout(ctx, standingWait)
	defer cancel()
	for i := range runs {
		// The join's answer is not read: the thread, read after, says.
		b.Long.R().SetContext(wctx).Get("/threads/" + url.PathEscape(threadID) + "/runs/" + url.PathEscape(runs[i].RunID) + "/join")
	}
	t, err := b.thread(ctx, threadID)
	if err != nil || t == nil {
		return nil
	}
	return t
}

// Resume posts one run that resumes every interrupt of the submission, with
// the decision id and reviewer in the run's metadata, once.
func (b *Backend) Resume(ctx context.Context, s *client.Submission) (client.Receipt, error) {
	if len(s.Items) == 0 {
		return client.Receipt{}, errors.New("nothing to send")
	}
	if s.Items[0].Resume.End != nil {
		return b.end(ctx, s)
	}
	first := s.Items[0].Interrupt
	assistant := first.AssistantID
	for _, a := range []string{first.GraphID, b.opts.Assistant, b.opts.Graph} {
		if assistant == "" {
			assistant = a
		}
	}
	if assistant == "" {
		return client.Receipt{}, fmt.Errorf("thread %s names no assistant or graph in its metadata: pass --assistant (or --graph) to say which one runs it", s.ThreadID)
	}
	meta := map[string]any{metaDecision: s.DecisionID}
	if s.Reviewer != "" {
		meta[metaReviewer] = s.Reviewer
	}
	if len(s.Approvers) > 0 {
		meta[metaApprovers] = s.Approvers
	}
	body := map[string]any{"assistant_id": assistant, "multitask_strategy": "reject", "metadata": meta}
	if s.Items[0].Resume.Continue {
		if len(s.Items) > 1 {
			return client.Receipt{}, errors.New("a breakpoint is continued on its own, not with other answers")
		}
		body["input"] = nil
	} else {
		resume := make(map[string]json.RawMessage, len(s.Items))
		for _, it := range s.Items {
			if it.Resume.Continue || it.Interrupt.ThreadID != s.ThreadID {
				return client.Receipt{}, errors.New("one resume answers interrupts of one thread only")
			}
			resume[it.Interrupt.ID] = it.Resume.Value
		}
		body["command"] = map[string]any{"resume": resume}
	}
	var created run
	resp, err := b.Writes.R().SetContext(ctx).SetBody(body).Post("/threads/" + url.PathEscape(s.ThreadID) + "/runs")
	if err == nil && resp != nil && busyAnswer(resp.StatusCode(), resp.Body()) {
		if resp.StatusCode() == http.StatusBadRequest {
			// aegra's refusal: of a thread being answered, or of one
			// whose last run failed, which it never resumes.
			if ferr := b.failedThreadRefusal(ctx, s.ThreadID, resp.Body()); ferr != nil {
				return client.Receipt{}, ferr
			}
		}
		return client.Receipt{}, client.ErrBusy
	}
	if cerr := b.Check(resp, err, "resume thread "+s.ThreadID, &created); cerr != nil {
		return client.Receipt{}, &client.SendError{Err: cerr, MaybeSent: transport.MaybeTaken(resp, err)}
	}
	if created.RunID == "" {
		return client.Receipt{}, &client.SendError{Err: fmt.Errorf("resume thread %s: the server answered without a run id", s.ThreadID), MaybeSent: true}
	}
	return client.Receipt{Acknowledged: true, RunID: created.RunID}, nil
}

// Follow waits for the run to end (or Options.Follow to pass) and reports
// how it ended and what still waits on the thread.
func (b *Backend) Follow(ctx context.Context, s *client.Submission, rc client.Receipt) client.Outcome {
	out := client.Outcome{RunID: rc.RunID, Status: client.Running}
	ctx, cancel := context.WithTimeout(ctx, b.opts.Follow)
	defer cancel()
	var joined map[string]json.RawMessage
	resp, err := b.Long.R().SetContext(ctx).Get("/threads/" + url.PathEscape(s.ThreadID) + "/runs/" + url.PathEscape(rc.RunID) + "/join")
	if cerr := b.Check(resp, err, "follow run "+rc.RunID, &joined); cerr != nil {
		out.Error = cerr.Error()
		if err != nil && ctx.Err() == nil && b.wentAway(ctx) {
			// Not "is something else listening there?": the server that
			// took the decision stopped answering while the run went on.
			out.Error = fmt.Sprintf("the server at %s went away while hitl followed run %s (it no longer accepts connections): the decision reached it; another replica may finish the run, or it is lost: `hitl check` looks again once a server of this deployment answers",
				b.Server(), rc.RunID)
		}
		return out
	}
	var r run
	resp, err = b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(s.ThreadID) + "/runs/" + url.PathEscape(rc.RunID))
	if err := b.Check(resp, err, "read run "+rc.RunID, &r); err != nil {
		out.Error = err.Error()
		return out
	}
	if t, err := b.thread(ctx, s.ThreadID); err == nil && t != nil {
		if its, err := b.threadInterrupts(ctx, t, false); err == nil {
			for _, it := range its {
				out.Pending = append(out.Pending, it.ID)
			}
		}
	}
	// The run's words are the server's: a graph that echoes the key in its
	// reply or its error does not get it shown or logged.
	out.Reply = b.Redact(lastAIMessage(joined["messages"]))
	switch {
	case r.failed() || joined["__error__"] != nil:
		out.Status = client.Failed
		out.Error = b.Redact(runError(joined["__error__"], r.Status))
		if joined["__error__"] == nil {
			// aegra's join of a failed run answers {}: the failed task
			// in the thread's state has the error's text.
			if st, err := b.readState(ctx, s.ThreadID); err == nil {
				var texts []string
				for _, task := range st.Tasks {
					if e := taskError(task.Error); e != "" {
						texts = append(texts, strings.ReplaceAll(e, "\n", "; "))
					}
				}
				if len(texts) > 0 {
					out.Error = b.Redact(strings.Join(texts, "; "))
				}
			}
		}
	case len(out.Pending) > 0 || r.Status == "interrupted":
		out.Status = client.PausedAgain
	case r.Status == "success":
		out.Status = client.Finished
	}
	return out
}

// busyAnswer recognizes the refusal of a second run on a busy thread: 409
// from the Python platform, 422 "Thread is already running a task" from the
// JS server (whose 422 also means a malformed request).
//
// aegra refuses a resume on a thread that is not interrupted (answered, or
// running another branch) with 400 "Cannot resume: thread is not in
// interrupted state": nothing was taken, and Standing then says whether
// the interrupt was answered (already handled elsewhere) or still waits.
func busyAnswer(code int, body []byte) bool {
	return code == http.StatusConflict ||
		(code == http.StatusBadRequest && strings.Contains(string(body), "thread is not in interrupted state")) ||
		(code == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(string(body)), "already running"))
}

// runError unwraps the server's {"error","message"} (whose message may itself
// be such an object, as a JSON string).
func runError(raw json.RawMessage, status string) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if raw == nil || json.Unmarshal(raw, &e) != nil {
		return "the run ended with status " + status
	}
	for i := 0; i < 3; i++ {
		var inner struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(e.Message), &inner) != nil || inner.Message == "" {
			break
		}
		e = inner
	}
	// A ZodError's message is its issues as JSON: one "path: message"
	// each, on the one line an outcome takes.
	e.Message = strings.ReplaceAll(zodIssues(e.Message), "\n", "; ")
	if e.Error != "" && !strings.HasPrefix(e.Message, e.Error) {
		return e.Error + ": " + e.Message
	}
	return e.Message
}

// wentAway reports whether the server now refuses connections: after a
// broken follow, it tells a server that stopped from a connection that
// broke on the way. A process being killed may still accept a connection
// for a moment (and reset it): it is asked a few times over a second.
func (b *Backend) wentAway(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	for range 6 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(b.Server(), "/")+"/ok", nil)
		if err != nil {
			return false
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			return false // it answers
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(200 * time.Millisecond):
		}
	}
	return false
}
