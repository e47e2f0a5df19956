package main

// The CLI through the hub: `hitl --backend events --url http://HUB` (the
// hub's HTTP door) sees the LangGraph server's interrupts, and its
// decisions obey the team's roles and two-person rule as an SSH session's
// do. The built binary is the hub and the CLI; the graph is a real dev
// server (each of them).

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"time"

	"github.com/hitl-sh/hitl/internal/realserver"
)

// door is the teamHub's HTTP door, for the CLI.
func (h *teamHub) door(port int) *hubProc {
	return &hubProc{t: h.t, url: fmt.Sprintf("http://127.0.0.1:%d", port), dir: h.dir}
}

// waitListed waits until the CLI through the door lists interrupt id: the
// door serves the hub's watcher's listing, which sees a new interrupt
// within a poll.
func (h *hubProc) waitListed(token, id string) {
	h.t.Helper()
	var out, errs string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var code int
		code, out, errs = h.cli(token, "list", "--json")
		if code == 0 && strings.Contains(out, `"id": "`+id+`"`) {
			return
		}
	}
	h.t.Fatalf("the CLI through the hub never listed %s:\n%s%s", id, out, errs)
}

// follow reads the door's event stream with token until the test ends.
func (h *hubProc) follow(token string) *syncBuffer {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", h.url+"/hitl/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		h.t.Fatalf("GET /hitl/events: %v %v", resp, err)
	}
	var buf syncBuffer
	go func() { defer resp.Body.Close(); io.Copy(&buf, resp.Body) }()
	return &buf
}

// waitText waits until buf holds every part.
func waitText(t *testing.T, buf *syncBuffer, parts ...string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(buf.String(), p)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the event stream never said %q:\n%s", parts, buf.String())
		}
	}
}

func TestRealHubCLIThroughTheDoor(t *testing.T) {
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
			th := s.agent("ops") // delete_records (two approvers) and notify
			id := s.interruptOf(th)

			// The server's interrupt is in the inbox the door serves.
			d.waitListed(aliceToken, id)
			code, out, errs := d.cli(aliceToken, "show", id)
			if code != 0 || !strings.Contains(out, "delete_records") || !strings.Contains(out, "notify") {
				t.Fatalf("show through the hub: exit %d\n%s%s", code, out, errs)
			}

			// A viewer's token decides nothing.
			code, out, errs = d.cli(viewerToken, "approve", id)
			// Refused (4), not "it broke" (1): nothing was taken.
			if code != exitRefused || !strings.Contains(out+errs, "HTTP 403") || !strings.Contains(out+errs, "reviewer carol is a viewer: only an approver decides") {
				t.Fatalf("carol's approve: exit %d\n%s%s", code, out, errs)
			}
			// The first approval is recorded, and nothing is sent.
			code, out, errs = d.cli(aliceToken, "approve", id)
			if code != exitPending || strings.Contains(out+errs, "Sent") ||
				!strings.Contains(out+errs, ": 1 of 2 approvals (alice) recorded for delete_records: nothing is sent until another approver confirms the same decision") {
				t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
			}
			if got := s.decisionMeta(th); len(got) != 0 {
				t.Fatalf("a first approval sent something: %v", got)
			}
			// Every reviewer sees where it stands.
			if _, out, _ := d.cli(bobToken, "show", id); !strings.Contains(out, "Approvals  1 of 2 approvals (alice: approve delete_records") {
				t.Errorf("bob's show does not say alice approved:\n%s", out)
			}
			// The same approver twice sends nothing.
			code, out, errs = d.cli(aliceToken, "approve", id)
			if code != exitRefused || !strings.Contains(out+errs, ": refused: delete_records: you approved this decision already (1 of 2 approvals (alice))") {
				t.Fatalf("alice's second approve: exit %d\n%s%s", code, out, errs)
			}
			if got := s.decisionMeta(th); len(got) != 0 {
				t.Fatalf("the same approver twice sent something: %v", got)
			}

			// bob confirms: one resume, naming both, and the graph ran it.
			bob := t.TempDir()
			code, out, errs = d.cliIn(bob, bobToken, "approve", id)
			if code != 0 || !strings.Contains(out, "Sent approve, approve") {
				t.Fatalf("bob's approve: exit %d\n%s%s", code, out, errs)
			}
			// His machine's audit log names him, the token's reviewer the
			// door answered with, not the local user (docs/team.md).
			code, out, errs = d.cliIn(bob, bobToken, "approve", id)
			if code != exitNothing || !strings.Contains(errs, "was already handled from this machine (") || !strings.Contains(errs, " by bob, ") {
				t.Fatalf("bob's approve again: exit %d\n%s%s", code, out, errs)
			}
			if _, out, _ := d.cliIn(bob, bobToken, "history", "--json"); strings.Count(out, `"reviewer":`) != 2 || strings.Count(out, `"reviewer":"bob"`) != 2 {
				t.Fatalf("bob's audit log (one line per action):\n%s", out)
			}
			runs := s.decisionMeta(th)
			if len(runs) != 1 || runs[0]["hitl_reviewer"] != "bob" || fmt.Sprint(runs[0]["hitl_approvers"]) != "[alice bob]" {
				t.Fatalf("decision runs: %v", runs)
			}
			if got := s.toolMessages(th)["delete_records"]; !strings.HasPrefix(got, "ran delete_records") {
				t.Fatalf("delete_records: %q", got)
			}
			// Sent again: nothing is sent.
			code, out, errs = d.cli(aliceToken, "approve", id)
			if code != 4 || !strings.Contains(out+errs, "it was answered") {
				t.Fatalf("approve after the answer: exit %d\n%s%s", code, out, errs)
			}
			if got := s.decisionMeta(th); len(got) != 1 {
				t.Fatalf("a decision on an answered interrupt was sent: %v", got)
			}

			// The door itself refuses an answer to it, and says who gave one.
			if code, b := d.do(aliceToken, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": map[string]any{"decisions": []any{map[string]string{"type": "approve"}, map[string]string{"type": "approve"}}}}); code != 409 || !strings.Contains(string(b), "already handled elsewhere (by bob)") {
				t.Fatalf("respond after the answer: HTTP %d %s", code, b)
			}
			if st := d.standing(id); st["status"] != "answered" || st["responded_by"] != "bob" || st["decision_id"] != runs[0]["hitl_decision_id"] {
				t.Fatalf("standing after the answer: %v (run %v)", st, runs[0])
			}

			// An edit (of notify, beside delete_records) as the first approval: the
			// same edit confirms it, and
			// the edited arguments reach the graph.
			events := d.follow(aliceToken)
			th2 := s.agent("ops")
			id2 := s.interruptOf(th2)
			d.waitListed(aliceToken, id2)
			// The door's event stream tells its reviewers (hitl's TUI on
			// --backend events refreshes on it).
			waitText(t, events, "event: hitl_asked", `"request_id":"`+id2+`"`)
			edit := []string{"edit", id2, "--action", "2", "--set", "channel=#oncall", "--others", "approve"}
			code, out, errs = d.cli(aliceToken, edit...)
			if code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (alice) recorded for delete_records") {
				t.Fatalf("alice's edit: exit %d\n%s%s", code, out, errs)
			}
			// bob's plain approve is another decision: it replaces alice's.
			code, out, errs = d.cli(bobToken, "approve", id2)
			if code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (bob) recorded for delete_records; it replaces the approval of another decision (1 of 2 approvals (alice))") {
				t.Fatalf("bob's approve of another decision: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = d.cli(aliceToken, "approve", id2)
			if code != 0 || !strings.Contains(out, "Sent approve, approve") {
				t.Fatalf("alice's confirmation of bob's: exit %d\n%s%s", code, out, errs)
			}
			if runs := s.decisionMeta(th2); len(runs) != 1 || fmt.Sprint(runs[0]["hitl_approvers"]) != "[bob alice]" {
				t.Fatalf("decision runs: %v", runs)
			}
			waitText(t, events, "event: hitl_answered\ndata: {\"request_id\":\""+id2+"\"")
			th3 := s.agent("ops")
			id3 := s.interruptOf(th3)
			d.waitListed(aliceToken, id3)
			edit[1] = id3
			if code, out, errs := d.cli(aliceToken, edit...); code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (alice) recorded") {
				t.Fatalf("alice's edit: exit %d\n%s%s", code, out, errs)
			}
			edit[1] = id3
			if code, out, errs := d.cli(bobToken, edit...); code != 0 || !strings.Contains(out, "Sent approve, edit") {
				t.Fatalf("bob's same edit: exit %d\n%s%s", code, out, errs)
			}
			if got := s.toolMessages(th3)["notify"]; !strings.Contains(got, "#oncall") {
				t.Fatalf("the edited arguments did not reach the graph: notify: %q", got)
			}

			// The hub's log and bob's audit log in the hub say who decided.
			log := h.log.String()
			for _, want := range []string{`msg="approval recorded" reviewer=alice`, `msg="decision sent" reviewer=bob`, "approvers=alice,bob", "door=http"} {
				if !strings.Contains(log, want) {
					t.Errorf("the hub's log lacks %q:\n%s", want, log)
				}
			}
			audit, _ := os.ReadFile(filepath.Join(h.dir, "state", "hitl", "hub", "reviewers", "bob", "audit.jsonl"))
			if !strings.Contains(string(audit), id) || !strings.Contains(string(audit), `"reviewer":"bob"`) {
				entries, _ := filepath.Glob(filepath.Join(h.dir, "state", "hitl", "hub", "reviewers", "bob", "*"))
				t.Errorf("bob's audit log in the hub does not record the decision: %v\n%s", entries, audit)
			}
		})
	}
}

// hitl serve --http alone, with a LangGraph server named (--url): the
// door serves that server's interrupts beside the hooks' requests, under
// the same rule; with none named it would serve the hooks' requests only.
func TestRealHubHTTPDoorAloneServesTheServer(t *testing.T) {
	needSSH(t) // for ssh-keygen: the team's keys
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
			h := makeTeamHub(t, s.url, true, "--http", fmt.Sprintf("127.0.0.1:%d", port))
			if strings.Contains(h.log.String(), "door=ssh") {
				t.Fatalf("hitl serve --http alone opened an SSH door:\n%s", h.log.String())
			}
			d := h.door(port)
			th := s.agent("ops") // delete_records (two approvers) and notify
			id := s.interruptOf(th)
			d.waitListed(aliceToken, id)
			code, out, errs := d.cli(aliceToken, "approve", id)
			if code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (alice) recorded for delete_records") {
				t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = d.cli(bobToken, "approve", id)
			if code != 0 || !strings.Contains(out+errs, "Sent") {
				t.Fatalf("bob's approve: exit %d\n%s%s", code, out, errs)
			}
			if runs := s.decisionMeta(th); len(runs) != 1 || runs[0]["hitl_reviewer"] != "bob" || fmt.Sprint(runs[0]["hitl_approvers"]) != "[alice bob]" {
				t.Fatalf("decision runs: %v", runs)
			}
		})
	}
}
