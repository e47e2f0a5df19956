package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
)

// Agents are the coding agents whose name is a badge of its own.
var agents = map[string]bool{"claude": true, "codex": true, "gemini": true, "cursor": true, "opencode": true}

// shellTools are the coding agents' shell tools, by the name each gives
// it: Claude Code's and Codex's Bash, Gemini CLI's run_shell_command,
// Cursor's Shell (its beforeShellExecution hook too).
var shellTools = map[string]bool{"Bash": true, "run_shell_command": true, "Shell": true}

// IsShell says whether a coding agent's tool of that name runs a shell
// command (shown as "$ command").
func IsShell(tool string) bool { return shellTools[tool] }

// BadgeOf is the inbox's badge for an interrupt: the coding agent of a
// permission request put up by `hitl hook` (claude, codex, gemini,
// cursor) or of opencode, else the
// payload's shape (Badge).
func BadgeOf(it client.Interrupt) string {
	if it.Origin != nil && agents[it.Origin.Agent] {
		return it.Origin.Agent
	}
	return Badge(it.Schema)
}

// OriginLine says where a coding agent's request comes from: "claude on
// build-7 in /src/app (session 5f3c…)", or "" for other interrupts. Not
// yet inert.
func OriginLine(it client.Interrupt) string {
	o := it.Origin
	if o == nil {
		return ""
	}
	s := o.Agent
	if o.Host != "" {
		s += " on " + o.Host
	}
	if o.Cwd != "" {
		s += " in " + o.Cwd
	}
	var extra []string
	if o.SessionID != "" {
		extra = append(extra, "session "+o.SessionID)
	}
	if o.PermissionMode != "" {
		extra = append(extra, "mode "+o.PermissionMode)
	}
	if o.Model != "" {
		extra = append(extra, "model "+o.Model)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// ToolView is a coding agent's tool call as a reviewer reads it: the
// command of a shell call, the file and the change of a file edit. Texts
// are the agent's, not yet inert.
type ToolView struct {
	// Command is a shell call's command line (Bash).
	Command string
	// Path is the file a Write, Edit or MultiEdit changes.
	Path string
	// Changes are the texts before and after, one per edit (a Write: one,
	// from nothing).
	Changes []TextChange
	// Commands are the commands an opencode bash permission covers (its
	// patterns: each command of the line the agent runs); Patterns what
	// any other opencode permission covers (files, URLs, directories).
	Commands, Patterns []string
	// Patch is the change an opencode edit asks for (its metadata's
	// unified diff), line by line; nil when it gives none.
	Patch []diff.Line
	// Rest is the input's other members, as JSON ("" when none).
	Rest string
}

// patchLines reads a unified diff as lines: removed, added, and the rest
// (context, hunk headers) as they are; the two file headers are left out
// (the path is shown above it).
func patchLines(patch string) []diff.Line {
	var out []diff.Line
	for _, l := range strings.Split(strings.TrimSuffix(patch, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "Index: ") || strings.HasPrefix(l, "====="):
		case strings.HasPrefix(l, "-"):
			out = append(out, diff.Line{Op: diff.Delete, Text: l[1:]})
		case strings.HasPrefix(l, "+"):
			out = append(out, diff.Line{Op: diff.Insert, Text: l[1:]})
		default:
			out = append(out, diff.Line{Op: diff.Same, Text: strings.TrimPrefix(l, " ")})
		}
	}
	return out
}

// TextChange is one replacement in a file.
type TextChange struct {
	Label         string // "new file", "edit 2 of 3", "replace all"
	Before, After string
}

// ToolOf reads action a of a coding agent's request as a ToolView; ok
// false when it is not one, or its input is not of the tool's shape (then
// it is shown as JSON, as any other).
func ToolOf(it client.Interrupt, a client.Action) (ToolView, bool) {
	if it.Origin == nil {
		return ToolView{}, false
	}
	var in map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(a.Args))
	dec.UseNumber()
	if dec.Decode(&in) != nil {
		return ToolView{}, false
	}
	str := func(k string) (string, bool) {
		var s string
		raw, ok := in[k]
		if !ok || json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		delete(in, k)
		return s, true
	}
	strs := func(k string) ([]string, bool) {
		var s []string
		raw, ok := in[k]
		if !ok || json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		delete(in, k)
		return s, true
	}
	var v ToolView
	switch {
	case it.Origin.Agent == "opencode":
		// A permission request: its patterns, what always allows, and
		// its metadata as the other input.
		patterns, ok := strs("patterns")
		if !ok {
			return ToolView{}, false
		}
		if a.Name == "bash" {
			v.Commands = patterns
		} else {
			v.Patterns = patterns
		}
		strs("always") // the interrupt's Always too: present.ForGood says it
		if md, ok := in["metadata"]; ok {
			delete(in, "metadata")
			var m map[string]json.RawMessage
			if json.Unmarshal(md, &m) == nil {
				maps.Copy(in, m)
			}
			if path, ok := str("filepath"); ok {
				v.Path = path
			}
			if d, ok := str("diff"); ok {
				v.Patch = patchLines(d)
			}
		}
	case IsShell(a.Name):
		cmd, ok := str("command")
		if !ok {
			return ToolView{}, false
		}
		v.Command = cmd
		delete(in, "description") // shown as the action's description
	case a.Name == "Write" || a.Name == "write_file": // Gemini CLI's write_file
		path, ok1 := str("file_path")
		content, ok2 := str("content")
		if !ok1 || !ok2 {
			return ToolView{}, false
		}
		v.Path, v.Changes = path, []TextChange{{Label: "the whole file", After: content}}
	case a.Name == "Edit" || a.Name == "replace": // Gemini CLI's replace
		path, ok1 := str("file_path")
		old, ok2 := str("old_string")
		repl, ok3 := str("new_string")
		if !ok1 || !ok2 || !ok3 {
			return ToolView{}, false
		}
		label := "edit"
		if all := in["replace_all"]; string(all) == "true" {
			label = "edit, every occurrence"
			delete(in, "replace_all")
		} else if string(all) == "false" {
			delete(in, "replace_all")
		}
		v.Path, v.Changes = path, []TextChange{{Label: label, Before: old, After: repl}}
	case a.Name == "MultiEdit":
		path, ok := str("file_path")
		var edits []struct {
			Old        *string `json:"old_string"`
			New        *string `json:"new_string"`
			ReplaceAll bool    `json:"replace_all"`
		}
		if !ok || json.Unmarshal(in["edits"], &edits) != nil || len(edits) == 0 {
			return ToolView{}, false
		}
		delete(in, "edits")
		v.Path = path
		for i, e := range edits {
			if e.Old == nil || e.New == nil {
				return ToolView{}, false
			}
			label := fmt.Sprintf("edit %d of %d", i+1, len(edits))
			if e.ReplaceAll {
				label += ", every occurrence"
			}
			v.Changes = append(v.Changes, TextChange{Label: label, Before: *e.Old, After: *e.New})
		}
	default:
		return ToolView{}, false
	}
	if len(in) > 0 {
		b, err := json.Marshal(in)
		if err == nil {
			v.Rest = string(b)
		}
	}
	return v, true
}
