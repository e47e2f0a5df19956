package client

import (
	"context"
	"time"
)

// Failure is a thread whose last run ended in an error: its agent is stuck
// until someone acts, and no pending list shows it (the server lists it
// neither as interrupted nor as busy).
type Failure struct {
	ThreadID    string    `json:"thread_id"`
	GraphID     string    `json:"graph_id"`
	AssistantID string    `json:"assistant_id"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// Error is the server's error text ("" when it keeps none).
	Error string `json:"error"`
	// Interrupts are the interrupts the thread's state still holds (the
	// run that failed did not take them). Each is marked Retry: a decision
	// on it answers it again, through the same pipeline.
	Interrupts []Interrupt `json:"interrupts"`
	Server     string      `json:"-"`
}

// FailureLister is a backend that can list threads whose last run failed.
type FailureLister interface {
	// Failures lists them newest first, at most limit of them, and says
	// how many there are in all.
	Failures(ctx context.Context, limit int) (list []Failure, total int, err error)
}
