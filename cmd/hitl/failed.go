package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
)

// failuresRead is how many of the newest failed threads are read in full.
const failuresRead = 50

// failedThread is a failed thread as `hitl list --failed --json` prints
// it: the backend's Failure, and the decision this machine sent there.
type failedThread struct {
	client.Failure
	// Sent is this machine's newest decision on the thread (its audit
	// entry), when there is one.
	Sent *journal.Entry `json:"sent_from_here"`
}

// failures reads the failed threads, each with this machine's decision.
// ok is false when the backend cannot tell.
func (a *app) failures(ctx context.Context) (list []failedThread, total int, ok bool, err error) {
	l := a.feat.FailureLister
	if l == nil {
		return nil, 0, false, nil
	}
	fs, total, err := l.Failures(ctx, failuresRead)
	if err != nil {
		return nil, 0, true, err
	}
	hist, err := a.journal.History()
	a.journalWarn(err, "the failed runs are listed without the decisions this machine sent them")
	list = make([]failedThread, len(fs))
	for i, f := range fs {
		list[i] = failedThread{Failure: f, Sent: present.LastSent(hist, a.backend.Server(), f.ThreadID)}
	}
	return list, total, true, nil
}

// printFailures prints the failed threads as a section of `hitl list`:
// the error's first line, the decision that led there, what to do. full
// prints each error whole (hitl list --failed).
func printFailures(w io.Writer, fs []failedThread, total int, full bool, now time.Time) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "Runs that failed (%d): the agent waits until someone acts\n", max(total, len(fs)))
	for _, f := range fs {
		fmt.Fprintf(w, "  thread %s  %s ago  graph %s\n", safe(f.ThreadID), present.Age(f.UpdatedAt, now), oneLine(f.GraphID, 30))
		if full {
			fmt.Fprintf(w, "    error:\n%s\n", indent(present.FailureError(f.Failure, f.Sent), "      "))
		} else {
			fmt.Fprintf(w, "    error: %s\n", ansi.Truncate(present.FailureGist(f.Failure, f.Sent), 200, "…"))
		}
		if f.Sent != nil {
			fmt.Fprintf(w, "    sent from here: %s\n", present.SentLine(*f.Sent, 0))
		}
		for _, it := range f.Interrupts {
			if it.CannotAnswerAgain {
				fmt.Fprintf(w, "    still holds %s [%s] %s: this server resumes no failed thread, so no answer can be sent (start the agent again from its application)\n",
					safe(present.ShortID(it.ID)), present.BadgeOf(it), oneLine(present.Summary(it), 60))
				continue
			}
			if it.MayKeepAnswer {
				// The server shows no answer schema: refused, or taken.
				fmt.Fprintf(w, "    still holds %s [%s] %s: answer it again with hitl %s %s … (used if a schema refused the first answer; if the task failed after taking it, the graph keeps the first: this server shows no schema to tell)\n",
					safe(present.ShortID(it.ID)), present.BadgeOf(it), oneLine(present.Summary(it), 60), verbFor(it), safe(present.ShortID(it.ID)))
				continue
			}
			if it.KeptAnswer {
				// A new answer cannot help: the graph kept the first.
				fmt.Fprintf(w, "    still holds %s [%s] %s: the graph keeps the answer it took before failing; a new one is not used (hitl %s %s … runs the task again with the first)\n",
					safe(present.ShortID(it.ID)), present.BadgeOf(it), oneLine(present.Summary(it), 60), verbFor(it), safe(present.ShortID(it.ID)))
				continue
			}
			fmt.Fprintf(w, "    still holds %s [%s] %s: answer it again with hitl %s %s …\n", safe(present.ShortID(it.ID)),
				present.BadgeOf(it), oneLine(present.Summary(it), 60), verbFor(it), safe(present.ShortID(it.ID)))
		}
		if len(f.Interrupts) == 0 {
			fmt.Fprintf(w, "    holds no interrupt: hitl cannot resume it (hitl conversation %s shows where it stopped)\n", safe(f.ThreadID))
		}
	}
	if total > len(fs) {
		fmt.Fprintf(w, "  … and %d older\n", total-len(fs))
	}
	if !full {
		fmt.Fprintln(w, "  (hitl list --failed prints each error in full)")
	}
}

// verbFor is the command that answers it most plainly.
func verbFor(it client.Interrupt) string {
	for _, t := range []client.DecisionType{client.Approve, client.Respond} {
		for i := 0; i < it.Slots(); i++ {
			if it.Allows(i, t) {
				return strings.ToLower(string(t))
			}
		}
	}
	return "decide"
}

// listFailed is `hitl list --failed`: the failed threads only, each error
// in full, or (asJSON) a JSON array of them.
func listFailed(ctx context.Context, e *env, a *app, asJSON bool) error {
	fs, total, ok, err := a.failures(ctx)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(e.stderr, "hitl: this backend does not say which runs failed")
	}
	if asJSON {
		if fs == nil {
			fs = []failedThread{}
		}
		return writeJSON(e.stdout, fs, true)
	}
	if len(fs) == 0 {
		if ok {
			fmt.Fprintln(e.stdout, "No failed runs.")
		}
		return nil
	}
	printFailures(e.stdout, fs, total, true, time.Now())
	return nil
}

// printFailedSection ends `hitl list` with the failed threads; not being
// able to read them is said, not fatal (the pending list was printed).
func printFailedSection(ctx context.Context, e *env, a *app) {
	fs, total, _, err := a.failures(ctx)
	if err != nil {
		fmt.Fprintln(e.stderr, "hitl: cannot list the runs that failed:", err)
		return
	}
	if len(fs) > 0 {
		fmt.Fprintln(e.stdout)
		printFailures(e.stdout, fs, total, false, time.Now())
	}
}
