package a2a

import (
	"context"

	"github.com/hitl-sh/hitl/client"
)

// threadQuestions reads the question of a task of LangGraph's /a2a
// endpoint from its thread (the task's contextId) at the LangGraph server:
// the endpoint lists and returns its tasks without the interrupt.
func (b *Backend) threadQuestions(ctx context.Context, t task, graph string) ([]question, error) {
	return nil, nil
}

var _ = client.Parse
