package main

// What a new user found trying the CLI with only the README.

import (
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/config"
)

// A claim this state folder's hitl (the TUI) left is this machine's own:
// show says so, not that someone races you, by the rule the decide path
// uses (which sends without a note); another reviewer's claim still warns.
func TestShowTellsOwnClaimFromAnothers(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		th := s.start("prompt", map[string]any{"topic": "string"})
		id := s.onlyPending(th).ID
		j, err := journal.Open(config.StateDir(envOf(t).getenv))
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		claim := func(reviewer, client string) {
			s.do("PATCH", "/threads/"+th, map[string]any{"metadata": map[string]any{"hitl_claim_" + id + "_" + client: map[string]any{
				"reviewer": reviewer, "client": client, "interrupt_id": id,
				"since": now.Add(-3 * time.Minute), "expires": now.Add(time.Minute)}}})
		}
		claim("root", j.ID())
		r := s.hitl("", "show", id[:4])
		must(t, r, 0, "Editing    being edited in hitl on this machine (3m)\n")
		if strings.Contains(r.stdout, "race") || strings.Contains(r.stdout, "root is editing") {
			t.Fatalf("this machine's own claim is shown as another reviewer's:\n%s", r.stdout)
		}
		if r := s.hitl("", "respond", id, "-m", "cli", "--dry-run"); strings.Contains(r.stderr, "race") {
			t.Fatalf("the decide path warns of this machine's own claim: %s", r.stderr)
		}

		claim("carol", "carols-laptop")
		r = s.hitl("", "show", id)
		must(t, r, 0, "Editing    carol is editing (3m): a decision now may race theirs\n")
		must(t, r, 0, "Editing    being edited in hitl on this machine (3m)\n")
	})
}
