package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/tui"
)

func demoCmd(e *env) *cobra.Command {
	var serve bool
	var listen string
	var every time.Duration
	var burst, upTo int
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Try hitl with no setup: an embedded LangGraph-compatible server with demo agents",
		Long: `demo starts an in-process server that speaks the LangGraph Agent Server API,
with scripted agents that keep asking for decisions (tool calls, questions,
free-text prompts, Agent Inbox requests, parallel interrupts, a breakpoint, and
a payload hiding escape sequences), and opens the reviewer on it.

--backend rest serves the REST HITL API (runs walking through
information, payload and response review); --backend events serves the
event-stream coordinator protocol (docs/backends.md in the repository);
--backend opencode serves opencode's permission requests.

Decisions made in the demo's own reviewer are kept apart from your real ones
(state in the "demo" folder of the state directory).

With --serve it runs only the server and prints its URL, for hitl list, hitl
watch or any LangGraph client. hitl commands pointed at that URL (--url) treat
it as any other server: what they decide goes into your usual audit log (hitl
history), as for a real one; give them XDG_STATE_HOME=DIR to keep it apart.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := config.Load(config.Path(e.getenv))
			if err != nil {
				return err
			}
			s, err := config.Resolve(f, config.Overrides{Profile: e.flags.Profile, Reviewer: e.flags.Reviewer}, e.getenv)
			if err != nil {
				return &exitErr{exitUsage, err}
			}
			kind := e.flags.Backend
			if kind == "" {
				kind = "langgraph"
			}
			srv, ok, err := demo.Run(cmd.Context(), kind, listen, burst, every, upTo, s.Reviewer)
			if !ok {
				return usageErr("--backend %q: the demo serves langgraph, rest, events or opencode", kind)
			}
			if err != nil {
				return err
			}
			defer srv.Close()
			url := srv.URL()
			if serve {
				fmt.Fprintf(e.stdout, "hitl demo %s server at %s\n\n  hitl --backend %s --url %s list\n  hitl --backend %s --url %s\n\nCtrl+C stops it.\n",
					kind, url, kind, url, kind, url)
				<-cmd.Context().Done()
				return nil
			}
			s.Backend, s.URL = kind, url
			s.APIKey, s.BearerToken, s.Headers, s.Graph, s.Assistant, s.Metadata, s.UserID = "", "", nil, "", "", nil, ""
			b, err := newBackend(s, 30*time.Second)
			if err != nil {
				return err
			}
			j, err := journal.Open(filepath.Join(config.StateDir(e.getenv), "demo"))
			if err != nil {
				return err
			}
			if err := noTerminal(openTTY); err != nil {
				return fmt.Errorf("%w (or hitl demo --serve: the server alone)", err)
			}
			return tui.Run(cmd.Context(), tui.Options{Backend: b, Journal: j, Reviewer: s.Reviewer,
				PollInterval: time.Second, EditDialect: client.DialectEditedAction, Notify: tui.NotifyOff, Theme: s.Theme, Getenv: e.getenv, Editor: e.editor(), Keys: s.Keys})
		},
	}
	cmd.Flags().BoolVar(&serve, "serve", false, "run only the server and print its URL")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "address to listen on (port 0: a free one)")
	cmd.Flags().DurationVar(&every, "every", 8*time.Second, "a new interrupt arrives this often (0: never)")
	cmd.Flags().IntVar(&upTo, "up-to", 20, "new interrupts arrive while fewer than this many wait (0: however many wait)")
	cmd.Flags().IntVar(&burst, "burst", 0, "create this many extra interrupts at start, to try the inbox at scale")
	return cmd
}
