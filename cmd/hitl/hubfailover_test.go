package main

// One of two hubs on one PostgreSQL killed outright (SIGKILL) while hooks
// wait on it: the hooks, given both hubs' URLs, carry on on the other hub
// and print the decision made there after the first died. Nothing is
// lost (every hook prints its answer), nothing is doubled (one decision
// sent per request, in the team's audit log and on the hook's stdout).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/pgtest"
)

// sentOnce asserts the team's audit log on h holds exactly one sent
// decision for each of ids, by who[i], and nothing sent for another.
func sentOnce(t *testing.T, h *storedHub, ids []string, who []string) {
	t.Helper()
	code, b := h.do(aliceToken, "GET", "/hitl/history?outcome=sent&limit=10000", nil)
	if code != 200 {
		t.Fatalf("GET /hitl/history: %d %s", code, b)
	}
	sent := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var e struct {
			RequestID string `json:"request_id"`
			Reviewer  string `json:"reviewer"`
			Outcome   string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("history line %q: %v", l, err)
		}
		sent[e.RequestID] = append(sent[e.RequestID], e.Reviewer)
	}
	for i, id := range ids {
		if got := sent[id]; len(got) != 1 || got[0] != who[i] {
			t.Fatalf("request %s: sent by %v in the audit log, want once by %s", id, got, who[i])
		}
		delete(sent, id)
	}
	if len(sent) != 0 {
		t.Fatalf("decisions sent on requests no hook put up: %v", sent)
	}
}

// Hooks put their requests up on hub A (the first of their URLs) and wait
// there; A is killed with SIGKILL; every request is decided on hub B after
// A died, and every hook prints the decision made on B, once.
func TestHubKilledHooksMoveToTheOther(t *testing.T) {
	db := pgtest.Database(t)
	a := startStoredHub(t, teamYAML, db)
	b := startStoredHub(t, teamYAML, db)
	urls := a.url + "," + b.url
	const n = 8
	hooks := make([]*hookProc, n)
	ids := make([]string, n)
	for i := range n {
		hooks[i] = startHook(t, urls, "claude", claudeBashIn(fmt.Sprintf("sess-move-%d", i)))
	}
	for i := range n {
		ids[i] = a.waitRequest(fmt.Sprintf("sess-move-%d", i))
		if got := b.waitRequest(fmt.Sprintf("sess-move-%d", i)); got != ids[i] {
			t.Fatalf("hub B lists %s for the request A lists as %s", got, ids[i])
		}
	}
	// Each hook put its request up on A and waits there (the first of its
	// URLs): A dies with the waits open.
	a.kill()
	who := make([]string, n)
	for i, id := range ids {
		resp, tok := approveOne, aliceToken
		who[i] = "alice"
		if i%2 == 1 {
			resp, tok, who[i] = rejectOne, bobToken, "bob"
		}
		if code, out := b.respond(tok, id, resp); code != 200 {
			t.Fatalf("respond to %s on hub B after A died: %d %v", id, code, out)
		}
	}
	for i, p := range hooks {
		want := allowJSON
		if i%2 == 1 {
			want = denyJSON
		}
		if code := p.finish(t, 30*time.Second); code != 0 || p.stdout.String() != want {
			t.Fatalf("hook %d: exit %d, stdout %q, want %q; stderr %q", i, code, p.stdout.String(), want, p.stderr.String())
		}
	}
	sentOnce(t, b, ids, who)
	// A second decision on a decided request is refused: nothing sent twice.
	if code, out := b.respond(bobToken, ids[0], rejectOne); code != 409 {
		t.Fatalf("a second decision on %s: %d %v", ids[0], code, out)
	}
	if got := b.pendingCount(); got != 0 {
		t.Fatalf("%d requests still wait on hub B", got)
	}
}

// One of two hubs killed under load: hooks spread over both hubs (each
// given both URLs, its own first), two approvers racing on every request
// over both hubs; hub A is killed with SIGKILL once half the requests are
// decided, and an approver whose call it cut sends it again to B. Every
// hook prints the decision the store took (hub B's word), exactly one
// decision is sent per request (the audit log, written with the
// decision), none is lost. scripts/bench -only storekill runs it with 200
// hooks and three approvers.
func TestOneOfTwoHubsKilledUnderLoad(t *testing.T) {
	db := pgtest.Database(t)
	hubs := [2]*storedHub{startStoredHub(t, teamYAML, db), startStoredHub(t, teamYAML, db)}
	const n = 40
	hooks := make([]*hookProc, n)
	for i := range n {
		hooks[i] = startHook(t, hubs[i%2].url+","+hubs[(i+1)%2].url, "claude", claudeBashIn(fmt.Sprintf("sess-load-%d", i)))
	}
	ids := make([]string, n)
	for i := range n {
		ids[i] = hubs[1].waitRequest(fmt.Sprintf("sess-load-%d", i))
	}
	approvers := []struct{ name, token, resp, want string }{
		{"alice", aliceToken, approveOne, allowJSON},
		{"bob", bobToken, rejectOne, denyJSON},
	}
	var mu sync.Mutex
	decided, cut := 0, 0
	killed := false
	var wg sync.WaitGroup
	for i, id := range ids {
		for k, a := range approvers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body, _ := json.Marshal(map[string]any{"request_id": id, "response": json.RawMessage(a.resp)})
				send := func(h *storedHub) (int, error) {
					req, _ := http.NewRequest("POST", h.url+"/hitl/respond", bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+a.token)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						return 0, err
					}
					defer resp.Body.Close()
					_, _ = io.Copy(io.Discard, resp.Body)
					return resp.StatusCode, nil
				}
				mu.Lock()
				h := hubs[(i+k)%2]
				if killed {
					h = hubs[1]
				}
				mu.Unlock()
				code, err := send(h)
				if err != nil && h == hubs[0] {
					mu.Lock()
					cut++
					mu.Unlock()
					code, err = send(hubs[1])
				}
				if err != nil || (code != 200 && code != 409) {
					t.Errorf("%s on %s: %d %v", a.name, id, code, err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if code == 200 {
					decided++
				}
				if decided >= n/2 && !killed {
					killed = true
					_ = hubs[0].cmd.Process.Kill()
				}
			}()
		}
	}
	wg.Wait()
	if !killed {
		t.Fatal("hub A was never killed")
	}
	hubs[0].kill()
	want := map[string]string{}
	for _, a := range approvers {
		want[a.name] = a.want
	}
	who := make([]string, n)
	lost, wrong := 0, 0
	for i, p := range hooks {
		st := hubs[1].standing(ids[i])
		who[i], _ = st["responded_by"].(string)
		if code := p.finish(t, 30*time.Second); code != 0 || p.stdout.String() == "" {
			lost++
			t.Errorf("hook %d: exit %d, stdout %q; stderr %q", i, code, p.stdout.String(), p.stderr.String())
		} else if st["status"] != "answered" || p.stdout.String() != want[who[i]] {
			wrong++
			t.Errorf("hook %d printed %q; hub B says %v", i, p.stdout.String(), st)
		}
	}
	t.Logf("%d hooks, %d calls cut by the kill: %d lost, %d wrong", n, cut, lost, wrong)
	sentOnce(t, hubs[1], ids, who)
}
