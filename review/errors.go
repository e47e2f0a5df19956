package review

import (
	"fmt"

	"github.com/hitl-sh/hitl/client"
)

// Kind is what a refusal means to a script; hitl's exit status says it
// (hitl help exit-codes): the values are those statuses.
type Kind int

const (
	// Failed: something went wrong; the message says what to do.
	Failed Kind = 1
	// Usage: what was asked cannot be read (an id too short, a prefix
	// that names several interrupts).
	Usage Kind = 2
	// Nothing: it no longer waits (decided here, answered elsewhere, its
	// thread deleted), or a filter matched nothing: a script may take it
	// as done.
	Nothing Kind = 3
	// Refused: nothing sent, and nothing says it was handled (no such
	// interrupt, a decision not allowed, a backend without the feature).
	Refused Kind = 4
	// Unconfirmed: sent, but the server cannot confirm it was this
	// decision that took effect.
	Unconfirmed Kind = 5
	// Pending: recorded as a first approval; another approver confirms it.
	Pending Kind = 6
)

// Error is an error with its Kind.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usagef is an error of Kind Usage.
func Usagef(format string, a ...any) error { return &Error{Usage, fmt.Errorf(format, a...)} }

// Nothingf is an error of Kind Nothing.
func Nothingf(format string, a ...any) error { return &Error{Nothing, fmt.Errorf(format, a...)} }

// Refusedf is an error of Kind Refused.
func Refusedf(format string, a ...any) error { return &Error{Refused, fmt.Errorf(format, a...)} }

// About is an error about one interrupt with what a decision command's
// --json object says of it beyond its Kind: Result names it
// ("handled-here", "handled-elsewhere", "gone", "nothing-matched", …), ID
// is the interrupt, Winner what is known of the decision that answered it.
type About struct {
	Err    error
	Result string
	ID     string
	Winner *client.Winner
}

func (e *About) Error() string { return e.Err.Error() }
func (e *About) Unwrap() error { return e.Err }

// WithAbout gives err what a --json object says of it.
func WithAbout(err error, result, id string, w *client.Winner) error {
	return &About{Err: err, Result: result, ID: id, Winner: w}
}
