package client

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	return Normalized(Payload{Schema: SchemaBreakpoint, Title: title, Allowed: []DecisionType{Approve}})
}

func rawPayload() Payload {
	return Payload{Schema: SchemaRaw, Title: "Interrupt with a payload of no known shape", Allowed: []DecisionType{Respond}}
}

// middlewareRequest covers both casings and the pre-release "arguments" names;
// only the fields of one casing are set in any given payload.
type middlewareRequest struct {
	ActionRequests []struct {
		Name        string          `json:"name"`
		Args        json.RawMessage `json:"args"`
		Arguments   json.RawMessage `json:"arguments"`
		Description string          `json:"description"`
	} `json:"action_requests"`
	ReviewConfigs []struct {
		ActionName       string          `json:"action_name"`
		AllowedDecisions []string        `json:"allowed_decisions"`
		ArgsSchema       json.RawMessage `json:"args_schema"`
		ArgumentsSchema  json.RawMessage `json:"arguments_schema"`
	} `json:"review_configs"`
}

type middlewareRequestJS struct {
	ActionRequests []struct {
		Name        string          `json:"name"`
		Args        json.RawMessage `json:"args"`
		Description string          `json:"description"`
	} `json:"actionRequests"`
	ReviewConfigs []struct {
		ActionName       string          `json:"actionName"`
		AllowedDecisions []string        `json:"allowedDecisions"`
		ArgsSchema       json.RawMessage `json:"argsSchema"`
	} `json:"reviewConfigs"`
}

type reviewConfig struct {
	name    string
	allowed []string
	schema  json.RawMessage
}

func parseMiddleware(value json.RawMessage, c casing) (Payload, bool) {
	p := Payload{Schema: SchemaMiddleware, wire: wire{casing: c, argsKey: "args"}}
	var configs []reviewConfig
	if c == snakeCase {
		var req middlewareRequest
		if json.Unmarshal(value, &req) != nil {
			return Payload{}, false
		}
		for _, a := range req.ActionRequests {
			args := a.Args
			if args == nil && a.Arguments != nil {
				args, p.wire.argsKey = a.Arguments, "arguments"
			}
			p.Actions = append(p.Actions, Action{Name: a.Name, Args: OrEmptyObject(args), Description: a.Description})
		}
		for _, rc := range req.ReviewConfigs {
			schema := rc.ArgsSchema
			if schema == nil {
				schema = rc.ArgumentsSchema
			}
			configs = append(configs, reviewConfig{rc.ActionName, rc.AllowedDecisions, schema})
		}
	} else {
		var req middlewareRequestJS
		if json.Unmarshal(value, &req) != nil {
			return Payload{}, false
		}
		for _, a := range req.ActionRequests {
			p.Actions = append(p.Actions, Action{Name: a.Name, Args: OrEmptyObject(a.Args), Description: a.Description})
		}
		for _, rc := range req.ReviewConfigs {
			configs = append(configs, reviewConfig{rc.ActionName, rc.AllowedDecisions, rc.ArgsSchema})
		}
	}
	if len(p.Actions) == 0 {
		return Payload{}, false
	}
	for i := range p.Actions {
		rc := matchReviewConfig(configs, i, p.Actions[i].Name)
		if rc == nil {
			// No review config means the middleware will accept nothing we
			// could safely guess; offer nothing rather than all three.
			continue
		}
		p.Actions[i].ArgsSchema = NullToNil(rc.schema)
		for _, d := range rc.allowed {
			switch DecisionType(d) {
			case Approve, Edit, Reject, Respond:
				p.Actions[i].Allowed = append(p.Actions[i].Allowed, DecisionType(d))
			}
		}
	}
	p.Title = actionsTitle(p.Actions)
	return p, true
}

// matchReviewConfig pairs action i with its review config. The middleware
// emits the configs in the same order as the actions; a payload built by
// hand may list one config per tool name instead.
func matchReviewConfig(configs []reviewConfig, i int, name string) *reviewConfig {
	if i < len(configs) && configs[i].name == name {
		return &configs[i]
	}
	for j := range configs {
		if configs[j].name == name {
			return &configs[j]
		}
	}
	return nil
}

func actionsTitle(actions []Action) string {
	names := make([]string, 0, len(actions))
	for _, a := range actions {
		names = append(names, a.Name)
	}
	if len(actions) == 1 {
		return "Review tool call " + names[0]
	}
	return fmt.Sprintf("Review %d tool calls: %s", len(actions), strings.Join(names, ", "))
}

// toolApproval is the per-call mode of the middleware (LangChain
// HumanInTheLoopMiddleware with interrupt_mode="per_call", JavaScript
// interruptMode: "per_call"): one interrupt per tool call, whose response
// schema lists the decisions that tool allows.
type toolApproval struct {
	Type        string          `json:"type"`
	ToolCallID  *string         `json:"tool_call_id"`
	ToolCallIDJ *string         `json:"toolCallId"`
	Name        string          `json:"name"`
	Args        json.RawMessage `json:"args"`
	Description string          `json:"description"`
}

func parseToolApproval(value, responseSchema json.RawMessage) (Payload, bool) {
	var req toolApproval
	if json.Unmarshal(value, &req) != nil || req.Name == "" {
		return Payload{}, false
	}
	args := OrEmptyObject(req.Args)
	if !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) {
		return Payload{}, false
	}
	p := Payload{Schema: SchemaMiddleware, wire: wire{casing: snakeCase, argsKey: "args", single: true}}
	if req.ToolCallIDJ != nil && req.ToolCallID == nil {
		p.wire.casing = camelCase
	}
	a := Action{Name: req.Name, Args: args, Description: req.Description}
	// Without a response schema, nothing says what the tool allows: offer
	// nothing rather than guess (a decision it does not allow fails the run).
	for _, b := range decisionBranches(responseSchema) {
		switch b.decision {
		case Approve, Edit, Reject, Respond:
			a.Allowed = append(a.Allowed, b.decision)
		}
		if b.decision == Edit {
			a.ArgsSchema = b.argsSchema
			// The schema is what the graph checks the answer against: its
			// spelling of the edit wins over the value's.
			switch b.editKey {
			case "editedAction":
				p.wire.casing = camelCase
			case "edited_action":
				p.wire.casing = snakeCase
			}
		}
	}
	p.Actions = []Action{a}
	p.Title = actionsTitle(p.Actions)
	return p, true
}

// decisionBranch is one decision a per-call response schema allows.
type decisionBranch struct {
	decision   DecisionType
	editKey    string          // edited_action or editedAction
	argsSchema json.RawMessage // the edit's args
}

// decisionBranches reads the decisions a response schema allows: its
// alternatives (anyOf, oneOf), or the schema itself, each an object whose
// "type" is a const or an enum of decision names.
func decisionBranches(schema json.RawMessage) []decisionBranch {
	var top struct {
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
	}
	if json.Unmarshal(schema, &top) != nil {
		return nil
	}
	branches := append(top.AnyOf, top.OneOf...)
	if len(branches) == 0 {
		branches = []json.RawMessage{schema}
	}
	// Pydantic (the Python middleware) names each branch by reference into
	// the schema's $defs: read them in place.
	for i, raw := range branches {
		branches[i] = inlineRefs(schema, raw, 0)
	}
	var out []decisionBranch
	seen := map[DecisionType]bool{}
	for _, raw := range branches {
		var b struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		var typ struct {
			Const json.RawMessage `json:"const"`
			Enum  []string        `json:"enum"`
		}
		_ = json.Unmarshal(b.Properties["type"], &typ)
		names := typ.Enum
		var c string
		if json.Unmarshal(typ.Const, &c) == nil {
			names = append(names, c)
		}
		for _, name := range names {
			d := decisionBranch{decision: DecisionType(name)}
			if seen[d.decision] {
				continue
			}
			seen[d.decision] = true
			for _, key := range []string{"edited_action", "editedAction"} {
				if ea, ok := b.Properties[key]; ok {
					d.editKey = key
					var action struct {
						Properties map[string]json.RawMessage `json:"properties"`
					}
					if json.Unmarshal(ea, &action) == nil {
						d.argsSchema = NullToNil(action.Properties["args"])
					}
				}
			}
			out = append(out, d)
		}
	}
	return out
}

// maxRefDepth bounds how deep inlineRefs follows references (a recursive
// schema keeps its $ref below it, and a form then declines it).
const maxRefDepth = 8

// inlineRefs replaces, in node, every local reference into root's $defs or
// definitions ({"$ref": "#/$defs/Name"}, as Pydantic writes a model's
// schema) by what it names, so that a part of the schema reads, and checks,
// on its own. Other references are kept as they are.
func inlineRefs(root, node json.RawMessage, depth int) json.RawMessage {
	trimmed := bytes.TrimSpace(node)
	if depth > maxRefDepth || len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') || !bytes.Contains(trimmed, []byte(`"$ref"`)) {
		return node
	}
	if trimmed[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(trimmed, &list) != nil {
			return node
		}
		for i := range list {
			list[i] = inlineRefs(root, list[i], depth)
		}
		out, err := json.Marshal(list)
		if err != nil {
			return node
		}
		return out
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(trimmed, &m) != nil {
		return node
	}
	var ref string
	if json.Unmarshal(m["$ref"], &ref) == nil && len(m) == 1 {
		for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
			name, ok := strings.CutPrefix(ref, prefix)
			if !ok || strings.Contains(name, "/") {
				continue
			}
			var top map[string]json.RawMessage
			var defs map[string]json.RawMessage
			if json.Unmarshal(root, &top) != nil || json.Unmarshal(top[strings.TrimSuffix(strings.TrimPrefix(prefix, "#/"), "/")], &defs) != nil {
				return node
			}
			if def, ok := defs[name]; ok {
				return inlineRefs(root, def, depth+1)
			}
		}
		return node
	}
	for k, v := range m {
		if k == "$defs" || k == "definitions" {
			continue
		}
		m[k] = inlineRefs(root, v, depth)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return node
	}
	return out
}

type inboxRequest struct {
	ActionRequest *struct {
		Action string          `json:"action"`
		Args   json.RawMessage `json:"args"`
	} `json:"action_request"`
	Config struct {
		AllowIgnore  bool `json:"allow_ignore"`
		AllowRespond bool `json:"allow_respond"`
		AllowEdit    bool `json:"allow_edit"`
		AllowAccept  bool `json:"allow_accept"`
	} `json:"config"`
	Description *string `json:"description"`
}

func parseInbox(value json.RawMessage, list bool) (Payload, bool) {
	var reqs []inboxRequest
	if list {
		if json.Unmarshal(value, &reqs) != nil {
			return Payload{}, false
		}
	} else {
		var one inboxRequest
		if json.Unmarshal(value, &one) != nil {
			return Payload{}, false
		}
		reqs = []inboxRequest{one}
	}
	if len(reqs) == 0 {
		return Payload{}, false
	}
	p := Payload{Schema: SchemaAgentInbox, wire: wire{inboxList: list}}
	for _, r := range reqs {
		if r.ActionRequest == nil {
			return Payload{}, false
		}
		a := Action{Name: r.ActionRequest.Action, Args: OrEmptyObject(r.ActionRequest.Args)}
		if r.Description != nil {
			a.Description = *r.Description
		}
		for _, allow := range []struct {
			on bool
			t  DecisionType
		}{{r.Config.AllowAccept, Approve}, {r.Config.AllowEdit, Edit}, {r.Config.AllowRespond, Respond}, {r.Config.AllowIgnore, Ignore}} {
			if allow.on {
				a.Allowed = append(a.Allowed, allow.t)
			}
		}
		p.Actions = append(p.Actions, a)
	}
	p.Title = actionsTitle(p.Actions)
	if len(p.Actions) == 1 {
		p.Description = p.Actions[0].Description
	}
	return p, true
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
