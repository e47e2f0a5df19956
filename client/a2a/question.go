package a2a

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// producer is who put the question in the task, and so how it is answered.
type producer string

const (
	// plain: a question in the status message's text (or data of no known
	// shape), answered with a text part (or a data part for a JSON value).
	plain producer = "text"
	// strands: Strands' {"interrupts": [...]} data part, answered with
	// {"interruptResponse": {"interruptId", "response"}}.
	strands producer = "strands"
	// langgraph: LangGraph's interrupt {"id", "value", "response_schema"?}
	// (an artifact of LangGraph's /a2a endpoint), answered with
	// {"resume": value}.
	langgraph producer = "langgraph"
)

// question is one thing a waiting task asks.
type question struct {
	it       client.Interrupt
	producer producer
	// ref is the producer's id of the question (Strands' interruptId).
	ref string
	// msg is the id of the agent's message that asks it (the task's
	// status message), where it came from one: the answer follows it in
	// the task's history.
	msg string
}

// fromMessage marks qs as asked by the agent's message id.
func fromMessage(qs []question, id string) []question {
	for i := range qs {
		qs[i].msg = id
	}
	return qs
}

// questions reads what a task in input-required asks: Gemini CLI's tool
// calls, Strands' interrupts and LangGraph's interrupt data in the status
// message, else the status message's text and other data, else Gemini
// CLI's tool calls waiting in the history since the last user message,
// else LangGraph's interrupt artifact (the last one). A task that asks nothing readable is one question that says
// so. Every question's ThreadID is the task's id.
func (b *Backend) questions(t task, graph string) []question {
	base := client.Interrupt{ThreadID: t.ID, GraphID: graph,
		CreatedAt: t.Timestamp, UpdatedAt: t.Timestamp, Server: b.Server()}
	if t.problem != "" {
		it := base
		it.ID = t.ID
		it.Payload = client.Unreadable(t.problem)
		it.WithValue(t.raw)
		return []question{{it: it, producer: plain}}
	}
	var out []question
	var unknown []json.RawMessage
	if m := t.Message; m != nil {
		for _, p := range m.Parts {
			switch {
			case p.Data != nil:
				if c, ok := readGeminiCall(p.Data); ok && c.Status == "awaiting_approval" && c.Details != nil {
					out = append(out, geminiQuestion(base, c, p.Data))
				} else if qs, ok := strandsQuestions(base, p.Data, m.text()); ok {
					out = append(out, qs...)
				} else if q, ok := langgraphQuestion(base, p.Data); ok {
					out = append(out, q)
				} else {
					unknown = append(unknown, p.Data)
				}
			case p.Other != nil:
				unknown = append(unknown, p.Other)
			}
		}
		if len(out) > 0 {
			// Parts of no known shape beside known ones are shown, not
			// dropped: one more question, answered with text.
			if len(unknown) > 0 {
				out = append(out, plainQuestion(base, t, m, unknown))
			}
			return fromMessage(out, m.ID)
		}
		if len(unknown) > 0 || strings.TrimSpace(m.text()) != "" {
			return fromMessage([]question{plainQuestion(base, t, m, unknown)}, m.ID)
		}
	}
	if qs := geminiQuestions(base, t); len(qs) > 0 {
		return qs
	}
	for i := len(t.Artifacts) - 1; i >= 0; i-- {
		for _, p := range t.Artifacts[i].Parts {
			if q, ok := langgraphQuestion(base, p.Data); ok {
				out = append(out, q)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// plainQuestion is a question in text, with data parts of no known shape
// shown as they are.
func plainQuestion(base client.Interrupt, t task, m *message, unknown []json.RawMessage) question {
	it := base
	it.ID = derivedID(t.ID, m.ID, t.Timestamp.String())
	text := m.text()
	if len(unknown) == 0 {
		raw, _ := json.Marshal(text)
		it.Payload = client.Parse(raw)
		it.WithValue(raw)
		return question{it: it, producer: plain}
	}
	raw := unknown[0]
	if len(unknown) > 1 {
		raw, _ = json.Marshal(unknown)
	}
	it.Payload = client.Parse(raw)
	if it.Problem == "" && it.Schema == client.SchemaRaw && strings.TrimSpace(text) != "" {
		it.Title = text
	}
	it.WithValue(raw)
	return question{it: it, producer: plain}
}

// derivedID names a question that has no id of its own: its task and the
// status message that asks it (a new question is a new id).
func derivedID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// langgraphQuestion reads LangGraph's interrupt {"id", "value",
// "response_schema"?}: its value in every shape client.Parse knows.
func langgraphQuestion(base client.Interrupt, data json.RawMessage) (question, bool) {
	if len(data) == 0 || client.ValueProblem(data) != "" {
		return question{}, false
	}
	var v struct {
		ID             string          `json:"id"`
		Value          json.RawMessage `json:"value"`
		ResponseSchema json.RawMessage `json:"response_schema"`
	}
	if json.Unmarshal(data, &v) != nil || v.ID == "" || v.Value == nil {
		return question{}, false
	}
	it := base
	it.ID = v.ID
	it.Payload = client.ParseWithSchema(v.Value, v.ResponseSchema)
	it.WithValue(v.Value)
	return question{it: it, producer: langgraph, ref: v.ID}, true
}

// strandsQuestions reads Strands' {"interrupts": [{"interruptId", "name",
// "reason"}]}: one question per interrupt.
func strandsQuestions(base client.Interrupt, data json.RawMessage, text string) ([]question, bool) {
	if client.ValueProblem(data) != "" {
		return nil, false
	}
	var v struct {
		Interrupts []json.RawMessage `json:"interrupts"`
	}
	if json.Unmarshal(data, &v) != nil || len(v.Interrupts) == 0 {
		return nil, false
	}
	var out []question
	for _, raw := range v.Interrupts {
		var in struct {
			InterruptID string          `json:"interruptId"`
			Name        string          `json:"name"`
			Reason      json.RawMessage `json:"reason"`
		}
		if json.Unmarshal(raw, &in) != nil || in.InterruptID == "" {
			return nil, false
		}
		it := base
		// Strands' ids share their first characters (v1:before_tool_call:):
		// hitl's is derived, so that a short prefix names one.
		it.ID = derivedID(base.ThreadID, in.InterruptID)
		it.Payload = strandsPayload(in.Name, in.Reason, text)
		it.WithValue(raw)
		out = append(out, question{it: it, producer: strands, ref: in.InterruptID})
	}
	return out, true
}

// toolUse is Strands' ToolUse, which an approval hook may give as the
// interrupt's reason (or under a member of it).
type toolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

func toolUseIn(reason json.RawMessage) (toolUse, bool) {
	var tu toolUse
	if json.Unmarshal(reason, &tu) == nil && tu.Name != "" && isObject(tu.Input) {
		return tu, true
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(reason, &members) == nil {
		for _, k := range []string{"toolUse", "tool_use", "tool"} {
			if json.Unmarshal(members[k], &tu) == nil && tu.Name != "" && isObject(tu.Input) {
				return tu, true
			}
		}
	}
	return toolUse{}, false
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

// strandsPayload is a Strands interrupt: a tool approval when its reason
// names the tool (approve or reject), else the reason shown as it is
// (approve, reject, or respond with any answer).
func strandsPayload(name string, reason json.RawMessage, text string) client.Payload {
	p := client.Payload{Description: text, Encoder: strandsEncoder{}}
	if tu, ok := toolUseIn(reason); ok {
		p.Schema, p.Title = client.SchemaMiddleware, "Approve "+tu.Name+"?"
		p.Actions = []client.Action{{Name: tu.Name, Args: tu.Input, Description: name,
			Allowed: []client.DecisionType{client.Approve, client.Reject}}}
		return client.Normalized(p)
	}
	p.Schema, p.Title = client.SchemaRaw, name
	var s string
	if json.Unmarshal(reason, &s) == nil && strings.TrimSpace(s) != "" {
		p.Title = name + ": " + s
	}
	if p.Title == "" {
		p.Title = "The agent asks for approval"
	}
	if len(bytes.TrimSpace(reason)) > 0 && client.ValueProblem(reason) == "" {
		p.Context = reason
	}
	p.Allowed = []client.DecisionType{client.Approve, client.Reject, client.Respond}
	return client.Normalized(p)
}

// strandsEncoder spells a decision as the response of a Strands
// interrupt, as Strands' documented approval hook reads it: "y" approves;
// a reject is "n", followed by the reviewer's reason ("n: wrong
// customer"); a respond is the reviewer's text (or JSON value) as it is.
type strandsEncoder struct{}

// Shape is client.Shaper: show says what the agent sent.
func (strandsEncoder) Shape() string { return "strands-interrupt" }

func (strandsEncoder) Encode(_ *client.Payload, ds []client.Decision, _ client.EncodeOptions) (any, error) {
	d := ds[0]
	switch d.Type {
	case client.Approve:
		return "y", nil
	case client.Reject:
		if m := strings.TrimSpace(d.Message); m != "" {
			return "n: " + m, nil
		}
		return "n", nil
	}
	if d.Value != nil {
		return d.Value, nil
	}
	return d.Message, nil
}
