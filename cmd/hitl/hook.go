package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/agenthook"
	"github.com/hitl-sh/hitl/hookclient"
	"github.com/hitl-sh/hitl/redact"
)

// hookOptions are hitl hook's: the agent named and the flags.
type hookOptions struct {
	agent    string
	timeout  time.Duration
	fallback string // ask or deny: what the agent gets when no reviewer decides
}

func hookCmd(e *env) *cobra.Command {
	o := &hookOptions{timeout: 10 * time.Minute, fallback: "ask"}
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
			if len(args) != 1 || !agenthook.Known(args[0]) {
				return usageErr("hook: name the agent: hitl hook claude, codex, gemini or cursor")
			}
			if o.fallback != "ask" && o.fallback != "deny" {
				return usageErr("hook: --fallback %q: use ask (the agent's own prompt) or deny", o.fallback)
			}
			return nil
		},
		ValidArgs: agenthook.Names,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.agent = args[0]
			runHook(cmd.Context(), e, o)
			return nil
		},
	}
	cmd.Flags().DurationVar(&o.timeout, "timeout", o.timeout, "how long to wait for a decision before withdrawing the request")
	cmd.Flags().StringVar(&o.fallback, "fallback", o.fallback, "when no reviewer decides (hub gone, timeout, bad token): ask (the agent's own prompt) or deny")
	return cmd
}

// runHook runs the hook and prints its answer: the agent's JSON on stdout,
// and why no reviewer decided in one line on stderr. It always exits 0:
// the agent reads the answer, or asks as usual.
func runHook(ctx context.Context, e *env, o *hookOptions) {
	host, _ := os.Hostname()
	r := agenthook.Run(ctx, agenthook.Options{Agent: o.agent, Input: e.stdin, Timeout: o.timeout, Host: host, Deny: o.fallback == "deny",
		Connect: func() (agenthook.Conn, error) { return hookConnect(e) }})
	if r.Say != "" {
		fmt.Fprintln(e.stderr, "hitl hook: "+r.Say)
	}
	if r.Stdout != nil {
		fmt.Fprintln(e.stdout, string(r.Stdout))
	}
}

// hookConnect resolves the hub's address and token like every command
// does.
func hookConnect(e *env) (agenthook.Conn, error) {
	var c agenthook.Conn
	s, err := e.settings()
	if err != nil {
		return c, err
	}
	c.Redact = redact.New(s.Credentials()...).String
	// Several hubs (or one hub's several addresses): a comma list, tried
	// in turn when one is down.
	var urls, shown []string
	for _, u := range strings.Split(s.URL, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
			shown = append(shown, redact.URL(u))
		}
	}
	c.Shown = strings.Join(shown, ", ")
	if s.BearerToken == "" {
		return c, errors.New("no token for the hub: set HITL_BEARER_TOKEN to the publisher's token (team: publishers: in the hub's config)")
	}
	hub, err := hookclient.New(urls, hookclient.Options{Token: s.BearerToken, Headers: s.Headers, InsecureSkipVerify: s.InsecureSkipVerify})
	if err != nil {
		return c, fmt.Errorf("the hub's URL %q is not an http(s) URL (%v): give --url http://HUB:PORT (several: a comma list) or set HITL_URL", safe(c.Redact(s.URL)), safe(c.Redact(err.Error())))
	}
	hub.Shown = redact.URL
	c.Hub = hub
	return c, nil
}
