package a2a

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/hitl-sh/hitl/client"
)

// threadQuestions reads the question of a task of LangGraph's /a2a
// endpoint from its thread (the task's contextId) at the LangGraph server
// (Options.LangGraph): the endpoint lists and returns its tasks without
// the interrupt. Each interrupt of the thread's state tasks
// ({"id", "value"}) is one question, answered with {"resume": value}.
func (b *Backend) threadQuestions(ctx context.Context, t task, graph string) ([]question, error) {
	resp, err := b.graph.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(t.ContextID) + "/state")
	var st struct {
		Tasks []struct {
			Interrupts []json.RawMessage `json:"interrupts"`
		} `json:"tasks"`
	}
	if err := b.graph.Check(resp, err, "read the question of task "+t.ID+" from its LangGraph thread", &st); err != nil {
		return nil, err
	}
	base := client.Interrupt{ThreadID: t.ID, GraphID: graph,
		CreatedAt: t.Timestamp, UpdatedAt: t.Timestamp, Server: b.Server()}
	var out []question
	for _, st := range st.Tasks {
		for _, in := range st.Interrupts {
			if q, ok := langgraphQuestion(base, in); ok {
				out = append(out, q)
			}
		}
	}
	return out, nil
}
