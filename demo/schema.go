package demo

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Graphs whose interrupts say what answer they expect: a response schema
// next to the value, as LangGraph JS 1.7 sends it.

// surveyAgent asks a question whose answer has a schema: a choice, a flag,
// a bounded number and a free note. Like a graph with a Zod schema, it
// fails the run on an answer that does not match.
type surveyAgent struct{}

func (surveyAgent) ID() string { return "survey" }

var surveySchema = ordered{
	{"type", "object"},
	{"properties", ordered{
		{"framework", ordered{{"type", "string"}, {"enum", []any{"react", "vue", "svelte"}}, {"description", "The UI framework to build with"}}},
		{"tests", ordered{{"type", "boolean"}, {"description", "Write tests as well"}}},
		{"budget", ordered{{"type", "number"}, {"minimum", 0}, {"maximum", 100}, {"description", "Hours the work may take"}}},
		{"notes", ordered{{"type", "string"}, {"maxLength", 2000}, {"description", "Anything the agent should know"}}},
	}},
	{"required", []any{"framework", "tests", "budget"}},
	{"additionalProperties", false},
}

func (surveyAgent) Start(t *thread, _ map[string]any) error {
	human(t, "Plan the team-lunch tracker.")
	ai(t, "Before I start: a few choices are yours.")
	interruptWithSchema(t, "ask", ordered{{"question", "Pick a framework"}}, surveySchema)
	return nil
}

func (surveyAgent) Resume(t *thread, _ pending, value json.RawMessage) error {
	var a struct {
		Framework string   `json:"framework"`
		Tests     *bool    `json:"tests"`
		Budget    *float64 `json:"budget"`
		Notes     string   `json:"notes"`
	}
	if err := json.Unmarshal(value, &a); err != nil {
		return fmt.Errorf("the answer does not match the response schema: %v", err)
	}
	if !contains([]string{"react", "vue", "svelte"}, a.Framework) || a.Tests == nil || a.Budget == nil || *a.Budget < 0 || *a.Budget > 100 {
		return fmt.Errorf("the answer does not match the response schema: %s", compact(json.RawMessage(value)))
	}
	human(t, compact(json.RawMessage(value)))
	with := "without tests"
	if *a.Tests {
		with = "with tests"
	}
	ai(t, fmt.Sprintf("Building it with %s, %s, in %g hours.", a.Framework, with, *a.Budget))
	return nil
}

func (surveyAgent) Continue(*thread) error { return nil }

// approverAgent is an agent with the middleware in its per-call mode
// (Python: interrupt_mode="per_call"): each tool call pauses on its own,
// {type: tool_approval, tool_call_id, name, args, description}, with a
// response schema listing the decisions that tool allows, and takes one
// decision object. Input topic "two" proposes two calls at once.
type approverAgent struct{}

func (approverAgent) ID() string { return "approver" }

type perCallTool struct {
	name    string
	allowed []string
	args    ordered
	schema  ordered // the args'
}

var perCallTools = map[string]perCallTool{
	"send_email": {name: "send_email", allowed: []string{"approve", "edit", "reject", "respond"},
		args: ordered{{"to", "dana@customer.example"}, {"subject", "Your refund"}, {"body", "Hi Dana,\n\nYour refund is on its way."}},
		schema: ordered{{"type", "object"}, {"properties", ordered{
			{"to", ordered{{"type", "string"}, {"format", "email"}}},
			{"subject", ordered{{"type", "string"}}},
			{"body", ordered{{"type", "string"}}},
		}}, {"required", []any{"to", "subject", "body"}}, {"additionalProperties", false}}},
	"delete_records": {name: "delete_records", allowed: []string{"approve", "reject"},
		args: ordered{{"table", "sessions"}, {"where", "last_seen < now() - interval '90 days'"}},
		schema: ordered{{"type", "object"}, {"properties", ordered{
			{"table", ordered{{"type", "string"}}}, {"where", ordered{{"type", "string"}}},
		}}, {"required", []any{"table", "where"}}}},
}

// decisionSchema is the response schema of one tool call: an object per
// allowed decision, an edit pinned to the tool and its args' schema.
func (c perCallTool) decisionSchema() ordered {
	var branches []any
	for _, d := range c.allowed {
		props := ordered{{"type", ordered{{"type", "string"}, {"const", d}}}}
		required := []any{"type"}
		switch d {
		case "edit":
			props = append(props, [2]any{"edited_action", ordered{{"type", "object"}, {"properties", ordered{
				{"name", ordered{{"type", "string"}, {"const", c.name}}}, {"args", c.schema},
			}}, {"required", []any{"name", "args"}}}})
			required = append(required, "edited_action")
		case "reject":
			props = append(props, [2]any{"message", ordered{{"type", "string"}}})
		case "respond":
			props = append(props, [2]any{"message", ordered{{"type", "string"}}})
			required = append(required, "message")
		}
		branches = append(branches, ordered{{"type", "object"}, {"properties", props}, {"required", required}, {"additionalProperties", false}})
	}
	return ordered{{"anyOf", branches}}
}

type approverState struct {
	calls map[string]perCallTool // by task
	ids   map[string]string      // task -> tool call id
}

func (approverAgent) Start(t *thread, input map[string]any) error {
	names := []string{"send_email"}
	if fmt.Sprint(input["topic"]) == "two" {
		names = []string{"delete_records", "send_email"}
	}
	human(t, "Clean up and tell Dana about her refund.")
	st := &approverState{calls: map[string]perCallTool{}, ids: map[string]string{}}
	var toolCalls []any
	for i, n := range names {
		c := perCallTools[n]
		id := fmt.Sprintf("call_%s_%d", n, i)
		task := "tools:" + id
		st.calls[task], st.ids[task] = c, id
		toolCalls = append(toolCalls, map[string]any{"name": n, "args": c.args, "id": id, "type": "tool_call"})
		a, _ := json.MarshalIndent(c.args, "", "  ")
		interruptWithSchema(t, task, ordered{{"type", "tool_approval"}, {"tool_call_id", id}, {"name", n}, {"args", c.args},
			{"description", fmt.Sprintf("Tool execution requires approval\n\nTool: %s\nArgs: %s", n, a)}}, c.decisionSchema())
	}
	addMessage(t, map[string]any{"type": "ai", "content": "", "tool_calls": toolCalls})
	t.state = st
	return nil
}

func (approverAgent) Resume(t *thread, p pending, value json.RawMessage) error {
	st, _ := t.state.(*approverState)
	if st == nil {
		return fmt.Errorf("nothing to resume")
	}
	c, id := st.calls[p.TaskID], st.ids[p.TaskID]
	var d struct {
		Type         string `json:"type"`
		Message      string `json:"message"`
		EditedAction *struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"edited_action"`
	}
	if err := json.Unmarshal(value, &d); err != nil {
		return fmt.Errorf("expected one decision object: %v", err)
	}
	if !contains(c.allowed, d.Type) {
		return fmt.Errorf("decision type '%s' is not allowed for tool '%s'", d.Type, c.name)
	}
	var out, status string
	switch d.Type {
	case "approve":
		out, status = ran(c.name, c.args), "success"
	case "edit":
		if d.EditedAction == nil || d.EditedAction.Name != c.name || !strings.Contains(string(d.EditedAction.Args), "{") {
			return fmt.Errorf("an edit of %s needs edited_action with its name and args", c.name)
		}
		out, status = ranRaw(c.name, d.EditedAction.Args), "success"
	case "respond":
		out, status = d.Message, "success"
	default:
		out, status = d.Message, "error"
		if out == "" {
			out = fmt.Sprintf("User rejected the tool call for `%s` with id %s", c.name, id)
		}
	}
	addMessage(t, map[string]any{"type": "tool", "name": c.name, "tool_call_id": id, "content": out, "status": status})
	if len(t.Interrupts) == 0 {
		ai(t, "Done.")
		t.state = nil
	}
	return nil
}

func (approverAgent) Continue(*thread) error { return nil }
