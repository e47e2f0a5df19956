// Package decisions holds the CLI's decision commands (approve, edit,
// reject, respond, dismiss, ignore, decide, resume) in gh's shape: each
// command family's options, filled by cmd/hitl's flags, and its run
// function, which finds the interrupts named (review.Session), builds
// their drafts by the rules the TUI shares (decide.Decisions), hands them
// to the one decision pipeline (decide.Pipeline) and prints each outcome.
// A test runs a command with buffers for its I/O and a session on a fake
// backend. cmd/hitl keeps the cobra commands, the flags and the wiring.
package decisions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/review"
)

// Options are what every decision command is asked (the flags they all
// share) and the I/O it works with.
type Options struct {
	// Stdin is where a flag's "-" reads from; Stdout and Stderr are where
	// the outcome and the notes go (cmd/hitl's inert writers).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Open opens the reviewer's session, following a run for as long as
	// given after sending (gh's Factory): a test gives one on a fake backend.
	Open func(follow time.Duration) (*review.Session, error)
	// Again is hitl as it was called (with the flags that said where), for
	// the commands a message suggests.
	Again string

	IDs     []string // the interrupts named (ids or 4+ characters of them)
	Thread  string   // --thread: every waiting interrupt of this thread
	Action  int      // --action, 1-based; 0: every action
	Others  string   // --others: the decision for the other actions
	Message string   // -m
	Answers []string // --answer
	JSON    bool     // --json: each outcome as a JSON object
	DryRun  bool     // --dry-run: the exact resume value printed, nothing sent
	Wait    time.Duration
}

// ErrPrinted marks an error whose message went out already: hitl prints
// nothing more of it, and exits with its Kind.
var ErrPrinted = errors.New("")

// maxInput is the most a file or standard input given to --args,
// --decisions, --field NAME=@FILE or --value may weigh.
const maxInput = 16 << 20

// MaxInput is maxInput, for the tests that go past it.
const MaxInput = maxInput

// safe and safeBlock make backend text printable (one line; lines kept).
var (
	safe      = inert.Line
	safeBlock = inert.Block
)

// Reconcile resolves, against the server, decisions whose outcome this
// machine does not know (hitl was killed mid-send, the network broke), and
// says what it found on w.
func Reconcile(ctx context.Context, s *review.Session, w io.Writer) {
	results, err := s.Pipeline().Reconcile(ctx, nil)
	if err != nil {
		fmt.Fprintln(w, "hitl: cannot read the audit log:", err)
		return
	}
	for _, r := range results {
		if r.Kind != decide.Unknown {
			fmt.Fprintln(w, "hitl: an earlier decision, looked up again:", r.Text())
		}
	}
}

// open opens the session for a command that sends, and resolves first the
// decisions it left of unknown outcome.
func (o *Options) open(ctx context.Context) (*review.Session, error) {
	s, err := o.Open(o.Wait)
	if err != nil {
		return nil, err
	}
	Reconcile(ctx, s, o.Stderr)
	return s, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
