package coord

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
)

// rulesTeam is alice, bob and carol, approvers, with a rule that asks two
// of them for Bash.
func rulesTeam() *team.Config {
	tm := testTeam()
	tm.Reviewers["bob"] = team.Reviewer{Token: "bob-token-0123456789ab", Role: team.Approver}
	tm.Reviewers["carol"] = team.Reviewer{Token: "carol-token-0123456789", Role: team.Approver}
	tm.Rules = []team.Rule{{Tools: []string{"Bash"}, Approvals: 2}}
	return tm
}

const (
	aliceTok = "alice-token-0123456789"
	bobTok   = "bob-token-0123456789ab"
	carolTok = "carol-token-0123456789"
	ciTok    = "ci-token-0123456789abcd"
)

// liveTeamOf is a team a test swaps, as a reload does.
type liveTeamOf struct{ p atomic.Pointer[team.Config] }

func (l *liveTeamOf) ByToken(tok string) (team.Principal, bool) { return l.p.Load().ByToken(tok) }
func (l *liveTeamOf) RuleFor(tool string) (team.Rule, bool)     { return l.p.Load().RuleFor(tool) }
func (l *liveTeamOf) MayDecide(name string) bool                { return l.p.Load().MayDecide(name) }

func publish(t *testing.T, srv *httptest.Server, data any) string {
	t.Helper()
	code, st := call(t, srv, ciTok, "POST", "/hitl/requests", map[string]any{"agent": "claude", "data": data})
	if code != 201 {
		t.Fatalf("publish: %d %v", code, st)
	}
	return st["request_id"].(string)
}

func respondAs(t *testing.T, srv *httptest.Server, token, id string, resp any) (int, string) {
	t.Helper()
	code, out := call(t, srv, token, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": resp})
	return code, fmt.Sprint(out["status"], " | ", out["message"], " | ", out["responded_by"])
}

// Defect (1) of issue 32: a request with two actions (Bash, Read), where
// alice approves Bash and rejects Read. The Bash approval needs its two
// approvers whatever the other action's decision: one reviewer's
// approve+reject used to be sent at once.
func TestRuleCountsTheApprovedActionWhateverTheOthers(t *testing.T) {
	srv := httptest.NewServer(New(Options{Team: rulesTeam()}).Handler())
	defer srv.Close()
	data := map[string]any{
		"action_requests": []any{map[string]any{"name": "Bash", "args": map[string]any{"command": "rm -rf build"}},
			map[string]any{"name": "Read", "args": map[string]any{"file_path": "README.md"}}},
		"review_configs": []any{map[string]any{"action_name": "Bash", "allowed_decisions": []any{"approve", "reject"}},
			map[string]any{"action_name": "Read", "allowed_decisions": []any{"approve", "reject"}}}}
	approveBash := map[string]any{"decisions": []any{map[string]any{"type": "approve"}, map[string]any{"type": "reject", "message": "not that file"}}}
	id := publish(t, srv, data)
	if code, said := respondAs(t, srv, aliceTok, id, approveBash); code != 202 || !strings.Contains(said, "1 of 2 approvals (alice) recorded for Bash") {
		t.Fatalf("alice's approve of Bash with a reject of Read: %d %s", code, said)
	}
	if code, st := call(t, srv, ciTok, "GET", "/hitl/requests/"+id, nil); code != 200 || st["status"] != "pending" {
		t.Fatalf("after alice alone: %d %v", code, st)
	}
	if code, said := respondAs(t, srv, bobTok, id, approveBash); code != 200 || !strings.Contains(said, "alice + bob") {
		t.Fatalf("bob's confirmation: %d %s", code, said)
	}

	// The issue's own body: a reject without a message.
	id = publish(t, srv, data)
	bare := rawJSON(`{"decisions":[{"type":"approve"},{"type":"reject"}]}`)
	if code, said := respondAs(t, srv, aliceTok, id, bare); code != 202 || !strings.Contains(said, "1 of 2 approvals (alice) recorded for Bash") {
		t.Fatalf("alice's bare approve+reject: %d %s", code, said)
	}

	// Rejecting Bash (the action the rule names) needs one reviewer, even
	// when the other action is approved.
	id = publish(t, srv, data)
	rejectBash := map[string]any{"decisions": []any{map[string]any{"type": "reject", "message": "no"}, map[string]any{"type": "approve"}}}
	if code, said := respondAs(t, srv, aliceTok, id, rejectBash); code != 200 || !strings.Contains(said, "resolved") {
		t.Fatalf("alice's reject of Bash: %d %s", code, said)
	}
}

// Defect (2) of issue 32: the rule reads the request as hitl parses it,
// whatever its spelling: the LangChain JS middleware's (actionRequests,
// reviewConfigs) and the Agent Inbox's. alice alone used to approve Bash
// in either.
func TestRuleReadsEverySpelling(t *testing.T) {
	for _, c := range []struct {
		name          string
		data, approve string
	}{
		{"js middleware", `{"actionRequests":[{"name":"Bash","args":{"command":"rm -rf /"}}],"reviewConfigs":[{"actionName":"Bash","allowedDecisions":["approve","reject"]}]}`,
			`{"decisions":[{"type":"approve"}]}`},
		{"agent inbox", `[{"action_request":{"action":"Bash","args":{"command":"rm -rf /"}},"config":{"allow_accept":true,"allow_ignore":true,"allow_respond":true,"allow_edit":true},"description":"clean up"}]`,
			`[{"type":"accept","args":null}]`},
		{"python middleware", `{"action_requests":[{"name":"Bash","args":{"command":"rm -rf /"}}],"review_configs":[{"action_name":"Bash","allowed_decisions":["approve","reject"]}]}`,
			`{"decisions":[{"type":"approve"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(New(Options{Team: rulesTeam()}).Handler())
			defer srv.Close()
			id := publish(t, srv, rawJSON(c.data))
			if code, said := respondAs(t, srv, aliceTok, id, rawJSON(c.approve)); code != 202 || !strings.Contains(said, "1 of 2 approvals (alice) recorded for Bash") {
				t.Fatalf("alice alone: %d %s", code, said)
			}
			if code, said := respondAs(t, srv, bobTok, id, rawJSON(c.approve)); code != 200 || !strings.Contains(said, "alice + bob") {
				t.Fatalf("bob's confirmation: %d %s", code, said)
			}
		})
	}
}

// Defect (3) of issue 32: alice approves (1 of 2) and is taken out of the
// team; at the reload her approval is dropped (the request's approval says
// so), and bob's approval is a first approval again, not a send naming
// alice and bob.
func TestARemovedReviewersApprovalIsDropped(t *testing.T) {
	var live liveTeamOf
	live.p.Store(rulesTeam())
	c := New(Options{Team: &live})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	id := publish(t, srv, bashData)
	approve := map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}
	if code, said := respondAs(t, srv, aliceTok, id, approve); code != 202 {
		t.Fatalf("alice: %d %s", code, said)
	}
	// The reload: alice is no longer of the team.
	nt := rulesTeam()
	delete(nt.Reviewers, "alice")
	live.p.Store(nt)
	if n := c.Prune(); n != 1 {
		t.Fatalf("Prune changed %d requests, want 1", n)
	}
	_, list := callList(t, srv, bobTok)
	if a, _ := list[0]["approval"].(map[string]any); fmt.Sprint(a["approvers"]) != "[]" || fmt.Sprint(a["dropped"]) != "[alice]" {
		t.Fatalf("the listed approval after the reload: %v", list[0]["approval"])
	}
	code, said := respondAs(t, srv, bobTok, id, approve)
	if code != 202 || !strings.Contains(said, "1 of 2 approvals (bob) recorded for Bash; the approval of alice was dropped (no longer an approver)") {
		t.Fatalf("bob after the reload: %d %s", code, said)
	}
	if _, st := call(t, srv, ciTok, "GET", "/hitl/requests/"+id, nil); st["status"] != "pending" {
		t.Fatalf("sent with a removed reviewer's approval: %v", st)
	}
	if code, said := respondAs(t, srv, carolTok, id, approve); code != 200 || !strings.Contains(said, "bob + carol") || strings.Contains(said, "alice") {
		t.Fatalf("carol's confirmation: %d %s", code, said)
	}
	// The team's audit log: alice's approval recorded, then dropped at the
	// reload; bob's recorded; the decision sent by bob + carol.
	es, err := c.Store().History(context.Background(), store.Filter{RequestID: id})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(es) - 1; i >= 0; i-- {
		got = append(got, es[i].Reviewer+": "+es[i].Outcome+" ["+strings.Join(es[i].Approvers, ",")+"]")
	}
	want := []string{"alice: approval-recorded [alice]", "alice: approval-dropped []", "bob: approval-recorded [bob]", "carol: sent [bob,carol]"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the audit log:\n got %q\nwant %q", got, want)
	}
	// The confirmation's first approval is bob's, not alice's dropped one.
	if es[0].First != es[1].ID {
		t.Fatalf("the confirmation names entry %d as its first approval, want bob's %d", es[0].First, es[1].ID)
	}
}

// Without a reload (a hub restarted on a changed config), a removed
// reviewer's approval does not count either: the rule prunes it when it
// counts.
func TestARemovedReviewersApprovalDoesNotCountWithoutPrune(t *testing.T) {
	var live liveTeamOf
	live.p.Store(rulesTeam())
	srv := httptest.NewServer(New(Options{Team: &live}).Handler())
	defer srv.Close()
	id := publish(t, srv, bashData)
	approve := map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}
	respondAs(t, srv, aliceTok, id, approve)
	nt := rulesTeam()
	nt.Reviewers["alice"] = team.Reviewer{Token: aliceTok, Role: team.Viewer}
	live.p.Store(nt)
	if code, said := respondAs(t, srv, bobTok, id, approve); code != 202 || !strings.Contains(said, "the approval of alice was dropped") {
		t.Fatalf("bob: %d %s", code, said)
	}
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }
