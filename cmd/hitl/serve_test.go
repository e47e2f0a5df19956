package main

// hitl serve, for real: the built binary serves the team's inbox over SSH
// in front of the real LangGraph dev server, and the real OpenSSH client
// connects to it from tmux (its own socket) at 80x24, with keys the test
// makes and no ssh config of the developer's. What each reviewer sees is
// checked against what reached the graph.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/faultproxy"
	"github.com/hitl-sh/hitl/internal/realserver"
)

// teamHub is a running hitl serve with its team's keys.
type teamHub struct {
	t        *testing.T
	dir      string // keys, config, state
	upstream string // the URL the hub reads
	port     int
	args     []string // more flags of hitl serve
	noSSH    bool     // serve the HTTP door (in args) alone
	proc     *exec.Cmd
	log      *syncBuffer
	sock     string // tmux socket
	n        int
}

// needSSH skips a test that needs the OpenSSH client and tmux where this
// machine lacks them (scripts/test installs the client in CI).
func needSSH(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ssh", "ssh-keygen", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed: scripts/test installs openssh-client", tool)
			}
			t.Skipf("%s is not installed (apt-get install openssh-client tmux): hitl serve is tested with the real OpenSSH client", tool)
		}
	}
}

// realDev is the langgraphjs dev server of scripts/test, held by t (see
// realserver.Hold); t runs in parallel with the tests on other servers.
func realDev(t *testing.T) *server {
	t.Helper()
	return realDevOf(t, realserver.JS)
}

// realDevOf is realDev on the dev server of one kind: the tests whose
// point holds on either (the hub's one watcher) spread over both, which
// each serve one test at a time.
func realDevOf(t *testing.T, k realserver.Kind) *server {
	t.Helper()
	t.Parallel()
	for _, tg := range targets(t) {
		if tg.real && tg.kind == k {
			realserver.Hold(t, tg.url)
			return &server{t: t, target: tg}
		}
	}
	t.Skipf("no %s server: run scripts/test (hitl serve is tested against the real dev servers)", k)
	return nil
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// newTeamHub makes keys for alice and bob (approvers), carol (viewer) and
// eve (no reviewer), a config with a two-person rule for delete_*, and
// starts hitl serve reading upstream.
func newTeamHub(t *testing.T, upstream string, args ...string) *teamHub {
	t.Helper()
	return makeTeamHub(t, upstream, false, args...)
}

// makeTeamHub is newTeamHub; with noSSH, hitl serve gets no --ssh (the
// HTTP door in args alone).
func makeTeamHub(t *testing.T, upstream string, noSSH bool, args ...string) *teamHub {
	t.Helper()
	needSSH(t)
	dir := t.TempDir()
	keys := map[string]string{}
	for _, n := range []string{"alice", "bob", "carol", "eve"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", n+"@test", "-f", filepath.Join(dir, n)).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		pub, err := os.ReadFile(filepath.Join(dir, n+".pub"))
		if err != nil {
			t.Fatal(err)
		}
		keys[n] = strings.TrimSpace(string(pub))
	}
	// Tokens too, for the HTTP door (hitl serve --http, when args ask).
	cfg := fmt.Sprintf(`team:
  reviewers:
    alice: {keys: [%q], token: %q, role: approver}
    bob: {keys: [%q], token: %q, role: approver}
    carol: {keys: [%q], token: %q, role: viewer}
  rules:
    - tools: ["delete_*"]
      approvals: 2
  publishers:
    ci: {token: %q}
`, keys["alice"], aliceToken, keys["bob"], bobToken, keys["carol"], viewerToken, publishToken)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &teamHub{t: t, dir: dir, upstream: upstream, port: freePort(t), args: args, noSSH: noSSH, sock: fmt.Sprintf("hitl-hub-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() {
		exec.Command("tmux", "-L", h.sock, "kill-server").Run()
		// tmux leaves its socket file behind.
		dir := os.Getenv("TMUX_TMPDIR")
		if dir == "" {
			dir = "/tmp"
		}
		os.Remove(filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), h.sock))
	})
	h.start()
	t.Cleanup(h.stop)
	return h
}

// hermeticEnv is this process's environment without what would change
// hitl's behaviour (HITL_*, XDG_*, NO_COLOR, TMUX, EDITOR).
func hermeticEnv(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "HITL_") || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "LANGGRAPH_") || strings.HasPrefix(k, "LANGSMITH_") ||
			k == "NO_COLOR" || k == "TMUX" || k == "EDITOR" || k == "VISUAL" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// start runs hitl serve and waits until it listens.
func (h *teamHub) start() {
	h.t.Helper()
	args := append([]string{"serve", "--ssh", fmt.Sprintf("127.0.0.1:%d", h.port), "--url", h.upstream, "--idle", "5m"}, h.args...)
	if h.noSSH {
		args = append([]string{"serve", "--url", h.upstream}, h.args...)
	}
	if h.upstream == "" { // no server named
		args = slices.DeleteFunc(args, func(a string) bool { return a == "--url" || a == "" })
	}
	cmd := exec.Command(builtBinary(h.t), args...)
	cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(h.dir, "config.yaml"), "XDG_STATE_HOME="+filepath.Join(h.dir, "state"))
	h.log = &syncBuffer{}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	cmd.Stdout = h.log
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.proc = cmd
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		once := sync.Once{}
		for sc.Scan() {
			h.log.Write([]byte(sc.Text() + "\n"))
			if strings.Contains(sc.Text(), "msg=listening") {
				once.Do(func() { close(listening) })
			}
		}
	}()
	go func() { cmd.Wait(); pw.Close() }()
	select {
	case <-listening:
	case <-time.After(30 * time.Second):
		h.t.Fatalf("hitl serve did not listen within 30s:\n%s", h.log.String())
	}
}

// stop sends SIGTERM and waits for the hub to end.
func (h *teamHub) stop() {
	if h.proc == nil || h.proc.Process == nil {
		return
	}
	h.proc.Process.Signal(syscall.SIGTERM)
	deadline := time.Now().Add(30 * time.Second)
	for h.proc.ProcessState == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if h.proc.ProcessState == nil {
		h.proc.Process.Kill()
		h.t.Errorf("hitl serve did not end within 30s of SIGTERM:\n%s", h.log.String())
	}
	h.proc = nil
}

// sshArgs connect as who, whatever the developer's ssh config says.
func (h *teamHub) sshArgs(who string, extra ...string) []string {
	return append([]string{"-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-i", filepath.Join(h.dir, who),
		"-p", fmt.Sprint(h.port)}, append(extra, "127.0.0.1")...)
}

// session opens who's session in tmux at 80x24.
func (h *teamHub) session(who string) *tmuxTUI {
	h.t.Helper()
	return h.sessionWith(who, "NO_COLOR=1")
}

// sessionWith opens it with ssh in the environment env (VAR=value: ssh
// sends TERM, and nothing else unless told) and more ssh options (-o
// SetEnv=…).
func (h *teamHub) sessionWith(who, env string, sshOpts ...string) *tmuxTUI {
	h.t.Helper()
	h.n++
	name := fmt.Sprintf("%s-%d", who, h.n)
	shell := "env " + strings.Join(quoteAll([]string{env}), " ") + " ssh " + strings.Join(quoteAll(h.sshArgs(who, sshOpts...)), " ") + "; sleep 600"
	cmd := exec.Command("tmux", "-L", h.sock, "new-session", "-d", "-s", name, "-x", "80", "-y", "24", shell)
	cmd.Env = hermeticEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		h.t.Fatalf("tmux: %v\n%s", err, out)
	}
	return &tmuxTUI{t: h.t, session: name, socket: h.sock}
}

// runsOf is the metadata of the runs of thread that carry a decision.
func (s *server) decisionMeta(thread string) []map[string]any {
	s.t.Helper()
	var runs []struct {
		Metadata map[string]any `json:"metadata"`
	}
	json.Unmarshal(s.do("GET", "/threads/"+thread+"/runs?limit=1000", nil), &runs)
	var out []map[string]any
	for _, r := range runs {
		if _, ok := r.Metadata["hitl_decision_id"]; ok {
			out = append(out, r.Metadata)
		}
	}
	return out
}

// ignored is what a session says of a key that acts on the selected row
// pressed right after the rows changed (a listing changed: other tests'
// threads arrive on the same server): the key did nothing, on purpose.
const ignored = "Key ignored: "

// keyTarget is a TUI in tmux that takes keys.
type keyTarget interface {
	keys(keys ...string)
	screen() string
	waitFor(parts ...string) string
}

// press presses a key until the screen shows every part of want,
// pressing it again only when the session said it ignored it.
func (tt *tmuxTUI) press(key string, want ...string) {
	tt.t.Helper()
	pressUntil(tt, key, want...)
}

func pressUntil(tt keyTarget, key string, want ...string) {
	for try := 0; try < 5; try++ {
		tt.keys(key)
		time.Sleep(300 * time.Millisecond) // the key is taken (or ignored) by now
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			screen, ok := tt.screen(), true
			for _, p := range want {
				ok = ok && strings.Contains(screen, p)
			}
			if ok {
				return
			}
			if strings.Contains(screen, ignored) {
				break
			}
		}
		if !strings.Contains(tt.screen(), ignored) {
			break
		}
	}
	tt.waitFor(want...) // fails, with the screen
}

// open filters the inbox down to thread and opens it.
func (tt *tmuxTUI) open(thread, title string) {
	tt.t.Helper()
	tt.waitFor("pending", "live (the hub's watcher)")
	tt.keys("/")
	tt.text(thread)
	tt.keys("Enter")
	tt.waitFor("1 shown", "enter open")
	// enter opens the row; pressed again while the list still shows (a key
	// held by the grace of a list that just moved, say when the failed
	// runs' block above the rows changed): opening acts on nothing.
	for try := 0; try < 5; try++ {
		tt.keys("Enter")
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if screen := tt.screen(); strings.Contains(screen, title) {
				return
			} else if try < 4 && strings.Contains(screen, "enter open") && time.Until(deadline) < 3*time.Second {
				break
			}
		}
	}
	tt.waitFor(title) // fails, with the screen
}

func TestRealHubIdentityRolesAndRefusals(t *testing.T) {
	s := realDev(t)
	isolate(t)
	h := newTeamHub(t, s.url)

	// A key that is no reviewer's is refused at authentication.
	out, err := exec.Command("ssh", h.sshArgs("eve", "-T")...).CombinedOutput()
	if code := exitCode(err); code != 255 || !strings.Contains(string(out), "Permission denied (publickey)") {
		t.Fatalf("eve: exit %d: %s", code, out)
	}
	// A session without a terminal: one line, status 1, at once.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ssh", h.sshArgs("alice", "-T")...)
	cmd.Stdin = strings.NewReader("")
	out, err = cmd.CombinedOutput()
	if code := exitCode(err); code != 1 || strings.TrimSpace(string(out)) != "hitl: the reviewer needs a terminal: run ssh -t (or without -T)" {
		t.Fatalf("no pty: exit %d (ctx %v): %q", code, ctx.Err(), out)
	}

	th := s.agent("email")
	// A viewer sees it and decides nothing.
	carol := h.session("carol")
	carol.waitFor("hitl · carol@hub · view only")
	carol.open(th, "Review tool call send_email")
	// press, not keys: other tests' threads arrive on the same server, and
	// a key pressed right after the rows changed is ignored (ignored).
	carol.press("a", "View only: carol is a viewer here and decides nothing")
	carol.keys("r")
	time.Sleep(time.Second)
	if got := s.decisionMeta(th); len(got) != 0 || strings.Contains(carol.screen(), "Send this?") || strings.Contains(carol.screen(), "Reason for") {
		t.Fatalf("a viewer's key did something: runs %v\n%s", got, carol.screen())
	}

	// The approver's decision reaches the graph under the key's name.
	alice := h.session("alice")
	alice.waitFor("hitl · alice@hub")
	alice.open(th, "Review tool call send_email")
	alice.press("a", "Send this?")
	alice.press("y", "Sent approve")
	runs := s.decisionMeta(th)
	if len(runs) != 1 || runs[0]["hitl_reviewer"] != "alice" {
		t.Fatalf("decision runs: %v", runs)
	}
	if !strings.Contains(h.log.String(), `msg="decision sent" reviewer=alice`) || !strings.Contains(h.log.String(), `msg="session start" reviewer=carol`) {
		t.Errorf("the hub's log lacks a line:\n%s", h.log.String())
	}
	// SIGTERM closes every session, saying why.
	h.stop()
	carol.waitFor("hitl: session ended: the hub is shutting down.")
	if !strings.Contains(h.log.String(), `msg="session end" reviewer=alice`) {
		t.Errorf("no session end logged:\n%s", h.log.String())
	}
}

func TestRealHubTwoPersonRule(t *testing.T) {
	s := realDev(t)
	isolate(t)
	h := newTeamHub(t, s.url)
	th := s.agent("ops") // delete_records (two approvers) and notify
	title := "Review 2 tool calls: delete_records, notify"

	alice := h.session("alice")
	alice.open(th, title)
	alice.press("a", "Now action 2 of 2")
	alice.press("a", "Record your approval?", "y/enter records your approval (1 of 2 approvals (alice)), nothing sent")
	alice.press("y", "1 of 2 approvals (alice) recorded for delete_records: nothing is sent")
	if got := s.decisionMeta(th); len(got) != 0 {
		t.Fatalf("a first approval sent something: %v", got)
	}
	bob := h.session("bob")
	bob.waitFor("✔1/2 delete_records(") // on the row, before the call
	// The same reviewer cannot give the second approval.
	alice.press("Enter", "approve notify. Waiting for")
	alice.press("a", "Now action 2 of 2")
	alice.press("a", "You approved this already:", "y/enter sends nothing: you approved this decision already")
	alice.press("y", "you approved this decision already")
	if got := s.decisionMeta(th); len(got) != 0 {
		t.Fatalf("the same approver twice sent something: %v", got)
	}

	// The hub restarts between the two approvals: nothing is lost.
	h.stop()
	bob.waitFor("hitl: session ended: the hub is shutting down.")
	h.start()
	bob = h.session("bob")
	bob.open(th, title)
	bob.waitFor("1 of 2 approvals (alice): approve delete_records, approve notify")
	bob.press("a", "Send this?", "Confirming alice's approval")
	bob.press("y", "Sent approve, approve")
	runs := s.decisionMeta(th)
	if len(runs) != 1 || runs[0]["hitl_reviewer"] != "bob" || fmt.Sprint(runs[0]["hitl_approvers"]) != "[alice bob]" {
		t.Fatalf("decision runs: %v", runs)
	}
	if got := s.toolMessages(th)["delete_records"]; !strings.HasPrefix(got, "ran delete_records") {
		t.Fatalf("delete_records: %q", got)
	}
}

// counter is a proxy that counts the requests and bytes that reach the
// server.
type counter struct {
	requests, bytes atomic.Int64
	srv             *http.Server
	url             string
}

func newCounter(t *testing.T, upstream string) *counter {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		r.Body = &countingBody{ReadCloser: r.Body, n: &c.bytes}
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		rp.ServeHTTP(w, r)
	})}
	go c.srv.Serve(ln)
	t.Cleanup(func() { c.srv.Close() })
	c.url = "http://" + ln.Addr().String()
	return c
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// rate counts what reaches the server over d.
func (c *counter) rate(d time.Duration) (requests, bytes int64) {
	r0, b0 := c.requests.Load(), c.bytes.Load()
	time.Sleep(d)
	return c.requests.Load() - r0, c.bytes.Load() - b0
}

// Ten idle sessions cost the server what one costs: one watcher for all.
func TestRealHubOneWatcherForEveryone(t *testing.T) {
	s := realDev(t)
	isolate(t)
	c := newCounter(t, s.url)
	h := newTeamHub(t, c.url)
	s.agent("email")

	first := h.session("alice")
	first.waitFor("pending", "live (the hub's watcher)")
	time.Sleep(2 * time.Second) // the first listing's reads are done
	// One session's watcher asks about 25 times in 5 s; ten watchers would
	// ask ten times that, far above the margin below.
	const window = 5 * time.Second
	r1, b1 := c.rate(window)
	for i := range 9 {
		tt := h.session([]string{"alice", "bob", "carol"}[i%3])
		tt.waitFor("pending", "live (the hub's watcher)")
	}
	time.Sleep(2 * time.Second)
	r10, b10 := c.rate(window)
	t.Logf("upstream over %s: 1 session %d requests, %d bytes; 10 sessions %d requests, %d bytes", window, r1, b1, r10, b10)
	// Polls of a watched server vary with its answer times; ten sessions
	// must not cost ten times one (allow a margin of 50% and a few).
	if r10 > r1*3/2+5 {
		t.Fatalf("10 sessions cost %d requests in %s, 1 session %d: the sessions do not share one watcher", r10, window, r1)
	}
}

// SIGTERM while a session follows the run of a decision it sent: the
// decision is recorded, intent and outcome, before the session is closed
// with a word of why.
func TestRealHubShutdownRecordsTheSendInFlight(t *testing.T) {
	s := realDev(t)
	isolate(t)
	p := proxied(t, s)
	p.Inject(faultproxy.Rule{Method: "GET", Path: "/threads/*/runs/*/join", Fault: faultproxy.Stall(0)})
	h := newTeamHub(t, p.URL())
	th := s.agent("email")
	alice := h.session("alice")
	alice.open(th, "Review tool call send_email")
	alice.press("a", "Send this?")
	alice.press("y", "Sending…")
	deadline := time.Now().Add(20 * time.Second)
	for !joined(p) {
		if time.Now().After(deadline) {
			t.Fatalf("the session never joined its run:\n%s", alice.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.stop()
	alice.waitFor("hitl: session ended: the hub is shutting down.")
	runs := s.decisionRuns(th)
	if len(runs) != 1 {
		t.Fatalf("decision runs: %v", runs)
	}
	lines := auditFile(t, filepath.Join(h.dir, "state", "hitl", "hub", "reviewers", "alice", "audit.jsonl"))[runs[0]]
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "intent:") || lines[1] != "outcome:running" {
		t.Fatalf("alice's audit log: %v", lines)
	}
}

// An idle session is closed, saying why; the hub goes on.
func TestRealHubClosesIdleSessions(t *testing.T) {
	s := realDev(t)
	isolate(t)
	h := newTeamHub(t, s.url, "--idle", "3s")
	alice := h.session("alice")
	alice.waitFor("hitl · alice@hub")
	alice.waitFor("hitl: session ended: closed after 3s without a key.")
	if !strings.Contains(h.log.String(), `why="closed after 3s without a key"`) {
		t.Fatalf("log:\n%s", h.log.String())
	}
	bob := h.session("bob")
	bob.waitFor("hitl · bob@hub")
}

func TestServeCheck(t *testing.T) {
	isolate(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	setenv(t, "HITL_CONFIG", cfg)
	os.WriteFile(cfg, []byte("team:\n  reviewers:\n    alice: {keys: [\"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHBqZ0r7w6H0b8fQbYH8M6qS1mQ9lqG9m8M6v2sQm3cX alice\"], role: approver}\n    bob: {keys: [\"not a key\"], role: boss}\n  rules:\n    - {tools: [delete_*], approvals: 2}\n"), 0o600)
	r := hitl(t, "", "serve", "--check")
	for _, want := range []string{`team: reviewer bob: role "boss" is not known: write approver or viewer`,
		"team: reviewer bob: key 1 is not an SSH public key", "team: rule 1: asks for 2 approvals but the team has 1 approver(s)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--check does not say %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 || !strings.Contains(r.stderr, "has 3 problem(s)") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Serving refuses the same config, saying the same.
	if r := hitl(t, "", "serve", "--ssh", "127.0.0.1:0"); r.code != 2 || !strings.Contains(r.stderr, "hitl serve --check says the same") {
		t.Fatalf("serve: exit %d: %s", r.code, r.stderr)
	}
	os.WriteFile(cfg, []byte("team:\n  reviewers:\n    alice: {keys: [\"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHBqZ0r7w6H0b8fQbYH8M6qS1mQ9lqG9m8M6v2sQm3cX alice\"], role: approver}\n"), 0o600)
	if r := hitl(t, "", "serve", "--check"); r.code != 0 || !strings.Contains(r.stdout, "team: OK: 1 reviewer(s) (1 approver(s), 0 viewer(s))") {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
