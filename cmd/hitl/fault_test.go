package main

// A fault-injecting proxy between hitl and each LangGraph server under test:
// the network breaks before the resume reaches the server, after it, with a
// gateway's 502, with a cut answer, and while hitl follows the run (then
// hitl is hung up on, or killed). Each ends with the truthful outcome, no
// second send, no interrupt hidden for ever, and an audit record of every
// decision that reached the server.

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/faultproxy"
)

func proxied(t *testing.T, s *server) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(s.url)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestRealFaultsOnTheResume(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		bin := builtBinary(t)
		for _, tt := range []struct {
			name  string
			fault faultproxy.Fault
			code  int
			says  string
			sent  bool // the decision reached the graph
		}{
			{"reset before the server", faultproxy.ResetBeforeUpstream(), 1, "the server has no trace of it, so it was not sent", false},
			{"reset after the server", faultproxy.ResetAfterUpstream(), 0, "Sent approve for", true},
			{"502 after the server", faultproxy.BadGatewayAfterUpstream(), 0, "Sent approve for", true},
			{"answer cut short", faultproxy.TruncateAfterUpstream(0), 0, "Sent approve for", true},
		} {
			t.Run(tt.name, func(t *testing.T) {
				p := proxied(t, s)
				th := s.agent("email")
				id := s.interruptOf(th)
				r := newReviewer(t, "alice")
				p.Inject(faultproxy.Rule{Method: "POST", Path: "/threads/*/runs", Times: 1, Fault: tt.fault})
				pr := r.start(t, bin, p.URL(), "approve", id)
				code := pr.wait()
				out := pr.stdout.String() + pr.stderr.String()
				if code != tt.code || !strings.Contains(out, tt.says) {
					t.Fatalf("exit %d (want %d), output does not say %q:\n%s", code, tt.code, tt.says, out)
				}
				// Never a second send: one run at most carries a decision.
				if runs := s.decisionRuns(th); len(runs) > 1 || (len(runs) == 1) != tt.sent {
					t.Fatalf("decision runs on the server: %v (sent: %v)", runs, tt.sent)
				}
				ran := strings.HasPrefix(s.toolMessages(th)["send_email"], "ran send_email")
				if ran != tt.sent {
					t.Fatalf("the tool ran: %v, want %v", ran, tt.sent)
				}
				// Every decision that reached the server is in the audit log.
				audit := r.audit(t)
				for _, d := range s.decisionRuns(th) {
					if len(audit[d]) < 2 {
						t.Fatalf("decision %s: audit %v", d, audit[d])
					}
				}
				// Not sent: the interrupt is still listed, not hidden.
				list, _ := r.cmd(bin, s.url, "list").CombinedOutput()
				if listed := strings.Contains(string(list), id[:8]); listed == tt.sent {
					t.Fatalf("listed: %v after a decision that reached the graph: %v\n%s", listed, tt.sent, list)
				}
			})
		}
	})
}

// hitl is hung up on (SIGHUP, a dropped SSH session) or killed while it
// follows the run it started: the decision reached the server, and the
// audit log says so at once (hung up) or at the next start (killed).
func TestRealStalledJoinHungUpOrKilled(t *testing.T) {
	withLanghostShared(t, func(t *testing.T, s *server) {
		bin := builtBinary(t)
		for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGKILL} {
			t.Run(sig.String(), func(t *testing.T) {
				p := proxied(t, s)
				th := s.agent("email")
				id := s.interruptOf(th)
				r := newReviewer(t, "alice")
				p.Inject(faultproxy.Rule{Method: "GET", Path: "/threads/*/runs/*/join", Fault: faultproxy.Stall(0)})
				pr := r.start(t, bin, p.URL(), "approve", id)
				deadline := time.Now().Add(20 * time.Second)
				for !joined(p) {
					if time.Now().After(deadline) {
						t.Fatal("hitl never joined its run")
					}
					time.Sleep(20 * time.Millisecond)
				}
				pr.cmd.Process.Signal(sig)
				done := make(chan int)
				go func() { done <- pr.wait() }()
				select {
				case <-done:
				case <-time.After(15 * time.Second):
					pr.cmd.Process.Kill()
					t.Fatalf("hitl did not end after %s", sig)
				}
				runs := s.decisionRuns(th)
				if len(runs) != 1 {
					t.Fatalf("decision runs: %v", runs)
				}
				lines := r.audit(t)[runs[0]]
				if len(lines) == 0 || !strings.HasPrefix(lines[0], "intent:") {
					t.Fatalf("no intent recorded for the decision that reached the server: %v", lines)
				}
				if sig != syscall.SIGKILL && len(lines) < 2 {
					t.Fatalf("hung up, but no outcome recorded: %v\n%s", lines, pr.stderr.String())
				}
				// The next start, on the same server (the network healed), settles it.
				p.Clear()
				out, err := r.cmd(bin, p.URL(), "list").Output()
				if err != nil {
					t.Fatalf("list: %v\n%s", err, out)
				}
				lines = r.audit(t)[runs[0]]
				if last := lines[len(lines)-1]; strings.HasPrefix(last, "intent:") || strings.HasSuffix(last, ":unknown") {
					t.Fatalf("unresolved after the next start: %v\n%s", lines, out)
				}
				if strings.Contains(string(out), id[:8]) {
					t.Fatalf("the answered interrupt is listed:\n%s", out)
				}
			})
		}
	})
}

func joined(p *faultproxy.Proxy) bool {
	for _, e := range p.Log() {
		if strings.HasSuffix(e.Path, "/join") {
			return true
		}
	}
	return false
}
