package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// gemini: Gemini CLI's agent server (packages/a2a-server, the
// development-tool extension) asks to confirm a tool call with a data part
// holding the tool call ({"request": {"callId", "name", "args"}, "status":
// "awaiting_approval", "confirmationDetails": {"type", "title", …},
// "tool"?}), answered with a data part {"callId", "outcome"}.
const gemini producer = "gemini"

// geminiCall is Gemini CLI's serialized tool call, as its task.ts
// toolStatusMessage writes it.
type geminiCall struct {
	Request struct {
		CallID string          `json:"callId"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
	} `json:"request"`
	Status  string         `json:"status"`
	Details *geminiDetails `json:"confirmationDetails"`
	Tool    struct {
		DisplayName string `json:"displayName"`
	} `json:"tool"`
}

// geminiDetails is a confirmation request's details, of every type Gemini
// CLI's core has (exec, edit, mcp, info, …): the members hitl shows.
type geminiDetails struct {
	Type         string   `json:"type"`
	Title        string   `json:"title"`
	Command      string   `json:"command"`
	RootCommand  string   `json:"rootCommand"`
	RootCommands []string `json:"rootCommands"`
	FileName     string   `json:"fileName"`
	FilePath     string   `json:"filePath"`
	FileDiff     string   `json:"fileDiff"`
	ServerName   string   `json:"serverName"`
	ToolName     string   `json:"toolName"`
	Prompt       string   `json:"prompt"`
	URLs         []string `json:"urls"`
}

// readGeminiCall reads a data part as Gemini CLI's tool call: ok when it
// names a call (its callId and status).
func readGeminiCall(data json.RawMessage) (geminiCall, bool) {
	var c geminiCall
	if len(data) == 0 || client.ValueProblem(data) != "" || json.Unmarshal(data, &c) != nil {
		return geminiCall{}, false
	}
	return c, c.Request.CallID != "" && c.Status != ""
}

// geminiQuestion is a tool call that waits for its confirmation: a tool
// approval (approve or reject; approve for good where Gemini CLI allows a
// command's root commands for good).
func geminiQuestion(base client.Interrupt, c geminiCall, raw json.RawMessage) question {
	it := base
	// Gemini's call ids share their first characters (the tool's name):
	// hitl's is derived, so that a short prefix names one.
	it.ID = derivedID(base.ThreadID, c.Request.CallID)
	name := c.Request.Name
	if name == "" {
		name = c.Tool.DisplayName
	}
	args := c.Request.Args
	if !isObject(args) {
		args = json.RawMessage(`{}`)
	}
	d := c.Details
	p := client.Payload{Schema: client.SchemaMiddleware, Title: "Approve " + name + "?",
		Encoder: geminiEncoder{callID: c.Request.CallID}}
	p.Actions = []client.Action{{Name: name, Args: args, Description: geminiDescription(d),
		Allowed: []client.DecisionType{client.Approve, client.Reject}}}
	if d.Type == "exec" {
		// proceed_always on a shell command allows its root commands.
		p.Always = d.RootCommands
		if len(p.Always) == 0 && d.RootCommand != "" {
			p.Always = []string{d.RootCommand}
		}
	}
	it.Payload = client.Normalized(p)
	it.WithValue(raw)
	return question{it: it, producer: gemini, ref: c.Request.CallID}
}

// geminiDescription is what the confirmation request says beside the
// tool's arguments: its title, and the command, the diff, the MCP server
// and tool, or the prompt and URLs.
func geminiDescription(d *geminiDetails) string {
	lines := []string{d.Title}
	switch d.Type {
	case "exec":
		lines = append(lines, "Command: "+d.Command)
	case "edit":
		file := d.FilePath
		if file == "" {
			file = d.FileName
		}
		lines = append(lines, "File: "+file, d.FileDiff)
	case "mcp":
		lines = append(lines, "MCP server "+d.ServerName+", tool "+d.ToolName)
	case "info":
		lines = append(lines, d.Prompt)
		lines = append(lines, d.URLs...)
	default:
		if d.Command != "" {
			lines = append(lines, "Command: "+d.Command)
		}
	}
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, "\n"))
		}
	}
	return strings.Join(out, "\n")
}

// geminiQuestions reads the tool calls that wait for a confirmation: in
// the status message where an agent puts them there, else (Gemini CLI's
// way: the confirmation is a working-state update, and input-required
// follows with no message) in the agent's messages of the history since
// the last user message, each call as its latest update says.
func geminiQuestions(base client.Interrupt, t task) []question {
	var out []question
	seen := map[string]bool{}
	for i := len(t.History) - 1; i >= 0; i-- {
		m := t.History[i]
		if m.Role == "user" {
			break
		}
		var here []question
		for _, p := range m.Parts {
			c, ok := readGeminiCall(p.Data)
			if !ok || seen[c.Request.CallID] {
				continue
			}
			seen[c.Request.CallID] = true
			if c.Status == "awaiting_approval" && c.Details != nil {
				here = append(here, geminiQuestion(base, c, p.Data))
			}
		}
		out = append(fromMessage(here, m.ID), out...)
	}
	return out
}

// geminiEncoder spells a decision as Gemini CLI's confirmation answer:
// {"callId", "outcome": "proceed_once"}, "proceed_always" only when the
// reviewer asks for it, "cancel" for a reject (with the reviewer's
// reason, which goes as a text part).
type geminiEncoder struct{ callID string }

// Shape is client.Shaper: show says what the agent sent.
func (geminiEncoder) Shape() string { return "gemini-tool-call-confirmation" }

// geminiAnswer is the encoded decision; Reason is not Gemini's: it goes
// as the message's text part.
type geminiAnswer struct {
	CallID  string `json:"callId"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

func (e geminiEncoder) Encode(_ *client.Payload, ds []client.Decision, _ client.EncodeOptions) (any, error) {
	d := ds[0]
	switch d.Type {
	case client.Approve:
		if d.Always {
			return geminiAnswer{CallID: e.callID, Outcome: "proceed_always"}, nil
		}
		return geminiAnswer{CallID: e.callID, Outcome: "proceed_once"}, nil
	case client.Reject:
		return geminiAnswer{CallID: e.callID, Outcome: "cancel", Reason: strings.TrimSpace(d.Message)}, nil
	}
	return nil, &client.RefusedError{Slot: 0, Reason: fmt.Sprintf("Gemini CLI takes approve or reject, not %s", d.Type)}
}

// geminiParts are the parts of the message that answers the call ref with
// value (a geminiAnswer): the data part Gemini CLI reads, and the
// reviewer's reason as a text part, which Gemini CLI gives its model.
func geminiParts(ref string, value json.RawMessage, v03 bool) ([]any, error) {
	var a geminiAnswer
	if json.Unmarshal(value, &a) != nil || a.Outcome == "" {
		return nil, errors.New(`a Gemini CLI tool call takes {"callId", "outcome"}`)
	}
	if a.CallID != ref {
		return nil, fmt.Errorf("the answer names tool call %q, the task asks about %q", a.CallID, ref)
	}
	data := map[string]any{"callId": ref, "outcome": a.Outcome}
	parts := []any{map[string]any{"data": data}}
	if v03 {
		parts = []any{map[string]any{"kind": "data", "data": data}}
	}
	if a.Reason != "" {
		if v03 {
			parts = append(parts, map[string]any{"kind": "text", "text": a.Reason})
		} else {
			parts = append(parts, map[string]any{"text": a.Reason})
		}
	}
	return parts, nil
}
