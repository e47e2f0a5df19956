package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A decision taken in an SSH session on a coding agent's request is
// journaled in the reviewer's journal under the hub's source for that
// request (the hub's HTTP door, where the hook put it up), not under the
// LangGraph server's URL: the server never had it, and a reconcile of the
// server's threads must not take it for one of them. The team's audit log
// says hook, through ssh.
func TestHubJournalsAnSSHDecisionOnAHookUnderItsSource(t *testing.T) {
	srv, _ := embedded(t, nil)
	port := freePort(t)
	h := newTeamHub(t, srv.URL(), "--http", fmt.Sprintf("127.0.0.1:%d", port))
	d := h.door(port)
	// The door listens (newTeamHub waits for the SSH door only).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the HTTP door never listened:\n%s", h.log.String())
		}
	}
	p := startHook(t, d.url, "claude", claudeBash)
	id := d.waitRequest("sess-bash")

	bob := h.session("bob")
	bob.open("sess-bash", "Bash")
	bob.press("a", "Send this?")
	bob.press("y", "the agent has the answer")
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}

	type line struct {
		Kind        string `json:"kind"`
		Server      string `json:"server"`
		InterruptID string `json:"interrupt_id"`
		Outcome     string `json:"outcome"`
		Reviewer    string `json:"reviewer"`
	}
	var lines []line
	path := filepath.Join(h.dir, "state", "hitl", "hub", "reviewers", "bob", "audit.jsonl")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		lines = nil
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var l line
				if json.Unmarshal(sc.Bytes(), &l) == nil && l.InterruptID == id {
					lines = append(lines, l)
				}
			}
			f.Close()
		}
		if len(lines) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	if len(lines) != 2 || lines[0].Kind != "intent" || lines[1].Kind != "outcome" || lines[1].Outcome != "accepted" {
		t.Fatalf("bob's journal of %s: %+v", id, lines)
	}
	for _, l := range lines {
		if l.Server != "hitl serve --http" || strings.Contains(l.Server, srv.URL()) {
			t.Fatalf("bob's journal names %q as the source of the hook's request %s, want the hub's door (hitl serve --http): %+v", l.Server, id, lines)
		}
	}
	// The team's audit log: the hook's request, decided over SSH.
	code, out, errs := d.cli(aliceToken, "history", "--team", "--request", id, "--json")
	var e map[string]any
	if code != 0 || json.Unmarshal([]byte(strings.TrimSpace(out)), &e) != nil || e["source"] != "hook" || e["door"] != "ssh" || e["reviewer"] != "bob" || e["outcome"] != "sent" {
		t.Fatalf("history --team: exit %d\n%s%s", code, out, errs)
	}
}
