package agenthook

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hookclient"
	"github.com/hitl-sh/hitl/team"
)

// Each agent's answer to each decision, byte for byte: what the agent
// reads on the hook's stdout.
func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		agent, response, by string
		want, why           string
	}{
		{agent: "claude", response: `{"decisions":[{"type":"approve"}]}`,
			want: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{agent: "claude", response: `{"decisions":[{"type":"edit","edited_action":{"name":"Bash","args":{"command":"ls -la"}}}]}`,
			want: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls -la"}}}}`},
		{agent: "claude", response: `{"decisions":[{"type":"edit","editedAction":{"args":{"command":"ls"}}}]}`,
			want: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`},
		{agent: "claude", response: `{"decisions":[{"type":"edit","edited_action":{"args":"ls"}}]}`,
			why: "the edited input is not a JSON object"},
		{agent: "claude", response: `{"decisions":[{"type":"reject","message":"not on main — never"}]}`, by: "alice",
			want: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main \u2014 never"}}}`},
		{agent: "codex", response: `{"decisions":[{"type":"reject"}]}`, by: "bob",
			want: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied by bob in hitl."}}}`},
		{agent: "codex", response: `{"decisions":[{"type":"edit","edited_action":{"args":{"command":"ls"}}}]}`,
			why: "the reviewer edited the input, which codex cannot take"},
		{agent: "gemini", response: `{"decisions":[{"type":"approve"}]}`, want: `{"decision":"allow"}`},
		{agent: "gemini", response: `{"decisions":[{"type":"reject"}]}`, want: `{"decision":"deny","reason":"Denied by a reviewer in hitl."}`},
		{agent: "cursor", response: `{"decisions":[{"type":"reject","message":"no <force>"}]}`, by: "alice",
			want: `{"permission":"deny","user_message":"Denied by alice in hitl: no <force>","agent_message":"no <force>"}`},
		{agent: "cursor", response: `{"decisions":[{"type":"approve"},{"type":"approve"}]}`, why: "the hub's answer to r1 is not one decision"},
		{agent: "cursor", response: `{"decisions":[{"type":"respond\u001b[2J"}]}`, why: `the hub's answer is a "respond\\u001b[2J" decision, which the hook cannot give`},
	} {
		out, why := Answer(tc.agent, hookclient.Standing{RequestID: "r1", Status: "answered", Response: json.RawMessage(tc.response), RespondedBy: tc.by})
		if string(out) != tc.want || (tc.why != "" && why != tc.why) {
			t.Errorf("%s, %s: answer %s (%q), want %s (%q)", tc.agent, tc.response, out, why, tc.want, tc.why)
		}
	}
}

// Each agent's input read as a request, and what is not its input.
func TestRead(t *testing.T) {
	for _, tc := range []struct {
		agent, in        string
		tool, input      string
		wrongEvent       bool
		err              string
		session, cwd, at string
	}{
		{agent: "claude", in: `{"session_id":"s1","cwd":"/src","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`,
			tool: "Bash", input: `{"command":"ls"}`, session: "s1", cwd: "/src"},
		{agent: "codex", in: `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":"ls"}`, tool: "Bash", input: `{}`},
		{agent: "claude", in: `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, wrongEvent: true, err: "this hook answers PermissionRequest, not PreToolUse"},
		{agent: "claude", in: `not json`, err: "not a PermissionRequest hook's JSON"},
		{agent: "gemini", in: `{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"a"}}`,
			tool: "write_file", input: `{"file_path":"a"}`, session: "g"},
		{agent: "gemini", in: `{"hook_event_name":"AfterTool","tool_name":"x"}`, wrongEvent: true, err: "not AfterTool"},
		{agent: "cursor", in: `{"hook_event_name":"beforeShellExecution","conversation_id":"c","workspace_roots":["/w"],"command":"git push"}`,
			tool: "Shell", input: `{"command":"git push"}`, session: "c", cwd: "/w"},
		{agent: "cursor", in: `{"hook_event_name":"preToolUse","tool_name":"Read","tool_input":"{\"path\":\"a\"}","cwd":"/c"}`,
			tool: "Read", input: `{"path":"a"}`, cwd: "/c"},
		{agent: "cursor", in: `{"hook_event_name":"beforeShellExecution"}`, err: "has no command"},
		{agent: "cursor", in: `{"hook_event_name":"afterFileEdit"}`, wrongEvent: true, err: "not afterFileEdit"},
		{agent: "cursor", in: `{"tool_name":"Bash"}`, err: "not a Cursor hook's JSON"},
	} {
		r, wrong, err := agents[tc.agent].read([]byte(tc.in))
		if wrong != tc.wrongEvent || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s %s: wrong event %v, error %v; want %v, %q", tc.agent, tc.in, wrong, err, tc.wrongEvent, tc.err)
			continue
		}
		if err == nil && (r.Tool != tc.tool || string(r.Input) != tc.input || r.Origin.Agent != tc.agent || r.Origin.SessionID != tc.session || r.Origin.Cwd != tc.cwd) {
			t.Errorf("%s %s: read %+v (input %s)", tc.agent, tc.in, r, r.Input)
		}
	}
}

const (
	pubToken   = "publisher-token-0123456789"
	aliceToken = "alice-token-0123456789abc"
)

// hub serves a coordinator (the hub's HTTP door) for the test.
func hub(t *testing.T) (*coord.Server, string) {
	t.Helper()
	c := coord.New(coord.Options{Team: &team.Config{
		Reviewers:  map[string]team.Reviewer{"alice": {Token: aliceToken, Role: team.Approver}},
		Publishers: map[string]team.Publisher{"ci": {Token: pubToken}},
	}})
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return c, srv.URL
}

func connect(t *testing.T, url string) func() (Conn, error) {
	return func() (Conn, error) {
		h, err := hookclient.New([]string{url}, hookclient.Options{Token: pubToken})
		if err != nil {
			t.Fatal(err)
		}
		return Conn{Hub: h, Shown: url}, nil
	}
}

// waitRequest returns the id of the one request the hub lists.
func waitRequest(t *testing.T, url string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		req, _ := http.NewRequest("GET", url+"/hitl/pending", nil)
		req.Header.Set("Authorization", "Bearer "+aliceToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var list []struct {
			RequestID string `json:"request_id"`
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err == nil && len(list) == 1 {
			return list[0].RequestID
		}
	}
	t.Fatal("the hub lists no request")
	return ""
}

// A request put up as the reviewer sees it, and a reviewer's reject read
// back as the agent's deny.
func TestRunRejected(t *testing.T) {
	_, url := hub(t)
	done := make(chan Reply, 1)
	go func() {
		done <- Run(context.Background(), Options{Agent: "cursor", Timeout: time.Minute, Host: "dev1", Connect: connect(t, url),
			Input: strings.NewReader(`{"hook_event_name":"beforeShellExecution","conversation_id":"c1","command":"git push --force"}`)})
	}()
	id := waitRequest(t, url)
	req, _ := http.NewRequest("POST", url+"/hitl/respond", strings.NewReader(`{"request_id":"`+id+`","response":{"decisions":[{"type":"reject","message":"not main"}]}}`))
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("respond: HTTP %d", resp.StatusCode)
	}
	r := <-done
	if want := `{"permission":"deny","user_message":"Denied by alice in hitl: not main","agent_message":"not main"}`; string(r.Stdout) != want || r.Say != "" {
		t.Fatalf("reply %s, say %q; want %s", r.Stdout, r.Say, want)
	}
}

// No decision in time: the request is withdrawn and the agent asks its
// user, told why.
func TestRunHandsBackWhenNoDecision(t *testing.T) {
	_, url := hub(t)
	r := Run(context.Background(), Options{Agent: "gemini", Timeout: 300 * time.Millisecond, Connect: connect(t, url),
		Input: strings.NewReader(`{"session_id":"g1","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`)})
	if !strings.HasPrefix(r.Say, "withdrew request ") || !strings.HasSuffix(r.Say, ": no decision within 300ms; the agent asks as usual") {
		t.Fatalf("say %q", r.Say)
	}
	var m map[string]string
	if err := json.Unmarshal(r.Stdout, &m); err != nil || m["decision"] != "ask" || m["systemMessage"] != "hitl: "+strings.TrimSuffix(r.Say, "; the agent asks as usual") {
		t.Fatalf("reply %s", r.Stdout)
	}
}

// The hub not reached: its credentials are hidden in what the hook says,
// and Claude Code gets nothing (its own dialog stays up).
func TestRunHandsBackWhenNotConnected(t *testing.T) {
	r := Run(context.Background(), Options{Agent: "claude", Timeout: time.Second,
		Input: strings.NewReader(`{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{}}`),
		Connect: func() (Conn, error) {
			return Conn{Redact: func(s string) string { return strings.ReplaceAll(s, "s3cret", "***") }}, errors.New("the hub at http://u:s3cret@hub is no hub")
		}})
	if r.Stdout != nil || r.Say != "the hub at http://u:***@hub is no hub; the agent asks as usual" {
		t.Fatalf("reply %q, say %q", r.Stdout, r.Say)
	}
}

// --fallback deny: where the agent would be asked, it is denied, told why.
func TestRunFallbackDeny(t *testing.T) {
	r := Run(context.Background(), Options{Agent: "gemini", Timeout: time.Second, Deny: true,
		Input:   strings.NewReader(`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{}}`),
		Connect: func() (Conn, error) { return Conn{}, errors.New("no token for the hub") }})
	want := `{"decision":"deny","reason":"hitl: no reviewer decided (no token for the hub), so it is denied (hitl hook --fallback deny)"}`
	if string(r.Stdout) != want || r.Say != "no token for the hub; denied (--fallback deny)" {
		t.Fatalf("reply %s, say %q; want %s", r.Stdout, r.Say, want)
	}
}
