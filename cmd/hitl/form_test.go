package main

// Interrupts that give the schema of their answer, answered through the
// CLI on every server: testserver/graphs/form.js and percall.js on the
// JS one, testserver/python/graphs/form.py (a Pydantic model) and percall.py
// (LangChain's real middleware in per-call mode) on the Python one, the
// demo's survey and approver agents on the embedded one.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/internal/realserver"
)

// startGraph starts a thread of a graph named per server.
func (s *server) startGraph(embedded, real string, input any) string {
	s.t.Helper()
	graph := embedded
	if s.real {
		graph = real
	}
	var th struct {
		ThreadID string `json:"thread_id"`
	}
	json.Unmarshal(s.do("POST", "/threads", map[string]any{}), &th)
	s.do("POST", "/threads/"+th.ThreadID+"/runs/wait", map[string]any{"assistant_id": graph, "input": input})
	return th.ThreadID
}

func TestRealFormFields(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		// The real graph's Zod schema fails the run on a mismatch; so does
		// the demo's survey.
		th := s.startGraph("survey", "form", map[string]any{"topic": "zod"})
		it := s.onlyPending(th)
		if it.Schema != "form" {
			t.Fatalf("listed %+v", it)
		}
		var full struct {
			ResponseSchema json.RawMessage `json:"response_schema"`
		}
		r := s.hitl("", "show", it.ID, "--json")
		if json.Unmarshal([]byte(r.stdout), &full); !strings.Contains(string(full.ResponseSchema), `"maximum": 100`) {
			t.Fatalf("show --json has no response_schema: %s", r.stdout)
		}
		must(t, s.hitl("", "show", it.ID), 0, "budget *     number from 0 to 100")
		// A wrong value is refused before sending, the field named.
		before := s.runs(th)
		must(t, s.hitl("", "respond", it.ID, "--field", "framework=react", "--field", "tests=true", "--field", "budget=150"), 2, "budget: must be at most 100 (got 150)")
		must(t, s.hitl("", "respond", it.ID, "--value", `{"framework":"angular","tests":true,"budget":5}`), 2, "framework")
		must(t, s.hitl("", "respond", it.ID, "--field", "framework=react", "--field", "tests=maybe", "--field", "budget=5"), 2, `tests: "maybe" is not true or false`)
		must(t, s.hitl("", "respond", it.ID, "-m", "react"), 2, "asks for a typed answer with the fields framework, tests, budget")
		must(t, s.hitl("", "respond", it.ID), 2, ": give --field NAME=VALUE for each (or the whole answer as --value JSON); hitl --url "+s.url+" show "+it.ID[:8]+" describes them")
		if s.runs(th) != before || len(s.pending(th)) != 1 {
			t.Fatal("a refused answer reached the server")
		}
		must(t, s.hitl("", "respond", it.ID, "--field", "framework=react", "--field", "tests=true", "--field", "budget=50"), 0, "finished")
		if got := s.got(th); !strings.Contains(got, `{"framework":"react","tests":true,"budget":`+s.number("50")+`}`) {
			t.Fatalf("got %s", got)
		}
	})
}

func TestRealPerCallApproval(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		// Approve one call: the graph gets the one decision object.
		th := s.startGraph("approver", "percall", map[string]any{"topic": "js"})
		it := s.onlyPending(th)
		if it.Schema != "hitl-middleware" || len(it.Actions) != 1 || it.Actions[0].Name != "send_email" ||
			strings.Join(it.Actions[0].Allowed, ",") != "approve,edit,reject,respond" {
			t.Fatalf("listed %+v", it)
		}
		must(t, s.hitl("", "approve", it.ID), 0, "finished")
		py := s.kind == realserver.Python
		if py {
			// The real middleware: the approved call ran.
			if got := s.toolMessages(th)["send_email"]; !strings.HasPrefix(got, `ran send_email {"to":"customer@example.com"`) {
				t.Fatalf("the tool ran with %q", got)
			}
		} else if got := s.got(th); !strings.Contains(got, `:{"type":"approve"}`) {
			t.Fatalf("got %s", got)
		}
		// Edit another: the args are checked against the tool's schema
		// (from the response schema) first, then sent in the casing the
		// schema spells (camelCase on the JS server, snake_case on the
		// demo's Python-style agent).
		th = s.startGraph("approver", "percall", map[string]any{"topic": "js"})
		it = s.onlyPending(th)
		bad := "to: 'jane' is not valid email"
		if py {
			// The Python tool checks the address with a pattern.
			bad = "to: 'jane' does not match pattern"
		}
		must(t, s.hitl("", "edit", it.ID, "--field", "to=jane"), 2, bad)
		must(t, s.hitl("", "edit", it.ID, "--field", "to=jane@example.com"), 0, "finished")
		edit := `"edited_action":{"name":"send_email","args":{"to":"jane@example.com"`
		if s.js {
			edit = `"editedAction":{"name":"send_email","args":{"to":"jane@example.com"`
		}
		if py {
			if got := s.toolMessages(th)["send_email"]; !strings.HasPrefix(got, `ran send_email {"to":"jane@example.com"`) {
				t.Fatalf("the tool ran with %q", got)
			}
		} else if got := s.got(th); !strings.Contains(got, `{"type":"edit",`+edit) {
			t.Fatalf("got %s", got)
		}
		if s.js && !strings.Contains(s.log(th), `"outcome":"ran send_email {\"to\":\"jane@example.com\"`) {
			t.Fatalf("log %s", s.log(th))
		}
		// Only the decisions a tool allows are offered; two calls are two
		// interrupts, each answered on its own.
		th = s.startGraph("approver", "percall", map[string]any{"topic": "two"})
		p := s.pending(th)
		if len(p) != 2 {
			t.Fatalf("two calls, %d interrupts: %+v", len(p), p)
		}
		for _, x := range p {
			if x.Actions[0].Name == "delete_records" {
				must(t, s.hitl(`{"table":"x","where":"1=1"}`, "edit", x.ID, "--args", "-"), 4, "allowed: approve, reject")
				must(t, s.hitl("", "reject", x.ID, "-m", "not today"), 0, "")
			}
		}
		if py {
			if got := s.toolMessages(th)["delete_records"]; got != s.rejected("delete_records", "not today") {
				t.Fatalf("delete_records: %q", got)
			}
		} else if got := s.got(th); !strings.Contains(got, `{"type":"reject","message":"not today"}`) {
			t.Fatalf("got %s", got)
		}
	})
}
