package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
)

// checkOptions is what hitl check is asked.
type checkOptions struct {
	io   *env
	open func() (*app, error)
	id   string // "": every decision of unknown outcome
}

func checkCmd(e *env) *cobra.Command {
	opts := &checkOptions{io: e, open: func() (*app, error) { return e.open(0) }}
	return &cobra.Command{
		Use:   "check [ID]",
		Short: "Look up on the server what became of decisions whose outcome is unknown",
		Long: `check reads the server to find out what became of decisions sent from this
machine whose outcome hitl could not establish (the network broke, hitl was
killed while sending). Each is reported as sent, handled elsewhere or not sent
and recorded; one the server still cannot tell stays unknown. Decisions whose
run is still going are listed with when they were sent, and left as they are.
With ID, only decisions about that interrupt (4+ characters of its id).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.id = args[0]
			}
			return runCheck(cmd.Context(), opts)
		},
	}
}

func runCheck(ctx context.Context, opts *checkOptions) error {
	e := opts.io
	a, err := opts.open()
	if err != nil {
		return err
	}
	checked, err := a.Check(ctx, opts.id)
	if err != nil {
		return err
	}
	if len(checked.Results) == 0 && len(checked.Running) == 0 {
		fmt.Fprintln(e.stdout, "No decision of unknown outcome.")
		return nil
	}
	for _, r := range checked.Results {
		fmt.Fprintln(e.stdout, r.Text())
	}
	printRunning(e, checked.Running)
	if unknown := checked.Unknown(); unknown > 0 {
		return &exitErr{exitError, fmt.Errorf("%d decision(s) still of unknown outcome: run hitl check again once the server can be read", unknown)}
	}
	return nil
}

// forgetOptions is what hitl forget is asked.
type forgetOptions struct {
	io   *env
	open func() (*app, error)
	id   string
}

func forgetCmd(e *env) *cobra.Command {
	opts := &forgetOptions{io: e, open: func() (*app, error) { return e.open(0) }}
	return &cobra.Command{
		Use:   "forget ID",
		Short: "Make a handled interrupt pending again on this machine (it is listed while the server lists it)",
		Args:  exactArgs(1, "an interrupt id (or 4+ characters of it) that this machine handled"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id = args[0]
			return runForget(opts)
		},
	}
}

func runForget(opts *forgetOptions) error {
	a, err := opts.open()
	if err != nil {
		return err
	}
	id, err := a.Forget(opts.id)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.io.stdout, "%s is pending again on this machine: hitl list shows it while the server lists it.\n", safe(id))
	return nil
}

// printRunning says which decisions' runs are still going, and since when:
// a run that never ends (langgraphjs dev keeps one it was running when it
// was stopped "running" for good) would otherwise stay silent.
func printRunning(e *env, going []journal.Entry) {
	if len(going) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "Still running on the server (sent, the run has not ended; hitl check leaves them as they are):\n")
	for _, x := range going {
		fmt.Fprintf(e.stdout, "  %-8s  sent %s  %-16s  run %-8s  %s\n", safe(present.ShortID(x.InterruptID)), x.Time.Local().Format(time.DateTime),
			oneLine(present.Decided(x), 16), safe(runRef(x.RunID)), oneLine(x.Title, 60))
	}
	fmt.Fprintln(e.stdout, "Their threads stay busy until the runs end: other decisions on them are refused. A run still going long after it was sent may never end: langgraphjs dev keeps a run it was running when it was stopped \"running\" for good (docs/servers.md).")
}

func runRef(id string) string {
	if id == "" {
		return "-"
	}
	return present.ShortThreadID(id)
}

// printUnknown lists decisions whose outcome is unknown, below the inbox.
func printUnknown(e *env, a *app) {
	open := a.Unresolved()
	if len(open) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "\nOutcome unknown (hitl check ID looks again):\n")
	for _, x := range open {
		fmt.Fprintf(e.stdout, "  %-8s  %s  %-16s  %s\n", safe(present.ShortID(x.InterruptID)), x.Time.Local().Format(time.DateTime),
			oneLine(present.Decided(x), 16), oneLine(x.Title, 60))
	}
}
