package decide_test

import (
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
)

// An ending mixed with answers on one interrupt is refused; a backend that
// cannot end a thread refuses it, nothing sent.
func TestEndingRefusals(t *testing.T) {
	ops := interrupt(t, "middleware-js-ops", "bbbb2222")
	_, p := setup(t, ops)
	if _, err := p.Prepare([]decide.Draft{{Interrupt: ops, Decisions: []client.Decision{{Type: client.Dismiss}, {Type: client.Approve}}}}); err == nil {
		t.Fatal("a dismiss mixed with an approve was prepared")
	}
	p.Backend = noEnd{p.Backend}
	_, err := p.Prepare([]decide.Draft{{Interrupt: ops, Decisions: []client.Decision{{Type: client.Dismiss}, {Type: client.Dismiss}}}})
	if err == nil || !strings.Contains(err.Error(), "cannot end a thread's work") {
		t.Fatalf("err %v", err)
	}
}

// A breakpoint holds no interrupt to end at: dismiss is refused before any
// intent is written (the server would refuse it after).
func TestDismissRefusesABreakpoint(t *testing.T) {
	bp := client.Interrupt{ID: "cccc3333", ThreadID: "t-bp", Payload: client.Breakpoint([]string{"deploy"})}
	_, err := decide.Decision(&bp, 0, decide.Input{Type: client.Dismiss, Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "breakpoint cannot be dismissed") {
		t.Fatalf("err %v", err)
	}
	ops := interrupt(t, "middleware-js-ops", "bbbb2222")
	if _, err := decide.Decision(&ops, 0, decide.Input{Type: client.Dismiss, Text: "x"}); err != nil {
		t.Fatalf("a tool call's dismiss refused: %v", err)
	}
}
