package tui

// The CLI and the TUI turn the same typed input into the same resume value,
// byte for byte: the CLI's --dry-run output against what the TUI's confirm
// screen would send, on the same interrupts of the embedded demo server.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

func TestCLIAndTUISendTheSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	bin := filepath.Join(t.TempDir(), "hitl")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/hitl").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	email := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "email"}}}
	ops := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "ops"}}}
	isRaw := func(it client.Interrupt) bool { return it.Schema == client.SchemaRaw }
	for _, tt := range []struct {
		name  string
		graph string
		input map[string]any
		pick  func(client.Interrupt) bool
		cli   []string // ID stands for the interrupt's id
		stdin string
		tui   func(h *harness)
	}{
		{"approve", "support", email, nil, []string{"approve", "ID"}, "", func(h *harness) { h.keys("a") }},
		{"reject with a reason", "support", email, nil, []string{"reject", "ID", "-m", "  not now\n"}, "",
			func(h *harness) { h.keys("r"); h.typeText("  not now\n"); h.keys("ctrl+s") }},
		{"unchanged edit", "support", email, nil, []string{"edit", "ID", "--args", "-"},
			`{"to": "dana@customer.example", "subject": "Your refund for order A-1001", "body": "Hi Dana,\n\nWe have refunded 12.50 EUR to your card. It should arrive within 5 days.\n\nBest,\nSupport", "cc": ["billing@example.com"]}`,
			func(h *harness) { h.keys("e", "ctrl+s") }},
		{"edit", "support", email, nil, []string{"edit", "ID", "--args", "-"}, `{"to": "x@example.com", "subject": "Ré: <offre>", "body": "b"}`,
			func(h *harness) {
				h.keys("e")
				h.msg(externalEditMsg{text: `{"to": "x@example.com", "subject": "Ré: <offre>", "body": "b"}`})
				h.keys("ctrl+s")
			}},
		{"questions", "planner", nil, nil, []string{"respond", "ID", "-m", "use Go", "--answer", "Go", "--answer", "yes"}, "",
			func(h *harness) {
				h.keys("f")
				h.typeText("use Go")
				h.keys("tab")
				h.typeText("Go")
				h.keys("tab")
				h.typeText("yes")
				h.keys("ctrl+s")
			}},
		{"raw answered with JSON", "parallel", nil, isRaw, []string{"respond", "ID", "-m", `{"approved": true}`}, "",
			func(h *harness) { h.keys("f"); h.typeText(`{"approved": true}`); h.keys("ctrl+s") }},
		{"raw answered with text", "parallel", nil, isRaw, []string{"respond", "ID", "-m", `approved`}, "",
			func(h *harness) { h.keys("f"); h.typeText(`approved`); h.keys("ctrl+s") }},
		{"prompt", "asker", nil, nil, []string{"respond", "ID", "-m", "billing@acme.example"}, "",
			func(h *harness) { h.keys("f"); h.typeText("billing@acme.example"); h.keys("ctrl+s") }},
		{"agent inbox", "inbox", nil, nil, []string{"respond", "ID", "-m", "less hype"}, "",
			func(h *harness) { h.keys("f"); h.typeText("less hype"); h.keys("ctrl+s") }},
		{"two actions", "ops", ops, nil, []string{"reject", "ID", "--action", "1", "-m", "not in business hours", "--others", "approve"}, "",
			func(h *harness) { h.keys("r"); h.typeText("not in business hours"); h.keys("ctrl+s", "a") }},
		{"breakpoint", "release", nil, nil, []string{"approve", "ID"}, "", func(h *harness) { h.keys("a") }},
		// An answer schema: the CLI's --field and the TUI's form, one set
		// of typing rules (numbers kept as typed, schema key order).
		{"form fields", "survey", nil, nil, []string{"respond", "ID", "--field", "budget=12.50", "--field", "tests=true", "--field", "framework=vue", "--field", "notes=  by <Friday> "}, "",
			func(h *harness) {
				h.keys("f", "2", "tab")
				h.msg(space())
				h.keys("tab")
				h.typeText("12.50")
				h.keys("tab")
				h.typeText("  by <Friday> ")
				h.keys("ctrl+s")
			}},
		{"form as JSON", "survey", nil, nil, []string{"respond", "ID", "--value", `{"framework":"react","tests":false,"budget":1}`}, "",
			func(h *harness) {
				h.keys("f", "ctrl+j")
				h.msg(externalEditMsg{text: `{"framework":"react","tests":false,"budget":1}`})
				h.keys("ctrl+s")
			}},
		{"edit in the args form", "support", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "refund"}}}, nil,
			[]string{"edit", "ID", "--field", "amount=20"}, "",
			func(h *harness) { h.keys("e", "tab", "ctrl+u"); h.typeText("20"); h.keys("ctrl+s") }},
		{"per-call edit", "approver", nil, nil, []string{"edit", "ID", "--field", "to=jane@example.com"}, "",
			func(h *harness) {
				h.keys("e", "ctrl+j")
				h.msg(externalEditMsg{text: `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi Dana,\n\nYour refund is on its way."}`})
				h.keys("ctrl+s")
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			thread, err := srv.Spawn(tt.graph, tt.input)
			if err != nil {
				t.Fatal(err)
			}
			its, err := b.Pending(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var it *client.Interrupt
			for i := range its {
				if its[i].ThreadID == thread && (tt.pick == nil || tt.pick(its[i])) {
					it = &its[i]
				}
			}
			if it == nil {
				t.Fatalf("no interrupt on %s", thread)
			}
			args := []string{"--url", srv.URL()}
			for _, a := range tt.cli {
				args = append(args, strings.ReplaceAll(a, "ID", it.ID))
			}
			cmd := exec.Command(bin, append(args, "--dry-run")...)
			// Nothing of the developer's shell (HITL_BACKEND…) reaches it.
			home := t.TempDir()
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + home, "HITL_CONFIG=" + filepath.Join(home, "none")}
			cmd.Stdin = strings.NewReader(tt.stdin)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("cli: %v\n%s", err, out)
			}
			cli := compact(t, out)

			h := newHarnessOn(t, 140, 40, nil, b)
			h.m.items.selected = it.ID
			h.tuiDecide(tt.tui)
			_, sub, err := h.m.confirmed(it.ID)
			if err != nil || !onTop[*confirmScreen](h.m) {
				t.Fatalf("tui: not on the confirm screen (%v):\n%s", err, h.screen())
			}
			tui := "(continue: a run with no input and no resume value)"
			if r := sub.Items[0].Resume; !r.Continue {
				tui = compact(t, r.Value)
			}
			if cli != tui {
				t.Fatalf("the CLI and the TUI differ:\n cli: %s\n tui: %s", cli, tui)
			}
		})
	}
}

// tuiDecide types the decision keys, past the grace period.
func (h *harness) tuiDecide(f func(*harness)) {
	h.now = h.now.Add(GracePeriod * 2)
	f(h)
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return string(b)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
