package main

// An end-to-end test of the reviewer TUI: the built binary runs in tmux at
// 80x24 against each LangGraph server under test (see targets), keys are
// typed as a person would, and both the screen and what reached the graph
// are checked.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/faultproxy"
)

type tmuxTUI struct {
	t       *testing.T
	session string
	// socket is the tmux server's socket name (-L); empty: the default.
	socket string
}

// tmux runs a tmux command on the session's server.
func (tt *tmuxTUI) tmux(args ...string) *exec.Cmd {
	if tt.socket != "" {
		return exec.Command("tmux", append([]string{"-L", tt.socket}, args...)...)
	}
	return tmux(args...)
}

// tmuxSocket is this test process's own tmux server, in a folder of its
// own: the tests never touch the developer's sessions, nor the one $TMUX
// names, and leave no socket behind (tmuxCleanup).
var tmuxSocket = sync.OnceValue(func() string {
	dir, err := os.MkdirTemp("", "hitl-tmux-")
	if err != nil {
		panic(err)
	}
	return filepath.Join(dir, "socket")
})

var tmuxUsed atomic.Bool

// tmux runs a tmux command on the tests' own server, in an environment
// without the developer's variables (a session it starts inherits it).
func tmux(args ...string) *exec.Cmd {
	tmuxUsed.Store(true)
	c := exec.Command("tmux", append([]string{"-S", tmuxSocket(), "-f", "/dev/null"}, args...)...)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	return c
}

// tmuxCleanup stops the tests' tmux server, if one ran, and removes its
// folder.
func tmuxCleanup() {
	if !tmuxUsed.Load() {
		return
	}
	_ = tmux("kill-server").Run()
	_ = os.RemoveAll(filepath.Dir(tmuxSocket()))
}

func startTUI(t *testing.T, s *server, w, h int, env ...string) *tmuxTUI {
	t.Helper()
	return startTUIAt(t, s.url, w, h, env...)
}

func startTUIAt(t *testing.T, url string, w, h int, env ...string) *tmuxTUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := builtBinary(t)
	session := fmt.Sprintf("hitl-e2e-%d", time.Now().UnixNano())
	vars := envOf(t).environ(append([]string{"TERM=xterm-256color"}, env...)...)
	shell := "env " + strings.Join(quoteAll(vars), " ") + " " + bin + " --url " + url
	cmd := tmux("new-session", "-d", "-s", session, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), shell)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	tt := &tmuxTUI{t: t, session: session}
	t.Cleanup(func() { tt.stop() })
	return tt
}

// stop ends the session and waits for hitl to exit: on a hang-up it still
// writes its drafts and releases its claims, and the test's state folder
// must not be removed under it.
func (tt *tmuxTUI) stop() {
	out, _ := tt.tmux("display-message", "-p", "-t", tt.session, "#{pane_pid}").Output()
	tt.tmux("kill-session", "-t", tt.session).Run()
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return
	}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return // gone
		}
	}
}

func quoteAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	}
	return out
}

func (tt *tmuxTUI) screen() string {
	out, _ := tt.tmux("capture-pane", "-p", "-t", tt.session).Output()
	return string(out)
}

// waitFor waits until the screen shows every part.
func (tt *tmuxTUI) waitFor(parts ...string) string {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tt.screen()
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(s, p)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("the screen never showed %q:\n%s", parts, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// keys types keys as tmux names them ("Enter", "Escape", "C-s") or literal text.
func (tt *tmuxTUI) keys(keys ...string) {
	tt.t.Helper()
	for _, k := range keys {
		if err := tt.tmux("send-keys", "-t", tt.session, k).Run(); err != nil {
			tt.t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

func (tt *tmuxTUI) text(s string) {
	tt.t.Helper()
	if err := tt.tmux("send-keys", "-l", "-t", tt.session, s).Run(); err != nil {
		tt.t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
}

func TestRealTUIEditAndReject(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		edited := `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi Jane", "cc": []}`
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "args.json"), []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		// $EDITOR writes the edited args into the file it is given.
		editor := filepath.Join(dir, "editor.sh")
		if err := os.WriteFile(editor, []byte("#!/bin/sh\ncat '"+filepath.Join(dir, "args.json")+"' > \"$1\"\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		email := s.agent("email")
		ops := s.agent("ops")

		emailID, opsID := s.onlyPending(email).ID, s.onlyPending(ops).ID

		tui := startTUI(t, s, 80, 24, "EDITOR="+editor, "NO_COLOR=1")
		tui.waitFor("pending", "updated")

		// Find the email thread, open it, edit its args in $EDITOR, look at the diff, send.
		tui.keys("/")
		tui.text(email)
		tui.keys("Enter", "Enter")
		// What the email was, and how the edit reads against it.
		to, changed, toDiff := "dana@customer.example", "Changed: $.body, $.cc[0] removed, $.subject, $.to", `"to": "[jane@example.com]"`
		if s.real {
			to, changed, toDiff = "customer@example.com", "Changed: $.body, $.cc[0] removed, $.to", `"to": "[jane]@example.com"`
		}
		tui.waitFor("Review tool call send_email", to)
		tui.keys("e")
		tui.waitFor("Arguments of send_email (JSON)")
		tui.keys("C-e")
		tui.waitFor(`"to": "jane@example.com"`)
		tui.keys("C-s")
		tui.waitFor("Send this?", changed, toDiff)
		tui.keys("y")
		tui.waitFor("the run finished")
		if got := s.toolMessages(email)["send_email"]; got != `ran send_email {"to":"jane@example.com","subject":"Your refund","body":"Hi Jane","cc":[]}` {
			t.Fatalf("the tool ran with %q", got)
		}

		// The ops interrupt: edit is disabled for delete_records; reject both with a reason.
		tui.keys("/")
		tui.text(ops)
		tui.keys("Enter", "Enter")
		tui.waitFor("Review 2 tool calls: delete_records, notify")
		tui.keys("e")
		tui.waitFor("edit is not allowed for action 1; allowed: approve, reject")
		tui.keys("r")
		tui.waitFor("Reason for rejecting")
		tui.text("not during business hours")
		tui.keys("C-s")
		tui.waitFor("Now action 2 of 2")
		tui.keys("r")
		tui.text("skip the notice too")
		tui.keys("C-s")
		screen := tui.waitFor("Send this?", "Action 1/2 delete_records: reject: not during business hours")
		if strings.Contains(screen, "\x1b") {
			t.Fatal("escape sequences in a NO_COLOR capture")
		}
		tui.keys("Enter")
		tui.waitFor("the run finished")
		tools := s.toolMessages(ops)
		if tools["delete_records"] != s.rejected("delete_records", "not during business hours") || tools["notify"] != s.rejected("notify", "skip the notice too") {
			t.Fatalf("tools: %q", tools)
		}
		// Nothing handled comes back: the list has neither.
		tui.keys("Escape")
		time.Sleep(2500 * time.Millisecond) // at least one more poll
		// A list row has its badge; the status lines may name the ids.
		for _, line := range strings.Split(tui.screen(), "\n") {
			if strings.Contains(line, "[tool]") && (strings.Contains(line, emailID[:8]) || strings.Contains(line, opsID[:8])) {
				t.Fatalf("a handled interrupt is listed again:\n%s", tui.screen())
			}
		}
	})
}

// The terminal hangs up (a dropped SSH session) while the TUI follows the
// run of a decision it sent: the decision is recorded, intent and outcome,
// before hitl exits.
func TestRealTUIHangUpWhileSending(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		th := s.agent("email")
		id := s.interruptOf(th)
		p := proxied(t, s)
		p.Inject(faultproxy.Rule{Method: "GET", Path: "/threads/*/runs/*/join", Fault: faultproxy.Stall(0)})
		tui := startTUIAt(t, p.URL(), 100, 30, "NO_COLOR=1")
		tui.waitFor("pending", "updated")
		tui.keys("/")
		tui.text(th)
		tui.keys("Enter")
		tui.waitFor("Review tool call send_email")
		tui.keys("a")
		tui.waitFor("Send this?")
		tui.keys("y")
		deadline := time.Now().Add(20 * time.Second)
		for !joined(p) {
			if time.Now().After(deadline) {
				t.Fatalf("the TUI never joined its run:\n%s", tui.screen())
			}
			time.Sleep(20 * time.Millisecond)
		}
		tmux("kill-session", "-t", tui.session).Run() // SIGHUP
		r := reviewer{state: envOf(t).getenv("XDG_STATE_HOME")}
		runs := s.decisionRuns(th)
		if len(runs) != 1 {
			t.Fatalf("decision runs: %v", runs)
		}
		for time.Now().Before(deadline) {
			if lines := r.audit(t)[runs[0]]; len(lines) >= 2 {
				if !strings.HasPrefix(lines[0], "intent:") || lines[1] != "outcome:running" {
					t.Fatalf("audit: %v", lines)
				}
				_ = id
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("no outcome recorded after the hang-up: %v", r.audit(t)[runs[0]])
	})
}
