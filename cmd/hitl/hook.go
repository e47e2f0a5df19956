package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/hookclient"
	"github.com/hitl-sh/hitl/redact"
)

// hookAgents are the coding agents `hitl hook` speaks for, and the decisions
// each takes back: Codex fails closed on an updatedInput, so its requests
// offer no edit.
var hookAgents = map[string][]string{
	"claude": {"approve", "edit", "reject"},
	"codex":  {"approve", "reject"},
}

func hookCmd(e *env) *cobra.Command {
	timeout := 10 * time.Minute
	cmd := &cobra.Command{
		Use:   "hook claude|codex",
		Short: "Put a coding agent's permission request up for review on a hitl hub, and answer it",
		Long: `hitl hook is a PermissionRequest hook for Claude Code (hitl hook claude) and
Codex (hitl hook codex). It reads the hook's input on stdin, puts the request up
on the hub (hitl serve --http) at --url, a profile's url or HITL_URL, with the
publisher token in HITL_BEARER_TOKEN, waits for a reviewer's decision and prints
the agent's answer on stdout: allow, allow with an edited input (Claude Code
only), or deny with the reviewer's message.

When the hub cannot be reached, no decision comes within --timeout, or the hook
is interrupted, it withdraws the request, prints nothing on stdout, says why in
one line on stderr and exits 0: the agent then asks as it would without the
hook. See docs/hooks.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || hookAgents[args[0]] == nil {
				return usageErr("hook: name the agent: hitl hook claude, or hitl hook codex")
			}
			return nil
		},
		ValidArgs: []string{"claude", "codex"},
		RunE: func(cmd *cobra.Command, args []string) error {
			h := &hooker{e: e, agent: args[0], timeout: timeout}
			h.run(cmd.Context())
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", timeout, "how long to wait for a decision before withdrawing the request")
	return cmd
}

// hookInput is what Claude Code and Codex give a PermissionRequest hook.
type hookInput struct {
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

// hookOrigin is where a request comes from, as the hub and the reviewer see
// it (the "agent_hook" member of the request's data).
type hookOrigin struct {
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

type hooker struct {
	e       *env
	agent   string
	timeout time.Duration
	hub     *hookclient.Hub // the hub-client side: hookclient
	redact  func(string) string
	shown   string // the hub's URLs without credentials
}

// hookLease is how long the hub keeps a request after its hook stopped
// waiting on it (killed outright, cut off from the hub) before it
// withdraws it: the hook waits again at once after each wait, and retries
// a lost hub more often than this.
const hookLease = 6 * time.Second

// hookPutFor is how long a hook tries to put its request up on a hub that
// does not answer (restarting; each of several URLs in turn) before it lets
// the agent ask as usual.
const hookPutFor = 10 * time.Second

// say writes the hook's one line on stderr.
func (h *hooker) say(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if h.redact != nil {
		msg = h.redact(msg)
	}
	fmt.Fprintln(h.e.stderr, "hitl hook: "+msg)
}

func (h *hooker) run(ctx context.Context) {
	in, err := io.ReadAll(io.LimitReader(h.e.stdin, 32<<20))
	if err != nil {
		h.say("cannot read the hook's input: %v; the agent asks as usual", err)
		return
	}
	var hi hookInput
	if err := json.Unmarshal(in, &hi); err != nil || hi.ToolName == "" {
		h.say("the input on stdin is not a PermissionRequest hook's JSON (tool_name, tool_input); the agent asks as usual")
		return
	}
	if ev := hi.HookEventName; ev != "" && ev != "PermissionRequest" {
		h.say("this hook answers PermissionRequest, not %s: configure it under PermissionRequest; the agent goes on as usual", safe(ev))
		return
	}
	input := bytes.TrimSpace(hi.ToolInput)
	if len(input) == 0 || input[0] != '{' {
		input = []byte("{}")
	}
	if err := h.connect(); err != nil {
		h.say("%v; the agent asks as usual", err)
		return
	}
	host, _ := os.Hostname()
	desc := ""
	var args struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(input, &args) == nil {
		desc = args.Description
	}
	data := map[string]any{
		"action_requests": []any{map[string]any{"name": hi.ToolName, "args": json.RawMessage(input), "description": desc}},
		"review_configs":  []any{map[string]any{"action_name": hi.ToolName, "allowed_decisions": hookAgents[h.agent]}},
		"agent_hook": hookOrigin{Agent: h.agent, Host: host, Cwd: hi.Cwd, SessionID: hi.SessionID, TurnID: hi.TurnID,
			TranscriptPath: hi.TranscriptPath, Model: hi.Model, PermissionMode: hi.PermissionMode, PermissionSuggestions: hi.PermissionSuggestions},
	}
	session := hi.SessionID
	if session == "" {
		session = h.agent + "@" + host
	}
	// Putting it up is retried (a hub restarting, a second hub's URL)
	// for a little while: the agent waits on the hook meanwhile.
	pctx, pcancel := context.WithTimeout(ctx, min(h.timeout, hookPutFor))
	st, err := h.hub.Put(pctx, hookclient.Request{Agent: h.agent, SessionID: session, Data: data,
		ExpiresIn: h.timeout + 30*time.Second, Lease: hookLease})
	pcancel()
	if err != nil {
		h.say("could not put the request up on %s: %v; the agent asks as usual", h.shown, err)
		return
	}
	id := st.RequestID
	deadline, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	// A lost hub is tried again with backoff until the deadline, and the
	// wait re-attaches to the request by id: a decision made meanwhile is
	// received.
	st, err = h.hub.Wait(deadline, id)
	why := ""
	switch {
	case err == nil:
	case deadline.Err() != nil:
		why = fmt.Sprintf("no decision within %s", h.timeout)
		if ctx.Err() != nil {
			why = "the hook was interrupted (" + orDefault(hookSignal(ctx), "cancelled") + ")"
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			why += fmt.Sprintf(" (the hub was lost: %v)", err)
		}
	case errors.Is(err, hookclient.ErrLost):
		why = fmt.Sprintf("the hub at %s %v", h.shown, err)
	default:
		why = fmt.Sprintf("lost the hub at %s (%v)", h.shown, err)
	}
	if why != "" {
		// Withdraw on a context of its own: ctx may be the one that ended.
		wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer wcancel()
		ws, answered, err := h.hub.Withdraw(wctx, id, why)
		switch {
		case err == nil && answered:
			st = ws // answered just before: the reviewer was told it was sent
		case err == nil:
			h.say("withdrew request %s: %s; the agent asks as usual", id, why)
			return
		default:
			h.say("%s, and could not withdraw request %s (%v); the agent asks as usual", why, id, err)
			return
		}
	}
	switch st.Status {
	case "answered":
		out, msg := h.answer(st)
		if out == nil {
			h.say("%s; the agent asks as usual", msg)
			return
		}
		fmt.Fprintln(h.e.stdout, string(out))
	case "withdrawn":
		h.say("request %s was withdrawn on the hub (%s); the agent asks as usual", id, safe(st.Reason))
	default:
		h.say("request %s stands %q on the hub; the agent asks as usual", id, safe(st.Status))
	}
}

// connect resolves the hub's address and token like every command does.
func (h *hooker) connect() error {
	f, err := config.Load(config.Path(h.e.getenv))
	if err != nil {
		return err
	}
	s, err := config.Resolve(f, h.e.flags, h.e.getenv)
	if err != nil {
		return err
	}
	h.e.hideSecrets(s)
	h.redact = redact.New(s.Credentials()...).String
	// Several hubs (or one hub's several addresses): a comma list, tried
	// in turn when one is down.
	var urls, shown []string
	for _, u := range strings.Split(s.URL, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
			shown = append(shown, redact.URL(u))
		}
	}
	h.shown = strings.Join(shown, ", ")
	if s.BearerToken == "" {
		return errors.New("no token for the hub: set HITL_BEARER_TOKEN to the publisher's token (team: publishers: in the hub's config)")
	}
	hub, err := hookclient.New(urls, hookclient.Options{Token: s.BearerToken, Headers: s.Headers, InsecureSkipVerify: s.InsecureSkipVerify})
	if err != nil {
		return fmt.Errorf("the hub's URL %q is not an http(s) URL (%v): give --url http://HUB:PORT (several: a comma list) or set HITL_URL", safe(h.redact(s.URL)), safe(h.redact(err.Error())))
	}
	hub.Shown = redact.URL
	h.hub = hub
	return nil
}

// answer turns the hub's response (the HITL middleware's resume value) into
// the hook's output, or says why it cannot.
func (h *hooker) answer(st hookclient.Standing) ([]byte, string) {
	var r struct {
		Decisions []struct {
			Type         string `json:"type"`
			Message      string `json:"message"`
			EditedAction *struct {
				Args json.RawMessage `json:"args"`
			} `json:"edited_action"`
			EditedActionJ *struct {
				Args json.RawMessage `json:"args"`
			} `json:"editedAction"`
			EditedArgs json.RawMessage `json:"edited_args"`
		} `json:"decisions"`
	}
	if err := json.Unmarshal(st.Response, &r); err != nil || len(r.Decisions) != 1 {
		return nil, fmt.Sprintf("the hub's answer to %s is not one decision", st.RequestID)
	}
	d := r.Decisions[0]
	type decision struct {
		Behavior     string          `json:"behavior"`
		UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
		Message      string          `json:"message,omitempty"`
	}
	var dec decision
	switch d.Type {
	case "approve":
		dec.Behavior = "allow"
	case "edit":
		if h.agent != "claude" {
			return nil, "the reviewer edited the input, which " + h.agent + " cannot take"
		}
		args := d.EditedArgs
		if d.EditedAction != nil {
			args = d.EditedAction.Args
		} else if d.EditedActionJ != nil {
			args = d.EditedActionJ.Args
		}
		args = bytes.TrimSpace(args)
		if len(args) == 0 || args[0] != '{' || !json.Valid(args) {
			return nil, "the edited input is not a JSON object"
		}
		dec.Behavior, dec.UpdatedInput = "allow", args
	case "reject":
		dec.Behavior, dec.Message = "deny", d.Message
		if strings.TrimSpace(dec.Message) == "" {
			dec.Message = "Denied by " + orDefault(st.RespondedBy, "a reviewer") + " in hitl."
		}
	default:
		return nil, fmt.Sprintf("the hub's answer is a %q decision, which the hook cannot give", safe(d.Type))
	}
	out := map[string]any{"hookSpecificOutput": struct {
		HookEventName string   `json:"hookEventName"`
		Decision      decision `json:"decision"`
	}{"PermissionRequest", dec}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, "cannot write the answer: " + err.Error()
	}
	return asciiJSON(bytes.TrimSpace(buf.Bytes())), ""
}

// hookSignal names the signal that ended ctx, when it says.
func hookSignal(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil && c != context.Canceled {
		return c.Error()
	}
	return ""
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// asciiJSON spells every non-ASCII character of a JSON text as a \u escape:
// the same value, in bytes nothing between hitl and the agent rewrites
// (the CLI's writer makes invisible and bidirectional characters visible).
func asciiJSON(b []byte) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r < utf8.RuneSelf:
			out.WriteByte(b[0])
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
		b = b[size:]
	}
	return out.Bytes()
}
