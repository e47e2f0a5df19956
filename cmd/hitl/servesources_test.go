package main

// One hub, several sources (hub.sources): the real A2A test agent, the
// fake opencode server and a LangGraph server that is down, served in one
// inbox by a real hitl serve. The source that is down takes nothing of the
// others down; a decision through the door or over SSH reaches the source
// of its interrupt, under the team's rules, and is in the team's audit log
// with its source.

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/demo"
)

func TestRealHubServesSeveralSources(t *testing.T) {
	needSSH(t)
	a := newA2A(t)
	fake := demo.NewOpencode()
	ts := httptest.NewServer(fake.Handler())
	t.Cleanup(func() { fake.Close(); ts.CloseClientConnections(); ts.Close() })
	down := fmt.Sprintf("http://127.0.0.1:%d", freePort(t)) // nothing listens

	port := freePort(t)
	h := makeTeamHub(t, down, true, "--http", fmt.Sprintf("127.0.0.1:%d", port))
	h.stop()
	cfg := filepath.Join(h.dir, "config.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	more := fmt.Sprintf(`profiles:
  graphs: {backend: langgraph, url: %q}
  agent: {backend: a2a, url: %q}
  coder: {backend: opencode, url: %q}
hub:
  sources: [graphs, agent, coder]
`, down, a.url, ts.URL)
	if err := os.WriteFile(cfg, append(b, more...), 0o600); err != nil {
		t.Fatal(err)
	}
	h.noSSH = false
	h.start()
	d := h.door(port)

	task := a.start("text")
	push := fake.Ask("ses_push", "bash", []string{"git push origin main"}, []string{"git push *"}, nil)
	// Both sources' interrupts are listed though the LangGraph server is
	// down, and the CLI says which source is down.
	var all []listed
	var errs string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var out string
		var code int
		code, out, errs = d.cli(aliceToken, "list", "--json")
		all = nil
		if code == 0 && json.Unmarshal([]byte(out), &all) == nil && strings.Contains(out, `"thread_id": "`+task+`"`) && strings.Contains(out, `"thread_id": "ses_push"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the door never listed both sources' interrupts (task %s, request %s): exit %d\n%s%s", task, push, code, out, errs)
		}
	}
	if !strings.Contains(errs, "the LangGraph server at "+down+" cannot be listed") {
		t.Errorf("the CLI does not say the LangGraph server is down:\n%s", errs)
	}
	var textID, pushID string
	for _, it := range all {
		switch {
		case it.ThreadID == task:
			textID = it.ID
		case it.ThreadID == "ses_push":
			pushID = it.ID
		}
	}
	if textID == "" || pushID == "" {
		t.Fatalf("list --json through the door: %+v", all)
	}

	// The A2A agent's question, answered through the door: the agent got
	// the text, once.
	code, out, errs := d.cli(aliceToken, "respond", textID, "-m", "eu-west-1")
	if code != 0 || !strings.Contains(out, "Sent respond") {
		t.Fatalf("respond through the door: exit %d\n%s%s", code, out, errs)
	}
	if got := a.received(task); got != `[{"text":"eu-west-1"}]` {
		t.Fatalf("the A2A agent received %s", got)
	}
	// A viewer decides nothing on any source.
	if code, out, errs := d.cli(viewerToken, "approve", pushID); code == 0 || !strings.Contains(out+errs, "reviewer carol is a viewer") {
		t.Fatalf("carol's approve: exit %d\n%s%s", code, out, errs)
	}
	if got := fake.Answered(push); len(got) != 0 {
		t.Fatalf("a viewer's approve reached opencode: %+v", got)
	}

	// opencode's request, rejected through the door with a message: the
	// door lists it in the middleware's shape and spells the answer back
	// in opencode's words.
	clean := fake.Ask("ses_clean", "bash", []string{"rm -rf node_modules"}, []string{"rm *"}, nil)
	var cleanID string
	for deadline := time.Now().Add(20 * time.Second); cleanID == ""; time.Sleep(200 * time.Millisecond) {
		_, out, _ := d.cli(aliceToken, "list", "--json")
		var its []listed
		json.Unmarshal([]byte(out), &its)
		for _, it := range its {
			if it.ThreadID == "ses_clean" {
				cleanID = it.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the door never listed opencode's second request:\n%s", out)
		}
	}
	if _, out, _ := d.cli(aliceToken, "show", cleanID); !strings.Contains(out, "rm -rf node_modules") {
		t.Fatalf("show through the door:\n%s", out)
	}
	code, out, errs = d.cli(aliceToken, "reject", cleanID, "-m", "keep the cache")
	if code != 0 || !strings.Contains(out, "Sent reject") {
		t.Fatalf("reject through the door: exit %d\n%s%s", code, out, errs)
	}
	if got := fake.Answered(clean); !reflect.DeepEqual(got, []demo.OpencodeReply{{Reply: "reject", Message: "keep the cache", By: "reviewer"}}) {
		t.Fatalf("opencode got %+v", got)
	}

	// opencode's request, approved over SSH: opencode got "once".
	bob := h.session("bob")
	bob.waitFor("hitl · bob@hub", "git push origin main")
	bob.keys("/")
	bob.text("ses_push")
	bob.keys("Enter", "Enter")
	bob.waitFor("$ git push origin main")
	bob.press("a", "Send this?")
	bob.press("y", "Sent approve")
	for deadline := time.Now().Add(10 * time.Second); len(fake.Answered(push)) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
	}
	if got := fake.Answered(push); !reflect.DeepEqual(got, []demo.OpencodeReply{{Reply: "once", By: "reviewer"}}) {
		t.Fatalf("opencode got %+v", got)
	}

	// An A2A agent's Strands tool approval: rejected through the door with
	// a reason (listed in the middleware's shape, spelled back as Strands'
	// interruptResponse), and another approved over SSH.
	no, yes := a.start("strands"), a.start("strands")
	idOf := func(task string) string {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			_, out, _ := d.cli(aliceToken, "list", "--json")
			var its []listed
			json.Unmarshal([]byte(out), &its)
			for _, it := range its {
				if it.ThreadID == task {
					return it.ID
				}
			}
		}
		t.Fatalf("the door never listed task %s", task)
		return ""
	}
	noID := idOf(no)
	if _, out, _ := d.cli(aliceToken, "show", noID); !strings.Contains(out, "send_email") || !strings.Contains(out, "dana@customer.example") {
		t.Fatalf("show of a Strands approval through the door:\n%s", out)
	}
	code, out, errs = d.cli(aliceToken, "reject", noID, "-m", "wrong customer")
	if code != 0 || !strings.Contains(out, "Sent reject") {
		t.Fatalf("reject of a Strands approval through the door: exit %d\n%s%s", code, out, errs)
	}
	if _, resp := interruptResponse(t, a.received(no)); resp != `"n: wrong customer"` {
		t.Fatalf("the A2A agent received %s", a.received(no))
	}
	yesID := idOf(yes)
	bob.keys("Escape")
	bob.keys("/")
	bob.text(yes)
	bob.keys("Enter", "Enter")
	bob.waitFor("send_email")
	bob.press("a", "Send this?")
	bob.press("y", "Sent approve")
	for deadline := time.Now().Add(10 * time.Second); a.received(yes) == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
	}
	if _, resp := interruptResponse(t, a.received(yes)); resp != `"y"` {
		t.Fatalf("the A2A agent received %s", a.received(yes))
	}

	// Every decision in the team's audit log, each with its source.
	code, out, errs = d.cli(viewerToken, "history", "--team", "--json")
	if code != 0 {
		t.Fatalf("history --team --json: exit %d\n%s%s", code, out, errs)
	}
	var seen []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON lines: %v\n%s", err, out)
		}
		seen = append(seen, fmt.Sprint(m["reviewer"], " ", m["door"], " ", m["source"], " ", m["outcome"], " ", m["request_id"]))
	}
	for _, want := range []string{"alice http a2a sent " + textID, "alice http opencode sent " + cleanID, "bob ssh opencode sent " + pushID,
		"alice http a2a sent " + noID, "bob ssh a2a sent " + yesID} {
		found := false
		for _, l := range seen {
			found = found || l == want
		}
		if !found {
			t.Errorf("the audit log lacks %q:\n%s", want, strings.Join(seen, "\n"))
		}
	}
}
