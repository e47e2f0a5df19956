package client

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Backend is a HITL server the reviewer works against.
//
// A decision goes through it in steps that the decision pipeline (package
// decide) drives, the same way for every backend: Standing says whether the
// interrupts are still waiting, Resume sends the answer once, Verify reads
// from the server which decision took effect, and Follow waits for the run
// the answer started. No step retries a resume.
type Backend interface {
	// Server names the backend for people and the audit log (its URL,
	// without credentials).
	Server() string
	// Pending lists every interrupt waiting for a decision, newest first.
	// Interrupts already answered are not listed, even where the server
	// still shows them.
	Pending(ctx context.Context) ([]Interrupt, error)
	// Standing reads where each interrupt stands right now. The interrupts
	// belong to one thread.
	Standing(ctx context.Context, its []Interrupt) ([]Standing, error)
	// Resume sends the submission once. Its errors say whether anything
	// may have reached the server: ErrBusy and ErrAlreadyHandled mean
	// nothing was taken; an error that Is ErrMaybeSent may have been taken.
	Resume(ctx context.Context, s *Submission) (Receipt, error)
	// Verify establishes, from the server, which decision took effect for
	// each interrupt of the submission. The receipt may be empty when the
	// answer to Resume was lost: the submission's DecisionID then finds it.
	Verify(ctx context.Context, s *Submission, rc Receipt) ([]Verdict, error)
	// Follow waits (within ctx) for the run the receipt names to end and
	// reports how it ended. Its errors are in the outcome: the decision
	// itself was taken.
	Follow(ctx context.Context, s *Submission, rc Receipt) Outcome
	// Features states, in one value, what the backend offers beyond these
	// (features.go). A wrapper of a backend builds its own from the wrapped
	// one's, so that it offers exactly what it passes on.
	Features() Features
}

// Submission is one resume: the answers to one or more interrupts of one
// thread, sent together.
type Submission struct {
	// DecisionID names this decision everywhere: the audit log, and the
	// server where it can carry it (a LangGraph run's metadata).
	DecisionID string
	Reviewer   string
	ThreadID   string
	Items      []Item
	// Approvers are every approver of a decision a team's rule asked
	// several for (Reviewer last), for the server's record of the run.
	Approvers []string
}

// Item is the answer to one interrupt.
type Item struct {
	Interrupt Interrupt
	Decisions []Decision
	Resume    Resume
}

// IDs lists the submission's interrupt ids.
func (s *Submission) IDs() []string {
	ids := make([]string, len(s.Items))
	for i, it := range s.Items {
		ids[i] = it.Interrupt.ID
	}
	return ids
}

// Receipt is what the server said when it took a resume. The zero Receipt
// stands for an answer that was lost.
type Receipt struct {
	// Acknowledged: the server answered that it took the resume.
	Acknowledged bool
	// RunID is the run the resume started, when the backend has runs.
	RunID string
	// ReasonInConversation: an ending (Resume.End) wrote its reason into
	// the thread's conversation, as the result of each pending tool call.
	// False when the interrupt had no tool calls to answer: the reason is
	// then only in hitl's audit log.
	ReasonInConversation bool
	// Unheard, when not empty, says that nobody waits on the answer right
	// now (a hub's request whose hook is not waiting: killed, or cut off),
	// in the backend's words: the outcome says so rather than "the agent
	// has the answer".
	Unheard string
	// Reviewer is who the server recorded the decision as, where it says
	// (a hitl hub: its token's reviewer, whatever name hitl knows
	// locally); "" when it does not. A backend may return a Receipt with
	// only this set beside ErrAwaitingApproval and ErrRefused: the
	// approval recorded, or refused, is that reviewer's.
	Reviewer string
}

// Presence is where an interrupt stands on the server.
type Presence string

const (
	// Waiting: pending, and nothing is answering it.
	Waiting Presence = "waiting"
	// Answered: answered already, or being answered by a run in progress.
	Answered Presence = "answered"
	// ThreadBusy: still pending, but its thread runs another task (another
	// branch is being answered); a resume now would be refused.
	ThreadBusy Presence = "busy"
	// Gone: the server does not know it (never existed, or deleted).
	Gone Presence = "gone"
)

// Standing is where one interrupt stands.
type Standing struct {
	ID       string
	Presence Presence
	// By is who answered it, when the server tells.
	By *Winner
}

// Took says what became of one interrupt's answer in a submission.
type Took string

const (
	// Mine: this submission's answer is the one the interrupt took.
	Mine Took = "mine"
	// Theirs: another decision took effect first; this one did nothing.
	Theirs Took = "theirs"
	// NotTaken: the server has no trace of this submission.
	NotTaken Took = "not-taken"
	// InFlight: the submission reached the server but has not been
	// applied yet (its run is queued); look again later.
	InFlight Took = "in-flight"
	// Lost: the server took the submission (it answered with a run), but
	// now lists no run that carries it, and the interrupt still waits: the
	// server lost the run (an in-memory server restarted) and the answer
	// never took effect.
	Lost Took = "lost"
	// Unconfirmed: the server ran this submission's answer, but shows
	// nothing that tells whose answer the interrupt took (aegra: its runs
	// carry neither the resume nor the metadata, and two resumes of one
	// interrupt may both be accepted). Never "mine" without evidence.
	Unconfirmed Took = "unconfirmed"
)

// Verdict is what became of one interrupt's answer.
type Verdict struct {
	ID   string
	Took Took
	// Winner is the decision that took effect, when it was not this one
	// (and the server tells).
	Winner *Winner
	// RunID is this submission's run, when Verify found one.
	RunID string
	// Active: that run has not ended yet.
	Active bool
}

// Winner describes a decision that took effect, as the server records it.
type Winner struct {
	RunID    string          `json:"run_id,omitempty"`
	Reviewer string          `json:"reviewer,omitempty"`
	At       time.Time       `json:"at,omitzero"`
	Value    json.RawMessage `json:"value,omitempty"`
	// Withdrawn is why the request was taken back unanswered (its
	// publisher timed out or was stopped, or a hub saw its hook stop
	// waiting): nobody answered it.
	Withdrawn string `json:"withdrawn,omitempty"`
	// WithdrawnBy says who withdrew it, when the server tells:
	// WithdrawnByHub or WithdrawnByAgent ("": not said).
	WithdrawnBy string `json:"withdrawn_by,omitempty"`
}

// Who withdrew a request (Winner.WithdrawnBy).
const (
	// WithdrawnByHub: the hub itself (its hook stopped waiting, no hook
	// came back after the hub's restart, it expired).
	WithdrawnByHub = "hub"
	// WithdrawnByAgent: its agent (the publisher took it back).
	WithdrawnByAgent = "agent"
)

// OutcomeStatus is how the run that a decision started ended (as far as the
// reviewer waited).
type OutcomeStatus string

const (
	// Finished: the run completed and the thread is idle.
	Finished OutcomeStatus = "finished"
	// PausedAgain: the run stopped at a new interrupt.
	PausedAgain OutcomeStatus = "interrupted"
	// Failed: the run ended in an error; Outcome.Error says which.
	Failed OutcomeStatus = "failed"
	// Running: the resume was accepted and the run had not ended when the
	// reviewer stopped waiting.
	Running OutcomeStatus = "running"
	// Accepted: the backend took the answer and reports no run to follow.
	Accepted OutcomeStatus = "accepted"
)

// Outcome reports what happened after a resume was taken.
type Outcome struct {
	RunID  string        `json:"run_id,omitempty"`
	Status OutcomeStatus `json:"status"`
	Error  string        `json:"error,omitempty"`
	// Pending are the ids of the thread's interrupts still waiting after
	// the run (answered branches excluded).
	Pending []string `json:"pending,omitempty"`
	// Reply is the agent's last message after the run, when it has one: what
	// the decision led to, in the agent's words.
	Reply string `json:"reply,omitempty"`
}

var (
	// ErrAlreadyHandled: the interrupt is no longer pending on the server;
	// someone (or something) answered it already. Nothing was taken.
	ErrAlreadyHandled = errors.New("already handled elsewhere: the interrupt is no longer pending")
	// ErrBusy: the thread is running another task. Nothing was taken; the
	// interrupt is still pending.
	ErrBusy = errors.New("another run is in progress on this thread")
	// ErrMaybeSent marks an error after which the server may have taken
	// the resume (the connection broke after the request left, a gateway
	// answered for the server, the answer was cut). Never retry blindly:
	// verify first.
	ErrMaybeSent = errors.New("the decision may have reached the server")
	// ErrRefused: the server (a hitl hub) refused the decision and changed
	// nothing (the reviewer approved this same decision already): nothing
	// was taken; the interrupt still waits as it did.
	ErrRefused = errors.New("refused by the hub: nothing sent, nothing recorded")
	// ErrNoThread: the server has no thread of that id (or refuses the id
	// as none of its threads could have it).
	ErrNoThread = errors.New("no such thread")
)

// SendError is a resume that failed. MaybeSent is set when the request may
// have reached the server; errors.Is(err, ErrMaybeSent) tells.
type SendError struct {
	Err       error
	MaybeSent bool
}

func (e *SendError) Error() string { return e.Err.Error() }
func (e *SendError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMaybeSent) true for a resume that may have
// been taken.
func (e *SendError) Is(target error) bool { return target == ErrMaybeSent && e.MaybeSent }

// Message is one message of a thread's conversation, for context.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls names the tool calls an AI message made, with their args.
	ToolCalls []string `json:"tool_calls,omitempty"`
}

// Conversational is a backend that can show a thread's conversation.
type Conversational interface {
	Conversation(ctx context.Context, threadID string) ([]Message, error)
}

// RunAction is a control of a whole run (REST HITL API).
type RunAction string

const (
	PauseRun  RunAction = "pause"
	ResumeRun RunAction = "resume"
	CancelRun RunAction = "cancel"
)

// RunController is a backend whose runs can be paused, resumed and cancelled.
type RunController interface {
	ControlRun(ctx context.Context, it Interrupt, a RunAction) (status string, err error)
}

// Notifier is a backend that says when its pending set changes (a stream),
// so that a reviewer's screen updates at once rather than at the next poll.
type Notifier interface {
	Changes(ctx context.Context) <-chan struct{}
}

type watchedKey struct{}

// WatchedWillDo marks a listing call that a listing the backend's own
// watcher (Changes) took a moment ago answers as well as a new one: the
// read right after a change signal, and the periodic poll of a watched
// backend. Such a call costs no request. Without it, a listing is fresh:
// it reflects everything that happened before the call (a reviewer's
// refresh, the read after a send or a run control).
func WatchedWillDo(ctx context.Context) context.Context {
	return context.WithValue(ctx, watchedKey{}, true)
}

// WatchedDoes reports whether ctx was marked by WatchedWillDo.
func WatchedDoes(ctx context.Context) bool {
	ok, _ := ctx.Value(watchedKey{}).(bool)
	return ok
}

// Progressive is a backend whose listing can take long (thousands of
// interrupts, a slow link) and that can show what has arrived meanwhile.
// Each of its requests has its own timeout: the ctx given should carry no
// deadline for the listing as a whole, only a cancellation (quitting).
type Progressive interface {
	// PendingProgress is Pending, calling report (from the calling
	// goroutine, never after it returns) each time more has arrived, with
	// everything found so far. A listing that needs one or two requests
	// may report nothing before it returns.
	PendingProgress(ctx context.Context, report func(Progress)) ([]Interrupt, error)
}

// Progress is a listing in progress.
type Progress struct {
	// Items are the interrupts found so far, newest first (shared: do not
	// modify). Items not yet listed are missing, not gone: do not treat
	// their absence as answered.
	Items []Interrupt
	// Threads is how many threads have been read so far, of Total (0 when
	// the server does not say).
	Threads, Total int
}

// Batcher is a backend that takes the answers to several interrupts of one
// thread in one resume. Others get one submission per interrupt.
type Batcher interface {
	Batches() bool
}

// Helpers for backends whose server takes one answer at a time and refuses
// a second one (the REST API, the event coordinator).

// One is the only item of a submission.
func (s *Submission) One() (Item, error) {
	if len(s.Items) != 1 {
		return Item{}, errors.New("this backend takes one answer at a time")
	}
	it := s.Items[0]
	if it.Resume.Continue || it.Resume.Value == nil {
		return Item{}, errors.New("this backend takes an answer, not a continue")
	}
	return it, nil
}

// Acknowledged is the verdict on an answer the server acknowledged: it took
// effect (the server would have refused it as a second answer). ok is
// false for a lost answer, which must be looked up.
func Acknowledged(s *Submission, rc Receipt) (v []Verdict, ok bool) {
	if !rc.Acknowledged {
		return nil, false
	}
	return []Verdict{{ID: s.Items[0].Interrupt.ID, Took: Mine}}, true
}

// StandingOf reads pending and applies StandingIn.
func StandingOf(ctx context.Context, pending func(context.Context) ([]Interrupt, error), its []Interrupt) ([]Standing, error) {
	list, err := pending(ctx)
	if err != nil {
		return nil, err
	}
	return StandingIn(list, its), nil
}

// StandingIn is the shared "still pending?" rule for backends whose pending
// list is the whole truth: an interrupt listed is waiting, one missing was
// answered.
func StandingIn(pending []Interrupt, its []Interrupt) []Standing {
	listed := make(map[string]bool, len(pending))
	for _, p := range pending {
		listed[p.ID] = true
	}
	out := make([]Standing, len(its))
	for i, it := range its {
		out[i] = Standing{ID: it.ID, Presence: Answered}
		if listed[it.ID] {
			out[i].Presence = Waiting
		}
	}
	return out
}
