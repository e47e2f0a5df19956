package tui

import (
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
)

// A reject of a coding agent's request is never offered "x stop the agent
// too" (its agent waits for an answer: there is no thread to end);
// pressed, x says so, nothing is marked to stop, and y sends the reject.
func TestRejectAndStopNotOfferedOnAHookRequest(t *testing.T) {
	it := toolCall(idEmail, "sess-bash", "Bash", `{"command":"npm ci"}`)
	it.GraphID, it.AssistantID = "claude", ""
	it.Origin = &client.Origin{Agent: "claude", Host: "build-7", Cwd: "/src/app", SessionID: "sess-bash"}
	h := newHarness(t, 80, 24, it)
	h.open()
	h.keys("r")
	h.typeText("not now")
	h.keys("ctrl+s")
	h.wantScreen("Send this?", "reject: not now")
	if s := h.screen(); strings.Contains(s, "stop the agent too") {
		t.Fatalf("x stop is offered on a hook request:\n%s", s)
	}
	h.keys("x")
	if got := h.statusText(); !strings.Contains(got, "Not stopped: a coding agent's request cannot be rejected and stopped (its agent waits for an answer); y sends the reject alone.") {
		t.Fatalf("status %q\n%s", got, h.screen())
	}
	if s := h.screen(); strings.Contains(s, "Note: rejected and stopped") || strings.Contains(s, "reject and stop:") {
		t.Fatalf("x marked the reject to stop:\n%s", s)
	}
	h.keys("v")
	if s := h.screen(); strings.Contains(s, "the thread's work is ended") {
		t.Fatalf("v says the thread's work is ended:\n%s", s)
	}
	h.keys("y")
	if sent := h.sent(idEmail); !strings.Contains(sent, `"reject"`) {
		t.Fatalf("sent %q", sent)
	}
}

// endsSome is a backend of two sources as a hub merges them: it ends
// threads, but not the one of ops.
type endsSome struct{ *fake.Backend }

func (e endsSome) EndsThreadOf(it client.Interrupt) bool { return it.ID != idOps }

func (e endsSome) Features() client.Features {
	f := e.Backend.Features()
	f.Ender = e
	return f
}

// Per interrupt: where the interrupt's source cannot end a thread, neither
// dismiss nor reject-and-stop is offered, and each says why when pressed;
// beside it, an interrupt of a source that can is offered both.
func TestStopIsDecidedPerInterrupt(t *testing.T) {
	fb := fake.New(toolCall(idEmail, "t-1", "send_email", `{"to":"a@example.com"}`), toolCall(idOps, "t-2", "drop_table", `{"table":"users"}`))
	h := newHarnessOn(t, 80, 24, nil, endsSome{fb})
	h.b = fb
	h.keys("down")
	h.open()
	h.wantScreen("drop_table", "not allowed: f i x")
	h.keys("x")
	if got := h.statusText(); !strings.Contains(got, "Not dismissed: this interrupt's source cannot end a thread's work; reject it instead (nothing sent).") {
		t.Fatalf("status %q\n%s", got, h.screen())
	}
	h.keys("r")
	h.typeText("no")
	h.keys("ctrl+s")
	h.wantScreen("Send this?", "reject: no")
	if s := h.screen(); strings.Contains(s, "stop the agent too") {
		t.Fatalf("x stop is offered where the source cannot end a thread:\n%s", s)
	}
	h.keys("x")
	if got := h.statusText(); !strings.Contains(got, "Not stopped: this interrupt's source cannot end a thread's work; y sends the reject alone.") {
		t.Fatalf("status %q\n%s", got, h.screen())
	}

	o := newHarnessOn(t, 80, 24, nil, endsSome{fake.New(toolCall(idEmail, "t-1", "send_email", `{"to":"a@example.com"}`))})
	o.open()
	o.keys("r")
	o.typeText("no")
	o.keys("ctrl+s")
	o.wantScreen("Send this?", "x stop the agent too")
}
