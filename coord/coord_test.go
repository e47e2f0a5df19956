package coord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/team"
)

func testTeam() *team.Config {
	return &team.Config{
		Reviewers: map[string]team.Reviewer{"alice": {Token: "alice-token-0123456789", Role: team.Approver}},
		Publishers: map[string]team.Publisher{
			"ci":    {Token: "ci-token-0123456789abcd"},
			"other": {Token: "other-token-0123456789"},
		},
	}
}

func call(t *testing.T, srv *httptest.Server, token, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, srv.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

var bashData = map[string]any{"action_requests": []any{map[string]any{"name": "Bash", "args": map[string]any{"command": "ls"}}},
	"review_configs": []any{map[string]any{"action_name": "Bash", "allowed_decisions": []any{"approve", "reject"}}}}

// A request whose publisher vanished (killed outright) goes when it said
// it would stop waiting, and says so.
func TestExpiresWhenThePublisherStopsWaiting(t *testing.T) {
	srv := httptest.NewServer(New(Options{Team: testTeam()}).Handler())
	defer srv.Close()
	code, st := call(t, srv, "ci-token-0123456789abcd", "POST", "/hitl/requests", map[string]any{"agent": "claude", "data": bashData, "expires_in": 0.2})
	if code != 201 {
		t.Fatalf("publish: %d %v", code, st)
	}
	id := st["request_id"].(string)
	start := time.Now()
	_, st = call(t, srv, "ci-token-0123456789abcd", "GET", "/hitl/requests/"+id+"?wait=5s", nil)
	if st["status"] != "withdrawn" || !strings.HasPrefix(st["reason"].(string), "expired: its agent stopped waiting") {
		t.Fatalf("standing: %v", st)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("the long poll did not end when the request did (%s)", el)
	}
	code, st = call(t, srv, "alice-token-0123456789", "POST", "/hitl/respond", map[string]any{"request_id": id, "response": map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}})
	if code != 409 || !strings.Contains(st["message"].(string), "already handled elsewhere: withdrawn (expired") {
		t.Fatalf("respond: %d %v", code, st)
	}
}

// A publisher sees and withdraws its own requests only; an answer it comes
// to withdraw after is handed to it (409 with the answer).
func TestPublishersOwnTheirRequests(t *testing.T) {
	srv := httptest.NewServer(New(Options{Team: testTeam()}).Handler())
	defer srv.Close()
	_, st := call(t, srv, "ci-token-0123456789abcd", "POST", "/hitl/requests", map[string]any{"agent": "claude", "data": bashData})
	id := st["request_id"].(string)
	if code, _ := call(t, srv, "other-token-0123456789", "GET", "/hitl/requests/"+id, nil); code != 404 {
		t.Fatalf("another publisher read it: %d", code)
	}
	if code, _ := call(t, srv, "other-token-0123456789", "DELETE", "/hitl/requests/"+id, nil); code != 404 {
		t.Fatalf("another publisher withdrew it: %d", code)
	}
	if code, st := call(t, srv, "alice-token-0123456789", "POST", "/hitl/respond", map[string]any{"request_id": id, "responded_by": "mallory",
		"response": map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}}); code != 200 || st["responded_by"] != "alice" {
		t.Fatalf("respond: %d %v", code, st)
	}
	code, st := call(t, srv, "ci-token-0123456789abcd", "DELETE", "/hitl/requests/"+id, map[string]any{"reason": "timeout"})
	if code != 409 || st["status"] != "answered" || st["responded_by"] != "alice" {
		t.Fatalf("withdraw after the answer: %d %v", code, st)
	}
}

// The two-person rule counts approvals toward the exact same answer: an
// edit replaces the pending approval of another answer (and says whose),
// and the approver it replaced is not counted when the replaced answer
// comes again.
func TestAnEditReplacesTheFirstApproval(t *testing.T) {
	tm := testTeam()
	tm.Reviewers["bob"] = team.Reviewer{Token: "bob-token-0123456789ab", Role: team.Approver}
	tm.Rules = []team.Rule{{Tools: []string{"Bash"}, Approvals: 2}}
	srv := httptest.NewServer(New(Options{Team: tm}).Handler())
	defer srv.Close()
	const alice, bob = "alice-token-0123456789", "bob-token-0123456789ab"
	data := map[string]any{"action_requests": []any{map[string]any{"name": "Bash", "args": map[string]any{"command": "npm publish"}}},
		"review_configs": []any{map[string]any{"action_name": "Bash", "allowed_decisions": []any{"approve", "edit", "reject"}}}}
	_, st := call(t, srv, "ci-token-0123456789abcd", "POST", "/hitl/requests", map[string]any{"agent": "claude", "data": data})
	id := st["request_id"].(string)
	approve := map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}
	edit := map[string]any{"decisions": []any{map[string]any{"type": "edit", "edited_action": map[string]any{"name": "Bash", "args": map[string]any{"command": "npm publish --dry-run"}}}}}
	respond := func(token string, resp any, wantCode int, want string) {
		t.Helper()
		code, out := call(t, srv, token, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": resp})
		if code != wantCode || !strings.Contains(fmt.Sprint(out["message"], out["responded_by"]), want) {
			t.Fatalf("respond: %d %v, want %d saying %q", code, out, wantCode, want)
		}
	}
	respond(alice, approve, 202, "1 of 2 approvals (alice) recorded for Bash: nothing is sent")
	respond(bob, edit, 202, "1 of 2 approvals (bob) recorded for Bash; it replaces the approval of another decision (1 of 2 approvals (alice))")
	// What the reviewers' lists show: bob's edit, and its value.
	_, list := callList(t, srv, alice)
	if a := list[0]["approval"].(map[string]any); fmt.Sprint(a["approvers"]) != "[bob]" || !strings.Contains(fmt.Sprint(a["value"]), "--dry-run") ||
		!strings.Contains(fmt.Sprint(a["decisions"]), "type:edit") || !strings.Contains(fmt.Sprint(a["decisions"]), "--dry-run") {
		t.Fatalf("approval listed: %v", a)
	}
	// alice is told where it stands now: her approve is not "already"
	// (bob's edit replaced it); it replaces his edit in turn.
	respond(alice, approve, 202, "1 of 2 approvals (alice) recorded for Bash; it replaces the approval of another decision (1 of 2 approvals (bob))")
	respond(bob, edit, 202, "1 of 2 approvals (bob) recorded for Bash; it replaces the approval of another decision (1 of 2 approvals (alice))")
	// bob's plain approve is not alice's: it replaces his edit, sends nothing.
	respond(bob, approve, 202, "1 of 2 approvals (bob) recorded for Bash; it replaces the approval of another decision (1 of 2 approvals (bob))")
	// bob again: refused, nothing new recorded, naming the approval that stands.
	respond(bob, approve, 403, "Bash: you approved this decision already (1 of 2 approvals (bob))")
	if code, out := call(t, srv, bob, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": approve}); code != 403 ||
		out["status"] != "awaiting_approvals" || fmt.Sprint(out["approvals"]) != "[bob]" {
		t.Fatalf("bob twice: %d %v", code, out)
	}
	// alice confirms bob's approve: sent, naming both.
	respond(alice, approve, 200, "bob + alice")
}

func callList(t *testing.T, srv *httptest.Server, token string) (int, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+"/hitl/pending", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// Who withdrew a request is said: the hub (it expired), or its publisher
// (a DELETE, even one whose reason reads like the hub's words), who is
// then responded_by.
func TestAWithdrawalSaysWhoWithdrewIt(t *testing.T) {
	c := New(Options{Team: testTeam()})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	const ci = "ci-token-0123456789abcd"
	_, st := call(t, srv, ci, "POST", "/hitl/requests", map[string]any{"agent": "claude", "data": bashData, "expires_in": 0.2})
	expired := st["request_id"].(string)
	_, st = call(t, srv, ci, "GET", "/hitl/requests/"+expired+"?wait=5s", nil)
	if st["status"] != "withdrawn" || st["withdrawn_by"] != "hub" || st["responded_by"] != nil {
		t.Fatalf("expired: %v", st)
	}
	if s, _ := c.Lookup(expired); !s.ByHub {
		t.Fatalf("expired, looked up: %+v", s)
	}
	_, st = call(t, srv, ci, "POST", "/hitl/requests", map[string]any{"agent": "claude", "data": bashData})
	deleted := st["request_id"].(string)
	code, st := call(t, srv, ci, "DELETE", "/hitl/requests/"+deleted, map[string]any{"reason": "expired: its agent stopped waiting after 1s"})
	if code != 200 || st["withdrawn_by"] != "publisher" || st["responded_by"] != "ci" {
		t.Fatalf("withdrawn by its publisher: %d %v", code, st)
	}
	if _, st = call(t, srv, ci, "GET", "/hitl/requests/"+deleted, nil); st["withdrawn_by"] != "publisher" {
		t.Fatalf("withdrawn by its publisher, read again: %v", st)
	}
	if s, _ := c.Lookup(deleted); s.ByHub {
		t.Fatalf("withdrawn by its publisher, looked up: %+v", s)
	}
}
