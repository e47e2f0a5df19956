package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
)

func listCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List pending interrupts, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := e.open(0)
			if err != nil {
				return err
			}
			a.reconcile(cmd.Context(), e)
			its, err := a.pending(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				if its == nil {
					its = []client.Interrupt{}
				}
				return writeJSON(e.stdout, its, true)
			}
			printList(e.stdout, its, time.Now())
			printUnknown(e, a)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of interrupts (documented in the README)")
	return cmd
}

func showCmd(e *env) *cobra.Command {
	var asJSON, raw bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one interrupt in full",
		Args:  exactArgs(1, "an interrupt id (or 4+ characters of it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := e.open(0)
			if err != nil {
				return err
			}
			it, err := a.find(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if raw {
				return printRaw(e, it)
			}
			if asJSON {
				return writeJSON(e.stdout, it, true)
			}
			printShow(e.stdout, it)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the interrupt as JSON")
	cmd.Flags().BoolVar(&raw, "raw", false, "print the interrupt's value as the server sent it (exact bytes into a file or a pipe, made inert on a terminal)")
	return cmd
}

func watchCmd(e *env) *cobra.Command {
	var asJSON bool
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Print each new interrupt once, as it appears, until stopped",
		Long: `watch prints each pending interrupt once, as it appears: one line each, or with
--json one JSON object per line. A backend that says when something changed (the
LangGraph backend looks every 200 ms; the others stream, where the server can) is followed
live, and also polled every --interval; others are polled every --interval. A long
first listing is printed page by page as it arrives. Interrupts handled from this
machine are never printed. It stops on Ctrl+C; errors are reported on stderr and
retried with backoff.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := e.open(0)
			if err != nil {
				return err
			}
			if interval <= 0 {
				interval = a.settings.PollInterval
			}
			a.reconcile(cmd.Context(), e)
			return watch(cmd.Context(), e, a, interval, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per line")
	cmd.Flags().DurationVar(&interval, "interval", 0, "how often to look (default: the profile's poll_interval, 2s)")
	return cmd
}

func watch(ctx context.Context, e *env, a *app, interval time.Duration, asJSON bool) error {
	// A backend that streams its changes wakes the loop at once.
	var changes <-chan struct{}
	if n, ok := a.backend.(client.Notifier); ok {
		changes = n.Changes(ctx)
	}
	seen := map[string]bool{}
	// show prints, oldest first, what has not been printed yet.
	show := func(its []client.Interrupt, handled map[string]bool) error {
		for i := len(its) - 1; i >= 0; i-- {
			it := its[i]
			if seen[it.ID] || handled[it.ID] {
				continue
			}
			seen[it.ID] = true
			if asJSON {
				if err := writeJSON(e.stdout, it, false); err != nil {
					return err
				}
			} else {
				printLine(e.stdout, it, time.Now())
			}
		}
		return nil
	}
	// A long listing (thousands of interrupts, a slow link) is printed
	// page by page as it arrives.
	var shown error
	progress := func(p client.Progress) {
		if shown == nil {
			shown = show(p.Items, a.journal.Handled())
		}
	}
	wait := interval
	failing := false
	for {
		shown = nil
		its, err := a.pendingProgress(ctx, progress)
		if shown != nil {
			return shown
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			fmt.Fprintf(e.stderr, "hitl watch: %v (retrying in %s)\n", err, wait)
			failing = true
			wait = min(wait*2, 30*time.Second)
		default:
			if failing {
				fmt.Fprintln(e.stderr, "hitl watch: connected again")
				failing = false
			}
			wait = interval
			// Oldest first, so that the output reads in the order things happened.
			if err := show(its, nil); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		case _, open := <-changes:
			if !open {
				changes = nil // the stream is gone: keep polling
			}
		}
	}
}

// pendingProgress is app.pending, reporting a long listing's progress where
// the backend can.
func (a *app) pendingProgress(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	p, ok := a.backend.(client.Progressive)
	if !ok {
		return a.pending(ctx)
	}
	all, err := p.PendingProgress(ctx, report)
	if err != nil {
		return nil, err
	}
	// As app.pending does.
	_ = a.journal.Saw(all)
	handled := a.journal.Handled()
	out := all[:0]
	for _, it := range all {
		if !handled[it.ID] {
			out = append(out, it)
		}
	}
	return out, nil
}

func conversationCmd(e *env) *cobra.Command {
	var asJSON bool
	var last int
	cmd := &cobra.Command{
		Use:   "conversation THREAD",
		Short: "Show a thread's conversation: what the agent said and did, also after a decision",
		Long: `conversation shows a thread's messages. THREAD is its id, or 4+ characters of it
that match one thread this machine knows (pending now, seen pending, or decided).`,
		Args: exactArgs(1, "a thread id, or 4+ characters of it (hitl show and hitl history print it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := e.open(0)
			if err != nil {
				return err
			}
			c, ok := a.backend.(client.Conversational)
			if !ok {
				return nothingErr("this backend keeps no conversation")
			}
			thread, err := a.threadOf(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			msgs, err := c.Conversation(cmd.Context(), thread)
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
