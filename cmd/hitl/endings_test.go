package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// reject --stop and dismiss end the thread's work: idle, the tool never
// ran, no new interrupt, the reason in the conversation (where the agent
// keeps tool calls), and history says which.
func TestStopAndDismissEndTheThread(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		for _, c := range []struct {
			args    []string
			said    string
			history string
			reason  string
		}{
			{[]string{"reject", "ID", "-m", "Never on a Sunday", "--stop"}, "Rejected and stopped", "rejected and stopped", "Never on a Sunday"},
			{[]string{"dismiss", "ID", "-m", "handled by phone"}, "Dismissed", "dismissed", "Dismissed by the reviewer: this call was not run. Reason: handled by phone"},
		} {
			th := s.agent("email")
			it := s.onlyPending(th)
			args := append([]string(nil), c.args...)
			args[1] = it.ID
			r := s.hitl("", args...)
			must(t, r, 0, c.said+" "+it.ID[:8])
			must(t, r, 0, "no tool ran")
			must(t, r, 0, "the reason is in the conversation")
			var st struct {
				Status string `json:"status"`
			}
			json.Unmarshal(s.do("GET", "/threads/"+th, nil), &st)
			if st.Status != "idle" {
				t.Fatalf("%s: the thread is %q, want idle", c.said, st.Status)
			}
			if p := s.pending(th); len(p) != 0 {
				t.Fatalf("%s: still pending: %+v", c.said, p)
			}
			tools := s.toolMessages(th)
			if strings.HasPrefix(tools["send_email"], "ran ") {
				t.Fatalf("%s: the tool ran: %q", c.said, tools["send_email"])
			}
			if s.real && tools["send_email"] != c.reason {
				t.Fatalf("%s: the conversation holds %q, want %q", c.said, tools["send_email"], c.reason)
			}
			var msgs []struct {
				Type string `json:"type"`
			}
			json.Unmarshal(s.values(th)["messages"], &msgs)
			if s.real && (len(msgs) == 0 || msgs[len(msgs)-1].Type != "tool") {
				t.Fatalf("%s: the model was run again after it: %+v", c.said, msgs)
			}
			must(t, s.hitl("", "history", "-n", "1"), 0, c.history)
			// A second attempt sends nothing.
			must(t, s.hitl("", "approve", it.ID), 3, "already handled")
		}
	})
}

// Dismissing an interrupt without tool calls (a prompt, an Agent Inbox
// request) writes nothing in the conversation: the CLI says the reason is
// in the audit log only (--dry-run's note, the result), and history has it.
func TestDismissWithoutToolCallsSaysWhereTheReasonIs(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		for _, role := range []string{"prompt", "inbox"} {
			th := s.start(role, map[string]any{"topic": "single"})
			it := s.onlyPending(th)
			dry := s.hitl("", "dismiss", it.ID, "-m", "asked by phone", "--dry-run")
			if !strings.Contains(dry.stderr, "the reason stays in hitl's audit log only") {
				t.Fatalf("%s: the note before sending does not say where the reason goes:\n%s", role, dry.stderr)
			}
			r := s.hitl("", "dismiss", it.ID, "-m", "asked by phone")
			must(t, r, 0, "Dismissed "+it.ID[:8])
			if strings.Contains(r.stdout+r.stderr, "in the conversation") && !strings.Contains(r.stdout+r.stderr, "nothing was written in the conversation") {
				t.Fatalf("%s: claims the reason is in the conversation:\n%s%s", role, r.stdout, r.stderr)
			}
			must(t, r, 0, "the reason is in hitl's audit log only")
			if role == "inbox" {
				// It proposes an action: not "no tool call", but why its
				// action got nothing written.
				must(t, r, 0, "where the request's action is not a tool call waiting for an answer")
				if !strings.Contains(dry.stderr, "the request's action is not a tool call waiting in the conversation") {
					t.Fatalf("inbox: the note before sending:\n%s", dry.stderr)
				}
			}
			if c := s.hitl("", "conversation", s.threadRef(th)); strings.Contains(c.stdout, "asked by phone") {
				t.Fatalf("%s: the conversation has the reason after all; the words are wrong:\n%s", role, c.stdout)
			}
			must(t, s.hitl("", "history", "--json", "-n", "1"), 0, "asked by phone")
		}
	})
}

// Ending the work of a fan-out thread is refused while its other branches
// wait, and refused first: no note about what the ending would do.
func TestStopOnAFanOutBranchIsRefusedBeforeItsNote(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := s.start("fanout", map[string]any{"topic": "a,b"})
		its := s.pending(th)
		if len(its) < 2 {
			t.Fatalf("fan-out: %+v", its)
		}
		for _, args := range [][]string{{"reject", its[0].ID, "-m", "no", "--stop"}, {"dismiss", its[0].ID}} {
			r := s.hitl("", args...)
			must(t, r, 4, "which also waits at another interrupt")
			if strings.Contains(r.stderr, "note:") {
				t.Fatalf("%s: a note before the refusal:\n%s", args[0], r.stderr)
			}
			if p := s.pending(th); len(p) != len(its) {
				t.Fatalf("%s: pending %d, was %d", args[0], len(p), len(its))
			}
		}
	})
}
