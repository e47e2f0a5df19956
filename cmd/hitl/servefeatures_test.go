package main

// Everything a reviewer can do against the LangGraph server directly, done
// through the hub: in an SSH session (dismiss with x, reject and stop) and
// with the CLI through its HTTP door (`hitl --backend events --url DOOR`):
// continue a breakpoint, answer a form, a per-call tool approval, dismiss,
// reject --stop, the conversation. What reached the graph is checked.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/internal/realserver"
)

func TestRealHubOffersWhatTheServerOffers(t *testing.T) {
	needSSH(t)
	t.Parallel()
	for _, tg := range targets(t) {
		if !tg.real {
			continue
		}
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			realserver.Hold(t, tg.url)
			isolate(t)
			s := &server{t: t, target: tg}
			port := freePort(t)
			h := newTeamHub(t, s.url, "--http", fmt.Sprintf("127.0.0.1:%d", port))
			d := h.door(port)
			py := s.kind == realserver.Python
			idle := func(th, what string) {
				t.Helper()
				var st struct {
					Status string `json:"status"`
				}
				json.Unmarshal(s.do("GET", "/threads/"+th, nil), &st)
				if st.Status != "idle" {
					t.Fatalf("%s: the thread is %q, want idle", what, st.Status)
				}
			}
			listed := func(id string) listed {
				t.Helper()
				d.waitListed(aliceToken, id)
				_, out, _ := d.cli(aliceToken, "list", "--json")
				var all []listed
				if err := json.Unmarshal([]byte(out), &all); err != nil {
					t.Fatalf("list --json through the door: %v\n%s", err, out)
				}
				for _, it := range all {
					if it.ID == id {
						return it
					}
				}
				t.Fatalf("%s is not listed through the door:\n%s", id, out)
				return listed{}
			}

			// A breakpoint is one, and approve continues it.
			th := s.start("breakpoint", map[string]any{})
			bp := s.onlyPending(th)
			if it := listed(bp.ID); it.Schema != "breakpoint" || it.Title != bp.Title {
				t.Fatalf("the breakpoint through the door: %+v, directly %+v", it, bp)
			}
			code, out, errs := d.cli(aliceToken, "approve", bp.ID)
			if code != 0 || !strings.Contains(out, "Sent") {
				t.Fatalf("continue through the door: exit %d\n%s%s", code, out, errs)
			}
			if runs := s.decisionMeta(th); len(runs) != 1 || runs[0]["hitl_reviewer"] != "alice" {
				t.Fatalf("decision runs of the breakpoint: %v", runs)
			}
			if p := s.pending(th); len(p) != 0 {
				t.Fatalf("the breakpoint still waits: %+v", p)
			}

			// A form is a form: its fields, checked before sending.
			th = s.startGraph("survey", "form", map[string]any{"topic": "zod"})
			form := s.onlyPending(th)
			if it := listed(form.ID); it.Schema != "form" {
				t.Fatalf("the form through the door: %+v", it)
			}
			if _, out, _ := d.cli(aliceToken, "show", form.ID); !strings.Contains(out, "budget *     number from 0 to 100") {
				t.Fatalf("show through the door does not describe the form's fields:\n%s", out)
			}
			code, out, errs = d.cli(aliceToken, "respond", form.ID, "--field", "framework=react", "--field", "tests=true", "--field", "budget=150")
			if code != 2 || !strings.Contains(out+errs, "budget: must be at most 100 (got 150)") || len(s.decisionMeta(th)) != 0 {
				t.Fatalf("a wrong answer through the door: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = d.cli(aliceToken, "respond", form.ID, "--field", "framework=react", "--field", "tests=true", "--field", "budget=50")
			if code != 0 || !strings.Contains(out, "Sent") {
				t.Fatalf("the form's answer through the door: exit %d\n%s%s", code, out, errs)
			}
			if got := s.got(th); !strings.Contains(got, `{"framework":"react","tests":true,"budget":`+s.number("50")+`}`) {
				t.Fatalf("the graph got %s", got)
			}

			// A per-call tool approval allows what its tool allows.
			th = s.startGraph("approver", "percall", map[string]any{"topic": "js"})
			call := s.onlyPending(th)
			if it := listed(call.ID); len(it.Actions) != 1 || strings.Join(it.Actions[0].Allowed, ",") != "approve,edit,reject,respond" {
				t.Fatalf("the per-call approval through the door: %+v", it)
			}
			code, out, errs = d.cli(aliceToken, "approve", call.ID)
			if code != 0 || !strings.Contains(out, "Sent approve") {
				t.Fatalf("approve of a call through the door: exit %d\n%s%s", code, out, errs)
			}
			if py {
				if got := s.toolMessages(th)["send_email"]; !strings.HasPrefix(got, `ran send_email {"to":"customer@example.com"`) {
					t.Fatalf("the tool ran with %q", got)
				}
			} else if got := s.got(th); !strings.Contains(got, `:{"type":"approve"}`) {
				t.Fatalf("the graph got %s", got)
			}

			// The conversation, and both endings, as against the server.
			for _, c := range []struct {
				args         []string
				said, reason string
			}{
				{[]string{"reject", "ID", "-m", "Never on a Sunday", "--stop"}, "Rejected and stopped", "Never on a Sunday"},
				{[]string{"dismiss", "ID", "-m", "handled by phone"}, "Dismissed", "Dismissed by the reviewer: this call was not run. Reason: handled by phone"},
			} {
				th := s.agent("email")
				id := s.onlyPending(th).ID
				listed(id)
				if code, out, errs := d.cli(aliceToken, "conversation", th); code != 0 || !strings.Contains(out, "send_email") {
					t.Fatalf("conversation through the door: exit %d\n%s%s", code, out, errs)
				}
				args := append([]string(nil), c.args...)
				args[1] = id
				code, out, errs := d.cli(aliceToken, args...)
				if code != 0 || !strings.Contains(out, c.said+" "+id[:8]) || !strings.Contains(out, "the reason is in the conversation") {
					t.Fatalf("%v through the door: exit %d\n%s%s", c.args[0], code, out, errs)
				}
				idle(th, c.said)
				if got := s.toolMessages(th)["send_email"]; got != c.reason {
					t.Fatalf("%s: the conversation holds %q, want %q", c.said, got, c.reason)
				}
			}

			if s.js {
				// In an SSH session: x dismisses, x on a reject's confirm
				// stops there too, and a breakpoint is continued.
				th := s.agent("email")
				alice := h.session("alice")
				alice.open(th, "Review tool call send_email")
				alice.press("x", "Send this?", "dismiss")
				alice.press("y", "Dismissed ")
				idle(th, "x in a session")
				if got := s.toolMessages(th)["send_email"]; !strings.HasPrefix(got, "Dismissed by the reviewer") {
					t.Fatalf("x in a session: the conversation holds %q", got)
				}
				th = s.agent("email")
				alice.keys("Escape")
				alice.open(th, "Review tool call send_email")
				alice.press("r", "Reason for")
				alice.text("not on a Sunday")
				alice.keys("C-s")
				alice.waitFor("Send this?", "x stop the agent too")
				alice.press("x", "reject and stop")
				alice.press("y", "Rejected and stopped ")
				idle(th, "reject and stop in a session")
				if got := s.toolMessages(th)["send_email"]; got != "not on a Sunday" {
					t.Fatalf("reject and stop in a session: the conversation holds %q", got)
				}
				if runs := s.decisionMeta(th); len(runs) != 1 || runs[0]["hitl_reviewer"] != "alice" {
					t.Fatalf("decision runs: %v", runs)
				}
				// A breakpoint, continued in the session.
				th = s.start("breakpoint", map[string]any{})
				title := s.onlyPending(th).Title
				alice.keys("Escape")
				alice.open(th, title)
				alice.press("a", "Send this?")
				alice.press("y", "Sent continue")
				if runs := s.decisionMeta(th); len(runs) != 1 || runs[0]["hitl_reviewer"] != "alice" {
					t.Fatalf("decision runs of the breakpoint: %v", runs)
				}
				if p := s.pending(th); len(p) != 0 {
					t.Fatalf("the breakpoint still waits after a continue in a session: %+v", p)
				}
			}
		})
	}
}
