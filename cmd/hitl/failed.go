package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hitl-sh/hitl/present"
)

// listFailed is `hitl list --failed`: the failed threads only, each error
// in full, or (asJSON) a JSON array of them.
func listFailed(ctx context.Context, e *env, a *app, asJSON bool) error {
	fs, total, ok, err := a.Failures(ctx)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(e.stderr, "hitl: this backend does not say which runs failed")
	}
	if asJSON {
		if fs == nil {
			fs = []present.FailedThread{}
		}
		return writeJSON(e.stdout, fs, true)
	}
	if len(fs) == 0 {
		if ok {
			fmt.Fprintln(e.stdout, "No failed runs.")
		}
		return nil
	}
	present.Failures(e.stdout, fs, total, true, time.Now())
	return nil
}

// printFailedSection ends `hitl list` with the failed threads; not being
// able to read them is said, not fatal (the pending list was printed).
func printFailedSection(ctx context.Context, e *env, a *app) {
	fs, total, _, err := a.Failures(ctx)
	if err != nil {
		fmt.Fprintln(e.stderr, "hitl: cannot list the runs that failed:", err)
		return
	}
	if len(fs) > 0 {
		fmt.Fprintln(e.stdout)
		present.Failures(e.stdout, fs, total, false, time.Now())
	}
}
