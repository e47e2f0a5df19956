package langgraph

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/hitl-sh/hitl/client"
)

// thread is a thread as /threads/search returns it with our select.
type thread struct {
	ThreadID   string         `json:"thread_id"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
	Metadata   map[string]any `json:"metadata"`
	Status     string         `json:"status"`
	Interrupts taskInterrupts `json:"interrupts"`
	// Python server only (observed on langgraph-api 0.16.7): the last run's
	// error, {"error": name, "message": text}, while the thread's status is
	// "error"; and when the thread's state or status last changed (a
	// metadata PATCH moves updated_at, not this).
	Error          json.RawMessage `json:"error"`
	StateUpdatedAt *time.Time      `json:"state_updated_at"`
}

// wireInterrupt is one interrupt: {id, value} on current servers,
// {value, resumable, ns, when} before langgraph 0.6. LangGraph JS 1.7
// adds response_schema, the JSON Schema of the answer the graph expects
// (interrupt(value, {responseSchema})), in thread.interrupts, in the state's
// tasks and in __interrupt__ alike (observed).
type wireInterrupt struct {
	ID             string          `json:"id"`
	Value          json.RawMessage `json:"value"`
	NS             []string        `json:"ns"`
	ResponseSchema json.RawMessage `json:"response_schema"`
	// problem says why the entry cannot be read as an interrupt (Value then
	// holds the entry's bytes); a value too deep or too large is found by
	// client.Parse.
	problem string
}

// payload is what the interrupt asks, with the schema of its answer.
func (w wireInterrupt) payload() client.Payload {
	if w.problem != "" {
		return client.Unreadable(w.problem)
	}
	return client.ParseWithSchema(w.Value, w.ResponseSchema)
}

// taskInterrupts keeps the server's order of tasks, which a Go map would lose.
type taskInterrupts []taskEntry

type taskEntry struct {
	TaskID     string
	Interrupts []wireInterrupt
}

func (t taskInterrupts) count() int {
	n := 0
	for _, e := range t {
		n += len(e.Interrupts)
	}
	return n
}

// threadState is the part of /threads/{id}/state hitl reads: the tasks of
// the current checkpoint (a task with a result was answered, even where
// thread.interrupts still lists it) and, for a breakpoint, what runs next.
type threadState struct {
	Next       []string    `json:"next"`
	Tasks      []stateTask `json:"tasks"`
	Checkpoint struct {
		CheckpointID string `json:"checkpoint_id"`
	} `json:"checkpoint"`
	// Metadata is the current checkpoint's: run_id names the run that
	// wrote it.
	Metadata map[string]any `json:"metadata"`
	// CreatedAt is when the current checkpoint was written: when the
	// state last changed, which a metadata PATCH (a claim) does not move.
	CreatedAt *time.Time `json:"created_at"`
}

type stateTask struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Interrupts []wireInterrupt `json:"interrupts"`
	Result     json.RawMessage `json:"result"`
	// Error is why the task failed (a run that failed leaves it there).
	Error json.RawMessage `json:"error"`
}

// answered reports whether the task already has its result.
func (t stateTask) answered() bool {
	return !isNull(t.Result)
}

// run is the part of a Run object hitl reads.
type run struct {
	RunID     string         `json:"run_id"`
	Status    string         `json:"status"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
	Metadata  map[string]any `json:"metadata"`
	Kwargs    struct {
		Command *struct {
			Resume json.RawMessage `json:"resume"`
		} `json:"command"`
		// Resumable: created with stream_resumable, so that its stream
		// can be read by several readers without taking events from each
		// other.
		Resumable bool `json:"resumable"`
	} `json:"kwargs"`
}

func (r *run) meta(key string) string {
	if v, ok := r.Metadata[key].(string); ok {
		return v
	}
	return ""
}

// active reports whether the run has not ended.
func (r *run) active() bool { return r.Status == "pending" || r.Status == "running" }

// failed reports whether the run ended in an error (its resume may not
// have been applied).
func (r *run) failed() bool { return r.Status == "error" || r.Status == "timeout" }

// resumes returns the value the run's resume map gives interrupt id.
func (r *run) resumes(id string) (json.RawMessage, bool) {
	if r.Kwargs.Command == nil {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(r.Kwargs.Command.Resume, &m) != nil {
		return nil, false
	}
	v, ok := m[id]
	return v, ok
}

// checkpoint is one entry of /threads/{id}/history.
type checkpoint struct {
	Checkpoint struct {
		CheckpointID string `json:"checkpoint_id"`
	} `json:"checkpoint"`
	Parent *struct {
		CheckpointID string `json:"checkpoint_id"`
	} `json:"parent_checkpoint"`
	Metadata map[string]any `json:"metadata"`
	// Tasks are the checkpoint's, with every interrupt its step raised,
	// answered or not (not read live).
	Tasks []stateTask `json:"tasks"`
}

// interruptID is the id LangGraph itself gives an interrupt that came
// without one: the xxh3-128 hex digest of its namespace joined with "|".
// Without a namespace either, the id is derived from where the interrupt
// sits, so it stays the same across reads.
func interruptID(w wireInterrupt, threadID, taskID string, index int) string {
	if w.ID != "" {
		return w.ID
	}
	if len(w.NS) > 0 {
		return hash128(strings.Join(w.NS, "|"))
	}
	return hash128(fmt.Sprintf("hitl|%s|%s|%d", threadID, taskID, index))
}

// breakpointID names a thread's stop at one checkpoint; continuing moves the
// thread to another checkpoint, so a later stop gets a new id.
func breakpointID(threadID, checkpointID string) string {
	return hash128("hitl-breakpoint|" + threadID + "|" + checkpointID)
}

func hash128(s string) string {
	sum := xxh3.HashString128(s).Bytes()
	return hex.EncodeToString(sum[:])
}

func (t *thread) meta(key string) string {
	if v, ok := t.Metadata[key].(string); ok {
		return v
	}
	return ""
}

// interrupts turns a thread's pending interrupt values into the model,
// leaving out the ids in skip.
func (t *thread) interrupts(server string, skip map[string]bool) []client.Interrupt {
	var out []client.Interrupt
	for _, task := range t.Interrupts {
		for i, w := range task.Interrupts {
			id := interruptID(w, t.ThreadID, task.TaskID, i)
			if skip[id] {
				continue
			}
			out = append(out, t.base(server, id, w.Value, w.payload()))
		}
	}
	return out
}

func (t *thread) base(server, id string, raw json.RawMessage, p client.Payload) client.Interrupt {
	claims, waiting := claimsOf(t.Metadata, id, t.CreatedAt)
	if w := approvalWaiting(t.Metadata, id, t.CreatedAt); !w.IsZero() && (waiting.IsZero() || w.Before(waiting)) {
		waiting = w
	}
	updated := t.UpdatedAt
	if st := t.StateUpdatedAt; st != nil && st.Before(updated) && !st.Before(t.CreatedAt) {
		// The Python server says when the state last changed: a claim's
		// PATCH on this thread (of this interrupt or a sibling) moved
		// updated_at, not that.
		updated = *st
	}
	if !waiting.IsZero() && waiting.Before(updated) {
		updated = waiting // a claim moved updated_at, not the interrupt
	}
	it := client.Interrupt{
		ID:          id,
		ThreadID:    t.ThreadID,
		GraphID:     t.meta("graph_id"),
		AssistantID: t.meta("assistant_id"),
		CreatedAt:   t.CreatedAt,
		UpdatedAt:   updated,
		Payload:     p,
		Server:      server,
		Claims:      claims,
		Approval:    approvalOf(t.Metadata, id),
	}
	it.WithValue(raw)
	return it
}
