package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// hookBash is a coding agent's Bash request with a first approval of two
// on it (a team rule), as the hub lists it.
func hookBash(id, session, command string) client.Interrupt {
	args, _ := json.Marshal(map[string]string{"command": command})
	it := toolCall(id, session, "Bash", string(args))
	it.GraphID, it.AssistantID = "claude", ""
	it.Origin = &client.Origin{Agent: "claude", Host: "build-7", Cwd: "/src/app", SessionID: session}
	it.Approval = &client.Approval{Approvers: []string{"alice"}, Needed: 2, Decisions: []client.Decision{{Type: client.Approve}}, Value: json.RawMessage(`{}`), Tools: []string{"Bash"}}
	return it
}

// Three Bash calls approved once of two: at 80 columns each row still
// shows its command (the tally does not push it out), and the confirm
// screen of the second approval shows what is approved, in full, with the
// keys that send it.
func TestApprovedCallStaysInSight(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := newHarness(t, size[0], size[1], hookBash(idEmail, "s-1", "rm -rf build"), hookBash(idOps, "s-2", "rm -rf /var/lib/postgresql"), hookBash(idQ, "s-3", "dropdb prod"))
		h.m.opts.Host = "hub"
		h.wantScreen(`✔1/2 Bash(command="rm -rf build")`, `✔1/2 Bash(command="rm -rf /var/lib/pos`, `✔1/2 Bash(command="dropdb prod")`)
		h.keys("down")
		h.open()
		h.keys("a")
		h.wantScreen("Action 1/1 Bash: approve", "  $ rm -rf /var/lib/postgresql", "y/enter sends it once", "Confirming alice's approval")
		if size[0] == 80 {
			t.Log("\n" + h.screen())
		}
	}
}

// A call too long for the confirm screen is folded with a mark that says
// how much is left and where it is; the keys that send it stay in sight.
func TestApprovedCallFoldsWithAMark(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("psql -c 'drop table t%d'", i))
	}
	h := newHarness(t, 80, 24, hookBash(idEmail, "s-1", strings.Join(lines, "\n")))
	h.m.opts.Host = "hub"
	h.open()
	h.keys("a")
	h.wantScreen("$ psql -c 'drop table t0'", "psql -c 'drop table t7'", "    … 22 more rows of this call not shown here: esc goes back to the detail,", "y/enter sends it once")
	if strings.Contains(h.screen(), "drop table t8'") {
		t.Fatalf("the fold shows more than it says:\n%s", h.screen())
	}
	h.keys("esc")
	h.wantScreen("Review tool call Bash")
}

// A plain tool call's approve shows its arguments, on one line when they
// fit.
func TestApprovedArgumentsOnTheConfirmScreen(t *testing.T) {
	h := newHarness(t, 80, 24, toolCall(idEmail, "t-1", "send_email", `{"to":"ceo@example.com","subject":"layoffs"}`))
	h.open()
	h.keys("a")
	h.wantScreen("Action 1/1 send_email: approve", `  {"to":"ceo@example.com","subject":"layoffs"}`)
}
