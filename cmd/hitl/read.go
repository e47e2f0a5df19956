package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
	"github.com/hitl-sh/hitl/watchexec"
)

// listOptions is what hitl list is asked. As each command here (gh's
// shape), its options, then its run function: a test gives io buffers and
// an open that returns a session on a fake backend.
type listOptions struct {
	io           *env
	open         func() (*app, error)
	json, failed bool
}

func listCmd(e *env) *cobra.Command {
	opts := &listOptions{io: e, open: func() (*app, error) { return e.open(0) }}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List pending interrupts, most recently changed first",
		Long: `list prints the pending interrupts, the thread most recently changed first
(on LangGraph any change to a thread moves it up: an answer to another of its
branches, a claim, an approval recorded; so AGE is not in order; what expires goes
first of all), then decisions of unknown outcome and threads whose last run failed
(with the server's error, the decision this machine sent there, and how to answer
again what the thread still holds). --json prints the pending interrupts only, as a
JSON array; --failed the failed threads only (each error in full; with --json, a JSON
array of them).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error { return runList(cmd.Context(), opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array of interrupts (its fields: docs/commands.md)")
	cmd.Flags().BoolVar(&opts.failed, "failed", false, "list only the threads whose last run failed")
	return cmd
}

func runList(ctx context.Context, opts *listOptions) error {
	e := opts.io
	a, err := opts.open()
	if err != nil {
		return err
	}
	a.reconcile(ctx, e)
	if opts.failed {
		return listFailed(ctx, e, a, opts.json)
	}
	its, err := a.Pending(ctx)
	if err != nil {
		return err
	}
	// What expires is decided first: it goes to the top.
	present.DeadlinesFirst(its)
	if opts.json {
		if its == nil {
			its = []client.Interrupt{}
		}
		return writeJSON(e.stdout, its, true)
	}
	printList(e.stdout, its, time.Now())
	printUnknown(e, a)
	printFailedSection(ctx, e, a)
	return nil
}

// showOptions is what hitl show is asked.
type showOptions struct {
	io        *env
	open      func() (*app, error)
	id        string
	json, raw bool
	schemas   bool // the schemas in full, not summarised
}

func showCmd(e *env) *cobra.Command {
	opts := &showOptions{io: e, open: func() (*app, error) { return e.open(0) }}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one interrupt in full",
		Args:  exactArgs(1, "an interrupt id (or 4+ characters of it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id = args[0]
			return runShow(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the interrupt as JSON")
	cmd.Flags().BoolVar(&opts.raw, "raw", false, "print the interrupt's value as the server sent it (exact bytes into a file or a pipe, made inert on a terminal)")
	cmd.Flags().BoolVar(&opts.schemas, "schemas", false, "print each schema (args_schema, response_schema) in full, as JSON, not summarised")
	return cmd
}

func runShow(ctx context.Context, opts *showOptions) error {
	e := opts.io
	a, err := opts.open()
	if err != nil {
		return err
	}
	a.Reading = true
	it, err := a.Find(ctx, opts.id)
	if err != nil {
		return err
	}
	if opts.raw {
		return printRaw(e, it)
	}
	if opts.json {
		return writeJSON(e.stdout, it, true)
	}
	printShow(e.stdout, it, e.again(), a.Journal.ID(), opts.schemas)
	return nil
}

func watchCmd(e *env) *cobra.Command {
	var asJSON bool
	var interval, execTimeout time.Duration
	var execArgv, execShell string
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Print each new interrupt once, as it appears, until stopped",
		Long: `watch prints each pending interrupt once, as it appears: one line each, or with
--json one JSON object per line. A backend that says when something changed (the
LangGraph backend looks every 200 ms, look_every; the others stream, where they can) is followed
live, and also polled every --interval; others are polled every --interval. A long
first listing is printed page by page as it arrives. Interrupts handled from this
machine are never printed. It stops on Ctrl+C; errors are reported on stderr and
retried with backoff.

--exec CMD runs CMD once per interrupt printed, with its JSON (the line --json
prints) on stdin and HITL_INTERRUPT_ID, HITL_THREAD_ID, HITL_GRAPH_ID,
HITL_ASSISTANT_ID, HITL_SCHEMA, HITL_TITLE, HITL_SUMMARY, HITL_SERVER in its
environment (hitl's credential variables, HITL_API_KEY and the like, are left
out). CMD is split into words without a shell (quotes and backslashes work;
nothing is expanded, ; and | are plain characters); --exec-shell CMD runs it with
/bin/sh -c instead. Each run is killed after --exec-timeout; a failure is reported
on stderr and watch goes on. The command runs once per interrupt across watches:
what it ran for is remembered per command line and server, in the state directory,
and a watch started again says for how many it does not run again.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := e.open(0)
			if err != nil {
				return err
			}
			if interval <= 0 {
				interval = a.settings.PollInterval
			}
			hook, err := newExecHook(execArgv, execShell, execTimeout, e.stderr, e.environ)
			if err != nil {
				return err
			}
			a.reconcile(cmd.Context(), e)
			if hook != nil {
				// Per server too: the same command watching another
				// server has its own interrupts.
				if err := hook.Remember(config.StateDir(e.getenv), a.settings.URL+"\n"+hook.Line()); err != nil {
					return err
				}
				hook.Start(cmd.Context())
				defer hook.Stop()
			}
			return watch(cmd.Context(), e, a, interval, asJSON, hook)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per line")
	cmd.Flags().DurationVar(&interval, "interval", 0, "how often to look (default: the profile's poll_interval, 2s)")
	cmd.Flags().StringVar(&execArgv, "exec", "", "run this command for each new interrupt, its JSON on stdin (no shell)")
	cmd.Flags().StringVar(&execShell, "exec-shell", "", "the same, run by /bin/sh -c (for pipes)")
	cmd.Flags().DurationVar(&execTimeout, "exec-timeout", 30*time.Second, "kill the command after this long")
	return cmd
}

// watch prints each interrupt that waits once, as it appears (review.Watch),
// and runs watch --exec's command for it.
func watch(ctx context.Context, e *env, a *app, interval time.Duration, asJSON bool, hook *watchexec.Runner) error {
	return a.Watch(ctx, review.Watcher{
		Interval: interval,
		New: func(it client.Interrupt) error {
			if asJSON {
				if err := writeJSON(e.stdout, it, false); err != nil {
					return err
				}
			} else {
				printLine(e.stdout, it, time.Now())
			}
			if hook != nil {
				return hook.Notify(ctx, it)
			}
			return nil
		},
		Listed: hook.ReportSkipped,
		Failed: func(err error, retry time.Duration) {
			fmt.Fprintf(e.stderr, "hitl watch: %v (retrying in %s)\n", err, retry)
		},
		Back: func() { fmt.Fprintln(e.stderr, "hitl watch: connected again") },
	})
}

func conversationCmd(e *env) *cobra.Command {
	var asJSON bool
	var last int
	cmd := &cobra.Command{
		Use:   "conversation THREAD",
		Short: "Show a thread's conversation: what the agent said and did, also after a decision",
		Long: `conversation shows a thread's messages. THREAD is its id, or 4+ characters of it
that match one thread this machine knows (pending now, seen pending, or decided).
An interrupt's id (or 4+ characters of it) shows its thread's conversation.`,
		Args: exactArgs(1, "a thread id, or 4+ characters of it (hitl show and hitl history print it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := e.open(0)
			if err != nil {
				return err
			}
			c := a.Features.Conversational
			if c == nil {
				return refusedErr("this backend keeps no conversation")
			}
			thread, known, err := a.ThreadOf(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			msgs, err := c.Conversation(cmd.Context(), thread)
			switch {
			case errors.Is(err, client.ErrNoThread) && !known:
				// Neither this machine nor the server knows it: not found (4).
				return refusedErr("no thread or interrupt %q on %s\nhitl conversation takes a thread id, or the id of an interrupt this machine has listed; it knows neither as %q: hitl list shows the waiting interrupts' ids, hitl history the decided ones; hitl show ID prints an interrupt's thread",
					safe(args[0]), safe(a.Backend.Server()), safe(args[0]))
			case errors.Is(err, client.ErrNoThread):
				return nothingErr("thread %s no longer exists on %s (deleted): it has no conversation left to show", safe(thread), safe(a.Backend.Server()))
			case err != nil && !known:
				// A thread this machine never saw: maybe not a thread's id.
				return fmt.Errorf("%w\nhitl conversation takes a thread id, or the id of an interrupt this machine has listed; it knows neither as %q: hitl show ID prints an interrupt's thread, hitl list --json each one's thread_id", err, safe(args[0]))
			}
			if err != nil {
				return err
			}
			if last > 0 && len(msgs) > last {
				msgs = msgs[len(msgs)-last:]
			}
			if asJSON {
				if msgs == nil {
					msgs = []client.Message{}
				}
				return writeJSON(e.stdout, msgs, true)
			}
			for _, m := range msgs {
				fmt.Fprintf(e.stdout, "%s: %s\n", safe(m.Role), indent(safeBlock(m.Content), "  ")[2:])
				for _, tc := range m.ToolCalls {
					fmt.Fprintf(e.stdout, "  -> %s\n", safe(tc))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the messages as JSON")
	cmd.Flags().IntVarP(&last, "last", "n", 20, "only the last N messages (0: all)")
	return cmd
}
