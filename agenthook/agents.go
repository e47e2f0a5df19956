package agenthook

// The coding agents' own formats, apart from the hook's flow (agenthook.go): what
// each agent gives its permission hook on stdin, and exactly the JSON it
// reads back on stdout for an allow, a deny, and "ask the person at the
// agent" (the hook's fallback when no reviewer decided).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hitl-sh/hitl/inert"
)

// agent is one coding agent's hook protocol.
type agent interface {
	// decisions are what a reviewer may decide (the request's
	// allowed_decisions on the hub).
	decisions() []string
	// read reads the hook's input (stdin). An error says, in one phrase,
	// why it is not this agent's input; wrongEvent is set when it is, but
	// for another hook event (then the agent is left alone: nothing is
	// printed).
	read(in []byte) (r request, wrongEvent bool, err error)
	// allow is the answer to an approval; edited is the reviewer's edited
	// input (nil: none; only an agent that offers edit gets one).
	allow(edited json.RawMessage) any
	// deny is the answer to a reject: message is the reviewer's reason,
	// by who decided.
	deny(message, by string) any
	// ask hands the decision back to the agent's own permission prompt,
	// saying why; nil prints nothing (the agent then asks as usual).
	ask(why string) any
	// refuse is the fallback's deny (hitl hook --fallback deny): no
	// reviewer decided, and the agent is told so, and why.
	refuse(why string) any
}

// refused is what the agent and its user read of a fallback deny.
func refused(why string) string {
	return "hitl: no reviewer decided (" + why + "), so it is denied (hitl hook --fallback deny)"
}

// request is a permission request read from an agent's hook input.
type request struct {
	Tool  string
	Input json.RawMessage // a JSON object
	// Origin is where it comes from; Host is filled by the hook.
	Origin origin
}

// origin is where a request comes from, as the hub and the reviewer see
// it (the "agent_hook" member of the request's data).
type origin struct {
	Agent                 string          `json:"agent"`
	Host                  string          `json:"host,omitempty"`
	Cwd                   string          `json:"cwd,omitempty"`
	SessionID             string          `json:"session_id,omitempty"`
	TurnID                string          `json:"turn_id,omitempty"`
	TranscriptPath        string          `json:"transcript_path,omitempty"`
	Model                 string          `json:"model,omitempty"`
	PermissionMode        string          `json:"permission_mode,omitempty"`
	PermissionSuggestions json.RawMessage `json:"permission_suggestions,omitempty"`
}

// agents are the coding agents a hook speaks for (Names).
var agents = map[string]agent{
	"claude": permissionRequest{agent: "claude", edits: true},
	// Codex fails closed on an updatedInput: its requests offer no edit.
	"codex":  permissionRequest{agent: "codex"},
	"gemini": geminiBeforeTool{},
	"cursor": cursorHook{},
}

// deniedBy is the reason an agent gets for a reject without a message.
func deniedBy(by string) string {
	return "Denied by " + orDefault(by, "a reviewer") + " in hitl."
}

// objectOf is raw when it is a JSON object, else {} (a tool input that is
// missing or of another type is shown as no input, never dropped silently:
// the request's other members still say what it is).
func objectOf(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return json.RawMessage("{}")
	}
	return raw
}

// permissionRequest is Claude Code's and Codex's PermissionRequest hook.
type permissionRequest struct {
	agent string
	edits bool
}

func (a permissionRequest) decisions() []string {
	if a.edits {
		return []string{"approve", "edit", "reject"}
	}
	return []string{"approve", "reject"}
}

func (a permissionRequest) read(in []byte) (request, bool, error) {
	var hi struct {
		SessionID             string          `json:"session_id"`
		TurnID                string          `json:"turn_id,omitempty"`
		TranscriptPath        string          `json:"transcript_path,omitempty"`
		Cwd                   string          `json:"cwd"`
		HookEventName         string          `json:"hook_event_name"`
		Model                 string          `json:"model,omitempty"`
		PermissionMode        string          `json:"permission_mode,omitempty"`
		ToolName              string          `json:"tool_name"`
		ToolInput             json.RawMessage `json:"tool_input"`
		PermissionSuggestions json.RawMessage `json:"permission_suggestions,omitempty"`
	}
	if err := json.Unmarshal(in, &hi); err != nil || hi.ToolName == "" {
		return request{}, false, errors.New("the input on stdin is not a PermissionRequest hook's JSON (tool_name, tool_input)")
	}
	if ev := hi.HookEventName; ev != "" && ev != "PermissionRequest" {
		return request{}, true, fmt.Errorf("this hook answers PermissionRequest, not %s: configure it under PermissionRequest", inert.Line(ev))
	}
	return request{Tool: hi.ToolName, Input: objectOf(hi.ToolInput), Origin: origin{Agent: a.agent, Cwd: hi.Cwd,
		SessionID: hi.SessionID, TurnID: hi.TurnID, TranscriptPath: hi.TranscriptPath, Model: hi.Model,
		PermissionMode: hi.PermissionMode, PermissionSuggestions: hi.PermissionSuggestions}}, false, nil
}

// claudeDecision is hookSpecificOutput.decision of a PermissionRequest answer.
type claudeDecision struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
}

func (a permissionRequest) answer(d claudeDecision) any {
	return map[string]any{"hookSpecificOutput": struct {
		HookEventName string         `json:"hookEventName"`
		Decision      claudeDecision `json:"decision"`
	}{"PermissionRequest", d}}
}

func (a permissionRequest) allow(edited json.RawMessage) any {
	return a.answer(claudeDecision{Behavior: "allow", UpdatedInput: edited})
}

func (a permissionRequest) deny(message, by string) any {
	if strings.TrimSpace(message) == "" {
		message = deniedBy(by)
	}
	return a.answer(claudeDecision{Behavior: "deny", Message: message})
}

// ask: a PermissionRequest hook that prints nothing leaves the agent's own
// permission dialog up.
func (permissionRequest) ask(string) any { return nil }

func (a permissionRequest) refuse(why string) any {
	return a.answer(claudeDecision{Behavior: "deny", Message: refused(why)})
}

// geminiBeforeTool is Gemini CLI's BeforeTool hook. Its "allow" does not
// bypass Gemini CLI's own policy (the approval mode and the user's rules
// still decide whether it asks); "deny" blocks the tool, its reason going
// to the model as the tool's error; "ask" forces Gemini CLI's own
// confirmation, which is the fallback (printing nothing would let the
// tool run wherever the policy allows it).
type geminiBeforeTool struct{}

func (geminiBeforeTool) decisions() []string { return []string{"approve", "reject"} }

func (geminiBeforeTool) read(in []byte) (request, bool, error) {
	var hi struct {
		SessionID      string          `json:"session_id"`
		TranscriptPath string          `json:"transcript_path"`
		Cwd            string          `json:"cwd"`
		HookEventName  string          `json:"hook_event_name"`
		ToolName       string          `json:"tool_name"`
		ToolInput      json.RawMessage `json:"tool_input"`
	}
	if err := json.Unmarshal(in, &hi); err != nil || hi.ToolName == "" {
		return request{}, false, errors.New("the input on stdin is not a Gemini CLI BeforeTool hook's JSON (tool_name, tool_input)")
	}
	if ev := hi.HookEventName; ev != "" && ev != "BeforeTool" {
		return request{}, true, fmt.Errorf("this hook answers BeforeTool, not %s: configure it under BeforeTool", inert.Line(ev))
	}
	return request{Tool: hi.ToolName, Input: objectOf(hi.ToolInput), Origin: origin{Agent: "gemini", Cwd: hi.Cwd,
		SessionID: hi.SessionID, TranscriptPath: hi.TranscriptPath}}, false, nil
}

type geminiAnswer struct {
	Decision      string `json:"decision"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

func (geminiBeforeTool) allow(json.RawMessage) any { return geminiAnswer{Decision: "allow"} }

// deny: Gemini CLI requires a reason on a deny.
func (geminiBeforeTool) deny(message, by string) any {
	if strings.TrimSpace(message) == "" {
		message = deniedBy(by)
	}
	return geminiAnswer{Decision: "deny", Reason: message}
}

// ask: the system message is shown beside Gemini CLI's confirmation.
func (geminiBeforeTool) ask(why string) any {
	return geminiAnswer{Decision: "ask", SystemMessage: "hitl: " + why}
}

func (geminiBeforeTool) refuse(why string) any {
	return geminiAnswer{Decision: "deny", Reason: refused(why)}
}

// cursorHook is Cursor's beforeShellExecution and preToolUse hooks (one
// answer shape for both). A shell command is the tool Shell either way, so
// a team rule names it once.
type cursorHook struct{}

func (cursorHook) decisions() []string { return []string{"approve", "reject"} }

func (cursorHook) read(in []byte) (request, bool, error) {
	var hi struct {
		HookEventName  string          `json:"hook_event_name"`
		ConversationID string          `json:"conversation_id"`
		GenerationID   string          `json:"generation_id"`
		WorkspaceRoots []string        `json:"workspace_roots"`
		Model          string          `json:"model"`
		Command        *string         `json:"command"`
		Cwd            string          `json:"cwd"`
		ToolName       string          `json:"tool_name"`
		ToolInput      json.RawMessage `json:"tool_input"`
	}
	if err := json.Unmarshal(in, &hi); err != nil || hi.HookEventName == "" {
		return request{}, false, errors.New("the input on stdin is not a Cursor hook's JSON (hook_event_name, and command or tool_name)")
	}
	o := origin{Agent: "cursor", Cwd: hi.Cwd, SessionID: hi.ConversationID, TurnID: hi.GenerationID, Model: hi.Model}
	if o.Cwd == "" && len(hi.WorkspaceRoots) > 0 {
		o.Cwd = hi.WorkspaceRoots[0]
	}
	switch hi.HookEventName {
	case "beforeShellExecution":
		if hi.Command == nil {
			return request{}, false, errors.New("the beforeShellExecution input on stdin has no command")
		}
		input, err := json.Marshal(map[string]string{"command": *hi.Command})
		if err != nil {
			return request{}, false, err
		}
		return request{Tool: "Shell", Input: input, Origin: o}, false, nil
	case "preToolUse":
		if hi.ToolName == "" {
			return request{}, false, errors.New("the preToolUse input on stdin has no tool_name")
		}
		input := hi.ToolInput
		var s string
		if json.Unmarshal(input, &s) == nil {
			input = json.RawMessage(s) // an input sent as a JSON text
		}
		return request{Tool: hi.ToolName, Input: objectOf(input), Origin: o}, false, nil
	}
	return request{}, true, fmt.Errorf("this hook answers beforeShellExecution and preToolUse, not %s: configure it under one of them", inert.Line(hi.HookEventName))
}

type cursorAnswer struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
}

func (cursorHook) allow(json.RawMessage) any { return cursorAnswer{Permission: "allow"} }

// deny: the agent reads the reviewer's reason; the person at Cursor reads
// who denied it, and why.
func (cursorHook) deny(message, by string) any {
	if strings.TrimSpace(message) == "" {
		d := deniedBy(by)
		return cursorAnswer{Permission: "deny", UserMessage: d, AgentMessage: d}
	}
	return cursorAnswer{Permission: "deny", UserMessage: strings.TrimSuffix(deniedBy(by), ".") + ": " + message, AgentMessage: message}
}

func (cursorHook) ask(why string) any {
	return cursorAnswer{Permission: "ask", UserMessage: "hitl: " + why}
}

// refuse: for Cursor versions reported to mishandle "ask" (hitl hook
// cursor --fallback deny; docs/hooks.md).
func (cursorHook) refuse(why string) any {
	d := refused(why)
	return cursorAnswer{Permission: "deny", UserMessage: d, AgentMessage: d}
}
