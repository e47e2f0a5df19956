package main

// Each test runs hitl in an environment of its own, never the developer's
// shell: a HITL_BACKEND, TMUX, NO_COLOR, EDITOR or XDG_* there changes
// nothing, and tests that set a variable can run in parallel (t.Setenv
// cannot).

import (
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/hitl-sh/hitl/internal/testrun"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain runs several tests at once (see testrun), then stops the
// tests' tmux server and removes its socket. The test binary is also the
// `hitl` of the testscript transcripts (script_test.go).
func TestMain(m *testing.M) {
	testscript.Main(suite{m}, map[string]func(){"hitl": func() { os.Exit(mainCode(os.Stdin, os.Stdout, os.Stderr)) }})
}

// suite is the tests' run, then the cleanup after them.
type suite struct{ m *testing.M }

func (s suite) Run() int {
	code := testrun.Run(s.m)
	tmuxCleanup()
	return code
}

// testEnv is one test's environment variables.
type testEnv struct {
	mu   sync.Mutex
	vars map[string]string
}

var envs sync.Map // *testing.T -> *testEnv

// isolate gives t an environment of its own: its own state directory, no
// config file, a home of its own, and nothing else.
func isolate(t *testing.T) *testEnv {
	t.Helper()
	home := t.TempDir()
	e := &testEnv{vars: map[string]string{
		"HOME":           home,
		"XDG_STATE_HOME": filepath.Join(home, "state"),
		"HITL_CONFIG":    filepath.Join(home, "none.yaml"),
	}}
	envs.Store(t, e)
	t.Cleanup(func() { envs.Delete(t) })
	return e
}

// envOf is t's environment, made by isolate when t has none yet.
func envOf(t *testing.T) *testEnv {
	t.Helper()
	if e, ok := envs.Load(t); ok {
		return e.(*testEnv)
	}
	return isolate(t)
}

// setenv sets a variable of t's environment, as t.Setenv would the
// process's.
func setenv(t *testing.T, k, v string) {
	t.Helper()
	envOf(t).set(k, v)
}

func (e *testEnv) set(k, v string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vars[k] = v
}

// getenv reads the environment as os.Getenv would.
func (e *testEnv) getenv(k string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vars[k]
}

// environ is the environment for a hitl process: the test's variables,
// the PATH to find programs, and extra ("NAME=value") last.
func (e *testEnv) environ(extra ...string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []string{"PATH=" + os.Getenv("PATH")}
	var keys []string
	for k := range e.vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+e.vars[k])
	}
	return append(out, extra...)
}

// The environment of one test is not another's, nor the process's.
func TestEnvironmentIsTheTestsOwn(t *testing.T) {
	t.Parallel()
	a, b := isolate(t), &testEnv{vars: map[string]string{}}
	a.set("HITL_BACKEND", "events")
	if b.getenv("HITL_BACKEND") != "" || a.getenv("PATH") != "" || a.getenv("XDG_STATE_HOME") == "" {
		t.Fatalf("a %v, b %v", a.vars, b.vars)
	}
}
