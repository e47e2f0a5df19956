package main

import (
	"strings"
	"testing"
)

// hitl conversation given an interrupt's id, whole or its first
// characters, shows its thread's conversation and says so; an id this
// machine does not know fails saying what to pass and where to find it.
func TestConversationOfAnInterruptID(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := s.agent("email")
		id := s.onlyPending(th).ID
		want := s.hitl("", "conversation", th)
		must(t, want, 0, "send_email")
		for _, ref := range []string{id, id[:8]} {
			r := s.hitl("", "conversation", ref)
			must(t, r, 0, "hitl: "+ref+" is an interrupt id; showing the conversation of its thread "+th)
			if r.stdout != want.stdout {
				t.Fatalf("conversation %s printed\n%s\nwant the thread's\n%s", ref, r.stdout, want.stdout)
			}
		}
		// Not found is 4 (hitl help exit-codes), and says where ids are.
		for _, ref := range []string{"zzzz", "0000ffff"} {
			must(t, s.hitl("", "conversation", ref), 4, `no thread or interrupt "`+ref+`" on `+s.url+"\nhitl conversation takes a thread id")
			must(t, s.hitl("", "conversation", ref), 4, "hitl list shows the waiting interrupts' ids")
		}
		r := s.hitl("", "conversation", "0000ffff-0000-4000-8000-00000000ffff")
		if r.code != 4 || !strings.Contains(r.stderr, "hitl conversation takes a thread id, or the id of an interrupt this machine has listed; it knows neither as \"0000ffff-0000-4000-8000-00000000ffff\"") || !strings.Contains(r.stderr, "hitl show ID prints an interrupt's thread") {
			t.Fatalf("an unknown id: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
	})
}
