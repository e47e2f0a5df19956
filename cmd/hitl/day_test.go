package main

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// respond on a tool call is taken as the tool's result: said on stderr
// before anything is sent.
func TestRespondOnAToolCallWarnsFirst(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		th := s.start("inbox", map[string]any{"topic": "single"})
		it := s.onlyPending(th)
		r := s.hitl("", "respond", it.ID, "-m", "do not post it")
		must(t, r, 0, "Sent respond")
		if !strings.Contains(r.stderr, "note: respond on the tool call post_tweet: the agent takes your message as the tool's successful result") {
			t.Fatalf("no warning on stderr:\n%s", r.stderr)
		}
	})
}

// --set changes one argument and keeps the others; --field does the same
// on a tool with no args_schema (the test agent's own); the change is
// printed before it is sent; --args says what it drops.
func TestEditSetKeepsTheOtherArguments(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		for _, flag := range []string{"--set", "--field"} {
			th := s.agent("email")
			it := s.onlyPending(th)
			var proposed map[string]any
			json.Unmarshal(it.Actions[0].Args, &proposed)
			r := s.hitl("", "edit", it.ID, flag, "to=jane@example.com")
			must(t, r, 0, "the run finished")
			if !strings.Contains(r.stderr, `-   "to": "`) || !strings.Contains(r.stderr, `+   "to": "jane@example.com"`) {
				t.Fatalf("%s: no diff on stderr:\n%s", flag, r.stderr)
			}
			var ran map[string]any
			got := s.toolMessages(th)["send_email"]
			json.Unmarshal([]byte(strings.TrimPrefix(got, "ran send_email ")), &ran)
			proposed["to"] = "jane@example.com"
			if !reflect.DeepEqual(ran, proposed) {
				t.Fatalf("%s: the tool ran with %s, want %v", flag, got, proposed)
			}
		}
		th := s.agent("email")
		it := s.onlyPending(th)
		r := s.hitl(`{"to": "x@example.com"}`, "edit", it.ID, "--args", "-", "--dry-run")
		if !strings.Contains(r.stderr, `-   "subject"`) || !strings.Contains(r.stderr, "--args replaces the whole object") {
			t.Fatalf("--args did not say what it drops (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// config init writes a starter file once, never over one; config show
// prints notify and theme.
func TestConfigInit(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "hitl", "config.yaml")
	t.Setenv("HITL_CONFIG", path)
	t.Setenv("HITL_THEME", "")
	t.Setenv("HITL_NOTIFY", "")
	must(t, hitl(t, "", "config", "init"), 0, "Wrote "+path)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file: %v %v", fi, err)
	}
	must(t, hitl(t, "", "config", "init"), 2, "exists already; nothing written")
	r := hitl(t, "", "config", "show")
	must(t, r, 0, `"notify": "desktop"`)
	must(t, r, 0, `"theme": "auto"`)
	must(t, r, 0, `"profile": "local"`)
}

// Without a terminal the reviewer says so, and what to use instead.
func TestNoTerminalIsSaidPlainly(t *testing.T) {
	err := noTerminal(func() (io.Closer, error) {
		return nil, &fs.PathError{Op: "open", Path: "/dev/tty", Err: syscall.ENXIO}
	})
	if err == nil || !strings.Contains(err.Error(), "the reviewer needs a terminal") || !strings.Contains(err.Error(), "hitl list") {
		t.Fatalf("error: %v", err)
	}
	var ee *exitErr
	if !errors.As(err, &ee) || ee.code != exitUsage {
		t.Fatalf("exit: %#v", err)
	}
}
