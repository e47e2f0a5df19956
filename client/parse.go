package client

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Parse recognizes the shape of an interrupt value and normalizes it. It
// never fails: a value of no known shape, or a known shape with fields of the
// wrong type, is a SchemaRaw payload that shows the value as it is; a value
// that cannot be shown (too deep, too large, not JSON: see ValueProblem) is
// a SchemaUnreadable payload that says why.
func Parse(value json.RawMessage) Payload {
	return ParseWithSchema(value, nil)
}

// ParseWithSchema is Parse for an interrupt that also says what answer it
// expects: a JSON Schema (LangGraph's response_schema), kept in
// ResponseSchema. A value of no known shape, or a prompt whose answer is
// not plain text, becomes a SchemaForm payload, answered with a value of
// that schema; a known shape keeps its own, and its answer is checked
// against the schema when it is encoded. The per-call middleware's
// response schema also says which decisions its tool call allows.
func ParseWithSchema(value, responseSchema json.RawMessage) Payload {
	schema := NullToNil(bytes.Trim(responseSchema, jsonSpace))
	if len(schema) == 0 {
		schema = nil
	}
	p := parse(value, schema)
	if p.Schema != SchemaUnreadable {
		p.ExpiresAt, p.Default = deadline(value)
	}
	if schema == nil || p.Schema == SchemaUnreadable {
		return Normalized(p)
	}
	if problem := ValueProblem(schema); problem != "" {
		return Unreadable("answer schema " + problem)
	}
	p.ResponseSchema = schema
	switch p.Schema {
	case SchemaRaw:
		p.Schema, p.Title = SchemaForm, formTitle(value)
	case SchemaPrompt:
		if !plainText(schema) {
			p.Schema = SchemaForm
		}
	}
	return Normalized(p)
}

// plainText reports whether a schema asks for free text, which a prompt's
// reply is.
func plainText(schema json.RawMessage) bool {
	f, err := FormOf(schema)
	return err == nil && f.Root && f.Fields[0].Kind == FieldText
}

// formTitle is what a value of no known shape asks, for a form's title.
func formTitle(value json.RawMessage) string {
	var s string
	if json.Unmarshal(value, &s) == nil && strings.TrimSpace(s) != "" {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(value, &obj) == nil {
		for _, k := range []string{"question", "prompt", "message", "title", "text", "description"} {
			if json.Unmarshal(obj[k], &s) == nil && strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return "The agent asks for an answer of a given shape"
}

// Normalized gives empty lists rather than nil ones, so that the JSON output
// always has arrays where it documents arrays. A backend that builds a
// payload itself returns it through Normalized.
func Normalized(p Payload) Payload {
	if p.Questions == nil {
		p.Questions = []string{}
	}
	if p.Actions == nil {
		p.Actions = []Action{}
	}
	for i := range p.Actions {
		if p.Actions[i].Allowed == nil {
			p.Actions[i].Allowed = []DecisionType{}
		}
	}
	return p
}

func parse(value, responseSchema json.RawMessage) Payload {
	// Only JSON's own white space: a vertical tab or a no-break space is
	// not JSON, and must not be trimmed into a value that looks empty.
	value = bytes.Trim(value, jsonSpace)
	if len(value) == 0 || bytes.Equal(value, []byte("null")) {
		return rawPayload()
	}
	// Too large or too deep is found first, in one pass; JSON that does not
	// parse, where no shape parsed it (a shape that parses validated it).
	if problem := limitProblem(value); problem != "" {
		return Unreadable("payload " + problem)
	}
	switch value[0] {
	case '"':
		var s string
		if json.Unmarshal(value, &s) == nil {
			return Payload{Schema: SchemaPrompt, Title: s, Allowed: []DecisionType{Respond}}
		}
	case '[':
		if p, ok := parseInbox(value, true); ok {
			return p
		}
	case '{':
		var keys map[string]json.RawMessage
		if json.Unmarshal(value, &keys) != nil {
			break
		}
		switch {
		case keys["action_requests"] != nil:
			if p, ok := parseMiddleware(value, snakeCase); ok {
				p.Origin = originOf(keys["agent_hook"])
				return p
			}
		case keys["actionRequests"] != nil:
			if p, ok := parseMiddleware(value, camelCase); ok {
				return p
			}
		case keys["action_request"] != nil:
			if p, ok := parseInbox(value, false); ok {
				return p
			}
		case keys["questions"] != nil || (keys["allowed_decisions"] != nil && keys["prompt"] != nil):
			if p, ok := parseQuestions(value); ok {
				return p
			}
		case keys["hitl_prompt"] != nil:
			if p, ok := parseHITLPrompt(value); ok {
				return p
			}
		case string(bytes.TrimSpace(keys["type"])) == `"tool_approval"`:
			if p, ok := parseToolApproval(value, responseSchema); ok {
				return p
			}
		}
	}
	if problem := validity(value); problem != "" {
		return Unreadable("payload " + problem)
	}
	return rawPayload()
}

// jsonSpace is the white space JSON allows around a value.
const jsonSpace = " \t\r\n"

// Breakpoint is the payload of a thread paused at a static breakpoint.
func Breakpoint(next []string) Payload {
	title := "Paused at a breakpoint"
	if len(next) > 0 {
		title = "Paused before " + strings.Join(next, ", ")
	}
	return Normalized(Payload{Schema: SchemaBreakpoint, Title: title, Allowed: []DecisionType{Approve}, Next: next})
}

func rawPayload() Payload {
	return Payload{Schema: SchemaRaw, Title: "Interrupt with a payload of no known shape", Allowed: []DecisionType{Respond}}
}

func parseQuestions(value json.RawMessage) (Payload, bool) {
	var req struct {
		Questions        []json.RawMessage `json:"questions"`
		AllowedDecisions []string          `json:"allowed_decisions"`
		Prompt           json.RawMessage   `json:"prompt"`
		Context          json.RawMessage   `json:"context"`
	}
	if json.Unmarshal(value, &req) != nil {
		return Payload{}, false
	}
	p := Payload{Schema: SchemaQuestions, Context: NullToNil(req.Context)}
	p.Title = textOf(req.Prompt)
	for _, q := range req.Questions {
		p.Questions = append(p.Questions, textOf(q))
	}
	allowed := req.AllowedDecisions
	if allowed == nil {
		allowed = []string{"approve", "edit", "reject"}
	}
	for _, d := range allowed {
		switch d {
		case "approve":
			p.Allowed = append(p.Allowed, Approve)
		case "edit":
			// The node's "edit" means "here is feedback, try again".
			p.Allowed = append(p.Allowed, Respond)
		case "reject":
			p.Allowed = append(p.Allowed, Reject)
		}
	}
	if p.Title == "" {
		p.Title = "The agent has questions"
	}
	return p, true
}

func parseHITLPrompt(value json.RawMessage) (Payload, bool) {
	var req struct {
		Prompt  json.RawMessage `json:"hitl_prompt"`
		Context json.RawMessage `json:"hitl_context"`
		Phase   string          `json:"hitl_phase"`
	}
	if json.Unmarshal(value, &req) != nil {
		return Payload{}, false
	}
	p := Payload{Schema: SchemaPrompt, Title: textOf(req.Prompt), Context: NullToNil(req.Context), Allowed: []DecisionType{Respond}}
	return p, true
}

// originOf reads the agent_hook member `hitl hook` writes; nil when there
// is none or it names no agent.
func originOf(raw json.RawMessage) *Origin {
	var o Origin
	if raw == nil || json.Unmarshal(raw, &o) != nil || strings.TrimSpace(o.Agent) == "" {
		return nil
	}
	return &o
}

// textOf renders a JSON value as text: a string as itself, anything else as
// its JSON (so an unexpected type is visible rather than dropped).
func textOf(v json.RawMessage) string {
	if v == nil || bytes.Equal(v, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// OrEmptyObject is v, or {} for a missing or null value (arguments).
func OrEmptyObject(v json.RawMessage) json.RawMessage {
	if v == nil || bytes.Equal(v, []byte("null")) {
		return json.RawMessage("{}")
	}
	return v
}

// NullToNil is v, or nil for JSON null (an optional part that is absent).
func NullToNil(v json.RawMessage) json.RawMessage {
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	return v
}
