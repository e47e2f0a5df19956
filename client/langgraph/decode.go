package langgraph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Answers are read one item at a time: encoding/json refuses a document
// whole when one value in it nests past 10,000 levels or is malformed, and
// a server that sends one poisoned interrupt must not hide every other.
// An entry that cannot be read becomes one unreadable interrupt that says
// what is wrong with it (client.SchemaUnreadable); the others are read as
// usual.

// UnmarshalJSON reads the map of tasks to their interrupts, one interrupt
// at a time (see decodeTaskInterrupts).
func (t *taskInterrupts) UnmarshalJSON(b []byte) error {
	var err error
	*t, err = decodeTaskInterrupts(b)
	return err
}

// runList is a thread's runs (a transport.Decoder), read one run at a
// time: a run that cannot be read whole (a resume nested past
// encoding/json's limit, a field of the wrong type) keeps what can be read
// of it, and an entry that is not a run is left out (it names no run that
// could have taken an interrupt).
type runList []run

func (l *runList) DecodeJSON(b []byte) error {
	list, err := client.List(b, func(e json.RawMessage) (run, bool) {
		var r run
		if json.Unmarshal(e, &r) != nil {
			r = decodeRun(e)
		}
		return r, r.RunID != ""
	})
	*l = list
	return err
}

// decodeRun reads what it can of a run, field by field: a field that
// cannot be read stays empty.
func decodeRun(b []byte) run {
	var r run
	client.Fields(b, func(key string, v json.RawMessage) error {
		switch key {
		case "run_id":
			return client.Into(v, &r.RunID)
		case "status":
			return client.Into(v, &r.Status)
		case "created_at":
			return client.Into(v, &r.CreatedAt)
		case "updated_at":
			return client.Into(v, &r.UpdatedAt)
		case "metadata":
			return client.Into(v, &r.Metadata)
		case "kwargs":
			client.Fields(v, func(key string, v json.RawMessage) error {
				if key == "command" {
					client.Fields(v, func(key string, v json.RawMessage) error {
						if key == "resume" {
							r.Kwargs.Command = &struct {
								Resume json.RawMessage `json:"resume"`
							}{Resume: bytes.Clone(v)}
						}
						return nil
					})
				}
				return nil
			})
		}
		return nil
	})
	return r
}

// checkpointList is a thread's history (a transport.Decoder), read one
// checkpoint at a time and only the fields hitl reads: a checkpoint's
// values may hold anything, nested as deep as a poisoned interrupt. An
// entry that is not an object is left out; a field that cannot be read
// stays empty (the checkpoint is still one the thread wrote).
type checkpointList []checkpoint

func (l *checkpointList) DecodeJSON(b []byte) error {
	list, err := client.List(b, func(e json.RawMessage) (checkpoint, bool) {
		var c checkpoint
		if _, err := client.Members(e); err != nil {
			return c, false // not a checkpoint
		}
		client.Fields(e, func(key string, v json.RawMessage) error {
			switch key {
			case "checkpoint":
				return client.Into(v, &c.Checkpoint)
			case "parent_checkpoint":
				return client.Into(v, &c.Parent)
			case "metadata":
				return client.Into(v, &c.Metadata)
			case "tasks":
				// Unreadable tasks show no interrupt: no evidence.
				c.Tasks, _ = decodeTasks(v)
			}
			return nil
		})
		return c, true
	})
	*l = list
	return err
}

// threadPage is one page of /threads/search (a transport.Decoder).
type threadPage []thread

// DecodeJSON reads the page one thread at a time; it fails only when the
// answer is not a JSON array.
func (p *threadPage) DecodeJSON(b []byte) error {
	list, err := client.List(b, func(e json.RawMessage) (thread, bool) { return decodeThread(e), true })
	*p = list
	return err
}

// UnmarshalJSON reads a thread as decodeThread does: it never fails.
func (t *thread) UnmarshalJSON(b []byte) error {
	*t = decodeThread(b)
	return nil
}

// unreadableTask is the task under which a thread that cannot be read
// lists the one interrupt that says so.
const unreadableTask = "hitl-unreadable"

// unreadableThreadItem is the id of the one interrupt that stands for a
// thread that cannot be read (or whose interrupts the server could not
// give): named after the thread by client.UnreadableID, so that it stays
// the same item at every read.
func unreadableThreadItem(threadID string) string {
	return client.UnreadableID([]byte("thread " + threadID))
}

// decodeThread reads one thread field by field. What cannot be read is
// said by one more interrupt of the thread, whose value is the thread's
// bytes; the interrupts that can be read are listed as usual.
func decodeThread(b []byte) thread {
	var t thread
	problems := client.Fields(b, func(key string, v json.RawMessage) error {
		switch key {
		case "thread_id":
			return client.Into(v, &t.ThreadID)
		case "created_at":
			return client.Into(v, &t.CreatedAt)
		case "updated_at":
			return client.Into(v, &t.UpdatedAt)
		case "metadata":
			return client.Into(v, &t.Metadata)
		case "status":
			return client.Into(v, &t.Status)
		case "interrupts":
			var err error
			t.Interrupts, err = decodeTaskInterrupts(v)
			return err
		case "error":
			t.Error = bytes.Clone(v)
		case "state_updated_at":
			// Optional (Python server): one that cannot be read is not
			// used, and the thread's updated_at stands in for it.
			var at time.Time
			if json.Unmarshal(v, &at) == nil && !at.IsZero() {
				t.StateUpdatedAt = &at
			}
		}
		return nil
	})
	if len(problems) == 0 {
		return t
	}
	name := t.ThreadID
	if t.ThreadID == "" {
		// Named by its bytes: two threads without an id stay two items. Its
		// interrupts could not be answered (a resume names the thread):
		// the one item stands for them all.
		name, t.ThreadID, t.Interrupts = "without an id", client.UnreadableID(b), nil
	}
	if t.Status == "" {
		// It came from a search for interrupted (or busy) threads.
		t.Status = "interrupted"
	}
	t.Interrupts = append(t.Interrupts, taskEntry{TaskID: unreadableTask, Interrupts: []wireInterrupt{{
		ID:      unreadableThreadItem(t.ThreadID),
		Value:   bytes.Clone(b),
		problem: client.CannotRead("a thread "+name, problems),
	}}})
	return t
}

// problem says why the thread could not be read whole ("" when it
// could): the problem of the one interrupt decodeThread added for it.
func (t *thread) problem() string {
	for _, e := range t.Interrupts {
		if e.TaskID == unreadableTask && len(e.Interrupts) > 0 {
			return e.Interrupts[0].problem
		}
	}
	return ""
}

// decodeTaskInterrupts reads the map of tasks to their interrupts in the
// server's order, one interrupt at a time. A task whose interrupts are not
// a list is one unreadable interrupt.
func decodeTaskInterrupts(b []byte) (taskInterrupts, error) {
	if isNull(b) {
		return nil, nil
	}
	ms, err := client.Members(b)
	if err != nil {
		return nil, err
	}
	out := make(taskInterrupts, 0, len(ms))
	for _, m := range ms {
		e := taskEntry{TaskID: m.Key}
		e.Interrupts, err = decodeInterrupts(m.Value)
		if err != nil {
			e.Interrupts = []wireInterrupt{{Value: bytes.Clone(m.Value),
				problem: fmt.Sprintf("the interrupts of task %s, which are not a list (%v)", m.Key, err)}}
		}
		out = append(out, e)
	}
	return out, nil
}

// decodeInterrupts reads a list of interrupts one at a time.
func decodeInterrupts(b []byte) ([]wireInterrupt, error) {
	return client.List(b, func(e json.RawMessage) (wireInterrupt, bool) { return decodeInterrupt(e), true })
}

// UnmarshalJSON reads an interrupt as decodeInterrupt does: it never fails.
func (w *wireInterrupt) UnmarshalJSON(b []byte) error {
	*w = decodeInterrupt(b)
	return nil
}

// decodeInterrupt reads one interrupt field by field; its value is kept as
// bytes (client.Parse finds a value too deep or too large). One that cannot
// be read keeps the entry's bytes as its value, and says why.
func decodeInterrupt(b []byte) wireInterrupt {
	var w wireInterrupt
	problems := client.Fields(b, func(key string, v json.RawMessage) error {
		switch key {
		case "id":
			return client.Into(v, &w.ID)
		case "ns":
			return client.Into(v, &w.NS)
		case "value":
			w.Value = bytes.Clone(v)
		case "response_schema":
			w.ResponseSchema = bytes.Clone(v)
		}
		return nil
	})
	if len(problems) > 0 {
		w.Value, w.ResponseSchema = bytes.Clone(b), nil
		w.problem = client.CannotRead("an interrupt", problems)
	}
	return w
}

// DecodeJSON reads a thread's state field by field (a transport.Decoder):
// its values, which may hold anything, are not read at all, and each
// task's interrupts one at a time. Unlike a list, a state is one answer:
// what cannot be read of it fails it.
func (s *threadState) DecodeJSON(b []byte) error {
	return client.Fields(b, func(key string, v json.RawMessage) error {
		var err error
		switch key {
		case "next":
			err = client.Into(v, &s.Next)
		case "checkpoint":
			err = client.Into(v, &s.Checkpoint)
		case "tasks":
			s.Tasks, err = decodeTasks(v)
		case "metadata":
			// Unreadable metadata names no run: no evidence, not an error.
			_ = json.Unmarshal(v, &s.Metadata)
		case "created_at":
			// Optional: one that cannot be read is not used (the thread's
			// updated_at stands in for it).
			var at time.Time
			if json.Unmarshal(v, &at) == nil && !at.IsZero() {
				s.CreatedAt = &at
			}
		}
		return err
	}).Err()
}

func decodeTasks(b []byte) ([]stateTask, error) {
	if isNull(b) {
		return nil, nil
	}
	var failed error
	tasks, err := client.List(b, func(e json.RawMessage) (stateTask, bool) {
		var t stateTask
		if p := client.Fields(e, func(key string, v json.RawMessage) error {
			var err error
			switch key {
			case "id":
				err = client.Into(v, &t.ID)
			case "name":
				err = client.Into(v, &t.Name)
			case "interrupts":
				if !isNull(v) {
					t.Interrupts, err = decodeInterrupts(v)
				}
			case "error":
				// Why the task failed (a failed run leaves it): a string.
				t.Error = bytes.Clone(v)
			case "result":
				// Only whether there is one matters (answered): the result
				// itself, which may be large, is not kept.
				if !isNull(v) {
					t.Result = json.RawMessage("true")
				}
			}
			return err
		}); p != nil && failed == nil {
			failed = fmt.Errorf("task %s: %w", t.ID, p.Err())
		}
		return t, true
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return nil, err
	}
	return tasks, nil
}

// isNull: b is JSON null (or nothing at all).
func isNull(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || bytes.Equal(b, []byte("null"))
}
