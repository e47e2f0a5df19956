package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/hookclient"
	"github.com/hitl-sh/hitl/redact"
)

func hookCmd(e *env) *cobra.Command {
	timeout := 10 * time.Minute
	fallback := "ask"
	cmd := &cobra.Command{
		Use:   "hook claude|codex|gemini|cursor",
		Short: "Put a coding agent's permission request up for review on a hitl hub, and answer it",
		Long: `hitl hook is a coding agent's permission hook: a PermissionRequest hook for
Claude Code (hitl hook claude) and Codex (hitl hook codex), a BeforeTool hook for
Gemini CLI (hitl hook gemini), a beforeShellExecution or preToolUse hook for
Cursor (hitl hook cursor). It reads the hook's input on stdin, puts the request
up on the hub (hitl serve --http) at --url, a profile's url or HITL_URL, with
the publisher token in HITL_BEARER_TOKEN, waits for a reviewer's decision and
prints the agent's answer on stdout: allow, allow with an edited input (Claude
Code only), or deny with the reviewer's message.

When the hub cannot be reached, no decision comes within --timeout, or the hook
is interrupted, it withdraws the request, says why in one line on stderr, exits
0 and hands the decision back to the agent's own prompt: Claude Code and Codex
get nothing on stdout, Gemini CLI gets {"decision":"ask"}, Cursor
{"permission":"ask"}. With --fallback deny it denies instead, saying why (for an
agent that mishandles "ask": some Cursor versions are reported to). See
docs/hooks.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || hookAgents[args[0]] == nil {
				return usageErr("hook: name the agent: hitl hook claude, codex, gemini or cursor")
			}
			if fallback != "ask" && fallback != "deny" {
				return usageErr("hook: --fallback %q: use ask (the agent's own prompt) or deny", fallback)
			}
			return nil
		},
		ValidArgs: hookAgentNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			h := &hooker{e: e, agent: args[0], format: hookAgents[args[0]], timeout: timeout, deny: fallback == "deny"}
			h.run(cmd.Context())
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", timeout, "how long to wait for a decision before withdrawing the request")
	cmd.Flags().StringVar(&fallback, "fallback", fallback, "when no reviewer decides (hub gone, timeout, bad token): ask (the agent's own prompt) or deny")
	return cmd
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
	format  hookAgent // the agent's input and answers
	timeout time.Duration
	deny    bool            // --fallback deny: the fallback denies rather than asks
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
		h.handBack("cannot read the hook's input: %v", err)
		return
	}
	r, wrongEvent, err := h.format.read(in)
	if wrongEvent {
		h.say("%v; the agent goes on as usual", err)
		return
	}
	if err != nil {
		h.handBack("%v", err)
		return
	}
	if err := h.connect(); err != nil {
		h.handBack("%v", err)
		return
	}
	host, _ := os.Hostname()
	r.Origin.Host = host
	desc := ""
	var args struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(r.Input, &args) == nil {
		desc = args.Description
	}
	data := map[string]any{
		"action_requests": []any{map[string]any{"name": r.Tool, "args": r.Input, "description": desc}},
		"review_configs":  []any{map[string]any{"action_name": r.Tool, "allowed_decisions": h.format.decisions()}},
		"agent_hook":      r.Origin,
	}
	session := r.Origin.SessionID
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
		h.handBack("could not put the request up on %s: %v", h.shown, err)
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
			h.handBack("withdrew request %s: %s", id, why)
			return
		default:
			h.handBack("%s, and could not withdraw request %s (%v)", why, id, err)
			return
		}
	}
	switch st.Status {
	case "answered":
		out, msg := h.answer(st)
		if out == nil {
			h.handBack("%s", msg)
			return
		}
		fmt.Fprintln(h.e.stdout, string(out))
	case "withdrawn":
		h.handBack("request %s was withdrawn on the hub (%s)", id, safe(st.Reason))
	default:
		h.handBack("request %s stands %q on the hub", id, safe(st.Status))
	}
}

// handBack gives the decision back to the agent's own prompt: it says why
// in one line on stderr, and prints the agent's way of asking its user
// (nothing, for Claude Code and Codex).
func (h *hooker) handBack(format string, a ...any) {
	why := fmt.Sprintf(format, a...)
	if h.redact != nil {
		why = h.redact(why)
	}
	if h.deny {
		h.say("%s; denied (--fallback deny)", why)
		if out, err := hookJSON(h.format.refuse(why)); err == nil {
			fmt.Fprintln(h.e.stdout, string(out))
		}
		return
	}
	h.say("%s; the agent asks as usual", why)
	if v := h.format.ask(why); v != nil {
		if out, err := hookJSON(v); err == nil {
			fmt.Fprintln(h.e.stdout, string(out))
		}
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
	var out any
	switch d.Type {
	case "approve":
		out = h.format.allow(nil)
	case "edit":
		if !slices.Contains(h.format.decisions(), "edit") {
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
		out = h.format.allow(args)
	case "reject":
		out = h.format.deny(d.Message, st.RespondedBy)
	default:
		return nil, fmt.Sprintf("the hub's answer is a %q decision, which the hook cannot give", safe(d.Type))
	}
	b, err := hookJSON(out)
	if err != nil {
		return nil, "cannot write the answer: " + err.Error()
	}
	return b, ""
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
