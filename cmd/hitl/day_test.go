package main

import (
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
