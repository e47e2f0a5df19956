package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Graph is a scripted agent. Its methods run with the server's lock held and
// change the thread: messages in Values, pending interrupts, Next.
type Graph interface {
	ID() string
	// Start runs the graph on new input until it finishes or pauses.
	Start(t *thread, input map[string]any) error
	// Resume answers one pending interrupt (already removed from the thread).
	Resume(t *thread, p pending, value json.RawMessage) error
	// Continue runs on from a static breakpoint.
	Continue(t *thread) error
}

// Graphs are the demo agents, by graph id.
func Graphs() []Graph {
	return []Graph{
		waiterAgent{},
		&toolAgent{id: "support", scenarios: map[string][]toolCall{
			"email": {{name: "send_email", allowed: []string{"approve", "edit", "reject"}, args: ordered{
				{"to", "dana@customer.example"}, {"subject", "Your refund for order A-1001"},
				{"body", "Hi Dana,\n\nWe have refunded 12.50 EUR to your card. It should arrive within 5 days.\n\nBest,\nSupport"},
				{"cc", []any{"billing@example.com"}}}}},
			"refund": {{name: "issue_refund", allowed: []string{"approve", "edit", "reject"}, args: ordered{
				{"order_id", "A-1001"}, {"amount", json.Number("12.50")}, {"currency", "EUR"}, {"reason", "damaged in transit"}},
				schema: map[string]any{"type": "object", "required": []any{"order_id", "amount", "currency"},
					"properties": map[string]any{"amount": map[string]any{"type": "number", "exclusiveMinimum": 0, "maximum": 100}}}}},
		}, order: []string{"email", "refund"}},
		&toolAgent{id: "ops", scenarios: map[string][]toolCall{
			"ops": {
				{name: "delete_records", allowed: []string{"approve", "reject"}, description: "**Destructive**: deletes rows from a production table.",
					args: ordered{{"table", "sessions"}, {"where", "last_seen < now() - interval '90 days'"}}},
				{name: "notify", allowed: []string{"approve", "edit", "reject"}, args: ordered{{"channel", "#ops"}, {"text", "Pruned sessions older than 90 days"}}},
			},
		}, order: []string{"ops"}},
		&toolAgent{id: "sneaky", scenarios: map[string][]toolCall{
			"sneaky": {{name: "run_command", allowed: []string{"approve", "reject"},
				description: "Runs a shell command on the build host.",
				args:        ordered{{"cmd", "echo cleaning up\x1b[2J\x1b[1;1H"}, {"file", "report\u202egnp.exe"}, {"note", "all\u200bgood"}}}},
		}, order: []string{"sneaky"}},
		plannerAgent{}, askerAgent{}, inboxAgent{}, parallelAgent{}, breakpointAgent{}, fanoutAgent{}, surveyAgent{}, approverAgent{},
	}
}

// ordered is a JSON object that keeps its key order. Like the real servers'
// JSON, it leaves <, > and & as they are.
type ordered [][2]any

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(kv[0])
		v, err := marshal(kv[1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without escaping <, > and &.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func addMessage(t *thread, m map[string]any) {
	msgs, _ := t.Values["messages"].([]any)
	m["id"] = newUUID()
	t.Values["messages"] = append(msgs, m)
}

func human(t *thread, text string) { addMessage(t, map[string]any{"type": "human", "content": text}) }
func ai(t *thread, text string)    { addMessage(t, map[string]any{"type": "ai", "content": text}) }

func interruptNow(t *thread, task string, value any) {
	t.Interrupts = append(t.Interrupts, pending{ID: newID(), TaskID: task, Value: value})
}

// interruptWithSchema also says what answer it expects
// (interrupt(value, {responseSchema})).
func interruptWithSchema(t *thread, task string, value, schema any) {
	t.Interrupts = append(t.Interrupts, pending{ID: newID(), TaskID: task, Value: value, Schema: schema})
}

// firstWord is the scenario a thread was started with.
func firstWord(input map[string]any) string {
	msgs, _ := input["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	m, _ := msgs[0].(map[string]any)
	s, _ := m["content"].(string)
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func firstText(input map[string]any) string {
	msgs, _ := input["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	m, _ := msgs[0].(map[string]any)
	s, _ := m["content"].(string)
	return s
}

// toolAgent is a LangChain agent with HumanInTheLoopMiddleware (Python
// casing): it proposes tool calls and pauses for a decision on each.
type toolAgent struct {
	id        string
	scenarios map[string][]toolCall
	order     []string
}

type toolCall struct {
	name        string
	args        ordered
	allowed     []string
	description string
	schema      map[string]any
}

type toolState struct {
	calls []toolCall
}

func (g *toolAgent) ID() string { return g.id }

func (g *toolAgent) Start(t *thread, input map[string]any) error {
	scenario := firstWord(input)
	calls, ok := g.scenarios[scenario]
	if !ok {
		scenario = g.order[len(t.ID)%len(g.order)]
		calls = g.scenarios[scenario]
	}
	text := firstText(input)
	if text == "" || text == scenario {
		text = map[string]string{"email": "Tell Dana her refund is on its way.", "refund": "Refund order A-1001, it arrived broken.",
			"ops": "Clean up stale sessions and tell the team.", "sneaky": "Tidy the build host."}[scenario]
	}
	human(t, text)
	var toolCalls, requests, configs []any
	for i, c := range calls {
		id := fmt.Sprintf("call_%s_%d", c.name, i)
		toolCalls = append(toolCalls, map[string]any{"name": c.name, "args": c.args, "id": id, "type": "tool_call"})
		desc := c.description
		if desc == "" {
			a, _ := json.MarshalIndent(c.args, "", "  ")
			desc = fmt.Sprintf("Tool execution requires approval\n\nTool: %s\nArgs: %s", c.name, a)
		}
		requests = append(requests, map[string]any{"name": c.name, "args": c.args, "description": desc})
		rc := map[string]any{"action_name": c.name, "allowed_decisions": c.allowed}
		if c.schema != nil {
			rc["args_schema"] = c.schema
		}
		configs = append(configs, rc)
	}
	addMessage(t, map[string]any{"type": "ai", "content": "", "tool_calls": toolCalls})
	t.state = &toolState{calls: calls}
	interruptNow(t, "HumanInTheLoopMiddleware.after_model", map[string]any{"action_requests": requests, "review_configs": configs})
	return nil
}

func (g *toolAgent) Resume(t *thread, _ pending, value json.RawMessage) error {
	st, _ := t.state.(*toolState)
	if st == nil {
		return fmt.Errorf("nothing to resume")
	}
	var resp struct {
		Decisions []struct {
			Type         string `json:"type"`
			Message      string `json:"message"`
			EditedAction *struct {
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			} `json:"edited_action"`
		} `json:"decisions"`
	}
	if err := json.Unmarshal(value, &resp); err != nil {
		return fmt.Errorf("unexpected resume value: %v", err)
	}
	if len(resp.Decisions) != len(st.calls) {
		return fmt.Errorf("number of human decisions (%d) does not match number of hanging tool calls (%d)", len(resp.Decisions), len(st.calls))
	}
	var summary []string
	for i, d := range resp.Decisions {
		c := st.calls[i]
		if !contains(c.allowed, d.Type) {
			return fmt.Errorf("unexpected human decision: %s. Decision type '%s' is not allowed for tool '%s'. Expected one of %s based on the tool's configuration", compact(d), d.Type, c.name, compact(c.allowed))
		}
		id := fmt.Sprintf("call_%s_%d", c.name, i)
		switch d.Type {
		case "approve":
			out := ran(c.name, c.args)
			addMessage(t, map[string]any{"type": "tool", "name": c.name, "tool_call_id": id, "content": out, "status": "success"})
			summary = append(summary, out)
		case "edit":
			if d.EditedAction == nil {
				return fmt.Errorf("edit decision without edited_action")
			}
			name := d.EditedAction.Name
			if name == "" {
				name = c.name
			}
			out := ranRaw(name, d.EditedAction.Args)
			addMessage(t, map[string]any{"type": "tool", "name": name, "tool_call_id": id, "content": out, "status": "success"})
			summary = append(summary, out+" (edited by the reviewer)")
		case "reject", "respond":
			msg := d.Message
			if msg == "" {
				msg = fmt.Sprintf("User rejected the tool call for `%s` with id %s", c.name, id)
			}
			addMessage(t, map[string]any{"type": "tool", "name": c.name, "tool_call_id": id, "content": msg, "status": "error"})
			summary = append(summary, fmt.Sprintf("did not run %s: %s", c.name, msg))
		default:
			return fmt.Errorf("unknown decision type %q", d.Type)
		}
	}
	ai(t, "Done.\n- "+strings.Join(summary, "\n- "))
	t.state = nil
	return nil
}

func (g *toolAgent) Continue(*thread) error { return nil }

// ran is what a tool reports: its name and the args it ran with, <, > and &
// as they are (as JSON.stringify writes them in the real test server's tools).
func ran(name string, args ordered) string {
	b, _ := marshal(args)
	return ranRaw(name, b)
}

func ranRaw(name string, args json.RawMessage) string {
	return fmt.Sprintf("ran %s %s", name, strings.TrimSpace(string(args)))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// plannerAgent asks structured questions (seed 000): approve ends, edit
// loops back with the feedback and asks again, reject ends.
type plannerAgent struct{}

func (plannerAgent) ID() string { return "planner" }

func (plannerAgent) Start(t *thread, input map[string]any) error {
	text := firstText(input)
	if text == "" {
		text = "Build a small web app that tracks team lunches."
	}
	human(t, text)
	ai(t, "Draft plan: a single-page app with a form and a list, stored in SQLite.")
	t.state = 1
	askPlanner(t)
	return nil
}

func askPlanner(t *thread) {
	round, _ := t.state.(int)
	interruptNow(t, "human_feedback", map[string]any{
		"questions":         []any{"What framework do you prefer?", "Should I include tests?"},
		"allowed_decisions": []any{"approve", "edit", "reject"},
		"prompt":            "The agent needs your input on the following:",
		"context":           map[string]any{"round": round, "message_count": len(t.Values["messages"].([]any))},
	})
}

func (plannerAgent) Resume(t *thread, _ pending, value json.RawMessage) error {
	var r struct {
		Decision string   `json:"decision"`
		Feedback string   `json:"feedback"`
		Reason   string   `json:"reason"`
		Answers  []string `json:"answers"`
	}
	if err := json.Unmarshal(value, &r); err != nil {
		return fmt.Errorf("unexpected resume value: %v", err)
	}
	human(t, compact(json.RawMessage(value)))
	switch r.Decision {
	case "approve":
		ai(t, "Plan approved. Starting work.")
	case "edit":
		round, _ := t.state.(int)
		msg := "Revised plan with your feedback: " + r.Feedback
		if len(r.Answers) > 0 {
			msg += "\nAnswers: " + strings.Join(r.Answers, "; ")
		}
		ai(t, msg)
		if round < 3 {
			t.state = round + 1
			askPlanner(t)
		}
	case "reject":
		reason := r.Reason
		if reason == "" {
			reason = r.Feedback
		}
		ai(t, "[REJECTED] "+reason)
	default:
		return fmt.Errorf("unknown decision %q", r.Decision)
	}
	return nil
}

func (plannerAgent) Continue(*thread) error { return nil }

// waiterAgent asks with a deadline (the agent-wait envelope's expires_at
// and default): past it, the agent would take the default itself.
type waiterAgent struct{}

func (waiterAgent) ID() string { return "waiter" }

func (waiterAgent) Start(t *thread, _ map[string]any) error {
	human(t, "Deploy build 1842 to production.")
	interruptNow(t, "wait", map[string]any{"question": "Deploy build 1842 to production now?",
		"expires_at": time.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339), "default": "reject"})
	return nil
}

func (waiterAgent) Resume(t *thread, _ pending, value json.RawMessage) error {
	human(t, string(value))
	ai(t, "Understood: "+string(value))
	return nil
}

func (waiterAgent) Continue(*thread) error { return nil }

// askerAgent asks a free-text question (seed 002); the reply is read as text.
type askerAgent struct{}

func (askerAgent) ID() string { return "asker" }

func (askerAgent) Start(t *thread, input map[string]any) error {
	human(t, "Email ACME about the renewal.")
	if fmt.Sprint(input["topic"]) == "object" {
		interruptNow(t, "ask", map[string]any{"hitl_phase": "awaiting_response", "hitl_prompt": "I found two addresses for ACME (ops@acme.example, it@acme.example). Which one should I use?",
			"hitl_context": map[string]any{"source_tool": "lookup_customer", "args": map[string]any{"name": "ACME"}}})
		return nil
	}
	interruptNow(t, "ask", "Customer not found. What is ACME's billing email address?")
	return nil
}

func (askerAgent) Resume(t *thread, _ pending, value json.RawMessage) error {
	var reply any
	_ = json.Unmarshal(value, &reply)
	text, ok := reply.(string)
	if !ok {
		text = string(value)
	}
	human(t, text)
	ai(t, "Thanks, I will use: "+text)
	return nil
}

func (askerAgent) Continue(*thread) error { return nil }

// inboxAgent raises an Agent Inbox HumanInterrupt.
type inboxAgent struct{}

func (inboxAgent) ID() string { return "inbox" }

func (inboxAgent) Start(t *thread, input map[string]any) error {
	human(t, "Announce the v2.0 release.")
	req := map[string]any{
		"action_request": map[string]any{"action": "post_tweet", "args": ordered{{"text", "We shipped v2.0 today! Faster sync, offline mode, and 40 bug fixes. Thanks to everyone who helped."}}},
		"config":         map[string]any{"allow_ignore": true, "allow_respond": true, "allow_edit": true, "allow_accept": true},
		"description":    "## Post a tweet\n\nThe agent wants to post this on the **company** account.\n\n- audience: 48k followers\n- scheduled: now",
	}
	if fmt.Sprint(input["topic"]) == "single" {
		interruptNow(t, "review", req)
	} else {
		interruptNow(t, "review", []any{req})
	}
	return nil
}

func (inboxAgent) Resume(t *thread, _ pending, value json.RawMessage) error {
	var list []struct {
		Type string          `json:"type"`
		Args json.RawMessage `json:"args"`
	}
	if json.Unmarshal(value, &list) != nil {
		var one struct {
			Type string          `json:"type"`
			Args json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal(value, &one); err != nil {
			return fmt.Errorf("unexpected resume value: %v", err)
		}
		list = append(list, one)
	}
	if len(list) == 0 {
		return fmt.Errorf("empty response")
	}
	r := list[0]
	switch r.Type {
	case "accept":
		ai(t, "Posted the tweet.")
	case "edit":
		var a struct {
			Args json.RawMessage `json:"args"`
		}
		_ = json.Unmarshal(r.Args, &a)
		ai(t, "Posted the edited tweet: "+string(a.Args))
	case "response":
		var s string
		_ = json.Unmarshal(r.Args, &s)
		ai(t, "Revising the tweet with your note: "+s)
	case "ignore":
		ai(t, "Skipped the tweet.")
	default:
		return fmt.Errorf("unknown response type %q", r.Type)
	}
	return nil
}

func (inboxAgent) Continue(*thread) error { return nil }

// parallelAgent has two branches that pause at once in one thread.
type parallelAgent struct{}

func (parallelAgent) ID() string { return "parallel" }

func (parallelAgent) Start(t *thread, _ map[string]any) error {
	human(t, "Set up a read replica within budget.")
	interruptNow(t, "budget", map[string]any{"kind": "budget_check", "limits": map[string]any{"daily": 100, "currency": "USD"}, "estimate": json.Number("42.70"), "ratio": 0.427})
	interruptNow(t, "region", "Which region should the replica go to?")
	return nil
}

func (parallelAgent) Resume(t *thread, p pending, value json.RawMessage) error {
	human(t, fmt.Sprintf("%s: %s", p.TaskID, value))
	if len(t.Interrupts) == 0 {
		ai(t, "Both answers in: creating the replica.")
	}
	return nil
}

func (parallelAgent) Continue(*thread) error { return nil }

// fanoutAgent sends one branch per region (LangGraph Send), each of which
// asks before it ships: several interrupts in one thread, answered one by
// one or all in one resume.
type fanoutAgent struct{}

func (fanoutAgent) ID() string { return "fanout" }

func (fanoutAgent) Start(t *thread, input map[string]any) error {
	regions := []string{"eu-west-1", "us-east-1", "ap-south-1"}
	if s, ok := input["topic"].(string); ok && s != "" {
		regions = strings.Split(s, ",")
	}
	human(t, "Ship release 1842 to "+strings.Join(regions, ", ")+".")
	for _, r := range regions {
		interruptNow(t, "branch:"+r, map[string]any{"question": "Ship 1842 to " + r + "?", "item": r})
	}
	return nil
}

func (fanoutAgent) Resume(t *thread, p pending, value json.RawMessage) error {
	human(t, fmt.Sprintf("%s: %s", strings.TrimPrefix(p.TaskID, "branch:"), value))
	if len(t.Interrupts) == 0 {
		ai(t, "Every region answered.")
	}
	return nil
}

func (fanoutAgent) Continue(*thread) error { return nil }

// breakpointAgent stops before "deploy" with no interrupt value.
type breakpointAgent struct{}

func (breakpointAgent) ID() string { return "release" }

func (breakpointAgent) Start(t *thread, _ map[string]any) error {
	human(t, "Release build 1842.")
	ai(t, "Build 1842 passed its checks. Next: deploy to production.")
	t.Next = []string{"deploy"}
	return nil
}

func (breakpointAgent) Resume(*thread, pending, json.RawMessage) error { return nil }

func (breakpointAgent) Continue(t *thread) error {
	ai(t, "Deployed build 1842.")
	return nil
}

// graphIDs lists the registered graphs (for messages).
func graphIDs(gs map[string]Graph) string {
	var ids []string
	for id := range gs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}
