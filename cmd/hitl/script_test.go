package main

// CLI transcripts that need no terminal, as testscript files
// (testdata/script/*.txtar): each runs the real hitl program (this test
// binary, as TestMain makes it) in an environment of its own, against an
// embedded demo server of its own.

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup:               scriptSetup,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits},
	})
}

// scriptSetup gives a script its own home, state and no config file, and
// a demo server ($DEMO) where five interrupts wait: a tool call ($EMAIL, a
// send_email of the support agent), a question ($ASK), a tool call
// whose arguments hold an escape sequence and hidden characters ($SNEAKY),
// a send_email with an args_schema and a response_schema ($APPROVER, the
// approver agent's) and a form ($SURVEY).
func scriptSetup(e *testscript.Env) error {
	home := filepath.Join(e.WorkDir, "home")
	e.Setenv("HOME", home)
	e.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	e.Setenv("HITL_CONFIG", filepath.Join(e.WorkDir, "none.yaml"))
	e.Setenv("USER", "dana")
	srv := demo.New()
	hs := httptest.NewServer(srv.Handler())
	e.Defer(hs.Close)
	e.Setenv("DEMO", hs.URL)
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: hs.URL}})
	if err != nil {
		return err
	}
	for name, spawn := range map[string]struct {
		graph string
		input map[string]any
	}{"EMAIL": {"support", msg("email")}, "ASK": {"asker", nil}, "SNEAKY": {"sneaky", msg("sneaky")},
		"APPROVER": {"approver", nil}, "SURVEY": {"survey", nil}} {
		th, err := srv.Spawn(spawn.graph, spawn.input)
		if err != nil {
			return err
		}
		id, err := interruptOn(b, th)
		if err != nil {
			return err
		}
		e.Setenv(name, id)
	}
	return nil
}

func msg(s string) map[string]any {
	return map[string]any{"messages": []any{map[string]any{"role": "user", "content": s}}}
}

// interruptOn waits until the thread's run paused, and gives its interrupt.
func interruptOn(b *langgraph.Backend, thread string) (string, error) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		its, err := b.Pending(context.Background())
		if err != nil {
			return "", err
		}
		for _, it := range its {
			if it.ThreadID == thread {
				return it.ID, nil
			}
		}
	}
	return "", fmt.Errorf("thread %s never paused", thread)
}

// exits N PROGRAM [ARGS...] runs the program, as exec does, and fails the
// script unless it exits with N: hitl's exit codes are its scripting
// interface (hitl help exit-codes).
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is no exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
