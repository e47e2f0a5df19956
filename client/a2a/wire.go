package a2a

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// task is an A2A task as hitl reads it, in either protocol's spelling.
type task struct {
	ID        string
	ContextID string
	// State is the task's state in 0.3's words ("input-required",
	// "completed", …), whichever spelling the agent used.
	State     string
	Message   *message // the status message
	Timestamp time.Time
	Artifacts []artifact
	History   []message

	// problem says why the task cannot be read; raw are its bytes.
	problem string
	raw     []byte
}

type message struct {
	ID    string
	Role  string // "user" or "agent"
	Parts []part
	// Reviewer is the hitl_reviewer of its metadata (an answer hitl
	// sent), "" for any other message. The agent's words.
	Reviewer string
}

type artifact struct {
	Name  string
	Parts []part
}

// part is one part of a message or artifact: text, data (any JSON), or
// anything else (a file, a URL, raw bytes), kept as its bytes.
type part struct {
	Text  *string
	Data  json.RawMessage
	Other json.RawMessage
}

// The wire shapes, both spellings at once: 0.3 adds "kind", 1.0 names the
// part by its member.
type wireTask struct {
	ID        string `json:"id"`
	ContextID string `json:"contextId"`
	Status    struct {
		State     string       `json:"state"`
		Message   *wireMessage `json:"message"`
		Timestamp string       `json:"timestamp"`
	} `json:"status"`
	Artifacts []struct {
		Name  string            `json:"name"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"artifacts"`
	History []wireMessage `json:"history"`
}

type wireMessage struct {
	MessageID string            `json:"messageId"`
	Role      string            `json:"role"`
	Parts     []json.RawMessage `json:"parts"`
	Metadata  json.RawMessage   `json:"metadata"`
}

// State spells a state in 0.3's words: TASK_STATE_INPUT_REQUIRED and
// input-required are both "input-required".
func State(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "task_state_")
	return strings.ReplaceAll(s, "_", "-")
}

// Role spells a role in 0.3's words: ROLE_USER and user are both "user".
func Role(s string) string {
	return strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "role_")
}

const inputRequired = "input-required"

// terminal reports whether a task in state s takes no more messages.
func terminal(s string) bool {
	switch s {
	case "completed", "failed", "canceled", "cancelled", "rejected":
		return true
	}
	return false
}

// decodeTask reads one task, tolerantly: a task that cannot be read is
// returned with its problem set (named by its id when that can be read),
// never refused with the others.
func decodeTask(e json.RawMessage) (task, bool) {
	var t task
	client.Fields(e, func(key string, v json.RawMessage) error {
		if key == "id" {
			return client.Into(v, &t.ID)
		}
		return nil
	})
	if t.ID == "" {
		t.ID = client.UnreadableID(e)
	}
	if p := client.ValueProblem(e); p != "" {
		t.problem, t.raw = "a task "+p, bytes.Clone(e)
		return t, true
	}
	var w wireTask
	if err := json.Unmarshal(e, &w); err != nil || w.ID == "" {
		why := "it has no id"
		if err != nil {
			why = strings.TrimPrefix(err.Error(), "json: ")
		}
		t.problem, t.raw = "that is not an A2A task ("+why+")", bytes.Clone(e)
		return t, true
	}
	t.ID, t.ContextID, t.State = w.ID, w.ContextID, State(w.Status.State)
	t.Timestamp, _ = time.Parse(time.RFC3339Nano, w.Status.Timestamp)
	if w.Status.Message != nil {
		m := w.Status.Message.read()
		t.Message = &m
	}
	for _, a := range w.Artifacts {
		t.Artifacts = append(t.Artifacts, artifact{Name: a.Name, Parts: readParts(a.Parts)})
	}
	for _, m := range w.History {
		t.History = append(t.History, m.read())
	}
	t.raw = bytes.Clone(e)
	return t, true
}

func (w wireMessage) read() message {
	m := message{ID: w.MessageID, Role: Role(w.Role), Parts: readParts(w.Parts)}
	var meta struct {
		Reviewer json.RawMessage `json:"hitl_reviewer"`
	}
	if json.Unmarshal(w.Metadata, &meta) == nil {
		_ = json.Unmarshal(meta.Reviewer, &m.Reviewer) // not a string: none
	}
	return m
}

func readParts(raw []json.RawMessage) []part {
	out := make([]part, 0, len(raw))
	for _, r := range raw {
		var m map[string]json.RawMessage
		if json.Unmarshal(r, &m) != nil {
			out = append(out, part{Other: r})
			continue
		}
		var kind, text string
		_ = json.Unmarshal(m["kind"], &kind)
		switch {
		case m["text"] != nil && json.Unmarshal(m["text"], &text) == nil && (kind == "" || kind == "text"):
			out = append(out, part{Text: &text})
		case m["data"] != nil && (kind == "" || kind == "data"):
			out = append(out, part{Data: m["data"]})
		default:
			out = append(out, part{Other: r})
		}
	}
	return out
}

// text joins a message's text parts.
func (m *message) text() string {
	if m == nil {
		return ""
	}
	var ts []string
	for _, p := range m.Parts {
		if p.Text != nil {
			ts = append(ts, *p.Text)
		}
	}
	return strings.Join(ts, "\n")
}
