package main

// Gemini CLI's tool-call confirmation on the A2A backend, against the
// real a2a-sdk agent replaying the shape Gemini CLI's agent server sends
// (testserver/a2a, scenarios gemini and gemini-edit): Gemini CLI itself
// needs a model.

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// geminiAnswers are the parts of every message the task received, read as
// Gemini CLI's agent server reads them: the data part's callId and
// outcome, and the text of any text part.
type geminiAnswer struct {
	CallID, Outcome, Text string
	Members               int
}

func geminiAnswers(t *testing.T, a *a2aAgent, task string) []geminiAnswer {
	t.Helper()
	var out []geminiAnswer
	for _, msg := range strings.Split(a.received(task), "\n") {
		if msg == "" {
			continue
		}
		var parts []struct {
			Data map[string]json.RawMessage `json:"data"`
			Text string                     `json:"text"`
		}
		if err := json.Unmarshal([]byte(msg), &parts); err != nil {
			t.Fatalf("received %s: %v", msg, err)
		}
		var g geminiAnswer
		for _, p := range parts {
			if p.Data != nil {
				json.Unmarshal(p.Data["callId"], &g.CallID)
				json.Unmarshal(p.Data["outcome"], &g.Outcome)
				g.Members = len(p.Data)
			}
			g.Text += p.Text
		}
		out = append(out, g)
	}
	return out
}

func TestA2AGeminiConfirmationShown(t *testing.T) {
	a := newA2A(t)
	exec, edit := a.start("gemini"), a.start("gemini-edit")
	it := a.one(exec)
	if it.Schema != "hitl-middleware" || it.Title != "Approve run_shell_command?" || len(it.Actions) != 1 ||
		it.Actions[0].Name != "run_shell_command" || !sameJSON(it.Actions[0].Args, `{"command":"git push origin main","description":"Push the fix to origin"}`) ||
		strings.Join(it.Actions[0].Allowed, ",") != "approve,reject" {
		t.Errorf("Gemini's shell command confirmation: %+v", it)
	}
	r := a.hitl("", "show", it.ID)
	for _, want := range []string{"Shape      gemini-tool-call-confirmation\n", "Action 1 of 1: run_shell_command   allowed: approve, reject",
		"Confirm Shell Command", "Command: git push origin main", "approved for good (approve --always), allows: git\n"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("show does not say %q: %d\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
	it = a.one(edit)
	if it.Schema != "hitl-middleware" || len(it.Actions) != 1 || it.Actions[0].Name != "replace" ||
		!strings.Contains(string(it.Actions[0].Args), `"new_string":"DEBUG = False"`) {
		t.Errorf("Gemini's edit confirmation: %+v", it)
	}
	r = a.hitl("", "show", it.ID)
	for _, want := range []string{"Confirm Edit: config.py", "File: /src/app/config.py", "-DEBUG = True", "+DEBUG = False"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("show does not say %q: %d\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "approve --always") {
		t.Errorf("an edit offers an approve for good Gemini does not give it:\n%s", r.stdout)
	}
	// Nothing was sent by looking.
	if got := a.received(exec) + a.received(edit); got != "" {
		t.Errorf("the agent received %s", got)
	}
}

func TestA2AGeminiApproveAndReject(t *testing.T) {
	a := newA2A(t)
	yes, no, always := a.start("gemini"), a.start("gemini-edit"), a.start("gemini")
	if r := a.hitl("", "approve", a.one(yes).ID); r.code != 0 || !strings.Contains(r.stdout, "Sent approve") {
		t.Fatalf("approve: %d %s %s", r.code, r.stdout, r.stderr)
	}
	got := geminiAnswers(t, a, yes)
	if len(got) != 1 || !strings.HasPrefix(got[0].CallID, "run_shell_command__run_shell_command_") || got[0].Outcome != "proceed_once" ||
		got[0].Members != 2 || got[0].Text != "" {
		t.Errorf("the agent received %s", a.received(yes))
	}
	if r := a.hitl("", "reject", a.one(no).ID, "-m", "keep debug on"); r.code != 0 {
		t.Fatalf("reject: %d %s %s", r.code, r.stdout, r.stderr)
	}
	got = geminiAnswers(t, a, no)
	if len(got) != 1 || !strings.HasPrefix(got[0].CallID, "replace__replace_") || got[0].Outcome != "cancel" || got[0].Text != "keep debug on" {
		t.Errorf("the agent received %s", a.received(no))
	}
	// proceed_always only when asked by name, shown before it goes.
	id := a.one(always).ID
	must(t, a.hitl("", "approve", id, "--always", "--dry-run"), 0, `"outcome": "proceed_always"`)
	if got := a.received(always); got != "" {
		t.Fatalf("a dry run sent %s", got)
	}
	must(t, a.hitl("", "approve", id, "--always"), 0, "Sent approve for good")
	if got := geminiAnswers(t, a, always); len(got) != 1 || got[0].Outcome != "proceed_always" {
		t.Errorf("the agent received %s", a.received(always))
	}
	// The task is answered: a second decision is refused, nothing sent.
	if r := a.hitl("", "approve", "--thread", yes); r.code == 0 {
		t.Errorf("a second decision on an answered task: %d %s", r.code, r.stdout)
	}
	if got := geminiAnswers(t, a, yes); len(got) != 1 {
		t.Errorf("sent twice: %s", a.received(yes))
	}
}

// sameJSON reports whether got holds the JSON value want, whatever its
// members' order (a2a-sdk's protobuf Struct does not keep it).
func sameJSON(got json.RawMessage, want string) bool {
	var g, w any
	return json.Unmarshal(got, &g) == nil && json.Unmarshal([]byte(want), &w) == nil && reflect.DeepEqual(g, w)
}
