package main

// hitl serve over SSH, the rest of what a team does with it: an edit as
// the first approval, confirmed by a second approver who sees the diff;
// a SIGHUP that lets a new reviewer in without dropping anyone; each
// session's own NO_COLOR. The real OpenSSH client, in tmux at 80x24,
// against the real dev server.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRealHubEditAsFirstApproval(t *testing.T) {
	s := realDev(t)
	isolate(t)
	h := newTeamHub(t, s.url)
	th := s.agent("ops") // delete_records (two approvers) and notify (editable)
	title := "Review 2 tool calls: delete_records, notify"

	// alice approves delete_records and edits notify's channel.
	alice := h.session("alice")
	alice.open(th, title)
	alice.press("a", "Now action 2 of 2")
	alice.press("e", "Arguments of notify (JSON)", `"channel": "#ops"`)
	alice.keys("Down", "C-k")
	alice.text(`  "channel": "#oncall",`)
	alice.waitFor(`"channel": "#oncall",`)
	alice.keys("C-s")
	alice.waitFor("Record your approval?", "Changed: $.channel")
	alice.press("y", "1 of 2 approvals (alice) recorded for delete_records: nothing is sent")
	if got := s.decisionMeta(th); len(got) != 0 {
		t.Fatalf("a first approval sent something: %v", got)
	}

	// bob sees what alice approved, the edit's diff included, and confirms.
	bob := h.session("bob")
	bob.open(th, title)
	bob.waitFor("1 of 2 approvals (alice): approve delete_records, edit notify")
	bob.press("a", "Confirming alice's approval")
	bob.waitFor("Send this?", "Action 2/2 notify: edit", "Changed: $.channel", `-   "channel": "#o[ps]",`, `+   "channel": "#o[ncall]",`)
	bob.press("y", "Sent approve, edit")
	runs := s.decisionMeta(th)
	if len(runs) != 1 || runs[0]["hitl_reviewer"] != "bob" || fmt.Sprint(runs[0]["hitl_approvers"]) != "[alice bob]" {
		t.Fatalf("decision runs: %v", runs)
	}
	tools := s.toolMessages(th)
	if !strings.HasPrefix(tools["delete_records"], "ran delete_records") || !strings.Contains(tools["notify"], `"channel":"#oncall"`) {
		t.Fatalf("what reached the graph: %q", tools)
	}
}

func TestRealHubReloadsTheTeamOnSIGHUP(t *testing.T) {
	s := realDev(t)
	isolate(t)
	h := newTeamHub(t, s.url)
	alice := h.session("alice")
	alice.waitFor("hitl · alice@hub", "live (the hub's watcher)")
	bob := h.session("bob")
	bob.waitFor("hitl · bob@hub · ", "live (the hub's watcher)")
	if strings.Contains(bob.screen(), "view only") {
		t.Fatalf("bob, an approver, is view only:\n%s", bob.screen())
	}

	// eve is no reviewer yet: refused at authentication.
	if out, err := runSSH(h, "eve"); exitCode(err) != 255 || !strings.Contains(out, "Permission denied (publickey)") {
		t.Fatalf("eve before the reload: exit %d: %s", exitCode(err), out)
	}
	cfgPath := filepath.Join(h.dir, "config.yaml")
	cfg, _ := os.ReadFile(cfgPath)
	pub, _ := os.ReadFile(filepath.Join(h.dir, "eve.pub"))
	next := strings.Replace(string(cfg), "  rules:", fmt.Sprintf("    eve: {keys: [%q], role: viewer}\n  rules:", strings.TrimSpace(string(pub))), 1)
	// And bob is made a viewer, carol an approver (the rule still has two).
	bobLine := regexp.MustCompile(`(?m)^(    bob: \{.*role: )approver\}$`)
	carolLine := regexp.MustCompile(`(?m)^(    carol: \{.*role: )viewer\}$`)
	if !bobLine.MatchString(next) || !carolLine.MatchString(next) {
		t.Fatalf("the test's team has no bob or carol line:\n%s", next)
	}
	next = carolLine.ReplaceAllString(bobLine.ReplaceAllString(next, "${1}viewer}"), "${1}approver}")
	if err := os.WriteFile(cfgPath, []byte(next), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.proc.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(h.log.String(), `msg="team reloaded" reviewers=4`); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no reload logged:\n%s", h.log.String())
		}
	}
	// eve's key is accepted now, with her role.
	eve := h.session("eve")
	eve.waitFor("hitl · eve@hub · view only")
	// bob's open session follows his new role at once.
	bob.waitFor("hitl · bob@hub · view only")
	// alice's session stayed: it still answers her keys.
	alice.keys("?")
	alice.waitFor("hitl · alice@hub")
	alice.keys("Escape")
	if strings.Contains(alice.screen(), "session ended") || strings.Contains(h.log.String(), `msg="session end" reviewer=alice`) {
		t.Fatalf("the reload dropped alice's session:\n%s\n%s", alice.screen(), h.log.String())
	}
	alice.keys("/")
	alice.text("no-such-thread")
	alice.waitFor("no-such-thread")
}

// runSSH runs ssh as who without a terminal, and returns what it said.
func runSSH(h *teamHub, who string) (string, error) {
	cmd := exec.Command("ssh", h.sshArgs(who, "-T")...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// sgr finds the SGR sequences of a pane captured with -e.
var sgr = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// colours counts the colour parameters (foreground, background, 256 and
// true colour) in a capture.
func colours(capture string) int {
	n := 0
	for _, m := range sgr.FindAllStringSubmatch(capture, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			v, _ := strconv.Atoi(p)
			if (v >= 30 && v <= 38) || (v >= 40 && v <= 48) || (v >= 90 && v <= 97) || (v >= 100 && v <= 107) {
				n++
			}
		}
	}
	return n
}

func TestRealHubNoColorPerSession(t *testing.T) {
	s := realDev(t)
	isolate(t)
	h := newTeamHub(t, s.url)
	th := s.agent("email")
	// Both terminals can show colour; alice's ssh sends NO_COLOR.
	plain := h.sessionWith("alice", "TERM=xterm-256color", "-o", "SetEnv=NO_COLOR=1")
	coloured := h.sessionWith("bob", "TERM=xterm-256color")
	// The detail colours the arguments' JSON.
	plain.open(th, "Review tool call send_email")
	coloured.open(th, "Review tool call send_email")
	plain.waitFor("hitl · alice@hub", `"to": "customer@example.com"`)
	coloured.waitFor("hitl · bob@hub", `"to": "customer@example.com"`)
	capture := func(tt *tmuxTUI) string {
		out, _ := tt.tmux("capture-pane", "-e", "-p", "-t", tt.session).Output()
		return string(out)
	}
	if n := colours(capture(plain)); n != 0 {
		t.Errorf("the NO_COLOR session has %d colour escapes:\n%q", n, capture(plain))
	}
	if n := colours(capture(coloured)); n == 0 {
		t.Errorf("the other session has no colour:\n%q", capture(coloured))
	}
}
