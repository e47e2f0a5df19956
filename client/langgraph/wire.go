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

// UnmarshalJSON reads the map of tasks to their interrupts, one interrupt
// at a time (see decodeTaskInterrupts).
func (t *taskInterrupts) UnmarshalJSON(b []byte) error {
	var err error
	*t, err = decodeTaskInterrupts(b)
	return err
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
	r := bytes.TrimSpace(t.Result)
	return len(r) > 0 && !bytes.Equal(r, []byte("null"))
}

// run is the part of a Run object hitl reads.
type run struct {
	RunID     string         `json:"run_id"`
	Status    string         `json:"status"`
	CreatedAt time.Time      `json:"created_at"`
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

// runList is a thread's runs (a transport.Decoder), read one run at a
// time: a run that cannot be read whole (a resume nested past
// encoding/json's limit, a field of the wrong type) keeps what can be read
// of it, and an entry that is not a run is left out (it names no run that
// could have taken an interrupt).
type runList []run

func (l *runList) DecodeJSON(b []byte) error {
	elems, err := client.Elements(b)
	if err != nil {
		return err
	}
	*l = make(runList, 0, len(elems))
	for _, e := range elems {
		var r run
		if json.Unmarshal(e, &r) != nil {
			r = decodeRun(e)
		}
		if r.RunID != "" {
			*l = append(*l, r)
		}
	}
	return nil
}

// decodeRun reads what it can of a run, field by field.
func decodeRun(b []byte) run {
	var r run
	ms, _ := client.Members(b)
	for _, m := range ms {
		switch m.Key {
		case "run_id":
			_ = json.Unmarshal(m.Value, &r.RunID)
		case "status":
			_ = json.Unmarshal(m.Value, &r.Status)
		case "created_at":
			_ = json.Unmarshal(m.Value, &r.CreatedAt)
		case "metadata":
			_ = json.Unmarshal(m.Value, &r.Metadata)
		case "kwargs":
			kw, _ := client.Members(m.Value)
			for _, k := range kw {
				if k.Key != "command" {
					continue
				}
				cmd, _ := client.Members(k.Value)
				for _, c := range cmd {
					if c.Key == "resume" {
						r.Kwargs.Command = &struct {
							Resume json.RawMessage `json:"resume"`
						}{Resume: bytes.Clone(c.Value)}
					}
				}
			}
		}
	}
	return r
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
}

// checkpointList is a thread's history (a transport.Decoder), read one
// checkpoint at a time and only the fields hitl reads: a checkpoint's
// values may hold anything, nested as deep as a poisoned interrupt. An
// entry that is not an object is left out.
type checkpointList []checkpoint

func (l *checkpointList) DecodeJSON(b []byte) error {
	elems, err := client.Elements(b)
	if err != nil {
		return err
	}
	*l = make(checkpointList, 0, len(elems))
	for _, e := range elems {
		var c checkpoint
		ms, err := client.Members(e)
		if err != nil {
			continue // not a checkpoint
		}
		for _, m := range ms {
			// A field that cannot be read stays empty: the checkpoint is
			// still one the thread wrote.
			switch m.Key {
			case "checkpoint":
				_ = json.Unmarshal(m.Value, &c.Checkpoint)
			case "parent_checkpoint":
				_ = json.Unmarshal(m.Value, &c.Parent)
			case "metadata":
				_ = json.Unmarshal(m.Value, &c.Metadata)
			}
		}
		*l = append(*l, c)
	}
	return nil
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

// Answers are read one item at a time: encoding/json refuses a document
// whole when one value in it nests past 10,000 levels or is malformed, and
// a server that sends one poisoned interrupt must not hide every other.
// An entry that cannot be read becomes one unreadable interrupt that says
// what is wrong with it (client.SchemaUnreadable); the others are read as
// usual.

// threadPage is one page of /threads/search (a transport.Decoder).
type threadPage []thread

// DecodeJSON reads the page one thread at a time; it fails only when the
// answer is not a JSON array.
func (p *threadPage) DecodeJSON(b []byte) error {
	elems, err := client.Elements(b)
	if err != nil {
		return err
	}
	*p = make(threadPage, 0, len(elems))
	for _, e := range elems {
		*p = append(*p, decodeThread(e))
	}
	return nil
}

// UnmarshalJSON reads a thread as decodeThread does: it never fails.
func (t *thread) UnmarshalJSON(b []byte) error {
	*t = decodeThread(b)
	return nil
}

// unreadableTask is the task under which a thread that cannot be read
// lists the one interrupt that says so.
const unreadableTask = "hitl-unreadable"

// decodeThread reads one thread field by field. What cannot be read is
// said by one more interrupt of the thread, whose value is the thread's
// bytes; the interrupts that can be read are listed as usual.
func decodeThread(b []byte) thread {
	var t thread
	var problems []string
	ms, err := client.Members(b)
	if err != nil {
		problems = append(problems, err.Error())
	}
	for _, m := range ms {
		var err error
		switch m.Key {
		case "thread_id":
			err = json.Unmarshal(m.Value, &t.ThreadID)
		case "created_at":
			err = json.Unmarshal(m.Value, &t.CreatedAt)
		case "updated_at":
			err = json.Unmarshal(m.Value, &t.UpdatedAt)
		case "metadata":
			err = json.Unmarshal(m.Value, &t.Metadata)
		case "status":
			err = json.Unmarshal(m.Value, &t.Status)
		case "interrupts":
			t.Interrupts, err = decodeTaskInterrupts(m.Value)
		case "error":
			t.Error = append(json.RawMessage(nil), m.Value...)
		case "state_updated_at":
			// Optional (Python server): one that cannot be read is not
			// used, and the thread's updated_at stands in for it.
			var at time.Time
			if json.Unmarshal(m.Value, &at) == nil && !at.IsZero() {
				t.StateUpdatedAt = &at
			}
		}
		if err != nil {
			problems = append(problems, m.Key+": "+strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	if len(problems) == 0 {
		return t
	}
	name, key := t.ThreadID, t.ThreadID
	if key == "" {
		// Named by its bytes: two threads without an id stay two items. Its
		// interrupts could not be answered (a resume names the thread):
		// the one item stands for them all.
		key = hash128(string(b))
		name, t.ThreadID, t.Interrupts = "without an id", "unreadable-"+key[:16], nil
	}
	if t.Status == "" {
		// It came from a search for interrupted (or busy) threads.
		t.Status = "interrupted"
	}
	t.Interrupts = append(t.Interrupts, taskEntry{TaskID: unreadableTask, Interrupts: []wireInterrupt{{
		ID:      hash128("hitl-unreadable|" + key),
		Value:   bytes.Clone(b),
		problem: fmt.Sprintf("a thread %s that cannot be read (%s)", name, strings.Join(problems, "; ")),
	}}})
	return t
}

// decodeTaskInterrupts reads the map of tasks to their interrupts in the
// server's order, one interrupt at a time. A task whose interrupts are not
// a list is one unreadable interrupt.
func decodeTaskInterrupts(b []byte) (taskInterrupts, error) {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil, nil
	}
	ms, err := client.Members(b)
	if err != nil {
		return nil, err
	}
	out := make(taskInterrupts, 0, len(ms))
	for _, m := range ms {
		e := taskEntry{TaskID: m.Key, Interrupts: []wireInterrupt{}}
		elems, err := client.Elements(m.Value)
		if err != nil {
			e.Interrupts = append(e.Interrupts, wireInterrupt{Value: bytes.Clone(m.Value),
				problem: fmt.Sprintf("the interrupts of task %s, which are not a list (%v)", m.Key, err)})
		}
		for _, el := range elems {
			e.Interrupts = append(e.Interrupts, decodeInterrupt(el))
		}
		out = append(out, e)
	}
	return out, nil
}

// UnmarshalJSON reads an interrupt as decodeInterrupt does: it never fails.
func (w *wireInterrupt) UnmarshalJSON(b []byte) error {
	*w = decodeInterrupt(b)
	return nil
}

// decodeInterrupt reads one interrupt field by field; its value is kept as
// bytes (client.Parse finds a value too deep or too large).
func decodeInterrupt(b []byte) wireInterrupt {
	var w wireInterrupt
	ms, err := client.Members(b)
	if err != nil {
		return wireInterrupt{Value: bytes.Clone(b), problem: fmt.Sprintf("an interrupt that is not one (%v)", err)}
	}
	for _, m := range ms {
		var err error
		switch m.Key {
		case "id":
			err = json.Unmarshal(m.Value, &w.ID)
		case "ns":
			err = json.Unmarshal(m.Value, &w.NS)
		case "value":
			w.Value = bytes.Clone(m.Value)
		case "response_schema":
			w.ResponseSchema = bytes.Clone(m.Value)
		}
		if err != nil && w.problem == "" {
			w.problem = fmt.Sprintf("an interrupt whose %s cannot be read (%s)", m.Key, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	if w.problem != "" {
		w.Value, w.ResponseSchema = bytes.Clone(b), nil
	}
	return w
}

// DecodeJSON reads a thread's state field by field (a transport.Decoder):
// its values, which may hold anything, are not read at all, and each
// task's interrupts one at a time.
func (s *threadState) DecodeJSON(b []byte) error {
	ms, err := client.Members(b)
	if err != nil {
		return err
	}
	for _, m := range ms {
		var err error
		switch m.Key {
		case "next":
			err = json.Unmarshal(m.Value, &s.Next)
		case "checkpoint":
			err = json.Unmarshal(m.Value, &s.Checkpoint)
		case "tasks":
			s.Tasks, err = decodeTasks(m.Value)
		case "metadata":
			// Unreadable metadata names no run: no evidence, not an error.
			_ = json.Unmarshal(m.Value, &s.Metadata)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", m.Key, err)
		}
	}
	return nil
}

func decodeTasks(b []byte) ([]stateTask, error) {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil, nil
	}
	elems, err := client.Elements(b)
	if err != nil {
		return nil, err
	}
	out := make([]stateTask, 0, len(elems))
	for _, el := range elems {
		ms, err := client.Members(el)
		if err != nil {
			return nil, err
		}
		var t stateTask
		for _, m := range ms {
			var err error
			switch m.Key {
			case "id":
				err = json.Unmarshal(m.Value, &t.ID)
			case "name":
				err = json.Unmarshal(m.Value, &t.Name)
			case "interrupts":
				var list []json.RawMessage
				if list, err = client.Elements(m.Value); err == nil {
					for _, x := range list {
						t.Interrupts = append(t.Interrupts, decodeInterrupt(x))
					}
				} else if bytes.Equal(bytes.TrimSpace(m.Value), []byte("null")) {
					err = nil
				}
			case "error":
				// Why the task failed (a failed run leaves it): a string.
				t.Error = bytes.Clone(m.Value)
			case "result":
				// Only whether there is one matters (answered): the result
				// itself, which may be large, is not kept.
				if r := bytes.TrimSpace(m.Value); len(r) > 0 && !bytes.Equal(r, []byte("null")) {
					t.Result = json.RawMessage("true")
				}
			}
			if err != nil {
				return nil, fmt.Errorf("task %s: %s: %w", t.ID, m.Key, err)
			}
		}
		out = append(out, t)
	}
	return out, nil
}
