package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// An ending (dismiss, reject --stop) is explained once: sent, by the
// result on stdout (or the JSON's message, stdout nothing but JSON); with
// --dry-run, nothing done, by the note on stderr.
func TestEndingIsSaidOnce(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		for _, args := range [][]string{{"dismiss", "ID", "-m", "by phone"}, {"reject", "ID", "--stop", "-m", "by phone"}, {"dismiss", "ID", "--json"}} {
			th := s.agent("email")
			id := s.onlyPending(th).ID
			args = append([]string(nil), args...)
			args[1] = id

			dry := s.hitl("", append(args, "--dry-run")...)
			if dry.code != 0 || strings.Count(dry.stderr, "the thread's work ends there") != 1 {
				t.Fatalf("%v --dry-run: exit %d, the note is not on stderr once:\nstdout: %s\nstderr: %s", args, dry.code, dry.stdout, dry.stderr)
			}

			r := s.hitl("", args...)
			all := r.stdout + r.stderr
			if r.code != 0 || strings.Count(all, "the thread's work ended there") != 1 || strings.Contains(r.stderr, "the thread's work ends there") {
				t.Fatalf("%v: exit %d, the ending is not said once, as the result:\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
			}
			if args[len(args)-1] == "--json" {
				var out struct{ Message string }
				if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || !strings.Contains(out.Message, "the thread's work ended there") {
					t.Fatalf("--json: %v, message %q:\n%s", err, out.Message, r.stdout)
				}
			} else if !strings.Contains(r.stdout, "the thread's work ended there") {
				t.Fatalf("%v: the result is not on stdout:\nstdout: %s\nstderr: %s", args, r.stdout, r.stderr)
			}
		}
	})
}

// Dismissing an Agent Inbox request, which proposes an action, or a
// prompt says nothing was written in the conversation because no tool call
// waited there (the request's action is not one), not that the item "had no
// tool calls".
func TestDismissOfAnInboxRequestSaysWhyNothingIsInTheConversation(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		for _, c := range []struct{ role, reason string }{{"inbox", "by phone"}, {"inbox", ""}, {"prompt", ""}} {
			th := s.start(c.role, map[string]any{"topic": "single"})
			args := []string{"dismiss", s.onlyPending(th).ID}
			if c.reason != "" {
				args = append(args, "-m", c.reason)
			}
			r := s.hitl("", args...)
			why := "where no tool call waited for an answer)"
			if c.role == "inbox" {
				why = "where the request's action is not a tool call waiting for an answer)" // it proposes one, elsewhere
			}
			must(t, r, 0, "nothing was written in the conversation, "+why)
			if strings.Contains(r.stdout+r.stderr, "no tool calls") {
				t.Fatalf("%s: %s", c.role, r.stdout+r.stderr)
			}
		}
	})
}
