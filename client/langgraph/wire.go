package langgraph

import (
	"bytes"
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
	ThreadID   string          `json:"thread_id"`
	CreatedAt  time.Time       `json:"created_at"`
	UpdatedAt  time.Time       `json:"updated_at"`
	Metadata   map[string]any  `json:"metadata"`
	Status     string          `json:"status"`
	Interrupts taskInterrupts  `json:"interrupts"`
	Error      json.RawMessage `json:"error,omitempty"`
}

// wireInterrupt is one interrupt: {id, value} on current servers,
// {value, resumable, ns, when} before langgraph 0.6.
type wireInterrupt struct {
	ID    string          `json:"id"`
	Value json.RawMessage `json:"value"`
	NS    []string        `json:"ns"`
}

// taskInterrupts keeps the server's order of tasks, which a Go map would lose.
type taskInterrupts []taskEntry

type taskEntry struct {
	TaskID     string
	Interrupts []wireInterrupt
}

func (t *taskInterrupts) UnmarshalJSON(b []byte) error {
	*t = nil
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("interrupts: expected an object, got %v", tok)
	}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return err
		}
		var list []wireInterrupt
		if err := dec.Decode(&list); err != nil {
			return fmt.Errorf("interrupts of task %v: %w", keyTok, err)
		}
		*t = append(*t, taskEntry{TaskID: fmt.Sprint(keyTok), Interrupts: list})
	}
	return nil
}

func (t taskInterrupts) count() int {
	n := 0
	for _, e := range t {
		n += len(e.Interrupts)
	}
	return n
}

// threadState is the part of /threads/{id}/state a breakpoint needs.
type threadState struct {
	Next  []string `json:"next"`
	Tasks []struct {
		ID         string          `json:"id"`
		Name       string          `json:"name"`
		Interrupts []wireInterrupt `json:"interrupts"`
	} `json:"tasks"`
	Checkpoint struct {
		CheckpointID string `json:"checkpoint_id"`
	} `json:"checkpoint"`
	Values json.RawMessage `json:"values"`
}

// run is the part of a Run object we read.
type run struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
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

// interrupts turns a thread's pending interrupt values into the model.
func (t *thread) interrupts(server string) []client.Interrupt {
	var out []client.Interrupt
	for _, task := range t.Interrupts {
		for i, w := range task.Interrupts {
			out = append(out, t.base(server, interruptID(w, t.ThreadID, task.TaskID, i), w.Value, client.Parse(w.Value)))
		}
	}
	return out
}

func (t *thread) base(server, id string, raw json.RawMessage, p client.Payload) client.Interrupt {
	if raw == nil {
		raw = json.RawMessage("null")
	}
	return client.Interrupt{
		ID:          id,
		ThreadID:    t.ThreadID,
		GraphID:     t.meta("graph_id"),
		AssistantID: t.meta("assistant_id"),
		CreatedAt:   t.CreatedAt,
		UpdatedAt:   t.UpdatedAt,
		Payload:     p,
		Raw:         raw,
		Server:      server,
	}
}
