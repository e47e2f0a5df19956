package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/faultproxy"
	"github.com/hitl-sh/hitl/internal/realserver"
)

// The two-person rule through a real `hitl serve`: the first approval is
// its own outcome (exit 6, "approval-recorded" in --json), and a reviewer
// the team's reload takes out loses the approval she gave: the row says
// so, and the next approval is a first one again, not a send naming her.
func TestHubDropsARemovedReviewersApprovalAtReload(t *testing.T) {
	rules := "  rules:\n    - tools: [\"Bash\"]\n      approvals: 2\n"
	const carolToken = "carol-token-0123456789abcdef"
	carol := "    carol: {token: \"" + carolToken + "\", role: approver}\n"
	withCarol := strings.Replace(teamYAML, "  publishers:\n", carol+"  publishers:\n", 1)
	h := startHub(t, withCarol+rules)
	p := h.hook("claude", claudeBash)
	id := h.waitRequest("sess-bash")

	code, out, errs := h.cli(aliceToken, "approve", id, "--json")
	var res map[string]any
	if code != exitPending || json.Unmarshal([]byte(out), &res) != nil || res["result"] != "approval-recorded" || res["exit_code"] != float64(exitPending) ||
		!strings.Contains(res["message"].(string), "1 of 2 approvals (alice) recorded for Bash") {
		t.Fatalf("alice's first approval: exit %d\n%s%s", code, out, errs)
	}

	// The reload: alice is out of the team.
	noAlice := strings.Replace(withCarol, "    alice: {token: \""+aliceToken+"\", role: approver}\n", "", 1)
	if noAlice == withCarol {
		t.Fatal("the test's team has no alice line to remove")
	}
	if err := os.WriteFile(filepath.Join(h.dir, "config.yaml"), []byte(noAlice+rules), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// bob's list says her approval was dropped.
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, out, _ = h.cli(bobToken, "show", id)
		if strings.Contains(out, "dropped: alice (no longer an approver)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob's show never said alice's approval was dropped:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(out, "0 of 2 approvals") {
		t.Errorf("the approval still counts alice:\n%s", out)
	}
	// alice's token is refused now.
	if code, _, _ := h.cli(aliceToken, "approve", id); code == 0 || code == exitPending {
		t.Fatalf("alice, out of the team, approved: exit %d", code)
	}
	// bob's approval is a first approval: nothing sent, no "alice,bob".
	code, out, errs = h.cli(bobToken, "approve", id)
	if code != exitPending || !strings.Contains(out+errs, "1 of 2 approvals (bob) recorded for Bash; the approval of alice was dropped (no longer an approver)") {
		t.Fatalf("bob after the reload: exit %d\n%s%s", code, out, errs)
	}
	if st := standingAs(h, bobToken, id); st["status"] != "pending" || p.stdout.String() != "" {
		t.Fatalf("sent on a removed reviewer's approval: %v; hook said %q", st, p.stdout.String())
	}
	// carol confirms: sent naming bob and carol.
	if code, out, errs := h.cli(carolToken, "approve", id); code != 0 {
		t.Fatalf("carol's approve: exit %d\n%s%s", code, out, errs)
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	if st := standingAs(h, bobToken, id); st["responded_by"] != "bob + carol" {
		t.Fatalf("responded_by %v", st["responded_by"])
	}
	// The team's audit log tells the story, alice's drop included.
	_, out, _ = h.cli(bobToken, "history", "--team", "--request", id, "--json")
	if got := auditStory(t, out); got != "alice:approval-recorded alice:approval-dropped bob:approval-recorded carol:sent" {
		t.Fatalf("the team's audit log of %s: %s\n%s", id, got, out)
	}
}

// auditStory is hitl history --team --json's lines, oldest first, as
// "reviewer:outcome" words.
func auditStory(t *testing.T, out string) string {
	t.Helper()
	var words []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON lines: %v\n%s", err, out)
		}
		words = append([]string{fmt.Sprint(m["reviewer"], ":", m["outcome"])}, words...)
	}
	return strings.Join(words, " ")
}

func standingAs(h *hubProc, token, id string) map[string]any {
	h.t.Helper()
	code, b := h.do(token, "GET", "/hitl/requests/"+id, nil)
	var st map[string]any
	if code != 200 || json.Unmarshal(b, &st) != nil {
		h.t.Fatalf("standing of %s: HTTP %d %s", id, code, b)
	}
	return st
}

// Sources are independent: with the hub's LangGraph server down, the
// door still lists (and says that source is down), an SSH session shows
// a new hook request and the source's status, and the request is decided
// and answered.
func TestHubServesHookRequestsWithTheLangGraphServerDown(t *testing.T) {
	srv, _ := embedded(t, nil)
	port := freePort(t)
	h := newTeamHub(t, srv.URL(), "--http", fmt.Sprintf("127.0.0.1:%d", port))
	d := h.door(port)
	bob := h.session("bob")
	bob.waitFor("live")

	srv.Close() // the LangGraph server goes down
	p := startHook(t, d.url, "claude", claudeBash)
	id := d.waitRequest("sess-bash")
	// The door lists, and says which source is down (once the hub's
	// watcher has seen it fail: within a poll).
	var down string
	for deadline := time.Now().Add(20 * time.Second); down == ""; time.Sleep(100 * time.Millisecond) {
		req, _ := http.NewRequest("GET", d.url+"/hitl/pending", nil)
		req.Header.Set("Authorization", "Bearer "+aliceToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("/hitl/pending with the server down: HTTP %d", resp.StatusCode)
		}
		down = resp.Header.Get("Hitl-Source-Down")
		if time.Now().After(deadline) {
			t.Fatal("/hitl/pending never said the LangGraph server is down")
		}
	}
	// The CLI through the door lists the request and says the source is down.
	code, out, errs := d.cli(aliceToken, "list")
	if code != 0 || !strings.Contains(out, "Bash") || !strings.Contains(errs, "hitl: warning: the LangGraph server at "+srv.URL()+" cannot be listed (") ||
		strings.Count(errs, "the rest of the inbox is listed") != 1 || strings.Count(errs, "cannot be listed") != 1 {
		t.Fatalf("list with the server down: exit %d\n%s%s", code, out, errs)
	}
	// bob's session shows the new request, and the source's status.
	bob.waitFor("[claude]", "LangGraph server at", "is down · the rest is live")
	code, out, errs = d.cli(bobToken, "approve", id)
	if code != 0 || !strings.Contains(out, "the agent has the answer") {
		t.Fatalf("bob's approve with the server down: exit %d\n%s%s", code, out, errs)
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
}

// A hub with no server at all (--hooks-only) serves the hooks' requests
// over SSH too: the session is live, no source is down, and a request is
// decided and answered. --hooks-only without --http is a usage error.
func TestHooksOnlyHubOverSSH(t *testing.T) {
	port := freePort(t)
	h := newTeamHub(t, "", "--http", fmt.Sprintf("127.0.0.1:%d", port), "--hooks-only")
	d := h.door(port)
	bob := h.session("bob")
	bob.waitFor("live (the hub's watcher)")
	p := startHook(t, d.url, "claude", claudeBash)
	id := d.waitRequest("sess-bash")
	bob.waitFor("[claude]")
	if s := bob.screen(); strings.Contains(s, "is down") || strings.Contains(s, "2024") {
		t.Fatalf("a hooks-only hub reads a server:\n%s", s)
	}
	if code, out, errs := d.cli(aliceToken, "list"); code != 0 || !strings.Contains(out, "Bash") || strings.Contains(errs, "warning") {
		t.Fatalf("list: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := d.cli(bobToken, "approve", id); code != 0 || !strings.Contains(out, "the agent has the answer") {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	cmd := exec.Command(builtBinary(t), "serve", "--ssh", "127.0.0.1:0", "--hooks-only")
	cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(h.dir, "config.yaml"), "XDG_STATE_HOME="+filepath.Join(h.dir, "state2"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--hooks-only serves the requests put up on the HTTP door: give --http ADDR too") {
		t.Fatalf("--hooks-only without --http: %v\n%s", err, out)
	}
}

// A hook killed outright (kill -9) cannot withdraw its request: the hub
// does, within the hook's lease (6 s), and a decision after that is told
// that nothing waits, never "Sent … the agent has the answer".
func TestAKilledHooksRequestIsWithdrawnWithinSeconds(t *testing.T) {
	h := startHub(t, teamYAML)
	p := h.hook("claude", claudeBash) // --timeout 10m: without the lease, listed for 10m30s
	id := h.waitRequest("sess-bash")
	alice := t.TempDir()
	if code, out, _ := h.cliIn(alice, aliceToken, "list"); code != 0 || !strings.Contains(out, "Bash") {
		t.Fatalf("alice's list: exit %d\n%s", code, out)
	}
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	killed := time.Now()
	for standingAs(h, aliceToken, id)["status"] == "pending" {
		if time.Since(killed) > 20*time.Second {
			t.Fatal("the killed hook's request is still pending after 20s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	took := time.Since(killed)
	st := standingAs(h, aliceToken, id)
	if st["status"] != "withdrawn" || !strings.Contains(st["reason"].(string), "nothing waits for an answer") {
		t.Fatalf("standing: %v", st)
	}
	t.Logf("withdrawn %s after kill -9", took.Round(100*time.Millisecond))
	if n := h.pendingCount(); n != 0 {
		t.Fatalf("%d requests still listed", n)
	}
	code, out, errs := h.cliIn(alice, aliceToken, "approve", id)
	if code != exitNothing || strings.Contains(out+errs, "Sent") || !strings.Contains(out+errs, "nothing waits for an answer") {
		t.Fatalf("approve after the hook died: exit %d\n%s%s", code, out, errs)
	}
}

// `hitl hook` refuses a redirect to another origin: neither its bearer
// token nor an X-Api-Key header ever reaches it, and the agent asks as
// usual.
func TestHookRefusesARedirectToAnotherOrigin(t *testing.T) {
	var leaked, reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" {
			leaked.Add(1)
		}
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"request_id":"req-stolen","status":"pending"}`))
	}))
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	p := startHook(t, redirecting.URL, "claude", claudeBash, "--header", "X-Api-Key: api-key-never-leaves")
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != "" {
		t.Fatalf("hook: exit %d, stdout %q", code, p.stdout.String())
	}
	oneStderrLine(t, p, "redirected to another origin")
	if reached.Load() != 0 || leaked.Load() != 0 {
		t.Fatalf("the other origin was reached %d times, with credentials %d times", reached.Load(), leaked.Load())
	}
}

// A hook cut off from the hub while it waits tries again with backoff,
// re-attaches to its request by id when the hub answers again, and gets
// the decision a reviewer made while it was away.
func TestHookGetsTheDecisionMadeWhileItWasAway(t *testing.T) {
	h := startHub(t, teamYAML)
	proxy, err := faultproxy.New(h.url)
	if err != nil {
		t.Fatal(err)
	}
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	// Every wait of the hook is cut before it reaches the hub.
	proxy.Inject(faultproxy.Rule{Method: "GET", Path: "/hitl/requests/*", Fault: faultproxy.ResetBeforeUpstream()})
	p := startHook(t, proxy.URL(), "claude", claudeBash)
	id := h.waitRequest("sess-bash")
	reviewer := t.TempDir()
	h.cliIn(reviewer, aliceToken, "list")
	// The hook is away: it cannot have the answer yet.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		n := 0
		for _, e := range proxy.Log() {
			if e.Method == "GET" && !e.Fault.IsZero() {
				n++
			}
		}
		if n >= 2 {
			break // it tried, and tried again
		}
		if time.Now().After(deadline) {
			t.Fatal("the hook never tried to wait through the proxy")
		}
	}
	if code, out, errs := h.cliIn(reviewer, aliceToken, "approve", id); code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	time.Sleep(300 * time.Millisecond)
	if p.stdout.String() != "" {
		t.Fatal("the hook answered while cut off")
	}
	proxy.Clear() // the network is back
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
}

// A decision in the seconds between a hook's death and its request's
// withdrawal is taken by the hub, and says that no hook waits on it, not
// "the agent has the answer".
func TestADecisionWhileNoHookWaitsSaysSo(t *testing.T) {
	h := startHub(t, teamYAML)
	p := h.hook("claude", claudeBash)
	id := h.waitRequest("sess-bash")
	alice := t.TempDir()
	h.cliIn(alice, aliceToken, "list")
	if st := standingAs(h, aliceToken, id); st["publisher_waiting"] != true {
		t.Fatalf("the hook's wait is not seen: %v", st)
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); standingAs(h, aliceToken, id)["publisher_waiting"] != false; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hub still sees the killed hook waiting")
		}
	}
	code, out, errs := h.cliIn(alice, aliceToken, "approve", id)
	const keeps = "its agent gets the answer only if its hook asks for it again (the hub keeps the answer for 7 days)"
	if code != 0 || strings.Contains(out, "the agent has the answer") || strings.Contains(out, "withdraw") ||
		!strings.Contains(out, "the hub took the answer, but no hook is waiting on it right now (killed, or cut off from the hub): "+keeps) {
		t.Fatalf("approve while no hook waits: exit %d\n%s%s", code, out, errs)
	}
	// The team's log says it too.
	if code, out, errs := h.cli(aliceToken, "history", "--team", "--request", id); code != 0 || !strings.Contains(out, "(hook, http)  sent: no hook was waiting on it (killed, or cut off from the hub): "+keeps) {
		t.Fatalf("history: exit %d\n%s%s", code, out, errs)
	}
	// And so it is: past the lease, the request stays answered, with the
	// answer a hook that asks again gets (as the cut-off hook of
	// TestHookGetsTheDecisionMadeWhileItWasAway does), never withdrawn.
	time.Sleep(7 * time.Second)
	if st := standingAs(h, aliceToken, id); st["status"] != "answered" || st["response"] == nil {
		t.Fatalf("past the lease: %v", st)
	}
}

// Defect (3) of issue 32 on a LangGraph interrupt, through the hub with
// both doors: alice's first approval of delete_records (kept in the
// thread's metadata) is dropped when a reload takes her out of the team
// (and makes carol an approver); bob's approval is a first approval again,
// and nothing reaches the graph until carol confirms it.
func TestHubDropsARemovedReviewersApprovalOnTheServer(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			if tg.real {
				realserver.Hold(t, tg.url)
			}
			s := &server{t: t, target: tg}
			port := freePort(t)
			h := newTeamHub(t, s.url, "--http", fmt.Sprintf("127.0.0.1:%d", port))
			d := h.door(port)
			th := s.agent("ops") // delete_records (two approvers) and notify
			id := s.interruptOf(th)
			d.waitListed(aliceToken, id)
			code, out, errs := d.cli(aliceToken, "approve", id)
			if code != exitPending {
				t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
			}
			cfg := filepath.Join(h.dir, "config.yaml")
			b, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, line := range strings.Split(string(b), "\n") {
				switch {
				case strings.HasPrefix(strings.TrimSpace(line), "alice:"): // alice leaves
				case strings.HasPrefix(strings.TrimSpace(line), "carol:"): // carol becomes an approver
					kept = append(kept, strings.Replace(line, "role: viewer", "role: approver", 1))
				default:
					kept = append(kept, line)
				}
			}
			if err := os.WriteFile(cfg, []byte(strings.Join(kept, "\n")), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := h.proc.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				_, out, _ = d.cli(bobToken, "show", id)
				if strings.Contains(out, "dropped: alice (no longer an approver)") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("bob's show never said alice's approval was dropped:\n%s\nhub log:\n%s", out, h.log.String())
				}
			}
			if !strings.Contains(h.log.String(), `msg="approval dropped"`) {
				t.Errorf("the hub did not log the dropped approval:\n%s", h.log.String())
			}
			code, out, errs = d.cli(bobToken, "approve", id)
			if code != exitPending || !strings.Contains(out+errs, "1 of 2 approvals (bob) recorded for delete_records; the approval of alice was dropped (no longer an approver)") {
				t.Fatalf("bob after the reload: exit %d\n%s%s", code, out, errs)
			}
			if got := s.decisionMeta(th); len(got) != 0 {
				t.Fatalf("a decision reached the graph on a removed reviewer's approval: %v", got)
			}
			if code, out, errs := d.cli(viewerToken, "approve", id); code != 0 || !strings.Contains(out, "Sent approve, approve") {
				t.Fatalf("carol's confirmation: exit %d\n%s%s", code, out, errs)
			}
			runs := s.decisionMeta(th)
			if len(runs) != 1 || fmt.Sprint(runs[0]["hitl_approvers"]) != "[bob carol]" {
				t.Fatalf("decision runs: %v", runs)
			}
			_, out, _ = d.cli(bobToken, "history", "--team", "--request", id, "--json")
			if got := auditStory(t, out); got != "alice:approval-recorded alice:approval-dropped bob:approval-recorded carol:sent" {
				t.Fatalf("the team's audit log of %s: %s\n%s", id, got, out)
			}
		})
	}
}
