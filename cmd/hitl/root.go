package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/cli/decisions"
	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/a2a"
	"github.com/hitl-sh/hitl/client/events"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/opencode"
	"github.com/hitl-sh/hitl/client/rest"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/redact"
	"github.com/hitl-sh/hitl/review"
	"github.com/hitl-sh/hitl/tui"
)

// env is what the program gets from outside.
type env struct {
	stdin io.Reader
	// stdout and stderr make everything written to them inert (termOut).
	stdout, stderr *termOut
	getenv         func(string) string
	// environ is the whole environment, for the commands watch --exec
	// runs (os.Environ; a test's own in tests).
	environ func() []string

	flags config.Overrides
	// session, when set, is what open returns instead of a backend and a
	// journal opened from the settings (gh's Factory): a test runs a
	// command on a fake backend, without a config file or a server.
	session func(follow time.Duration) (*app, error)
}

// app is what a command works with once settings are resolved: the
// reviewer's session (review.Session) and the settings it came from.
type app struct {
	*review.Session
	settings *config.Settings
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "hitl",
		Short: "Review human-in-the-loop interrupts of AI agents",
		Long: `hitl finds the interrupts where an AI agent waits for a human (approve, edit,
reject, respond), shows them exactly, and sends the resume value the graph expects.

With no subcommand it opens the reviewer (a terminal UI); the subcommands do the
same from scripts. hitl help config, hitl help environment and hitl help
exit-codes say how to set it up and what its exit status means.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// "hitl lst": did you mean list? (cobra sets this only on its own path)
		SuggestionsMinimumDistance: 2,
		Args:                       exactArgs(0, "a subcommand, or nothing to open the reviewer"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := noTerminal(openTTY); err != nil {
				return err
			}
			a, err := e.open(0)
			if err != nil {
				return err
			}
			return tui.Run(cmd.Context(), tui.Options{
				Backend: a.Backend, Journal: a.Journal, Reviewer: a.settings.Reviewer,
				PollInterval: a.settings.PollInterval, EditDialect: client.EditDialect(a.settings.EditDialect),
				Notify: a.settings.Notify, Theme: a.settings.Theme, Getenv: e.getenv, Editor: e.editor(), Keys: a.settings.Keys,
				// A coordinator's door (a hitl hub's) may hold an approve
				// for another approver: the confirm screen says it may.
				Ruled: a.settings.Backend == "events",
			})
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&e.flags.Profile, "profile", "", "config profile to use (env HITL_PROFILE)")
	pf.StringVar(&e.flags.Backend, "backend", "", "backend kind: langgraph, rest, events, a2a or opencode (env HITL_BACKEND)")
	pf.StringArrayVar(&e.flags.Tasks, "task", nil, "an A2A task id to review besides those the agent lists (repeatable; an agent of protocol 0.3 lists none)")
	pf.StringVar(&e.flags.URL, "url", "", "server URL (env HITL_URL; default "+config.DefaultURL+")")
	pf.StringVar(&e.flags.Graph, "graph", "", "only interrupts of this graph id (env HITL_GRAPH)")
	pf.StringVar(&e.flags.Assistant, "assistant", "", "only interrupts of this assistant id (env HITL_ASSISTANT)")
	pf.StringArrayVar(&e.flags.Headers, "header", nil, `extra request header "Name: value" (repeatable)`)
	pf.StringVar(&e.flags.Reviewer, "reviewer", "", "reviewer name for the audit log (env HITL_REVIEWER)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitErr{exitUsage, err} })
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")

	root.AddCommand(
		listCmd(e), showCmd(e), watchCmd(e), conversationCmd(e),
		approveCmd(e), rejectCmd(e), dismissCmd(e), editCmd(e), respondCmd(e), ignoreCmd(e), decideCmd(e), resumeCmd(e),
		historyCmd(e), checkCmd(e), forgetCmd(e), configCmd(e), versionCmd(e), demoCmd(e), runCmd(e), manCmd(e), serveCmd(e), hookCmd(e),
	)
	// Cobra's own output (help, usage, completions) goes the way of hitl's,
	// set before withHelp makes the completion command (which keeps it).
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	withHelp(root)
	e.withCompletion(root)
	usageTyped(root)
	return root
}

// usageTyped makes every command's argument check return a usage error
// (exit status 2) by its type: cobra's own checks (cobra.MaximumNArgs…)
// return plain errors, told apart otherwise only by their words. Flag
// errors take the root's flag error function, which every command
// inherits; a command without an Args check takes any arguments (cobra
// checks only the root's, and the root has one).
func usageTyped(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ee *exitErr
			if err != nil && !errors.As(err, &ee) {
				return &exitErr{exitUsage, err}
			}
			return err
		}
	}
	for _, sub := range c.Commands() {
		usageTyped(sub)
	}
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n && !cmd.HasParent() {
			// hitl WORD: an unknown subcommand, most likely a typo.
			msg := fmt.Sprintf("unknown command %q", safe(args[0]))
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
			}
			return usageErr("%s (hitl --help lists the commands)", msg)
		}
		if len(args) != n {
			return usageErr("%s: expected %s (see hitl %s --help)", cmd.Name(), what, cmd.Name())
		}
		return nil
	}
}

// open resolves settings and opens the backend and the journal.
func (e *env) open(follow time.Duration) (*app, error) {
	if e.session != nil {
		return e.session(follow)
	}
	f, err := config.Load(config.Path(e.getenv))
	if err != nil {
		return nil, err
	}
	e.warn(f)
	s, err := config.Resolve(f, e.flags, e.getenv)
	if err != nil {
		return nil, &exitErr{exitUsage, err}
	}
	e.hideSecrets(s)
	b, err := newBackend(s, follow)
	if err != nil {
		return nil, &exitErr{exitUsage, err}
	}
	j, err := journal.Open(config.StateDir(e.getenv))
	if err != nil {
		return nil, err
	}
	feat := b.Features()
	if r := feat.Redactor; r != nil { // every backend on transport.Conn
		j.SetRedactor(r.Redact)
	}
	if s.ProfileName != "" && e.flags.URL == "" && e.getenv("HITL_URL") == "" {
		// hitl check finds a profile's decisions at any of its addresses
		// (a load balancer's replicas, a server that moved). Not with
		// another address given: that may be another deployment.
		j.SetDeployment("profile " + s.ProfileName)
	}
	return &app{settings: s, Session: &review.Session{Backend: b, Features: feat, Journal: j, Reviewer: s.Reviewer,
		EditDialect: s.EditDialect, Ruled: s.Backend == "events", Warnings: e.stderr, EndedTask: endedTask}}, nil
}

// hideSecrets makes everything printed from now on hide the credentials the
// settings hold, wherever they appear: a server that echoes the API key in
// a payload, a run's error or a message does not get it shown.
func (e *env) hideSecrets(s *config.Settings, more ...string) {
	r := redact.New(append(s.Credentials(), more...)...)
	e.stdout.hide, e.stderr.hide = r.Values, r.Values
}

// reconcile resolves, against the server, decisions whose outcome this
// machine does not know, and says what it found on stderr.
func (a *app) reconcile(ctx context.Context, e *env) { decisions.Reconcile(ctx, a.Session, e.stderr) }

// endedTask tells an A2A task named by its id that waits for no answer
// (review.Session.EndedTask).
func endedTask(err error) (task, state string, ok bool) {
	var done *a2a.NotWaitingError
	if errors.As(err, &done) {
		return done.Task, done.State, true
	}
	return "", "", false
}

// newBackend opens the backend the settings name.
func newBackend(s *config.Settings, follow time.Duration) (client.Backend, error) {
	t := transport.Options{URL: s.URL, APIKey: s.APIKey, BearerToken: s.BearerToken, Headers: s.Headers,
		Timeout: s.Timeout, Long: follow, InsecureSkipVerify: s.InsecureSkipVerify}
	switch s.Backend {
	case "rest":
		return rest.New(rest.Options{Options: t, UserID: s.UserID, Follow: follow})
	case "events":
		return events.New(events.Options{Options: t, Reviewer: s.Reviewer})
	case "a2a":
		return a2a.New(a2a.Options{Options: t, Tasks: s.Tasks, LangGraph: s.LangGraphURL, Follow: follow})
	case "opencode":
		return opencode.New(opencode.Options{Options: t})
	}
	return langgraph.New(langgraph.Options{Options: t, Graph: s.Graph, Assistant: s.Assistant, Metadata: s.Metadata, Follow: follow,
		Live: s.LookEvery})
}

// editor is the external editor command: $VISUAL, else $EDITOR.
func (e *env) editor() string {
	if v := e.getenv("VISUAL"); v != "" {
		return v
	}
	return e.getenv("EDITOR")
}

// openTTY opens the controlling terminal, as the reviewer does.
func openTTY() (io.Closer, error) { return os.Open("/dev/tty") }

// noTerminal says, in the reviewer's words, that there is no terminal to
// open the reviewer on (a cron job, a pipe, a container without -t),
// before anything else is tried.
func noTerminal(open func() (io.Closer, error)) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := open()
	if err != nil {
		return &exitErr{exitUsage, errors.New("the reviewer needs a terminal, and this process has none (" + err.Error() + "): run hitl in a terminal (ssh -t, docker run -it), or use the commands made for scripts: hitl list, hitl watch, hitl approve ID")}
	}
	f.Close()
	return nil
}
