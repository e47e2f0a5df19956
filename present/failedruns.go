package present

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// FailedThread is a thread whose run failed, as `hitl list --failed
// --json` prints it: the backend's Failure, and the decision this machine
// sent there.
type FailedThread struct {
	client.Failure
	// Sent is this machine's newest decision on the thread (its audit
	// entry), when there is one (LastSent).
	Sent *journal.Entry `json:"sent_from_here"`
}

// Failures prints the failed threads as a section of `hitl list`:
// the error's first line, the decision that led there, what to do. full
// prints each error whole (hitl list --failed).
func Failures(w io.Writer, fs []FailedThread, total int, full bool, now time.Time) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "Runs that failed (%d): the agent waits until someone acts\n", max(total, len(fs)))
	for _, f := range fs {
		fmt.Fprintf(w, "  thread %s  %s ago  graph %s\n", line(f.ThreadID), Age(f.UpdatedAt, now), cut(f.GraphID, 30))
		if full {
			fmt.Fprintf(w, "    error:\n%s\n", indentBy(FailureError(f.Failure, f.Sent), "      "))
		} else {
			fmt.Fprintf(w, "    error: %s\n", ansi.Truncate(FailureGist(f.Failure, f.Sent), 200, "…"))
		}
		if f.Sent != nil {
			fmt.Fprintf(w, "    sent from here: %s\n", SentLine(*f.Sent, 0))
		}
		for _, it := range f.Interrupts {
			if it.CannotAnswerAgain {
				fmt.Fprintf(w, "    still holds %s [%s] %s: this server resumes no failed thread, so no answer can be sent (start the agent again from its application)\n",
					line(ShortID(it.ID)), BadgeOf(it), cut(Summary(it), 60))
				continue
			}
			if it.MayKeepAnswer {
				// The server shows no answer schema: refused, or taken.
				fmt.Fprintf(w, "    still holds %s [%s] %s: answer it again with hitl %s %s … (used if a schema refused the first answer; if the task failed after taking it, the graph keeps the first: this server shows no schema to tell)\n",
					line(ShortID(it.ID)), BadgeOf(it), cut(Summary(it), 60), verbFor(it), line(ShortID(it.ID)))
				continue
			}
			if it.KeptAnswer {
				// A new answer cannot help: the graph kept the first.
				fmt.Fprintf(w, "    still holds %s [%s] %s: the graph keeps the answer it took before failing; a new one is not used (hitl %s %s … runs the task again with the first)\n",
					line(ShortID(it.ID)), BadgeOf(it), cut(Summary(it), 60), verbFor(it), line(ShortID(it.ID)))
				continue
			}
			fmt.Fprintf(w, "    still holds %s [%s] %s: answer it again with hitl %s %s …\n", line(ShortID(it.ID)),
				BadgeOf(it), cut(Summary(it), 60), verbFor(it), line(ShortID(it.ID)))
		}
		if len(f.Interrupts) == 0 {
			fmt.Fprintf(w, "    holds no interrupt: hitl cannot resume it (hitl conversation %s shows where it stopped)\n", line(f.ThreadID))
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
