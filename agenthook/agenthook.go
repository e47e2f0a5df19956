// Package agenthook is a coding agent's permission hook (hitl hook): it
// reads what the agent gives its hook on stdin (Claude Code, Codex, Gemini
// CLI, Cursor: agents.go, one small type per agent), puts the request up on
// a hitl hub through hookclient, waits for a reviewer's decision and
// returns the agent's answer in the agent's own JSON. When no reviewer
// decides (the hub cannot be reached, no decision in time, the hook
// interrupted) it withdraws the request and hands the decision back to the
// agent's own prompt.
//
// It prints nothing: Run returns what the hook prints (cmd/hitl prints it),
// and reaches the hub through the Connect function it is given (cmd/hitl
// resolves the address and token like every command does).
package agenthook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitl-sh/hitl/hookclient"
	"github.com/hitl-sh/hitl/inert"
)

// Names are the coding agents a hook speaks for, in the order the docs
// give them.
var Names = []string{"claude", "codex", "gemini", "cursor"}

// Known reports whether name is one of Names.
func Known(name string) bool { return agents[name] != nil }

// lease is how long the hub keeps a request after its hook stopped
// waiting on it (killed outright, cut off from the hub) before it
// withdraws it: the hook waits again at once after each wait, and retries
// a lost hub more often than this.
const lease = 6 * time.Second

// putFor is how long a hook tries to put its request up on a hub that
// does not answer (restarting; each of several URLs in turn) before it lets
// the agent ask as usual.
const putFor = 10 * time.Second

// Options are one run of a hook.
type Options struct {
	// Agent is one of Names.
	Agent string
	// Input is the hook's input (stdin).
	Input io.Reader
	// Timeout is how long to wait for a decision before withdrawing the
	// request.
	Timeout time.Duration
	// Host is this machine's name, as the reviewer sees it.
	Host string
	// Deny: when no reviewer decides, the agent gets a deny saying why
	// (hitl hook --fallback deny) rather than its own prompt.
	Deny bool
	// Connect reaches the hub, once the input was read as a request.
	Connect func() (Conn, error)
}

// Conn is the hub as Connect reached it.
type Conn struct {
	Hub *hookclient.Hub
	// Shown names the hub's URLs for the user (credentials hidden).
	Shown string
	// Redact hides the credentials in what the hook says (nil: none); it
	// is used on Connect's error too, when set.
	Redact func(string) string
}

// Reply is what the hook prints.
type Reply struct {
	// Stdout is the agent's answer, one line of ASCII JSON (without its
	// newline); nil: nothing is printed, for the agent's own prompt.
	Stdout []byte
	// Say is the hook's one line on stderr, why no reviewer decided; ""
	// when one did.
	Say string
}

// hook is one run's state.
type hook struct {
	name    string
	agent   agent
	timeout time.Duration
	deny    bool // the fallback denies rather than asks
	conn    Conn
}

// Run reads the hook's input, puts its request up, waits for a decision
// and returns the agent's answer, or hands the decision back to the agent.
func Run(ctx context.Context, o Options) Reply {
	h := &hook{name: o.Agent, agent: agents[o.Agent], timeout: o.Timeout, deny: o.Deny}
	if h.agent == nil {
		return Reply{Say: fmt.Sprintf("%q is no agent of hitl hook (%s); the agent goes on as usual", inert.Line(o.Agent), strings.Join(Names, ", "))}
	}
	in, err := io.ReadAll(io.LimitReader(o.Input, 32<<20))
	if err != nil {
		return h.handBack("cannot read the hook's input: %v", err)
	}
	r, wrongEvent, err := h.agent.read(in)
	if wrongEvent {
		return Reply{Say: fmt.Sprintf("%v; the agent goes on as usual", err)}
	}
	if err != nil {
		return h.handBack("%v", err)
	}
	h.conn, err = o.Connect()
	if err != nil {
		return h.handBack("%v", err)
	}
	r.Origin.Host = o.Host
	return h.ask(ctx, r)
}

// ask puts r up on the hub and waits for its decision.
func (h *hook) ask(ctx context.Context, r request) Reply {
	// Putting it up is retried (a hub restarting, a second hub's URL)
	// for a little while: the agent waits on the hook meanwhile.
	pctx, pcancel := context.WithTimeout(ctx, min(h.timeout, putFor))
	st, err := h.conn.Hub.Put(pctx, h.publish(r))
	pcancel()
	if err != nil {
		return h.handBack("could not put the request up on %s: %v", h.conn.Shown, err)
	}
	id := st.RequestID
	deadline, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	// A lost hub is tried again with backoff until the deadline, and the
	// wait re-attaches to the request by id: a decision made meanwhile is
	// received.
	st, err = h.conn.Hub.Wait(deadline, id)
	why := ""
	switch {
	case err == nil:
	case deadline.Err() != nil:
		why = fmt.Sprintf("no decision within %s", h.timeout)
		if ctx.Err() != nil {
			why = "the hook was interrupted (" + orDefault(signal(ctx), "cancelled") + ")"
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			why += fmt.Sprintf(" (the hub was lost: %v)", err)
		}
	case errors.Is(err, hookclient.ErrLost):
		why = fmt.Sprintf("the hub at %s %v", h.conn.Shown, err)
	default:
		why = fmt.Sprintf("lost the hub at %s (%v)", h.conn.Shown, err)
	}
	if why != "" {
		// Withdraw on a context of its own: ctx may be the one that ended.
		wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer wcancel()
		ws, answered, err := h.conn.Hub.Withdraw(wctx, id, why)
		switch {
		case err == nil && answered:
			st = ws // answered just before: the reviewer was told it was sent
		case err == nil:
			return h.handBack("withdrew request %s: %s", id, why)
		default:
			return h.handBack("%s, and could not withdraw request %s (%v)", why, id, err)
		}
	}
	switch st.Status {
	case "answered":
		out, msg := Answer(h.name, st)
		if out == nil {
			return h.handBack("%s", msg)
		}
		return Reply{Stdout: out}
	case "withdrawn":
		return h.handBack("request %s was withdrawn on the hub (%s)", id, inert.Line(st.Reason))
	default:
		return h.handBack("request %s stands %q on the hub", id, inert.Line(st.Status))
	}
}

// publish is the request r as the hub gets it: the HITL middleware's
// shape (one action, the decisions this agent takes) with where it comes
// from (agent_hook).
func (h *hook) publish(r request) hookclient.Request {
	desc := ""
	var args struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(r.Input, &args) == nil {
		desc = args.Description
	}
	data := map[string]any{
		"action_requests": []any{map[string]any{"name": r.Tool, "args": r.Input, "description": desc}},
		"review_configs":  []any{map[string]any{"action_name": r.Tool, "allowed_decisions": h.agent.decisions()}},
		"agent_hook":      r.Origin,
	}
	session := r.Origin.SessionID
	if session == "" {
		session = h.name + "@" + r.Origin.Host
	}
	return hookclient.Request{Agent: h.name, SessionID: session, Data: data,
		ExpiresIn: h.timeout + 30*time.Second, Lease: lease}
}

// handBack gives the decision back to the agent's own prompt: it says why
// in one line, and answers the agent's way of asking its user (nothing,
// for Claude Code and Codex); with Deny, the agent's deny saying why.
func (h *hook) handBack(format string, a ...any) Reply {
	why := fmt.Sprintf(format, a...)
	if h.conn.Redact != nil {
		why = h.conn.Redact(why)
	}
	if h.deny {
		rep := Reply{Say: why + "; denied (--fallback deny)"}
		if out, err := toJSON(h.agent.refuse(why)); err == nil {
			rep.Stdout = out
		}
		return rep
	}
	rep := Reply{Say: why + "; the agent asks as usual"}
	if v := h.agent.ask(why); v != nil {
		if out, err := toJSON(v); err == nil {
			rep.Stdout = out
		}
	}
	return rep
}

// Answer turns the hub's response to a request of agent (the HITL
// middleware's resume value) into the agent's answer, or says why it
// cannot.
func Answer(agentName string, st hookclient.Standing) ([]byte, string) {
	a := agents[agentName]
	if a == nil {
		return nil, fmt.Sprintf("%q is no agent of hitl hook", inert.Line(agentName))
	}
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
		out = a.allow(nil)
	case "edit":
		if !slices.Contains(a.decisions(), "edit") {
			return nil, "the reviewer edited the input, which " + agentName + " cannot take"
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
		out = a.allow(args)
	case "reject":
		out = a.deny(d.Message, st.RespondedBy)
	default:
		return nil, fmt.Sprintf("the hub's answer is a %q decision, which the hook cannot give", inert.Line(d.Type))
	}
	b, err := toJSON(out)
	if err != nil {
		return nil, "cannot write the answer: " + err.Error()
	}
	return b, ""
}

// signal names the signal that ended ctx, when it says.
func signal(ctx context.Context) string {
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

// toJSON writes an answer as one line of ASCII JSON.
func toJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return asciiJSON(bytes.TrimSpace(buf.Bytes())), nil
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
