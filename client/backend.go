package client

import (
	"context"
	"errors"
)

// Backend is a HITL server the reviewer works against.
type Backend interface {
	// Server names the backend for people and the audit log (its URL).
	Server() string
	// Pending lists every interrupt waiting for a decision, newest first.
	Pending(ctx context.Context) ([]Interrupt, error)
	// Send resumes one interrupt. It checks, right before sending, that the
	// interrupt is still pending, sends once, never retries, and then
	// follows the run long enough to report how it ended.
	Send(ctx context.Context, it Interrupt, r Resume) (Outcome, error)
}

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
)

// Outcome reports what happened after a resume was accepted.
type Outcome struct {
	RunID  string        `json:"run_id,omitempty"`
	Status OutcomeStatus `json:"status"`
	Error  string        `json:"error,omitempty"`
	// Pending are the ids of the thread's interrupts after the run.
	Pending []string `json:"pending,omitempty"`
	// Reply is the agent's last message after the run, when it has one: what
	// the decision led to, in the agent's words.
	Reply string `json:"reply,omitempty"`
}

var (
	// ErrAlreadyHandled: the interrupt is no longer pending on the server;
	// someone (or something) answered it already. Nothing was sent.
	ErrAlreadyHandled = errors.New("already handled elsewhere: the interrupt is no longer pending")
	// ErrBusy: the thread is running another task (another reviewer is
	// resuming it). Nothing was resumed; look again before retrying.
	ErrBusy = errors.New("another reviewer is resuming this thread (the server refused a second run); refresh and look again")
)

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

// Accepted: the backend took the answer and reports no run to follow.
const Accepted OutcomeStatus = "accepted"

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
