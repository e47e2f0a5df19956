package langgraph

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// Ending a thread's work at an interrupt (hitl dismiss, reject --stop),
// as the LangGraph servers were found to allow it (langgraphjs dev): a
// resume, even with `goto: "__end__"`, lets the interrupted node go on
// (the HITL middleware hands a rejection back to the model, which may
// propose the same call again), and a run with a command but no resume
// runs the interrupted node again (a new interrupt). What ends it:
//
//  1. POST /threads/{id}/state with, as the interrupted node, one tool
//     message per call still unanswered (the reason, status "error"), as
//     the middleware writes for a reject; the node's own routing is
//     skipped, so nothing is next. An interrupt without tool calls: no
//     values, as the node "__end__" (nothing next either).
//     The Python server (langgraph dev) routes from the node as updated:
//     the middleware's next node, the model, would run again. When the
//     state then says something is next, a second update, no values as
//     "__end__", drops it.
//  2. POST /threads/{id}/runs with no input, carrying the decision id:
//     nothing is left to run, the run ends at once and the thread is idle
//     (the state update alone leaves it listed as interrupted).

const metaEnd = "hitl_end"

// EndsThreads: the LangGraph backend can end a thread's work (client.Ender).
func (b *Backend) EndsThreads() bool { return true }

type endState struct {
	Tasks  []stateTask `json:"tasks"`
	Values struct {
		Messages []struct {
			Type       string `json:"type"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"tool_calls"`
		} `json:"messages"`
	} `json:"values"`
}

// end ends the thread's work at the submission's one interrupt.
func (b *Backend) end(ctx context.Context, s *client.Submission) (client.Receipt, error) {
	if len(s.Items) != 1 {
		return client.Receipt{}, errors.New("a thread's work is ended at one interrupt at a time")
	}
	it, end := s.Items[0].Interrupt, s.Items[0].Resume.End
	var st endState
	resp, err := b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(s.ThreadID) + "/state")
	if err := b.Check(resp, err, "read the state of thread "+s.ThreadID, &st); err != nil {
		return client.Receipt{}, err
	}
	node := ""
	var others []string
	for _, task := range st.Tasks {
		if task.answered() {
			continue
		}
		for i, w := range task.Interrupts {
			if id := interruptID(w, s.ThreadID, task.ID, i); id == it.ID {
				node = task.Name
			} else {
				others = append(others, id)
			}
		}
	}
	if node == "" {
		return client.Receipt{}, fmt.Errorf("thread %s no longer holds interrupt %s in its state: nothing ended", s.ThreadID, it.ID)
	}
	if len(others) > 0 {
		n := "another interrupt"
		if len(others) > 1 {
			n = fmt.Sprintf("%d other interrupts", len(others))
		}
		return client.Receipt{}, fmt.Errorf("thread %s also waits at %s (%s): ending its work would drop them too; answer them first", s.ThreadID, n, strings.Join(others, ", "))
	}
	reason := endReason(end)
	body := map[string]any{"values": nil, "as_node": "__end__"}
	if len(it.Actions) > 0 {
		// The calls of the last AI message that no tool message answers.
		answered := map[string]bool{}
		var calls []map[string]any
		for _, m := range st.Values.Messages {
			if m.Type == "tool" {
				answered[m.ToolCallID] = true
			}
		}
		for i := len(st.Values.Messages) - 1; i >= 0; i-- {
			m := st.Values.Messages[i]
			if m.Type != "ai" || len(m.ToolCalls) == 0 {
				continue
			}
			for _, tc := range m.ToolCalls {
				if !answered[tc.ID] {
					calls = append(calls, map[string]any{"type": "tool", "content": reason, "tool_call_id": tc.ID, "name": tc.Name, "status": "error"})
				}
			}
			break
		}
		if len(calls) > 0 {
			body = map[string]any{"values": map[string]any{"messages": calls}, "as_node": node}
		}
	}
	resp, err = b.Writes.R().SetContext(ctx).SetBody(body).Post("/threads/" + url.PathEscape(s.ThreadID) + "/state")
	if cerr := b.Check(resp, err, "update the state of thread "+s.ThreadID, nil); cerr != nil {
		return client.Receipt{}, &client.SendError{Err: cerr, MaybeSent: transport.MaybeTaken(resp, err)}
	}
	// The state is changed from here: a failure is "maybe sent".
	if body["as_node"] != "__end__" {
		// The Python server routes from the node as updated (the HITL
		// middleware's next node is the model, which would run again):
		// what it would run next is dropped by an update as "__end__".
		var after threadState
		resp, err = b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(s.ThreadID) + "/state")
		if cerr := b.Check(resp, err, "read the state of thread "+s.ThreadID, &after); cerr != nil {
			return client.Receipt{}, &client.SendError{Err: cerr, MaybeSent: true}
		}
		if len(after.Next) > 0 {
			resp, err = b.Writes.R().SetContext(ctx).SetBody(map[string]any{"values": nil, "as_node": "__end__"}).
				Post("/threads/" + url.PathEscape(s.ThreadID) + "/state")
			if cerr := b.Check(resp, err, "update the state of thread "+s.ThreadID, nil); cerr != nil {
				return client.Receipt{}, &client.SendError{Err: fmt.Errorf("%w (the reason is in the conversation, but %s would still run next)", cerr, strings.Join(after.Next, ", ")), MaybeSent: true}
			}
		}
	}
	assistant := it.AssistantID
	for _, a := range []string{it.GraphID, b.opts.Assistant, b.opts.Graph} {
		if assistant == "" {
			assistant = a
		}
	}
	meta := map[string]any{metaDecision: s.DecisionID, metaEnd: string(end.Kind)}
	if s.Reviewer != "" {
		meta[metaReviewer] = s.Reviewer
	}
	var created run
	resp, err = b.Writes.R().SetContext(ctx).SetBody(map[string]any{"assistant_id": assistant, "input": nil,
		"multitask_strategy": "reject", "metadata": meta}).Post("/threads/" + url.PathEscape(s.ThreadID) + "/runs")
	if cerr := b.Check(resp, err, "end the run of thread "+s.ThreadID, &created); cerr != nil {
		return client.Receipt{}, &client.SendError{Err: fmt.Errorf("%w (the state was updated: the interrupt is answered, but the thread may still read as interrupted)", cerr), MaybeSent: true}
	}
	if created.RunID == "" {
		return client.Receipt{}, &client.SendError{Err: fmt.Errorf("end thread %s: the server answered without a run id", s.ThreadID), MaybeSent: true}
	}
	return client.Receipt{Acknowledged: true, RunID: created.RunID, ReasonInConversation: body["as_node"] != "__end__"}, nil
}

// endReason is the text each unanswered call gets as its result.
func endReason(e *client.Ending) string {
	r := strings.TrimSpace(e.Reason)
	if e.Kind == client.EndDismiss {
		if r == "" {
			return "Dismissed by the reviewer: this call was not run."
		}
		return "Dismissed by the reviewer: this call was not run. Reason: " + r
	}
	if r == "" {
		return "Rejected by the reviewer: this call was not run; do not try it again."
	}
	return r
}

// verifyEnd decides whether this submission's run ended the thread: no
// other run answered the interrupt first.
func verifyEnd(runs []run, id string, mine *run) client.Took {
	if w := winnerOf(runs, id, mine.RunID); w != nil && w.RunID != mine.RunID {
		return client.Theirs
	}
	return client.Mine
}
