package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Going back from approve for good's confirm screen (L, then esc) leaves
// no draft behind: the inbox does not say "draft", and what was decided
// before L is as it was.
func TestEscFromApproveForGoodLeavesNoDraft(t *testing.T) {
	it := fixture(t, "middleware-js-email", idEmail, time.Minute)
	it.Always = []string{"send_email *"}
	h := newHarness(t, 100, 30, it)
	h.keys("enter", "L")
	h.wantScreen("Send this?", "from now on, the agent does not ask for: send_email *")
	h.keys("esc")
	if d := h.m.drafts[it.ID]; d != nil && d.touched() {
		t.Fatalf("esc from approve for good left a draft: %+v", d.decisions[0])
	}
	h.keys("esc")
	if s := h.screen(); strings.Contains(s, "draft") {
		t.Fatalf("the inbox shows a draft after esc from approve for good:\n%s", s)
	}
	// A decision made before L is there again after esc.
	h.keys("enter", "r")
	h.typeText("wrong customer")
	h.keys("ctrl+s")
	before := h.m.drafts[it.ID].decisions[0]
	if before == nil || before.Message != "wrong customer" {
		h.t.Fatalf("the reject was not drafted: %+v\n%s", before, h.screen())
	}
	h.keys("esc", "L")
	h.wantScreen("Send this?", "approve for good")
	h.keys("esc")
	if got := h.m.drafts[it.ID].decisions[0]; got == nil || got.Type != "reject" || got.Message != "wrong customer" || got.Always {
		t.Fatalf("esc from approve for good lost the reject drafted before: %+v", got)
	}
}

// geminiShellCall is a Gemini CLI tool-call confirmation as the A2A
// backend reads it (client/a2a's geminiQuestion): a shell command, no
// coding agent's origin, its root commands what proceed_always allows.
func geminiShellCall(id string) client.Interrupt {
	raw := []byte(`{"request":{"callId":"run_shell_command-1","name":"run_shell_command","args":{"command":"git push origin main","description":"Push the fix to origin"}},"status":"awaiting_approval","confirmationDetails":{"type":"exec","title":"Confirm Shell Command","command":"git push origin main","rootCommand":"git"}}`)
	p := client.Payload{Schema: client.SchemaMiddleware, Title: "Approve run_shell_command?", Always: []string{"git"},
		Actions: []client.Action{{Name: "run_shell_command", Args: json.RawMessage(`{"command":"git push origin main","description":"Push the fix to origin"}`),
			Description: "Confirm Shell Command\nCommand: git push origin main", Allowed: []client.DecisionType{client.Approve, client.Reject}}}}
	return client.Interrupt{ID: id, ThreadID: "task-" + id[:4], GraphID: "gemini", CreatedAt: t0.Add(-time.Minute), UpdatedAt: t0.Add(-time.Minute),
		Payload: client.Normalized(p), Raw: raw}
}

// The detail of a Gemini CLI tool call says what approve for good (L)
// allows, as hitl show, the key bar and the confirm screen do; at 80x24.
func TestDetailSaysWhatApproveForGoodAllows(t *testing.T) {
	h := newHarness(t, 80, 24, geminiShellCall(idEmail))
	h.open()
	h.wantScreen("run_shell_command", "L approve for good")
	flat := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(flat, "approved for good (L), allows: git") {
		t.Fatalf("the detail does not say what L allows:\n%s", h.screen())
	}
	h.keys("L")
	h.wantScreen("Send this?", "from now on, the agent does not ask for: git")
}
