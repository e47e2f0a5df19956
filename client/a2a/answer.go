package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// find reads the task and the question of id in it: nil when the task no
// longer asks it.
func (b *Backend) find(ctx context.Context, taskID, id string) (task, *question, error) {
	t, err := b.get(ctx, taskID)
	if err != nil {
		return t, nil, err
	}
	if t.problem != "" || t.State != inputRequired {
		return t, nil, nil
	}
	qs, err := b.asked(ctx, t)
	if err != nil {
		return t, nil, err
	}
	for i := range qs {
		if qs[i].it.ID == id {
			return t, &qs[i], nil
		}
	}
	return t, nil, nil
}

// Standing: a question its task still asks is waiting; a task that moved
// on (answered, finished, asking something else) answered it; a task the
// agent does not know is gone.
func (b *Backend) Standing(ctx context.Context, its []client.Interrupt) ([]client.Standing, error) {
	out := make([]client.Standing, len(its))
	for i, it := range its {
		out[i] = client.Standing{ID: it.ID, Presence: client.Answered}
		t, q, err := b.find(ctx, it.ThreadID, it.ID)
		switch {
		case isRPC(err, errTaskNotFound):
			out[i].Presence = client.Gone
		case err != nil:
			return nil, err
		case q != nil:
			out[i].Presence = client.Waiting
		default:
			out[i].By = b.answerOf(t, it.ID)
		}
	}
	return out, nil
}

// Resume sends the answer once: one message on the task (its taskId and
// contextId), in the shape of the question's producer, read again right
// before. A task that no longer asks it, or that ended (A2A's -32004: a
// task in a terminal state takes no message), was handled elsewhere:
// nothing is sent, or nothing was taken.
func (b *Backend) Resume(ctx context.Context, s *client.Submission) (client.Receipt, error) {
	item, err := s.One()
	if err != nil {
		return client.Receipt{}, err
	}
	t, q, err := b.find(ctx, s.ThreadID, item.Interrupt.ID)
	switch {
	case isRPC(err, errTaskNotFound):
		return client.Receipt{}, fmt.Errorf("task %s: %w", s.ThreadID, client.ErrNoThread)
	case err != nil:
		return client.Receipt{}, err
	case q == nil:
		return client.Receipt{}, client.ErrAlreadyHandled
	}
	m, err := answerMessage(s, t.ID, t.ContextID, *q, item.Resume.Value, b.Protocol(ctx) == v03)
	if err != nil {
		return client.Receipt{}, err
	}
	params := map[string]any{"message": m, "configuration": map[string]any{"returnImmediately": true}}
	if b.Protocol(ctx) == v03 {
		params["configuration"] = map[string]any{"blocking": false}
	}
	b.remember(s.ThreadID)
	b.mu.Lock()
	b.before[s.DecisionID] = len(t.History)
	b.mu.Unlock()
	_, maybe, err := b.call(ctx, b.Writes, "send the answer to task "+s.ThreadID, b.method(ctx, "send"), params)
	switch {
	case isRPC(err, errUnsupported):
		return client.Receipt{}, client.ErrAlreadyHandled
	case isRPC(err, errTaskNotFound):
		return client.Receipt{}, fmt.Errorf("task %s: %w", s.ThreadID, client.ErrNoThread)
	case err != nil:
		return client.Receipt{}, &client.SendError{Err: err, MaybeSent: maybe}
	}
	return client.Receipt{Acknowledged: true}, nil
}

// MessageID is the id of the message that carries a decision: the
// decision's own id, so that a lost answer is found in the task's history.
func MessageID(s *client.Submission) string { return "hitl-" + s.DecisionID }

// Message is client.Messenger: the message Resume sends for s's item i,
// from what the listing read of its task (the task is read again before
// it goes: the same message, unless the task moved on).
func (b *Backend) Message(s *client.Submission, i int) (json.RawMessage, bool) {
	if i < 0 || i >= len(s.Items) {
		return nil, false
	}
	it := s.Items[i]
	b.mu.Lock()
	a, ok := b.asking[it.Interrupt.ID]
	b.mu.Unlock()
	b.cardMu.Lock()
	v03 := b.protocol == v03
	b.cardMu.Unlock()
	if !ok || it.Resume.Value == nil {
		return nil, false
	}
	m, err := answerMessage(s, a.task, a.context, a.q, it.Resume.Value, v03)
	if err != nil {
		return nil, false
	}
	out, err := json.Marshal(m)
	return out, err == nil
}

// asking is what the listing read of a question: its task and context,
// and the question (its producer).
type asking struct {
	task, context string
	q             question
}

// answerMessage is the A2A message that answers q with value, in the agent's
// protocol's spelling (v03: 0.3's).
func answerMessage(s *client.Submission, taskID, contextID string, q question, value json.RawMessage, v03 bool) (map[string]any, error) {
	var data any
	text, isText := "", false
	var parts []any
	switch q.producer {
	case gemini:
		var err error
		if parts, err = geminiParts(q.ref, value, v03); err != nil {
			return nil, err
		}
	case strands:
		if len(bytes.TrimSpace(value)) == 0 || string(bytes.TrimSpace(value)) == "null" {
			return nil, errors.New("a Strands interrupt takes a response that is not null")
		}
		data = map[string]any{"interruptResponse": map[string]any{"interruptId": q.ref, "response": value}}
	case langgraph:
		data = map[string]any{"resume": value}
	default:
		if json.Unmarshal(value, &text) == nil {
			isText = true
		} else {
			data = value
		}
	}
	var p map[string]any
	switch {
	case parts != nil:
	case isText && v03:
		p = map[string]any{"kind": "text", "text": text}
	case isText:
		p = map[string]any{"text": text}
	case v03 && !isObject(mustJSON(data)):
		// 0.3's data part holds an object: another value goes as its
		// JSON text.
		p = map[string]any{"kind": "text", "text": string(mustJSON(data))}
	case v03:
		p = map[string]any{"kind": "data", "data": data}
	default:
		p = map[string]any{"data": data}
	}
	if parts == nil {
		parts = []any{p}
	}
	m := map[string]any{"messageId": MessageID(s), "taskId": taskID, "role": "ROLE_USER", "parts": parts,
		"metadata": map[string]any{"hitl_decision_id": s.DecisionID, "hitl_reviewer": s.Reviewer}}
	if contextID != "" {
		m["contextId"] = contextID
	}
	if v03 {
		m["kind"], m["role"] = "message", "user"
	}
	return m, nil
}

func mustJSON(v any) []byte {
	if r, ok := v.(json.RawMessage); ok {
		return r
	}
	b, _ := json.Marshal(v)
	return b
}

// Verify reads the task back, even after the agent acknowledged the
// answer: a2a-sdk's server acknowledges a message that reaches a task
// already taken up by another answer, and drops it. The answer is found in
// the task's history by its message id: it took the question when no other
// user message came between the question and it. A task that still asks
// the question did not take it (or has not yet: acknowledged). One that
// moved on, with another user message recorded since the question, was
// answered by someone else. One that moved on with no user message
// recorded since (LangGraph's /a2a keeps no answer in the history) is
// taken at the agent's word when it acknowledged, and unknown (hitl check)
// when its answer was lost.
func (b *Backend) Verify(ctx context.Context, s *client.Submission, rc client.Receipt) ([]client.Verdict, error) {
	it := s.Items[0].Interrupt
	v := client.Verdict{ID: it.ID, Took: client.Mine}
	t, q, err := b.find(ctx, s.ThreadID, it.ID)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	from, known := b.before[s.DecisionID]
	b.mu.Unlock()
	if !known {
		from = -1
	}
	if took, found := tookIn(t.History, MessageID(s), from); found {
		if !took {
			v.Took = client.Theirs
			v.Winner = winnerIn(t.History, MessageID(s))
		}
		return []client.Verdict{v}, nil
	}
	switch {
	case q != nil && rc.Acknowledged:
		v.Took = client.InFlight
	case q != nil:
		v.Took = client.NotTaken
	case othersSince(t.History, from):
		v.Took = client.Theirs
	case rc.Acknowledged:
	default:
		return nil, fmt.Errorf("task %s no longer asks this question, and its history holds no answer to it, this one or another: hitl cannot tell whose answer it took (hitl check looks again)", s.ThreadID)
	}
	return []client.Verdict{v}, nil
}

// othersSince reports whether the history holds a user message since the
// question was read (from; -1: since the agent's last message, the
// message that started the task not counted).
func othersSince(h []message, from int) bool {
	for j := len(h) - 1; j >= 0 && j >= from; j-- {
		if from < 0 && h[j].Role == "agent" {
			return false
		}
		if h[j].Role == "user" && (from >= 0 || j > 0) {
			return true
		}
	}
	return false
}

// tookIn finds the message id in the history: found, and took when no
// other user message came before it since the question was read: from is
// the history's length then (-1 when unknown: since the agent's last
// message, the message that started the task not counted).
func tookIn(h []message, id string, from int) (took, found bool) {
	for i, m := range h {
		if m.ID != id {
			continue
		}
		for j := i - 1; j >= 0 && j >= from; j-- {
			if from < 0 && h[j].Role == "agent" {
				break
			}
			if h[j].Role == "user" && (from >= 0 || j > 0) {
				return false, true
			}
		}
		return true, true
	}
	return false, false
}

// winnerIn is the user message that came before id, as the winner: its
// text, and its reviewer where hitl sent it (hitl_reviewer).
func winnerIn(h []message, id string) *client.Winner {
	for i, m := range h {
		if m.ID != id {
			continue
		}
		for j := i - 1; j >= 0 && h[j].Role == "user"; j-- {
			if j == 0 || h[j-1].Role != "user" {
				return winnerOf(h[j])
			}
		}
	}
	return nil
}

// winnerOf is an answering message as the winner, nil when it tells
// nothing (no text, no reviewer).
func winnerOf(m message) *client.Winner {
	w := &client.Winner{Reviewer: m.Reviewer}
	if t := m.text(); t != "" {
		w.Value, _ = json.Marshal(t)
	}
	if w.Reviewer == "" && w.Value == nil {
		return nil
	}
	return w
}

// answerOf is who answered the question id, as the task's history says:
// the first user message after the agent's message that asked it (known
// from a listing of this process). nil where it cannot tell.
func (b *Backend) answerOf(t task, id string) *client.Winner {
	b.mu.Lock()
	asked, ok := b.askedBy[id]
	b.mu.Unlock()
	if !ok {
		return nil
	}
	for i, m := range t.History {
		if m.ID != asked || m.Role != "agent" {
			continue
		}
		if i+1 < len(t.History) && t.History[i+1].Role == "user" {
			return winnerOf(t.History[i+1])
		}
		return nil
	}
	return nil
}

// Follow reads the task until it waits again, ends, or the time is up.
func (b *Backend) Follow(ctx context.Context, s *client.Submission, _ client.Receipt) client.Outcome {
	ctx, cancel := context.WithTimeout(ctx, b.opts.Follow)
	defer cancel()
	out := client.Outcome{Status: client.Running}
	for {
		t, err := b.get(ctx, s.ThreadID)
		if err != nil {
			if ctx.Err() == nil {
				out.Error = err.Error()
			}
			return out
		}
		reply := b.Redact(strings.TrimSpace(t.Message.text()))
		switch {
		case t.State == inputRequired:
			qs, err := b.asked(ctx, t)
			if err != nil {
				out.Error = err.Error()
				return out
			}
			asked := false
			for _, q := range qs {
				if q.it.ID == s.Items[0].Interrupt.ID {
					asked = true // not yet taken up: look again
				}
			}
			if !asked {
				out.Status = client.PausedAgain
				for _, q := range qs {
					out.Pending = append(out.Pending, q.it.ID)
				}
				return out
			}
		case t.State == "completed":
			out.Status, out.Reply = client.Finished, reply
			return out
		case terminal(t.State):
			out.Status, out.Error = client.Failed, "the task ended "+t.State
			if reply != "" {
				out.Error += ": " + reply
			}
			return out
		}
		select {
		case <-ctx.Done():
			return out
		case <-time.After(200 * time.Millisecond):
		}
	}
}
