package langgraph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
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
