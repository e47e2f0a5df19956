package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// bob confirms alice's edit of a hook's Bash call; the hook goes away
// (the hub withdrew it) while the confirm screen is open; esc: the status
// says what became of it once, and does not say bob typed anything (the
// edit in his draft is alice's, put there to be confirmed). Seen in a
// trial: the sentence twice, and "What you typed is kept in drafts.json".
func TestConfirmingAnotherApprovalThatWentAwaySaysItOnce(t *testing.T) {
	it := hookBash(idEmail, "s-1", "npm publish")
	edited := json.RawMessage(`{"command":"npm publish --dry-run"}`)
	it.Approval.Decisions = []client.Decision{{Type: client.Edit, Args: edited}}
	h := newHarness(t, 80, 24, it, hookBash(idOps, "s-2", "make"))
	h.m.opts.Host = "hub"
	h.open()
	h.keys("a")
	h.wantScreen("Confirming alice's approval")
	h.b.AnswerElsewhere(idEmail, "hub", client.Resume{Value: json.RawMessage(`null`)})
	h.run(h.m.fetch(false))
	h.tick(1e9)
	h.keys("esc")
	said := h.statusText()
	if strings.Contains(said, "What you typed") {
		t.Fatalf("the status says bob typed something:\n%s", said)
	}
	if n := strings.Count(said, "aaaa1111"); n != 1 {
		t.Fatalf("the interrupt is named %d times in the status:\n%s", n, said)
	}
}
