package tui

// The reviewer against a server built to attack it (internal/hostile):
// every screen, status and error it draws carries no byte of the server
// that a terminal would act on (the only escape sequences left are the
// TUI's own SGR styling), never the API key, and one poisoned interrupt
// does not hide the others.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/internal/hostile"
)

const hostileKey = "sk-hostile-key-7f3a9c"

// inertScreen fails the test if the raw frame (styling included) carries
// anything but the TUI's own SGR styling that a terminal would act on, or
// the key.
func (h *harness) inertScreen(what string) {
	h.t.Helper()
	raw := h.m.render()
	if where, bad := hostile.Dangerous([]byte(hostile.Unstyled(raw))); bad {
		h.t.Errorf("%s: the frame carries %s\n%s", what, where, h.screen())
	}
	if strings.Contains(raw, hostileKey) {
		h.t.Errorf("%s: the frame shows the API key:\n%s", what, h.screen())
	}
}

func hostileHarness(t *testing.T, w, h int, opts hostile.Options) (*harness, *hostile.Server, string) {
	t.Helper()
	opts.Key = hostileKey
	srv := hostile.New(opts)
	t.Cleanup(srv.Close)
	thread, err := srv.Agent()
	if err != nil {
		t.Fatal(err)
	}
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL, APIKey: hostileKey}})
	if err != nil {
		t.Fatal(err)
	}
	hs := newHarnessOn(t, w, h, nil, b)
	hs.j.SetRedactor(b.Redact)
	return hs, srv, thread
}

func TestHostileServerScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {140, 40}} {
		h, srv, thread := hostileHarness(t, size[0], size[1], hostile.Options{Deep: 100_000, Broken: true})
		h.inertScreen("inbox")
		h.wantScreen("5 pending")
		// Every item: the detail, the conversation, a decision's confirm
		// screen with its resume JSON.
		for i := range len(h.m.items.shown) {
			it := h.m.items.shown[i]
			h.m.items.selected = it.ID
			h.keys("enter")
			h.inertScreen("detail of " + it.ID)
			h.keys("c")
			h.inertScreen("conversation of " + it.ThreadID)
			h.keys("a")
			h.inertScreen("approve " + it.ID)
			h.keys("v")
			h.inertScreen("resume JSON of " + it.ID)
			h.keys("esc", "esc", "esc")
		}
		h.keys("H")
		h.inertScreen("history")
		h.keys("esc")

		// The poisoned one is one item that says what is wrong with it, and
		// takes no decision.
		h.m.items.selected = hostile.IDDeep
		h.m.detail.top() // as moving the cursor to it does (c scrolled it to its conversation)
		h.keys("enter")
		h.wantScreen("nested 100,000 levels deep", "[unreadable]")
		h.keys("a")
		h.wantScreen("approve is not allowed")
		h.keys("esc", "esc")

		// The agent's interrupt is answerable beside the poisoned ones; its
		// run fails with the server's words, key included.
		srv.FailRuns(true)
		for _, it := range h.m.items.shown {
			if it.ThreadID == thread {
				h.m.items.selected = it.ID
			}
		}
		h.keys("a", "y")
		h.inertScreen("a run's error")
		h.wantScreen("the run failed")
		h.keys("H")
		h.inertScreen("history after a failed run")
		h.keys("enter")
		h.inertScreen("conversation from the history")
		h.keys("esc")

		// Errors of every kind, in the status line and the inbox.
		for _, mode := range []hostile.Mode{hostile.Errors, hostile.NotJSON, hostile.Redirect} {
			srv.SetMode(mode)
			// A watched backend may answer from a look that ended a
			// moment before the server turned: the next look sees it.
			for range 20 {
				if h.run(h.m.fetch(false)); h.m.fetchErr != nil {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if h.m.fetchErr == nil {
				t.Fatalf("mode %d: no error", mode)
			}
			h.inertScreen("a fetch error")
			h.keys("R")
			h.inertScreen("refresh")
		}
		if got := srv.Reached(); len(got) > 0 {
			t.Errorf("%d requests reached the other host", len(got))
		}
	}
}

// A form whose schema's titles, descriptions, choices and default carry
// the weapons: shown inertly, and the default is not put raw in its box.
func TestHostileForm(t *testing.T) {
	txt, _ := json.Marshal(hostile.Text)
	schema := json.RawMessage(`{"type":"object","title":` + string(txt) + `,"properties":{"note":{"type":"string","default":` + string(txt) +
		`,"description":` + string(txt) + `},"pick":{"enum":[` + string(txt) + `,"b"]}},"required":["note"]}`)
	it := client.Interrupt{ID: idForm, ThreadID: "t", GraphID: "g", Payload: client.ParseWithSchema(json.RawMessage(txt), schema), Raw: txt}
	h := newHarness(t, 100, 30, it)
	h.keys("enter", "f")
	h.inertScreen("form")
	h.wantScreen(`default A\u001b]0;pwned title\u0007B`)
	h.keys("ctrl+s")
	h.inertScreen("form refused")
	h.keys("ctrl+j")
	h.inertScreen("form as JSON")
}
