package main

import (
	"encoding/json"
	"reflect"
	"strings"
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
