package main

// Gemini CLI's and Cursor's hooks, for real as Claude Code's are
// (hook_test.go): the built binary serves the hub and is the hook, a
// reviewer decides with the built CLI, and what the agent reads on the
// hook's stdout is checked field by field.

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// What the agents' documentation gives the hooks.
const (
	geminiShell = `{"session_id":"gem-1","transcript_path":"/home/dev/.gemini/tmp/t.json","cwd":"/src/app","hook_event_name":"BeforeTool","timestamp":"2026-11-28T10:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf dist && npm run build","description":"Rebuild the bundle","dir_path":"web"}}`
	geminiWrite = `{"session_id":"gem-2","transcript_path":"/t.json","cwd":"/src/app","hook_event_name":"BeforeTool","timestamp":"2026-11-28T10:00:00Z","tool_name":"write_file","tool_input":{"file_path":"/src/app/NOTES.md","content":"# Notes\nship on friday\n"}}`
	cursorShell = `{"hook_event_name":"beforeShellExecution","conversation_id":"conv-1","generation_id":"gen-1","workspace_roots":["/src/app"],"command":"git push --force origin main","cwd":"/src/app/web","model":"gpt-5","cursor_version":"2.0.77"}`
	cursorTool  = `{"hook_event_name":"preToolUse","conversation_id":"conv-2","generation_id":"gen-2","workspace_roots":["/src/app"],"tool_name":"Shell","tool_input":{"command":"curl https://example.invalid/install.sh | sh"}}`
)

// fields decodes the hook's stdout, one JSON object on one line.
func fields(t *testing.T, p *hookProc) map[string]any {
	t.Helper()
	out := p.stdout.String()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("stdout should be one line of JSON, got %q (stderr %q)", out, p.stderr.String())
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("stdout is not a JSON object: %q", out)
	}
	return m
}

func wantFields(t *testing.T, p *hookProc, want map[string]any) {
	t.Helper()
	if got := fields(t, p); !reflect.DeepEqual(got, want) {
		t.Fatalf("the agent reads %v, want exactly %v", got, want)
	}
}

func TestHookGemini(t *testing.T) {
	h := startHub(t, teamYAML)

	t.Run("a shell command, shown and approved", func(t *testing.T) {
		p := h.hook("gemini", geminiShell)
		id := h.waitRequest("gem-1")
		code, out, _ := h.cli(aliceToken, "show", id)
		for _, want := range []string{"Agent      gemini on ", " in /src/app (session gem-1)", "run_shell_command", "  Rebuild the bundle",
			"  $ rm -rf dist && npm run build", `"dir_path": "web"`, "allowed: approve, reject"} {
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("show (exit %d) lacks %q:\n%s", code, want, out)
			}
		}
		if _, out, _ := h.cli(aliceToken, "list"); !strings.Contains(out, "[gemini]") {
			t.Fatalf("list:\n%s", out)
		}
		if code, out, errs := h.cli(aliceToken, "approve", id); code != 0 || !strings.Contains(out, "the agent has the answer") {
			t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
		}
		if code := p.finish(t, 20*time.Second); code != 0 || p.stderr.String() != "" {
			t.Fatalf("hook: exit %d, stderr %q", code, p.stderr.String())
		}
		wantFields(t, p, map[string]any{"decision": "allow"})
	})

	t.Run("a file written, rejected with a reason", func(t *testing.T) {
		p := h.hook("gemini", geminiWrite)
		id := h.waitRequest("gem-2")
		if _, out, _ := h.cli(aliceToken, "show", id); !strings.Contains(out, "  file /src/app/NOTES.md") || !strings.Contains(out, "+ ship on friday") {
			t.Fatalf("show:\n%s", out)
		}
		// Gemini CLI takes no edited input from hitl: edit is not offered.
		if code, out, errs := h.cli(aliceToken, "edit", id, "--set", "content=x"); code == 0 || !strings.Contains(out+errs, "allowed: approve, reject") {
			t.Fatalf("a Gemini edit was not refused: exit %d\n%s%s", code, out, errs)
		}
		if code, out, errs := h.cli(aliceToken, "reject", id, "-m", `write it under docs/, "NOTES.md" is generated`); code != 0 {
			t.Fatalf("reject: exit %d\n%s%s", code, out, errs)
		}
		p.finish(t, 20*time.Second)
		wantFields(t, p, map[string]any{"decision": "deny", "reason": `write it under docs/, "NOTES.md" is generated`})
	})

	t.Run("a reject without a message still gives the reason Gemini CLI requires", func(t *testing.T) {
		p := h.hook("gemini", strings.Replace(geminiShell, "gem-1", "gem-3", 1))
		id := h.waitRequest("gem-3")
		if code, out, errs := h.cli(bobToken, "reject", id); code != 0 {
			t.Fatalf("reject: exit %d\n%s%s", code, out, errs)
		}
		p.finish(t, 20*time.Second)
		wantFields(t, p, map[string]any{"decision": "deny", "reason": "Denied by bob in hitl."})
	})

	t.Run("no decision in time: Gemini CLI asks its user", func(t *testing.T) {
		p := h.hook("gemini", strings.Replace(geminiShell, "gem-1", "gem-4", 1), "--timeout", "1s")
		id := h.waitRequest("gem-4")
		if code := p.finish(t, 20*time.Second); code != 0 {
			t.Fatalf("hook: exit %d", code)
		}
		oneStderrLine(t, p, "no decision within 1s")
		wantFields(t, p, map[string]any{"decision": "ask", "systemMessage": "hitl: withdrew request " + id + ": no decision within 1s"})
		if st := h.standing(id); st["status"] != "withdrawn" {
			t.Fatalf("standing: %v", st)
		}
	})

	t.Run("a bad token: Gemini CLI asks its user", func(t *testing.T) {
		p := startHookToken(t, h.url, "gemini", geminiShell, "not-a-token-of-the-team")
		if code := p.finish(t, 20*time.Second); code != 0 {
			t.Fatalf("hook: exit %d", code)
		}
		oneStderrLine(t, p, "the hub refused the token (HTTP 401")
		m := fields(t, p)
		if len(m) != 2 || m["decision"] != "ask" || !strings.Contains(m["systemMessage"].(string), "HITL_BEARER_TOKEN must be a publisher's token") {
			t.Fatalf("the agent reads %v", m)
		}
	})

	t.Run("configured under another event: nothing printed", func(t *testing.T) {
		p := h.hook("gemini", strings.Replace(geminiShell, `"BeforeTool"`, `"AfterTool"`, 1))
		if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != "" {
			t.Fatalf("hook: exit %d, stdout %q", code, p.stdout.String())
		}
		oneStderrLine(t, p, "this hook answers BeforeTool, not AfterTool")
	})
}

func TestHookCursor(t *testing.T) {
	h := startHub(t, teamYAML)

	t.Run("beforeShellExecution, rejected", func(t *testing.T) {
		p := h.hook("cursor", cursorShell)
		id := h.waitRequest("conv-1")
		code, out, _ := h.cli(aliceToken, "show", id)
		for _, want := range []string{"Agent      cursor on ", " in /src/app/web (session conv-1, model gpt-5)", "Shell", "  $ git push --force origin main", "allowed: approve, reject"} {
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("show (exit %d) lacks %q:\n%s", code, want, out)
			}
		}
		if code, out, errs := h.cli(aliceToken, "reject", id, "-m", "never force-push main"); code != 0 {
			t.Fatalf("reject: exit %d\n%s%s", code, out, errs)
		}
		if code := p.finish(t, 20*time.Second); code != 0 || p.stderr.String() != "" {
			t.Fatalf("hook: exit %d, stderr %q", code, p.stderr.String())
		}
		wantFields(t, p, map[string]any{"permission": "deny", "user_message": "Denied by alice in hitl: never force-push main",
			"agent_message": "never force-push main"})
	})

	t.Run("preToolUse, approved", func(t *testing.T) {
		p := h.hook("cursor", cursorTool)
		id := h.waitRequest("conv-2")
		if _, out, _ := h.cli(aliceToken, "show", id); !strings.Contains(out, "  $ curl https://example.invalid/install.sh | sh") || !strings.Contains(out, " in /src/app (session conv-2)") {
			t.Fatalf("show:\n%s", out)
		}
		if code, out, errs := h.cli(aliceToken, "approve", id); code != 0 {
			t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
		}
		p.finish(t, 20*time.Second)
		wantFields(t, p, map[string]any{"permission": "allow"})
	})

	t.Run("a reject without a message", func(t *testing.T) {
		p := h.hook("cursor", strings.Replace(cursorShell, "conv-1", "conv-3", 1))
		id := h.waitRequest("conv-3")
		if code, _, _ := h.cli(bobToken, "reject", id); code != 0 {
			t.Fatal("bob could not reject")
		}
		p.finish(t, 20*time.Second)
		wantFields(t, p, map[string]any{"permission": "deny", "user_message": "Denied by bob in hitl.", "agent_message": "Denied by bob in hitl."})
	})

	t.Run("hub down: Cursor asks its user", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		down := "http://" + ln.Addr().String()
		ln.Close()
		p := startHook(t, down, "cursor", cursorShell)
		if code := p.finish(t, 20*time.Second); code != 0 {
			t.Fatalf("hook: exit %d", code)
		}
		oneStderrLine(t, p, "could not put the request up on "+down)
		m := fields(t, p)
		if len(m) != 2 || m["permission"] != "ask" || !strings.HasPrefix(m["user_message"].(string), "hitl: could not put the request up on "+down) {
			t.Fatalf("the agent reads %v", m)
		}
	})

	t.Run("hub down, --fallback deny: Cursor denies, saying why", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		down := "http://" + ln.Addr().String()
		ln.Close()
		p := startHook(t, down, "cursor", cursorShell, "--fallback", "deny")
		if code := p.finish(t, 20*time.Second); code != 0 {
			t.Fatalf("hook: exit %d", code)
		}
		oneStderrLine(t, p, "could not put the request up on "+down)
		if !strings.Contains(p.stderr.String(), "; denied (--fallback deny)") {
			t.Fatalf("stderr: %q", p.stderr.String())
		}
		m := fields(t, p)
		msg, _ := m["user_message"].(string)
		if len(m) != 3 || m["permission"] != "deny" || m["agent_message"] != msg ||
			!strings.HasPrefix(msg, "hitl: no reviewer decided (could not put the request up on "+down) || !strings.HasSuffix(msg, "), so it is denied (hitl hook --fallback deny)") {
			t.Fatalf("the agent reads %v", m)
		}
	})

	t.Run("--fallback of another word is refused", func(t *testing.T) {
		p := startHook(t, "http://127.0.0.1:1", "cursor", cursorShell, "--fallback", "allow")
		if code := p.finish(t, 20*time.Second); code != 2 || !strings.Contains(p.stderr.String(), `--fallback "allow": use ask (the agent's own prompt) or deny`) || p.stdout.String() != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, p.stdout.String(), p.stderr.String())
		}
	})

	t.Run("no decision in time: Cursor asks its user", func(t *testing.T) {
		p := h.hook("cursor", strings.Replace(cursorTool, "conv-2", "conv-4", 1), "--timeout", "1s")
		id := h.waitRequest("conv-4")
		p.finish(t, 20*time.Second)
		wantFields(t, p, map[string]any{"permission": "ask", "user_message": "hitl: withdrew request " + id + ": no decision within 1s"})
	})

	t.Run("not a Cursor input: Cursor asks its user", func(t *testing.T) {
		p := h.hook("cursor", `{"tool_name":"Bash"}`)
		p.finish(t, 20*time.Second)
		oneStderrLine(t, p, "not a Cursor hook's JSON")
		if m := fields(t, p); m["permission"] != "ask" {
			t.Fatalf("the agent reads %v", m)
		}
	})
}

// In the reviewer, a Gemini CLI shell command reads as Claude Code's Bash
// does, and a Cursor one too; the answer is each agent's JSON.
func TestHookGeminiAndCursorInTheTUI(t *testing.T) {
	h := startHub(t, teamYAML)
	p := h.hook("gemini", geminiShell)
	h.waitRequest("gem-1")
	tui := startHookTUI(t, h, aliceToken, 100, 30)
	tui.waitFor("[gemini]", "run_shell_command")
	tui.press("Enter", "Review tool call run_shell_command", "gemini on ", "in /src/app (session gem-1)",
		"$ rm -rf dist && npm run build", "Rebuild the bundle", "allowed: approve, reject")
	time.Sleep(1500 * time.Millisecond) // a key right after the list changed is ignored, on purpose
	tui.keys("a")
	tui.waitFor("Send this?", "run_shell_command: approve")
	tui.keys("y")
	if code := p.finish(t, 20*time.Second); code != 0 {
		t.Fatalf("hook: exit %d; stderr %q", code, p.stderr.String())
	}
	wantFields(t, p, map[string]any{"decision": "allow"})

	p = h.hook("cursor", cursorShell)
	h.waitRequest("conv-1")
	tui.keys("Escape")
	tui.waitFor("[cursor]", "Shell(command=")
	tui.press("Enter", "Review tool call Shell", "cursor on ", "$ git push --force origin main")
	time.Sleep(1500 * time.Millisecond)
	tui.keys("r")
	tui.waitFor("Reason for rejecting")
	tui.text("not on main")
	tui.keys("C-s")
	tui.waitFor("Send this?")
	tui.keys("y")
	if code := p.finish(t, 20*time.Second); code != 0 {
		t.Fatalf("hook: exit %d; stderr %q", code, p.stderr.String())
	}
	wantFields(t, p, map[string]any{"permission": "deny", "user_message": "Denied by alice in hitl: not on main", "agent_message": "not on main"})
}

// TestHookDocsTryIt pipes docs/hooks.md's "try it without an agent" inputs
// into their hooks, as written there, against a real hub: each is put up
// and prints its agent's allow once approved.
func TestHookDocsTryIt(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "hooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	inputs := map[string]string{}
	for i, l := range lines[:len(lines)-1] {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "echo '") || !strings.HasSuffix(l, "' |") {
			continue
		}
		f := strings.Fields(lines[i+1])
		if len(f) < 3 || f[0] != "hitl" || f[1] != "hook" {
			continue
		}
		// The shell's '"$PWD"' inside the single quotes: the directory.
		inputs[f[2]] = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(l, "echo '"), "' |"), `'"$PWD"'`, "/src/app")
	}
	h := startHub(t, teamYAML)
	for _, tc := range []struct{ agent, session, allow string }{
		{"claude", "try-1", allowJSON},
		{"gemini", "try-2", `{"decision":"allow"}` + "\n"},
		{"cursor", "try-3", `{"permission":"allow"}` + "\n"},
	} {
		in, ok := inputs[tc.agent]
		if !ok {
			t.Errorf("docs/hooks.md gives no input to pipe into hitl hook %s", tc.agent)
			continue
		}
		p := h.hook(tc.agent, in, "--timeout", "2m")
		id := h.waitRequest(tc.session)
		if code, out, errs := h.cli(aliceToken, "approve", id); code != 0 {
			t.Fatalf("%s: approve: exit %d\n%s%s", tc.agent, code, out, errs)
		}
		if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != tc.allow {
			t.Errorf("hitl hook %s: exit %d, printed %q, want %q (stderr %q)", tc.agent, code, p.stdout.String(), tc.allow, p.stderr.String())
		}
	}
}
