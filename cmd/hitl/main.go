// Command hitl reviews human-in-the-loop interrupts of AI agents: it lists
// them, shows them, and sends approve / edit / reject / respond decisions.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/hitl-sh/hitl/cli/decisions"
	"github.com/hitl-sh/hitl/review"
)

// Stamped by the release build (see .goreleaser.yaml).
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

// Exit codes, as hitl help exit-codes (help.go) documents them.
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitNothing = 3 // it no longer waits: nothing left to do
	exitRefused = 4 // nothing sent, and nothing says it was handled
	// exitUnconfirmed: sent, but the server cannot confirm it was this
	// decision that took effect (aegra).
	exitUnconfirmed = 5
	exitPending     = 6 // recorded as a first approval: another approver confirms it
)

func main() { os.Exit(mainCode(os.Stdin, os.Stdout, os.Stderr)) }

// mainCode is the program on the process's terminal (given by main, the
// one place that names it), its exit code returned.
func mainCode(stdin io.Reader, stdout, stderr io.Writer) int {
	// A dropped SSH session (SIGHUP) and a polite kill (SIGTERM) end hitl as
	// ctrl+c does: what is being sent is still recorded before it exits.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, hangUp := context.WithCancel(ctx)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			// hitl serve reloads its team on SIGHUP; everything else ends.
			if f := onHangup.Load(); f != nil {
				(*f)()
			} else {
				hangUp()
			}
		}
	}()
	e := &env{stdin: stdin, stdout: newTermOut(stdout), stderr: newTermOut(stderr), getenv: os.Getenv, environ: os.Environ}
	code := runEnv(ctx, e, os.Args[1:])
	stop()
	return code
}

// onHangup, when set, is what SIGHUP does instead of ending hitl.
var onHangup atomic.Pointer[func()]

// exitErr carries an exit code with the message for the user.
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string { return e.err.Error() }
func (e *exitErr) Unwrap() error { return e.err }

// exitStatus is the exit status err names: an exitErr's, or a
// review.Error's Kind (whose values are the exit statuses).
func exitStatus(err error) (int, bool) {
	var ee *exitErr
	if errors.As(err, &ee) {
		return ee.code, true
	}
	var re *review.Error
	if errors.As(err, &re) {
		return int(re.Kind), true
	}
	return 0, false
}

// exitKind is exitStatus as a review.Kind: Failed when err names none.
func exitKind(err error) review.Kind {
	if code, ok := exitStatus(err); ok {
		return review.Kind(code)
	}
	return review.Failed
}

// errAlreadyPrinted marks an error whose message went out already.
var errAlreadyPrinted = decisions.ErrPrinted

func usageErr(format string, a ...any) error {
	return &exitErr{exitUsage, fmt.Errorf(format, a...)}
}

// nothingErr is for what no longer waits (decided here, answered
// elsewhere, its thread deleted) or a filter that matched nothing: a
// script may take it as done.
func nothingErr(format string, a ...any) error {
	return &exitErr{exitNothing, fmt.Errorf(format, a...)}
}

// refusedErr is for what hitl would not do and cannot call done: no such
// interrupt (a typo, or one this machine never saw), a decision it does
// not allow, another run on its thread, a backend without the feature.
func refusedErr(format string, a ...any) error {
	return &exitErr{exitRefused, fmt.Errorf(format, a...)}
}

// run is the whole program, callable from tests.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return runIn(ctx, args, stdin, stdout, stderr, getenv, os.Environ)
}

// runIn is run with the whole environment given too (watch --exec passes
// it on).
func runIn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, environ func() []string) int {
	return runEnv(ctx, &env{stdin: stdin, stdout: newTermOut(stdout), stderr: newTermOut(stderr), getenv: getenv, environ: environ}, args)
}

// runEnv is the whole program in e.
func runEnv(ctx context.Context, e *env, args []string) int {
	root := newRoot(e)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if !errors.Is(err, errAlreadyPrinted) {
		fmt.Fprintln(e.stderr, "hitl:", err)
	}
	if code, ok := exitStatus(err); ok {
		return code
	}
	return exitError
}
