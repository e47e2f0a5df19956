package main

// The CLI on opencode's permission requests, against the fake opencode
// server (demo.OpencodeServer): list, show, approve (once, and for good
// when asked), reject with feedback, respond refused, a race between two
// reviewers, and a request whose bytes attack the terminal.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/internal/faultproxy"
	"github.com/hitl-sh/hitl/present"
)

func TestCLIOnOpencodeBackend(t *testing.T) {
	t.Parallel()
	isolate(t)
	fake := demo.NewOpencode()
	ts := httptest.NewServer(fake.Handler())
	defer func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }()
	// A profile of kind opencode, as a user would write it.
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, "default_profile: oc\nprofiles:\n  oc:\n    backend: opencode\n    url: "+ts.URL+"\n")
	setenv(t, "HITL_CONFIG", cfg)

	push := fake.Ask("ses_push", "bash", []string{"git push --force origin main"}, []string{"git push *"}, nil)
	edit := fake.Ask("ses_edit", "edit", []string{"src/server.ts"}, []string{"*"}, map[string]any{"filepath": "/src/app/src/server.ts",
		"diff": "Index: /src/app/src/server.ts\n===================================================================\n--- /src/app/src/server.ts\n+++ /src/app/src/server.ts\n@@ -1,2 +1,2 @@\n-const port = 3000\n+const port = 8080\n listen(port)\n"})
	clean := fake.Ask("ses_clean", "bash", []string{"rm -rf node_modules", "npm ci"}, []string{"rm *", "npm ci *"}, nil)
	byOpencodeID := map[string]listed{}
	for _, it := range listJSON(t) {
		var raw struct {
			ID string `json:"id"`
		}
		mustJSON(t, it.Raw, &raw)
		byOpencodeID[raw.ID] = it
	}
	if len(byOpencodeID) != 3 {
		t.Fatalf("list: %+v", byOpencodeID)
	}
	l := hitl(t, "", "list")
	for _, want := range []string{"[opencode]", `bash(patterns="git push --force origin main")`, `bash(patterns="rm -rf node_modules" +1)`, `edit(patterns="src/server.ts")`} {
		if l.code != 0 || !strings.Contains(l.stdout, want) {
			t.Fatalf("list lacks %q:\n%s", want, l.stdout)
		}
	}

	p := byOpencodeID[push]
	must(t, hitl(t, "", "show", p.ID), 0, "Agent      opencode (session ses_push)")
	for _, want := range []string{"Shape      opencode-permission\n", "Action 1 of 1: bash   allowed: approve, reject", "  $ git push --force origin main", "approved for good (approve --always), allows: git push *"} {
		must(t, hitl(t, "", "show", p.ID), 0, want)
	}
	// respond is not opencode's: refused, nothing sent.
	must(t, hitl(t, "", "respond", p.ID, "-m", "use a branch"), 4, "not allowed")
	must(t, hitl(t, "", "reject", p.ID, "-m", "never force-push main: open a pull request"), 0, "Sent reject")
	if got := fake.Answered(push); !reflect.DeepEqual(got, []demo.OpencodeReply{{Reply: "reject", Message: "never force-push main: open a pull request", By: "reviewer"}}) {
		t.Fatalf("opencode got %+v", got)
	}

	e := byOpencodeID[edit]
	s := hitl(t, "", "show", e.ID)
	for _, want := range []string{"  · src/server.ts\n", "  file /src/app/src/server.ts\n  change:\n      @@ -1,2 +1,2 @@\n    - const port = 3000\n    + const port = 8080\n      listen(port)\n"} {
		if s.code != 0 || !strings.Contains(s.stdout, want) {
			t.Fatalf("show lacks %q:\n%s", want, s.stdout)
		}
	}
	must(t, hitl(t, "", "approve", e.ID), 0, "Sent approve")
	if got := fake.Answered(edit); !reflect.DeepEqual(got, []demo.OpencodeReply{{Reply: "once", By: "reviewer"}}) {
		t.Fatalf("opencode got %+v", got)
	}
	// Answered: a second approve sends nothing.
	must(t, hitl(t, "", "approve", e.ID), 3, "")

	// always only when asked by name, and the JSON says so before it goes.
	c := byOpencodeID[clean]
	must(t, hitl(t, "", "approve", c.ID, "--always", "--dry-run"), 0, `"reply": "always"`)
	if len(fake.Answered(clean)) != 0 {
		t.Fatal("--dry-run sent")
	}
	must(t, hitl(t, "", "reject", c.ID, "--always"), 2, "unknown flag: --always")
	must(t, hitl(t, "", "approve", c.ID, "--always"), 0, "Sent approve for good for "+present.ShortID(c.ID)+" (thread ses_clean): the agent has the answer. Its allow rules now hold rm *, npm ci *: it does not ask for them again.")
	if got := fake.Answered(clean); !reflect.DeepEqual(got, []demo.OpencodeReply{{Reply: "always", By: "reviewer"}}) {
		t.Fatalf("opencode got %+v", got)
	}
	// A later request the always patterns cover is not asked: opencode
	// allows it itself.
	later := fake.Ask("ses_clean", "bash", []string{"rm -rf dist"}, []string{"rm *"}, nil)
	if got := fake.Answered(later); !reflect.DeepEqual(got, []demo.OpencodeReply{{Reply: "once", By: "allowed always"}}) {
		t.Fatalf("the later request got %+v", got)
	}
	if its := listJSON(t); len(its) != 0 {
		t.Fatalf("still listed: %+v", its)
	}
}

func TestCLIOpencodeRace(t *testing.T) {
	t.Parallel()
	isolate(t)
	fake := demo.NewOpencode()
	ts := httptest.NewServer(fake.Handler())
	defer func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }()
	args := []string{"--backend", "opencode", "--url", ts.URL}
	id := fake.Ask("ses_race", "bash", []string{"terraform apply"}, nil, nil)
	it := listJSON(t, args...)[0]

	// Two reviewers, each with a state folder of their own, who both saw
	// the request: one is told sent, the other already handled elsewhere.
	alice, bob := t.TempDir(), t.TempDir()
	for _, dir := range []string{alice, bob} {
		must(t, hitlIn(t, dir, append(args, "list")...), 0, "terraform apply")
	}
	var wg sync.WaitGroup
	var ra, rb result
	wg.Add(2)
	go func() { defer wg.Done(); ra = hitlIn(t, alice, append(args, "approve", it.ID)...) }()
	go func() { defer wg.Done(); rb = hitlIn(t, bob, append(args, "reject", it.ID, "-m", "not today")...) }()
	wg.Wait()
	sent, elsewhere := 0, 0
	for _, r := range []result{ra, rb} {
		switch {
		case r.code == 0 && strings.Contains(r.stdout, "Sent"):
			sent++
		case r.code == 3 && strings.Contains(r.stdout+r.stderr, "already handled elsewhere"):
			elsewhere++
		default:
			t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	if sent != 1 || elsewhere != 1 {
		t.Fatalf("sent %d, handled elsewhere %d:\nalice: %s%s\nbob: %s%s", sent, elsewhere, ra.stdout, ra.stderr, rb.stdout, rb.stderr)
	}
	if got := fake.Answered(id); len(got) != 1 {
		t.Fatalf("opencode got %d replies: %+v", len(got), got)
	}
}

// Every byte of a request is shown inert.
func TestCLIOpencodeHostile(t *testing.T) {
	t.Parallel()
	isolate(t)
	fake := demo.NewOpencode()
	ts := httptest.NewServer(fake.Handler())
	defer func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }()
	args := []string{"--backend", "opencode", "--url", ts.URL}
	fake.Ask("ses_\x1b[2J", "bash", []string{"echo hi\x1b]52;c;Y3VybCBldmls\x07\u202e"}, []string{"echo *\x1b[31m"},
		map[string]any{"note": "\x1b[1mbold", "filepath": "/tmp/\x1b]0;x\x07", "diff": "-a\x1b[2J\n+b\u202e\n"})
	it := listJSON(t, args...)[0]
	for _, cmd := range [][]string{{"list"}, {"show", it.ID}} {
		r := hitl(t, "", append(args, cmd...)...)
		if r.code != 0 || strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07\u202e") {
			t.Fatalf("%s printed raw control bytes (exit %d): %q", cmd[0], r.code, r.stdout+r.stderr)
		}
	}
	must(t, hitl(t, "", append(args, "show", it.ID)...), 0, `$ echo hi\u001b]52;c;Y3VybCBldmls\u0007`)
}

// hitlIn runs hitl with the state folder dir: another reviewer's machine.
func hitlIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := envOf(t).getenv
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return dir
		}
		return base(k)
	}
	code := run(ctx, args, strings.NewReader(""), &out, &errb, getenv)
	return result{out.String(), errb.String(), code}
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

// In the reviewer, L approves for good (opencode's always), and the
// confirm screen says what the agent stops asking for; a approves once.
func TestTUIOpencodeApproveForGood(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	fake := demo.NewOpencode()
	ts := httptest.NewServer(fake.Handler())
	defer func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }()
	once := fake.Ask("ses_once", "bash", []string{"npm test"}, []string{"npm test *"}, nil)
	bin := builtBinary(t)
	dir := t.TempDir()
	tt := &hookTUI{t: t, socket: fmt.Sprintf("hitl-opencode-%d", time.Now().UnixNano())}
	vars := []string{"HITL_CONFIG=" + filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME=" + dir, "NO_COLOR=1", "TERM=xterm-256color"}
	shell := "env " + strings.Join(quoteAll(vars), " ") + " " + bin + " --backend opencode --url " + ts.URL
	cmd := exec.Command("tmux", "-L", tt.socket, "-f", "/dev/null", "new-session", "-d", "-s", "hitl", "-x", "100", "-y", "30", shell)
	cmd.Env = hermeticEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tt.socket, "kill-server").Run() })

	tt.waitFor("[opencode]", `bash(patterns=`, "$ npm test", "approved for good (L), allows: npm test *", "L approve for good")
	time.Sleep(1500 * time.Millisecond) // a key right after the list changed is ignored, on purpose
	tt.keys("a")
	tt.waitFor("Send this?", "bash: approve")
	tt.keys("y")
	tt.waitFor("the agent has the answer")
	if got := fake.Answered(once); !reflect.DeepEqual(got, []demo.OpencodeReply{{Reply: "once", By: "reviewer"}}) {
		t.Fatalf("opencode got %+v", got)
	}

	good := fake.Ask("ses_good", "bash", []string{"git push origin feature"}, []string{"git push *"}, nil)
	tt.waitFor("$ git push origin feature", "approved for good (L), allows: git push *")
	time.Sleep(1500 * time.Millisecond)
	tt.keys("L")
	tt.waitFor("Send this?", "bash: approve for good (always)", "from now on, the agent does not ask for: git push *")
	tt.keys("y")
	tt.waitFor("the agent has the answer")
	if got := fake.Answered(good); !reflect.DeepEqual(got, []demo.OpencodeReply{{Reply: "always", By: "reviewer"}}) {
		t.Fatalf("opencode got %+v", got)
	}
}

// The fault proxy between hitl and opencode on the reply: each fault ends
// with the truthful outcome, and opencode gets one reply at most.
func TestCLIOpencodeFaultsOnTheReply(t *testing.T) {
	t.Parallel()
	isolate(t)
	fake := demo.NewOpencode()
	ts := httptest.NewServer(fake.Handler())
	defer func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }()
	for _, tt := range []struct {
		name  string
		fault faultproxy.Fault
		code  int
		says  string
		sent  bool
	}{
		{"reset before the server", faultproxy.ResetBeforeUpstream(), 1, "the server has no trace of it, so it was not sent", false},
		{"reset after the server", faultproxy.ResetAfterUpstream(), 0, "Sent approve for", true},
		{"502 after the server", faultproxy.BadGatewayAfterUpstream(), 0, "Sent approve for", true},
		{"answer cut short", faultproxy.TruncateAfterUpstream(0), 0, "Sent approve for", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := faultproxy.New(ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			id := fake.Ask("ses_"+strings.ReplaceAll(tt.name, " ", "_"), "bash", []string{"make release"}, nil, nil)
			args := []string{"--backend", "opencode", "--url", p.URL()}
			var shown string
			for _, it := range listJSON(t, args...) {
				var raw struct {
					ID string `json:"id"`
				}
				mustJSON(t, it.Raw, &raw)
				if raw.ID == id {
					shown = it.ID
				}
			}
			p.Inject(faultproxy.Rule{Method: "POST", Path: "/permission/*/reply", Times: 1, Fault: tt.fault})
			r := hitl(t, "", append(args, "approve", shown)...)
			if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.says) {
				t.Fatalf("exit %d (want %d), output does not say %q:\n%s%s", r.code, tt.code, tt.says, r.stdout, r.stderr)
			}
			got := fake.Answered(id)
			if (len(got) == 1) != tt.sent || len(got) > 1 {
				t.Fatalf("opencode got %+v (sent: %v)", got, tt.sent)
			}
			if !tt.sent {
				// Not sent: it still waits, and a second try sends it once.
				must(t, hitl(t, "", append(args, "approve", shown)...), 0, "Sent approve for")
				if got := fake.Answered(id); len(got) != 1 {
					t.Fatalf("opencode got %+v", got)
				}
			}
		})
	}
}
