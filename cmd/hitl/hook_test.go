package main

// Coding agents' permission requests, for real: the built binary serves the
// hub (hitl serve --http on a free loopback port), the built binary is the
// hook (hitl hook claude|codex, its input piped in as the agents give it),
// and reviewers decide with the built binary's CLI and TUI. What the agent
// reads on the hook's stdout is asserted byte for byte.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	aliceToken   = "alice-token-0123456789abcdef"
	bobToken     = "bob-token-0123456789abcdef"
	viewerToken  = "viewer-token-0123456789abcdef"
	publishToken = "publish-token-0123456789abcdef"
)

const teamYAML = `team:
  reviewers:
    alice: {token: "` + aliceToken + `", role: approver}
    bob: {token: "` + bobToken + `", role: approver}
    vic: {token: "` + viewerToken + `", role: viewer}
  publishers:
    ci: {token_env: HITL_PUBLISH_TOKEN}
`

// What the agents' documentation gives a PermissionRequest hook.
const (
	claudeBash  = `{"session_id":"sess-bash","transcript_path":"/home/dev/.claude/projects/app/sess-bash.jsonl","cwd":"/src/app","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf node_modules && npm ci","description":"Reinstall the dependencies"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm ci"}],"behavior":"allow","destination":"localSettings"}]}`
	claudeWrite = `{"session_id":"sess-write","transcript_path":"/t.jsonl","cwd":"/src/app","hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"file_path":"/src/app/NOTES.md","content":"# Notes\n\nship on friday\n"}}`
	claudeEdit  = `{"session_id":"sess-edit","transcript_path":"/t.jsonl","cwd":"/src/app","hook_event_name":"PermissionRequest","tool_name":"Edit","tool_input":{"file_path":"/src/app/main.go","old_string":"\tfmt.Println(\"hi\")\n","new_string":"\tfmt.Println(\"hello\")\n\tos.Exit(0)\n","replace_all":false}}`
	// Escape sequences, a bidi override and a bell in every string a
	// reviewer reads.
	claudeHostile = `{"session_id":"sess-\u001b[2J","cwd":"/tmp/\u001b]0;pwned\u0007","hook_event_name":"PermissionRequest","tool_name":"mcp__evil__run\u001b[31m","tool_input":{"query":"\u001b]52;c;Y3VybCBldmls\u0007\u202eexe.txt","n":1}}`
	codexBash     = `{"session_id":"thread-7","turn_id":"turn-3","transcript_path":"/home/dev/.codex/sessions/t.jsonl","cwd":"/src/app","hook_event_name":"PermissionRequest","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"git push --force origin main","description":"Push the rewritten history"}}`
)

const (
	allowJSON = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n"
)

type hubProc struct {
	t    *testing.T
	url  string
	dir  string
	cmd  *exec.Cmd
	logs *bytes.Buffer
}

// startHub runs `hitl serve --http 127.0.0.1:0` with the team config.
func startHub(t *testing.T, config string) *hubProc {
	t.Helper()
	bin := builtBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0")
	cmd.Env = hermeticEnv("HITL_CONFIG="+cfg, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &hubProc{t: t, dir: dir, cmd: cmd, logs: &bytes.Buffer{}}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if i := strings.Index(line, "listens on http://"); i >= 0 {
				u := strings.Fields(line[i+len("listens on "):])[0]
				select {
				case urls <- u:
				default:
				}
			}
		}
	}()
	select {
	case h.url = <-urls:
	case <-time.After(20 * time.Second):
		t.Fatal("hitl serve --http never said where it listens")
	}
	return h
}

// do calls the hub with a token and returns the status and body.
func (h *hubProc) do(token, method, path string, body any) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.url+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// waitRequest waits until a request of session is pending and returns its id.
func (h *hubProc) waitRequest(session string) string {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		code, b := h.do(aliceToken, "GET", "/hitl/pending", nil)
		var list []struct {
			RequestID string `json:"request_id"`
			SessionID string `json:"session_id"`
		}
		if code == 200 && json.Unmarshal(b, &list) == nil {
			for _, r := range list {
				if r.SessionID == session {
					return r.RequestID
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.t.Fatalf("no request of session %q was put up", session)
	return ""
}

func (h *hubProc) standing(id string) map[string]any {
	h.t.Helper()
	code, b := h.do(aliceToken, "GET", "/hitl/requests/"+id, nil)
	var st map[string]any
	if code != 200 || json.Unmarshal(b, &st) != nil {
		h.t.Fatalf("standing of %s: HTTP %d %s", id, code, b)
	}
	return st
}

func (h *hubProc) pendingCount() int {
	h.t.Helper()
	_, b := h.do(aliceToken, "GET", "/hitl/pending", nil)
	var list []any
	_ = json.Unmarshal(b, &list)
	return len(list)
}

// hook starts `hitl hook AGENT` with input on stdin.
func (h *hubProc) hook(agent, input string, args ...string) *hookProc {
	h.t.Helper()
	return startHook(h.t, h.url, agent, input, args...)
}

// hookProc is a running hook; its output is read while it runs.
type hookProc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
}

func startHook(t *testing.T, url, agent, input string, args ...string) *hookProc {
	t.Helper()
	return startHookToken(t, url, agent, input, publishToken, args...)
}

// startHookToken starts the hook with token as its HITL_BEARER_TOKEN.
func startHookToken(t *testing.T, url, agent, input, token string, args ...string) *hookProc {
	t.Helper()
	p := &hookProc{cmd: exec.Command(builtBinary(t), append([]string{"hook", agent, "--url", url}, args...)...)}
	dir := t.TempDir()
	p.cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME="+dir, "HITL_BEARER_TOKEN="+token)
	p.cmd.Stdin = strings.NewReader(input)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

// finish waits for the hook, at most d, and returns its exit code.
func (p *hookProc) finish(t *testing.T, d time.Duration) int {
	t.Helper()
	done := make(chan int, 1)
	go func() {
		err := p.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			done <- ee.ExitCode()
		case err != nil:
			done <- -1
		default:
			done <- 0
		}
	}()
	select {
	case code := <-done:
		return code
	case <-time.After(d):
		_ = p.cmd.Process.Kill()
		t.Fatalf("the hook did not end within %s; stderr: %s", d, p.stderr.String())
		return -1
	}
}

// cli runs the reviewer's CLI against the hub with token.
func (h *hubProc) cli(token string, args ...string) (int, string, string) {
	h.t.Helper()
	return h.cliIn(h.t.TempDir(), token, args...)
}

// cliIn runs it with the state directory dir (what the reviewer saw).
func (h *hubProc) cliIn(dir, token string, args ...string) (int, string, string) {
	h.t.Helper()
	cmd := exec.Command(builtBinary(h.t), append([]string{"--backend", "events", "--url", h.url}, args...)...)
	cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME="+dir, "HITL_BEARER_TOKEN="+token)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// oneLine asserts the hook said exactly one line on stderr, containing want.
func oneStderrLine(t *testing.T, p *hookProc, want string) {
	t.Helper()
	s := p.stderr.String()
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") || !strings.Contains(s, want) {
		t.Fatalf("stderr should be one line saying %q, got %q", want, s)
	}
}

func TestHookClaudeDecidedFromTheCLI(t *testing.T) {
	t.Parallel()
	h := startHub(t, teamYAML)

	t.Run("approve a Bash command", func(t *testing.T) {
		p := h.hook("claude", claudeBash)
		id := h.waitRequest("sess-bash")
		code, out, _ := h.cli(aliceToken, "show", id)
		for _, want := range []string{"Agent      claude on ", " in /src/app (session sess-bash, mode default)", "  Reinstall the dependencies", "  $ rm -rf node_modules && npm ci"} {
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("show (exit %d) lacks %q:\n%s", code, want, out)
			}
		}
		if code, out, errs := h.cli(aliceToken, "approve", id); code != 0 || !strings.Contains(out, "the agent has the answer") {
			t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
		}
		if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON || len(p.stderr.String()) != 0 {
			t.Fatalf("hook: exit %d, stdout %q, stderr %q", code, p.stdout.String(), p.stderr.String())
		}
		if st := h.standing(id); st["responded_by"] != "alice" {
			t.Fatalf("responded_by %v, want alice (the token's reviewer)", st["responded_by"])
		}
	})

	t.Run("edit the Write of a new file", func(t *testing.T) {
		p := h.hook("claude", claudeWrite)
		id := h.waitRequest("sess-write")
		_, out, _ := h.cli(aliceToken, "show", id)
		for _, want := range []string{"  file /src/app/NOTES.md", "    + # Notes\n", "    + ship on friday\n"} {
			if !strings.Contains(out, want) {
				t.Fatalf("show lacks %q:\n%s", want, out)
			}
		}
		args := filepath.Join(t.TempDir(), "args.json")
		if err := os.WriteFile(args, []byte(`{"file_path": "/src/app/NOTES.md", "content": "# Notes\n\nship on monday \u00e9\n"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, errs := h.cli(aliceToken, "edit", id, "--args", args); code != 0 {
			t.Fatalf("edit: exit %d\n%s%s", code, out, errs)
		}
		want := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"file_path":"/src/app/NOTES.md","content":"# Notes\n\nship on monday \u00e9\n"}}}}` + "\n"
		if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != want {
			t.Fatalf("hook: exit %d, stdout %q, want %q; stderr %q", code, p.stdout.String(), want, p.stderr.String())
		}
	})

	t.Run("reject the Edit of a file", func(t *testing.T) {
		p := h.hook("claude", claudeEdit)
		id := h.waitRequest("sess-edit")
		_, out, _ := h.cli(aliceToken, "show", id)
		for _, want := range []string{"  file /src/app/main.go", "    - \\tfmt.Println(\"hi\")", "    + \\tfmt.Println(\"hello\")", "    + \\tos.Exit(0)"} {
			if !strings.Contains(strings.ReplaceAll(out, "\t", `\t`), want) {
				t.Fatalf("show lacks %q:\n%s", want, out)
			}
		}
		if code, out, errs := h.cli(aliceToken, "reject", id, "-m", `not on main: use a "branch"`); code != 0 {
			t.Fatalf("reject: exit %d\n%s%s", code, out, errs)
		}
		want := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main: use a \"branch\""}}}` + "\n"
		if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != want {
			t.Fatalf("hook: exit %d, stdout %q, want %q; stderr %q", code, p.stdout.String(), want, p.stderr.String())
		}
	})

	t.Run("hostile bytes stay inert", func(t *testing.T) {
		p := h.hook("claude", claudeHostile)
		id := h.waitRequest("sess-\x1b[2J")
		code, out, _ := h.cli(aliceToken, "show", id)
		if code != 0 || strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Fatalf("show (exit %d) printed raw control bytes: %q", code, out)
		}
		for _, want := range []string{`/tmp/\u001b]0;pwned\u0007`, "WARNING", `mcp__evil__run\u001b[31m`} {
			if !strings.Contains(out, want) {
				t.Fatalf("show lacks %q:\n%s", want, out)
			}
		}
		if code, out, errs := h.cli(aliceToken, "approve", id); code != 0 {
			t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
		}
		if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
			t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
		}
	})
}

func TestHookCodex(t *testing.T) {
	t.Parallel()
	h := startHub(t, teamYAML)
	p := h.hook("codex", codexBash)
	id := h.waitRequest("thread-7")
	_, out, _ := h.cli(aliceToken, "list")
	if !strings.Contains(out, "git push --force origin main") {
		t.Fatalf("list:\n%s", out)
	}
	// Codex fails closed on updatedInput: the CLI offers no edit, and the
	// hub refuses one sent by hand.
	args := filepath.Join(t.TempDir(), "args.json")
	_ = os.WriteFile(args, []byte(`{"command": "git push origin main"}`), 0o600)
	if code, out, errs := h.cli(aliceToken, "edit", id, "--args", args); code == 0 || !strings.Contains(out+errs, "edit") || !strings.Contains(out+errs, "allowed: approve, reject") {
		t.Fatalf("a Codex edit was not refused: exit %d\n%s%s", code, out, errs)
	}
	edit := map[string]any{"request_id": id, "response": map[string]any{"decisions": []any{map[string]any{"type": "edit",
		"edited_action": map[string]any{"name": "Bash", "args": map[string]any{"command": "git push origin main"}}}}}}
	if code, b := h.do(aliceToken, "POST", "/hitl/respond", edit); code != 422 || !strings.Contains(string(b), `\"edit\" is not allowed here; allowed: approve, reject`) {
		t.Fatalf("the hub took an edit of a Codex request: HTTP %d %s", code, b)
	}
	if code, out, errs := h.cli(aliceToken, "reject", id, "-m", "never force-push main"); code != 0 {
		t.Fatalf("reject: exit %d\n%s%s", code, out, errs)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"never force-push main"}}}` + "\n"
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != want {
		t.Fatalf("hook: exit %d, stdout %q, want %q; stderr %q", code, p.stdout.String(), want, p.stderr.String())
	}

	// Approved: allow, and nothing else.
	p = h.hook("codex", strings.Replace(codexBash, "thread-7", "thread-8", 1))
	id = h.waitRequest("thread-8")
	if code, out, errs := h.cli(aliceToken, "approve", id); code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
}

func TestHookWithdrawsAndPrintsNothing(t *testing.T) {
	t.Parallel()
	h := startHub(t, teamYAML)

	t.Run("timeout", func(t *testing.T) {
		p := h.hook("claude", claudeBash, "--timeout", "1s")
		id := h.waitRequest("sess-bash")
		reviewer := t.TempDir()
		if _, out, _ := h.cliIn(reviewer, aliceToken, "list"); !strings.Contains(out, "rm -rf node_modules") {
			t.Fatalf("list:\n%s", out)
		}
		if code := p.finish(t, 20*time.Second); code != 0 || len(p.stdout.String()) != 0 {
			t.Fatalf("hook: exit %d, stdout %q", code, p.stdout.String())
		}
		oneStderrLine(t, p, "no decision within 1s")
		if st := h.standing(id); st["status"] != "withdrawn" || st["reason"] != "no decision within 1s" {
			t.Fatalf("standing: %v", st)
		}
		// A decision that comes after is refused, with the word of why.
		code, out, errs := h.cliIn(reviewer, aliceToken, "approve", id)
		if code == 0 || !strings.Contains(out+errs, "already handled elsewhere; nothing sent (withdrawn: no decision within 1s)") {
			t.Fatalf("approve after withdrawal: exit %d\n%s%s", code, out, errs)
		}
		if code, b := h.do(aliceToken, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}}); code != 409 || !strings.Contains(string(b), "already handled elsewhere: withdrawn") {
			t.Fatalf("respond after withdrawal: HTTP %d %s", code, b)
		}
	})

	t.Run("SIGTERM", func(t *testing.T) {
		p := h.hook("claude", claudeWrite)
		id := h.waitRequest("sess-write")
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if code := p.finish(t, 20*time.Second); code != 0 || len(p.stdout.String()) != 0 {
			t.Fatalf("hook: exit %d, stdout %q", code, p.stdout.String())
		}
		oneStderrLine(t, p, "interrupted")
		if st := h.standing(id); st["status"] != "withdrawn" {
			t.Fatalf("standing: %v", st)
		}
		if n := h.pendingCount(); n != 0 {
			t.Fatalf("%d requests still pending", n)
		}
	})

	t.Run("hub down", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		down := "http://" + ln.Addr().String()
		ln.Close()
		p := startHook(t, down, "claude", claudeBash)
		if code := p.finish(t, 20*time.Second); code != 0 || len(p.stdout.String()) != 0 {
			t.Fatalf("hook: exit %d, stdout %q", code, p.stdout.String())
		}
		oneStderrLine(t, p, "could not put the request up on "+down)
	})

	t.Run("hub gone while waiting", func(t *testing.T) {
		// The hook tries the lost hub again until its --timeout (the hub
		// may come back with the request, and its answer), then lets the
		// agent ask as usual.
		h2 := startHub(t, teamYAML)
		p := h2.hook("codex", codexBash, "--timeout", "4s")
		h2.waitRequest("thread-7")
		_ = h2.cmd.Process.Signal(syscall.SIGTERM)
		_ = h2.cmd.Wait()
		if code := p.finish(t, 30*time.Second); code != 0 || len(p.stdout.String()) != 0 {
			t.Fatalf("hook: exit %d, stdout %q", code, p.stdout.String())
		}
		oneStderrLine(t, p, "no decision within 4s (the hub was lost")
	})
}

func TestHubTokensAndRoles(t *testing.T) {
	t.Parallel()
	h := startHub(t, teamYAML)
	for _, path := range []string{"/hitl/pending", "/hitl/events", "/hitl/requests/x"} {
		if code, _ := h.do("", "GET", path, nil); code != 401 {
			t.Fatalf("GET %s without a token: HTTP %d, want 401", path, code)
		}
		if code, _ := h.do("not-a-token-of-the-team", "GET", path, nil); code != 401 {
			t.Fatalf("GET %s with a stranger's token: HTTP %d, want 401", path, code)
		}
	}
	if code, _ := h.do(aliceToken, "POST", "/hitl/requests", map[string]any{"agent": "x", "data": "hi"}); code != 403 {
		t.Fatalf("a reviewer published: HTTP %d, want 403", code)
	}
	p := h.hook("claude", claudeBash)
	id := h.waitRequest("sess-bash")
	// The publisher's token cannot decide, nor read the inbox.
	code, out, errs := h.cli(publishToken, "approve", id)
	// (It cannot even list: exit 1, the token is wrong for it.)
	if code == 0 || !strings.Contains(out+errs, "HTTP 403") || !strings.Contains(out+errs, "publisher") {
		t.Fatalf("the publisher's approve: exit %d\n%s%s", code, out, errs)
	}
	if code, b := h.do(publishToken, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": map[string]any{"decisions": []any{map[string]any{"type": "approve"}}}}); code != 403 {
		t.Fatalf("the publisher's respond: HTTP %d %s", code, b)
	}
	// A viewer looks and does not decide.
	if code, out, _ := h.cli(viewerToken, "list"); code != 0 || !strings.Contains(out, "rm -rf node_modules") {
		t.Fatalf("the viewer's list: exit %d\n%s", code, out)
	}
	code, out, errs = h.cli(viewerToken, "approve", id)
	if code != exitRefused || !strings.Contains(out+errs, "vic is a viewer: only an approver decides") {
		t.Fatalf("the viewer's approve: exit %d\n%s%s", code, out, errs)
	}
	if st := h.standing(id); st["status"] != "pending" {
		t.Fatalf("refused decisions changed the request: %v", st)
	}
	if len(p.stdout.String()) != 0 {
		t.Fatalf("the hook answered: %q", p.stdout.String())
	}
	if code, _, _ := h.cli(aliceToken, "approve", id); code != 0 {
		t.Fatal("alice could not approve")
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
}

func TestHookTwoPersonRuleOnBash(t *testing.T) {
	t.Parallel()
	h := startHub(t, teamYAML+"  rules:\n    - tools: [\"Bash\"]\n      approvals: 2\n")
	p := h.hook("claude", claudeBash)
	id := h.waitRequest("sess-bash")
	alice := t.TempDir()
	code, out, errs := h.cliIn(alice, aliceToken, "approve", id)
	if code != exitPending || !strings.Contains(out+errs, ": 1 of 2 approvals (alice) recorded for Bash: nothing is sent until another approver confirms the same decision") ||
		strings.Contains(out+errs, "not sent:") {
		t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
	}
	// alice again changes nothing: refused, naming the approval that stands.
	code, out, errs = h.cliIn(alice, aliceToken, "approve", id)
	if code != exitRefused || !strings.Contains(out+errs, ": refused: Bash: you approved this decision already (1 of 2 approvals (alice)); Bash needs another approver, who confirms the same decision: nothing sent") {
		t.Fatalf("alice twice: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = h.cliIn(alice, aliceToken, "approve", id, "--json")
	if code != exitRefused || !strings.Contains(out, `"result": "refused"`) || !strings.Contains(out, "you approved this decision already (1 of 2 approvals (alice))") {
		t.Fatalf("alice twice, --json: exit %d\n%s%s", code, out, errs)
	}
	// Her history and the team's agree: one approval recorded, then refusals.
	if code, out, errs := h.cliIn(alice, aliceToken, "history"); code != 0 || strings.Count(out, "approval recorded") != 1 || strings.Count(out, "refused") != 2 {
		t.Fatalf("alice's history: exit %d\n%s%s", code, out, errs)
	}
	// One spelling in both: words, as a row of text says them.
	if code, out, errs := h.cli(aliceToken, "history", "--team", "--request", id); code != 0 || strings.Count(out, "approval recorded") != 1 || strings.Contains(out, "approval-recorded") || strings.Count(out, "refused") != 2 {
		t.Fatalf("team history: exit %d\n%s%s", code, out, errs)
	}
	time.Sleep(300 * time.Millisecond)
	if len(p.stdout.String()) != 0 || h.standing(id)["status"] != "pending" {
		t.Fatalf("one approver was enough: %q", p.stdout.String())
	}
	// bob's inbox says where it stands.
	tui := startHookTUI(t, h, bobToken, 100, 24)
	tui.waitFor("[claude]", "✔1/2 Bash(command=")
	if code, out, errs := h.cli(bobToken, "approve", id); code != 0 || !strings.Contains(out, "the agent has the answer") {
		t.Fatalf("bob's approve: exit %d\n%s%s", code, out, errs)
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	if st := h.standing(id); st["responded_by"] != "alice + bob" {
		t.Fatalf("responded_by %v", st["responded_by"])
	}

	// One reject is enough.
	p = h.hook("claude", strings.Replace(claudeBash, "sess-bash", "sess-two", 1))
	id = h.waitRequest("sess-two")
	if code, _, _ := h.cli(bobToken, "reject", id, "-m", "no"); code != 0 {
		t.Fatal("bob could not reject")
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}` + "\n"
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != want {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	// The team's log by the short id the screens show: the reject's reason
	// on its row; a prefix of both requests is ambiguous, and says so.
	if code, out, errs := h.cli(aliceToken, "history", "--team", "--request", id[:8]); code != 0 || strings.Count(out, "\n") != 1 ||
		!strings.Contains(out, `reject Bash`) || !strings.Contains(out, `sent  reason "no"`) {
		t.Fatalf("history --request %s: exit %d\n%s%s", id[:8], code, out, errs)
	}
	if code, out, errs := h.cli(aliceToken, "history", "--team", "--request", "req-"); code != 2 || !strings.Contains(errs, `request "req-" is ambiguous`) {
		t.Fatalf("an ambiguous --request: exit %d\n%s%s", code, out, errs)
	}
}

// An edit replaces the first approval of another decision: the approver
// it replaced does not count toward the edit, nor toward what they
// approved once it was replaced.
func TestHookTwoPersonRuleEditReplaces(t *testing.T) {
	t.Parallel()
	h := startHub(t, teamYAML+"  rules:\n    - tools: [\"Bash\"]\n      approvals: 2\n")
	edit := func(id string) {
		t.Helper()
		code, out, errs := h.cli(bobToken, "edit", id, "--set", "command=npm publish --dry-run")
		if code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (bob) recorded for Bash; it replaces the approval of another decision (1 of 2 approvals (alice))") {
			t.Fatalf("bob's edit: exit %d\n%s%s", code, out, errs)
		}
	}
	// alice's TUI shows what bob approved, and her approve key confirms
	// that: his edit is sent, naming both.
	p := h.hook("claude", strings.Replace(claudeBash, "sess-bash", "sess-tui", 1))
	id := h.waitRequest("sess-tui")
	if code, out, errs := h.cli(aliceToken, "approve", id); code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (alice) recorded for Bash") {
		t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
	}
	edit(id)
	// list and show say whose approval stands, and of what.
	if code, out, errs := h.cli(aliceToken, "list"); code != 0 || !strings.Contains(out, "[1 of 2 approvals (bob: edit Bash)]") {
		t.Fatalf("list: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := h.cli(aliceToken, "show", id); code != 0 ||
		!strings.Contains(out, `Approvals  1 of 2 approvals (bob: edit Bash with {"command":"npm publish --dry-run"`) {
		t.Fatalf("show: exit %d\n%s%s", code, out, errs)
	}
	tui := startHookTUI(t, h, aliceToken, 100, 24)
	tui.waitFor("[claude]", "✔1/2 Bash(command=")
	tui.keys("Enter")
	tui.waitFor("1 of 2 approvals (bob): edit Bash with", `{"command":"npm publish --dry-`)
	tui.press("a", "Send this?", "Confirming bob's approval", "npm publish --dry-run") // pressed again if ignored: the list just changed, on purpose
	tui.keys("y")
	if code := p.finish(t, 20*time.Second); code != 0 || !strings.Contains(p.stdout.String(), `"behavior":"allow","updatedInput":{"command":"npm publish --dry-run"`) {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	if st := h.standing(id); st["responded_by"] != "bob + alice" {
		t.Fatalf("responded_by %v", st["responded_by"])
	}

	p = h.hook("claude", claudeBash)
	id = h.waitRequest("sess-bash")
	aliceDir := t.TempDir()
	if code, out, errs := h.cliIn(aliceDir, aliceToken, "approve", id); code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (alice) recorded for Bash") {
		t.Fatalf("alice's approve: exit %d\n%s%s", code, out, errs)
	}
	edit(id)
	// bob's plain approve is not alice's (replaced): nothing is sent.
	code, out, errs := h.cli(bobToken, "approve", id)
	if code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (bob) recorded for Bash") {
		t.Fatalf("bob's approve: exit %d\n%s%s", code, out, errs)
	}
	time.Sleep(300 * time.Millisecond)
	if len(p.stdout.String()) != 0 || h.standing(id)["status"] != "pending" {
		t.Fatalf("a replaced approval counted: %q %v", p.stdout.String(), h.standing(id))
	}
	// alice confirms bob's approve: sent, naming both.
	if code, out, errs := h.cli(aliceToken, "approve", id); code != 0 {
		t.Fatalf("alice's confirm: exit %d\n%s%s", code, out, errs)
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	if st := h.standing(id); st["responded_by"] != "bob + alice" {
		t.Fatalf("responded_by %v", st["responded_by"])
	}
	// alice's history: her first approval was recorded, not a failure.
	if code, out, errs := h.cliIn(aliceDir, aliceToken, "history"); code != 0 || !strings.Contains(out, "approval recorded") || strings.Contains(out, "not sent") {
		t.Fatalf("history: exit %d\n%s%s", code, out, errs)
	}
}

// hookTUI is the reviewer's TUI in tmux on a socket of its own.
type hookTUI struct {
	t      *testing.T
	socket string
}

func startHookTUI(t *testing.T, h *hubProc, token string, w, hgt int) *hookTUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := builtBinary(t)
	dir := t.TempDir()
	tt := &hookTUI{t: t, socket: fmt.Sprintf("hitl-hooks-%d", time.Now().UnixNano())}
	vars := []string{"HITL_CONFIG=" + filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME=" + dir, "HITL_BEARER_TOKEN=" + token, "NO_COLOR=1", "TERM=xterm-256color"}
	shell := "env " + strings.Join(quoteAll(vars), " ") + " " + bin + " --backend events --url " + h.url
	cmd := exec.Command("tmux", "-L", tt.socket, "-f", "/dev/null", "new-session", "-d", "-s", "hitl", "-x", fmt.Sprint(w), "-y", fmt.Sprint(hgt), shell)
	cmd.Env = hermeticEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		// The TUI writes its state as it ends: its directory goes after it.
		out, _ := exec.Command("tmux", "-L", tt.socket, "list-panes", "-F", "#{pane_pid}").Output()
		_ = exec.Command("tmux", "-L", tt.socket, "kill-server").Run()
		if pid, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && syscall.Kill(pid, 0) == nil; {
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
	return tt
}

// press presses a key until the screen shows every part of want (see
// pressUntil).
func (tt *hookTUI) press(key string, want ...string) {
	tt.t.Helper()
	pressUntil(tt, key, want...)
}

func (tt *hookTUI) screen() string {
	out, _ := exec.Command("tmux", "-L", tt.socket, "capture-pane", "-p", "-t", "hitl").Output()
	return string(out)
}

func (tt *hookTUI) waitFor(parts ...string) string {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tt.screen()
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(s, p)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("the screen never showed %q:\n%s", parts, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (tt *hookTUI) keys(keys ...string) {
	tt.t.Helper()
	for _, k := range keys {
		if err := exec.Command("tmux", "-L", tt.socket, "send-keys", "-t", "hitl", k).Run(); err != nil {
			tt.t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

func (tt *hookTUI) text(s string) {
	tt.t.Helper()
	if err := exec.Command("tmux", "-L", tt.socket, "send-keys", "-l", "-t", "hitl", s).Run(); err != nil {
		tt.t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
}

func TestHookDecidedInTheTUI(t *testing.T) {
	t.Parallel()
	h := startHub(t, teamYAML)
	p := h.hook("claude", claudeEdit)
	h.waitRequest("sess-edit")
	tui := startHookTUI(t, h, aliceToken, 80, 24)
	tui.waitFor("[claude]", "Edit(file_path=")
	tui.keys("Enter")
	screen := tui.waitFor("Review tool call Edit", "in /src/app (session sess-edit)", "file /src/app/main.go",
		`-     fmt.Println("h[i]")`, `+     fmt.Println("h[ello]")`, "+     os.Exit(0)")
	if strings.Contains(screen, "\x1b") {
		t.Fatal("escape sequences in a NO_COLOR capture")
	}
	tui.keys("a")
	tui.waitFor("Send this?", "Action 1/1 Edit: approve")
	tui.keys("y")
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}

	// Codex, rejected with a reason typed in the TUI; its edit is not offered.
	p = h.hook("codex", codexBash)
	h.waitRequest("thread-7")
	tui.waitFor("[codex]", "git push --force")
	tui.press("Enter", "$ git push --force origin main", "Push the rewritten history", "allowed: approve, reject")
	tui.press("e", "edit is not allowed") // pressed again if ignored: the list just changed, on purpose
	tui.keys("r")
	tui.waitFor("Reason for rejecting")
	tui.text("not on a Friday")
	tui.keys("C-s")
	tui.waitFor("Send this?")
	tui.keys("y")
	want := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on a Friday"}}}` + "\n"
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != want {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}

	// Withdrawn while the reviewer reads it: it leaves, with the word of why.
	p = h.hook("claude", claudeWrite, "--timeout", "4s")
	h.waitRequest("sess-write")
	tui.waitFor("[claude]", "Write(file_path=")
	tui.press("Enter", "file /src/app/NOTES.md", "+ # Notes", "+ ship on friday")
	tui.waitFor("was withdrawn by its agent: no decision within 4s.")
	if code := p.finish(t, 20*time.Second); code != 0 || len(p.stdout.String()) != 0 {
		t.Fatalf("hook: exit %d, stdout %q", code, p.stdout.String())
	}

	// Its hook killed outright while the reviewer reads it: the hub
	// withdraws it a lease later, and the screen says the hub did, not its
	// agent.
	p = h.hook("claude", strings.Replace(claudeWrite, "sess-write", "sess-killed", 1))
	h.waitRequest("sess-killed")
	tui.press("Enter", "file /src/app/NOTES.md", "(session sess-killed)")
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	screen = tui.waitFor("was withdrawn by the hub: its hook stopped waiting (none for 6s:", "killed, or cut off from the hub): nothing waits for an answer.")
	if strings.Contains(screen, "by its agent") {
		t.Fatalf("a withdrawal the hub made said to be its agent's:\n%s", screen)
	}
}

// With --ssh and --http, one hub: a coding agent's request is in the SSH
// sessions' inbox beside the LangGraph server's interrupts (here the demo's
// LangGraph-compatible server), and an approver decides it there.
// sshHookHub runs hitl serve with both doors (--ssh and --http) in front
// of hitl demo --serve, for a team of alice and bob (approvers: keys and
// tokens) with the rule tools: [Bash], approvals: 2.
func sshHookHub(t *testing.T) (*hubProc, *teamHub, *syncBuffer) {
	t.Helper()
	needSSH(t)
	bin := builtBinary(t)
	dir := t.TempDir()

	demo := exec.Command(bin, "demo", "--serve", "--listen", "127.0.0.1:0")
	demo.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME="+filepath.Join(dir, "demo"))
	out, err := demo.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := demo.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = demo.Process.Kill(); _ = demo.Wait() })
	upstream := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if i := strings.Index(sc.Text(), "server at "); i >= 0 {
			upstream = strings.Fields(sc.Text()[i+len("server at "):])[0]
			break
		}
	}
	go io.Copy(io.Discard, out)
	if upstream == "" {
		t.Fatal("hitl demo --serve said no URL")
	}

	keys := map[string]string{}
	for _, n := range []string{"alice", "bob"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", n+"@test", "-f", filepath.Join(dir, n)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		pub, _ := os.ReadFile(filepath.Join(dir, n+".pub"))
		keys[n] = strings.TrimSpace(string(pub))
	}
	cfg := fmt.Sprintf("team:\n  reviewers:\n    alice: {keys: [%q], token: %q, role: approver}\n    bob: {keys: [%q], token: %q, role: approver}\n"+
		"  publishers:\n    ci: {token_env: HITL_PUBLISH_TOKEN}\n  rules:\n    - tools: [\"Bash\"]\n      approvals: 2\n",
		keys["alice"], aliceToken, keys["bob"], bobToken)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	th := &teamHub{t: t, dir: dir, upstream: upstream, port: freePort(t), sock: fmt.Sprintf("hitl-hooks-ssh-%d", time.Now().UnixNano())}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", th.sock, "kill-server").Run() })
	httpPort := freePort(t)
	serve := exec.Command(bin, "serve", "--ssh", fmt.Sprintf("127.0.0.1:%d", th.port), "--http", fmt.Sprintf("127.0.0.1:%d", httpPort), "--url", upstream)
	serve.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(dir, "config.yaml"), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)
	logs := &syncBuffer{}
	serve.Stdout, serve.Stderr = logs, logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = serve.Process.Signal(syscall.SIGTERM); _ = serve.Wait() })
	h := &hubProc{t: t, url: fmt.Sprintf("http://127.0.0.1:%d", httpPort), dir: dir, cmd: serve}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", th.port)); err == nil {
			c.Close()
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", httpPort)); err == nil {
				c.Close()
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("hitl serve --ssh --http did not listen:\n%s", logs.String())
		}
	}
	return h, th, logs
}

func TestHookRequestInTheSSHInbox(t *testing.T) {
	t.Parallel()
	h, th, logs := sshHookHub(t)

	p := h.hook("claude", claudeWrite)
	id := h.waitRequest("sess-write")
	tt := th.session("alice")
	tt.waitFor("[claude]", "Write(file_path=")
	tt.open("sess-write", "Review tool call Write")
	tt.waitFor("file /src/app/NOTES.md", "+ ship on friday", "in /src/app (session sess-write")
	tt.press("a", "Send this?") // pressed again if ignored: the list just changed, on purpose
	tt.keys("y")
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q\n%s", code, p.stdout.String(), p.stderr.String(), logs.String())
	}
	if st := h.standing(id); st["responded_by"] != "alice" {
		t.Fatalf("responded_by %v", st["responded_by"])
	}

	// The two-person rule across the doors: alice approves in her SSH
	// session, bob from the CLI over HTTP.
	p = h.hook("claude", claudeBash)
	id = h.waitRequest("sess-bash")
	tt.keys("Escape")
	tt.open("sess-bash", "Review tool call Bash")
	tt.waitFor("$ rm -rf node_modules && npm ci")
	tt.press("a", "Record your approval?", "$ rm -rf node_modules && npm ci") // pressed again if ignored: the list just changed, on purpose
	tt.keys("y")
	tt.waitFor("1 of 2 approvals (alice)")
	time.Sleep(300 * time.Millisecond)
	if len(p.stdout.String()) != 0 || h.standing(id)["status"] != "pending" {
		t.Fatalf("one approver was enough: %q", p.stdout.String())
	}
	if code, out, errs := h.cli(bobToken, "approve", id); code != 0 {
		t.Fatalf("bob's approve: exit %d\n%s%s", code, out, errs)
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	if st := h.standing(id); st["responded_by"] != "alice + bob" {
		t.Fatalf("responded_by %v", st["responded_by"])
	}

	// And the other way: bob first over HTTP, alice confirms over SSH.
	p = h.hook("claude", strings.Replace(claudeBash, "sess-bash", "sess-again", 1))
	id = h.waitRequest("sess-again")
	if code, out, errs := h.cli(bobToken, "approve", id); code == 0 || !strings.Contains(out+errs, "1 of 2 approvals (bob) recorded") {
		t.Fatalf("bob's approve: exit %d\n%s%s", code, out, errs)
	}
	tt.keys("Escape")
	tt.open("sess-again", "Review tool call Bash")
	tt.waitFor("1 of 2 approvals (bob)")
	tt.press("a", "Send this?") // pressed again if ignored: the list just changed, on purpose
	tt.keys("y")
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	if st := h.standing(id); st["responded_by"] != "bob + alice" {
		t.Fatalf("responded_by %v", st["responded_by"])
	}
	// The team's audit log has the SSH session's decisions on hook
	// requests, with the door they came by, beside the HTTP door's.
	code, hist, errs := h.cli(bobToken, "history", "--team", "--request", id, "--json")
	if code != 0 || strings.Count(hist, "\n") != 2 || !strings.Contains(hist, `"reviewer":"alice","role":"approver","source":"hook","door":"ssh"`) ||
		!strings.Contains(hist, `"approvers":["bob","alice"],"outcome":"sent"`) || !strings.Contains(hist, `"reviewer":"bob","role":"approver","source":"hook","door":"http"`) {
		t.Fatalf("history --team: exit %d\n%s%s", code, hist, errs)
	}
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
