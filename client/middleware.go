package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

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
