package demo

import (
	"context"
	"fmt"
	"time"
)

// demoRotation is the order in which new work arrives: every shape, the
// hostile payload and the breakpoint included.
var demoRotation = []struct {
	graph string
	input map[string]any
}{
	{"support", msg("email")}, {"ops", msg("ops")}, {"planner", nil}, {"asker", nil},
	{"inbox", nil}, {"parallel", nil}, {"support", msg("refund")}, {"sneaky", msg("sneaky")},
	{"asker", map[string]any{"topic": "object"}}, {"release", nil}, {"fanout", nil},
	{"survey", nil}, {"approver", nil}, {"waiter", nil},
}

func msg(s string) map[string]any {
	return map[string]any{"messages": []any{map[string]any{"role": "user", "content": s}}}
}

// Spawn starts a thread of graph with input, as a client creating a thread
// and a run would, and returns the thread id.
func (s *Server) Spawn(graph string, input map[string]any) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.graphs[graph]
	if g == nil {
		return "", fmt.Errorf("no graph %q; the demo has: %s", graph, graphIDs(s.graphs))
	}
	t := s.newThread(newUUID(), nil)
	t.graph = graph
	t.Metadata["graph_id"] = graph
	t.Metadata["assistant_id"] = assistantID(graph)
	if err := g.Start(t, input); err != nil {
		t.Status = "error"
		return t.ID, err
	}
	t.UpdatedAt = time.Now()
	t.StateAt = t.UpdatedAt
	if len(t.Interrupts) > 0 || len(t.Next) > 0 {
		t.Status = "interrupted"
	}
	return t.ID, nil
}

// Seed spawns one thread of every demo agent, then burst more.
func (s *Server) Seed(burst int) {
	for range len(demoRotation) + burst {
		s.spawnNext()
	}
}

func (s *Server) spawnNext() {
	s.mu.Lock()
	r := demoRotation[s.spawned%len(demoRotation)]
	s.spawned++
	s.mu.Unlock()
	_, _ = s.Spawn(r.graph, r.input)
	time.Sleep(time.Millisecond) // distinct updated_at: a stable newest-first order
}

// Produce spawns a new thread every `every` until ctx ends, while fewer
// than upTo interrupts wait.
func (s *Server) Produce(ctx context.Context, every time.Duration, upTo int) {
	produce(ctx, every, upTo, s.Waiting, s.spawnNext)
}

// Waiting is how many interrupts wait, as a reviewer counts them: each of
// an interrupted thread's (several in a fan-out or parallel thread), one
// for a thread paused at a breakpoint.
func (s *Server) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sumOf(s.threads, func(t *thread) int {
		if t.Status != "interrupted" {
			return 0
		}
		return max(len(t.Interrupts), 1)
	})
}
