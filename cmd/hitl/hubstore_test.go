package main

// The hub's store, for real: the built binary serves the hub (hitl serve
// --http) on SQLite in its state directory or on a PostgreSQL database of
// the test's own, is killed with SIGKILL while hooks wait and started
// again on the same address, and two hubs share one PostgreSQL. What the
// hooks print (what the agent reads) is asserted byte for byte.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/pgtest"
	"github.com/hitl-sh/hitl/internal/realserver"
	"github.com/hitl-sh/hitl/store"
)

// storedHub is a hub process that can be killed and started again on the
// same address, state directory and store.
type storedHub struct {
	*hubProc
	addr  string
	store string        // --store; "": SQLite in the state directory
	read  chan struct{} // closed when its stderr is read to the end
}

func startStoredHub(t *testing.T, config, store string) *storedHub {
	t.Helper()
	h := &storedHub{hubProc: &hubProc{t: t, dir: t.TempDir()}, addr: "127.0.0.1:0", store: store}
	if err := os.WriteFile(filepath.Join(h.dir, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	h.start()
	t.Cleanup(func() {
		if h.cmd != nil {
			_ = h.cmd.Process.Signal(syscall.SIGTERM)
			<-h.read
			_ = h.cmd.Wait()
		}
	})
	return h
}

// start runs the hub and waits until it listens.
func (h *storedHub) start() {
	h.t.Helper()
	args := []string{"serve", "--http", h.addr}
	if h.store != "" {
		args = append(args, "--store", h.store)
	}
	cmd := exec.Command(builtBinary(h.t), args...)
	cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(h.dir, "config.yaml"), "XDG_STATE_HOME="+filepath.Join(h.dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.cmd, h.logs, h.read = cmd, &bytes.Buffer{}, make(chan struct{})
	urls := make(chan string, 1)
	var mu sync.Mutex
	go func() {
		defer close(h.read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			h.logs.WriteString(line + "\n")
			mu.Unlock()
			u := ""
			if i := strings.Index(line, "listens on http://"); i >= 0 {
				u = strings.Fields(line[i+len("listens on "):])[0]
			} else if i := strings.Index(line, "msg=listening door=http addr="); i >= 0 {
				// A hub with sources (hub.sources) says it so.
				u = "http://" + strings.Fields(line[i+len("msg=listening door=http addr="):])[0]
			}
			if u != "" {
				select {
				case urls <- u:
				default:
				}
			}
		}
	}()
	select {
	case h.url = <-urls:
		h.addr = strings.TrimPrefix(h.url, "http://")
	case <-time.After(30 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		h.t.Fatalf("hitl serve --http never said where it listens:\n%s", h.logs)
	}
}

// kill ends the hub with SIGKILL: nothing it holds in memory is saved.
func (h *storedHub) kill() {
	h.t.Helper()
	_ = h.cmd.Process.Kill()
	<-h.read
	_ = h.cmd.Wait()
	h.cmd = nil
	// The address is free again: the hub starts on it.
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", h.addr); err != nil {
			return
		} else {
			_ = c.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (h *storedHub) respond(token, id string, resp string) (int, map[string]any) {
	h.t.Helper()
	code, b := h.do(token, "POST", "/hitl/respond", map[string]any{"request_id": id, "response": json.RawMessage(resp)})
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return code, out
}

const (
	approveOne = `{"decisions":[{"type":"approve"}]}`
	rejectOne  = `{"decisions":[{"type":"reject","message":"not now"}]}`
	denyJSON   = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not now"}}}` + "\n"
)

func claudeBashIn(session string) string {
	return strings.Replace(claudeBash, `"session_id":"sess-bash"`, `"session_id":"`+session+`"`, 1)
}

// eachStore runs f on SQLite (the default: nothing to set up) and on
// PostgreSQL.
func eachStore(t *testing.T, f func(t *testing.T, store string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, "") })
	t.Run("postgres", func(t *testing.T) { f(t, pgtest.Database(t)) })
}

// The hub killed outright with hooks waiting loses nothing: started again,
// it still has every request, the hooks (which kept asking) get the
// decisions made after, and a request decided before the kill is still
// readable with its answer.
func TestHubKilledWithHooksWaiting(t *testing.T) {
	eachStore(t, func(t *testing.T, store string) {
		h := startStoredHub(t, teamYAML, store)
		// One decided before the kill.
		first := h.hook("claude", claudeBashIn("sess-before"))
		before := h.waitRequest("sess-before")
		if code, out := h.respond(aliceToken, before, approveOne); code != 200 {
			t.Fatalf("respond: %d %v", code, out)
		}
		if code := first.finish(t, 20*time.Second); code != 0 || first.stdout.String() != allowJSON {
			t.Fatalf("hook before the kill: exit %d, stdout %q, stderr %q", code, first.stdout.String(), first.stderr.String())
		}
		const n = 10
		hooks := make([]*hookProc, n)
		ids := make([]string, n)
		for i := range n {
			hooks[i] = h.hook("claude", claudeBashIn(fmt.Sprintf("sess-%d", i)))
		}
		for i := range n {
			ids[i] = h.waitRequest(fmt.Sprintf("sess-%d", i))
		}
		h.kill()
		h.start()
		if got := h.pendingCount(); got != n {
			t.Fatalf("after the restart %d requests wait, want %d:\n%s", got, n, h.logs)
		}
		if st := h.standing(before); st["status"] != "answered" || st["responded_by"] != "alice" || !strings.Contains(fmt.Sprint(st["response"]), "approve") {
			t.Fatalf("the request decided before the kill: %v", st)
		}
		for i, id := range ids {
			resp, who := approveOne, aliceToken
			if i%2 == 1 {
				resp, who = rejectOne, bobToken
			}
			if code, out := h.respond(who, id, resp); code != 200 {
				t.Fatalf("respond to %s after the restart: %d %v", id, code, out)
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
	})
}

// Last-Event-ID works across a restart: a reader that reconnects to the
// restarted hub with the last id it saw gets what happened since.
func TestEventsResumeAcrossARestart(t *testing.T) {
	h := startStoredHub(t, teamYAML, "")
	p := h.hook("claude", claudeBashIn("sess-ev"))
	id := h.waitRequest("sess-ev")
	last := lastEventID(t, h, "")
	if last == "" {
		t.Fatal("the event stream gave no id")
	}
	h.kill()
	h.start()
	if code, out := h.respond(aliceToken, id, approveOne); code != 200 {
		t.Fatalf("respond: %d %v", code, out)
	}
	if code := p.finish(t, 30*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q, stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	body := readEvents(t, h, last)
	if !strings.Contains(body, "event: hitl_answered") || !strings.Contains(body, `"request_id":"`+id+`"`) || !strings.Contains(body, `"responded_by":"alice"`) {
		t.Fatalf("after Last-Event-ID %s the restarted hub replayed:\n%s", last, body)
	}
}

// readEvents reads the hub's event stream from after last for a moment.
func readEvents(t *testing.T, h *storedHub, last string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.url+"/hitl/events", nil)
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	req.Header.Set("Last-Event-ID", last)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body) // until the 2 s are up
	return string(out)
}

func lastEventID(t *testing.T, h *storedHub, from string) string {
	t.Helper()
	id := ""
	for _, line := range strings.Split(readEvents(t, h, orDefault(from, "0")), "\n") {
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			id = v
		}
	}
	return id
}

// Two hubs on one PostgreSQL serve one team: a request published to hub A
// is listed and decided on hub B, and the hook waiting on A gets the
// answer, at once (LISTEN/NOTIFY, not a poll).
func TestTwoHubsOnePostgres(t *testing.T) {
	db := pgtest.Database(t)
	a := startStoredHub(t, teamYAML, db)
	b := startStoredHub(t, teamYAML, db)
	p := a.hook("claude", claudeBashIn("sess-two"))
	id := b.waitRequest("sess-two")
	start := time.Now()
	if code, out := b.respond(bobToken, id, rejectOne); code != 200 {
		t.Fatalf("respond on hub B: %d %v", code, out)
	}
	if code := p.finish(t, 30*time.Second); code != 0 || p.stdout.String() != denyJSON {
		t.Fatalf("hook on hub A: exit %d, stdout %q, want %q; stderr %q", code, p.stdout.String(), denyJSON, p.stderr.String())
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("the hook on A had B's answer after %s: A was not told", el)
	}
	if st := a.standing(id); st["responded_by"] != "bob" {
		t.Fatalf("hub A says %v", st)
	}
}

// Reviewers on two hubs deciding one request at once: exactly one
// decision is taken, the other is told it was handled elsewhere, and the
// hook prints the one taken.
func TestTwoHubsDecideAtOnce(t *testing.T) {
	db := pgtest.Database(t)
	a := startStoredHub(t, teamYAML, db)
	b := startStoredHub(t, teamYAML, db)
	const n = 8
	for i := range n {
		session := fmt.Sprintf("sess-race-%d", i)
		p := a.hook("claude", claudeBashIn(session))
		id := a.waitRequest(session)
		b.waitRequest(session)
		type result struct {
			code int
			out  map[string]any
		}
		var ra, rb result
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); ra.code, ra.out = a.respond(aliceToken, id, approveOne) }()
		go func() { defer wg.Done(); rb.code, rb.out = b.respond(bobToken, id, rejectOne) }()
		wg.Wait()
		var want string
		switch {
		case ra.code == 200 && rb.code == 409:
			want = allowJSON
		case rb.code == 200 && ra.code == 409:
			want = denyJSON
		default:
			t.Fatalf("round %d: hub A answered %d %v, hub B %d %v: want one 200 and one 409", i, ra.code, ra.out, rb.code, rb.out)
		}
		if code := p.finish(t, 30*time.Second); code != 0 || p.stdout.String() != want {
			t.Fatalf("round %d: hook: exit %d, stdout %q, want %q (A %d, B %d)", i, code, p.stdout.String(), want, ra.code, rb.code)
		}
	}
}

// Every decision through the door is in the team's audit log, read back
// with hitl history --team: who, role, the exact value, approvers, the
// source, the outcome; the confirmation names the first approval. A
// refused token is logged with its address.
func TestTeamAuditLogThroughTheDoor(t *testing.T) {
	config := teamYAML + "  rules:\n    - {tools: [Bash], approvals: 2}\n"
	h := startStoredHub(t, config, "")
	p := h.hook("claude", claudeBashIn("sess-audit"))
	id := h.waitRequest("sess-audit")
	if code, out, errs := h.cli(aliceToken, "approve", id); !strings.Contains(out+errs, "1 of 2 approvals (alice)") {
		t.Fatalf("alice's approval: exit %d\n%s%s", code, out, errs)
	}
	if code, out := h.respond(bobToken, id, approveOne); code != 200 || out["responded_by"] != "alice + bob" {
		t.Fatalf("bob's confirmation: %d %v", code, out)
	}
	if code := p.finish(t, 30*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q; stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	if code, _ := h.respond(viewerToken, id, approveOne); code != 403 {
		t.Fatalf("a viewer's decision: %d", code)
	}

	code, out, errs := h.cli(viewerToken, "history", "--team", "--json")
	if code != 0 {
		t.Fatalf("history --team --json: exit %d\n%s%s", code, out, errs)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON lines: %v\n%s", err, out)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 {
		t.Fatalf("want 2 entries (an approval, its confirmation), got:\n%s", out)
	}
	confirm, first := lines[0], lines[1]
	for _, c := range []struct {
		m          map[string]any
		key, value string
	}{
		{first, "reviewer", "alice"}, {first, "role", "approver"}, {first, "outcome", "approval-recorded"}, {first, "source", "hook"},
		{first, "door", "http"}, {first, "request_id", id}, {first, "decision", "approve"}, {first, "tools", "[Bash]"},
		{confirm, "reviewer", "bob"}, {confirm, "outcome", "sent"}, {confirm, "approvers", "[alice bob]"}, {confirm, "value", "map[decisions:[map[type:approve]]]"},
		{confirm, "first_approval", fmt.Sprint(first["id"])},
	} {
		if got := fmt.Sprint(c.m[c.key]); got != c.value {
			t.Fatalf("%s = %q, want %q in %v", c.key, got, c.value, c.m)
		}
	}
	// --outcome takes the spelling --json prints, and the words the rows
	// print; another is a usage error.
	for _, spelled := range []string{"approval-recorded", "approval recorded"} {
		if code, out, errs := h.cli(aliceToken, "history", "--team", "--outcome", spelled); code != 0 || strings.Count(out, "\n") != 1 ||
			!strings.Contains(out, "alice (approver)") || !strings.Contains(out, "(hook, http)  approval recorded: 1 of 2 approvals (alice) recorded") {
			t.Fatalf("--outcome %s: exit %d\n%s%s", spelled, code, out, errs)
		}
	}
	if code, out, errs := h.cli(aliceToken, "history", "--team", "--outcome", "bogus"); code != 2 ||
		!strings.Contains(errs, `no outcome "bogus": give one of sent, approval-recorded, refused, handled-elsewhere, failed, approval-dropped, withdrawn`) {
		t.Fatalf("--outcome bogus: exit %d\n%s%s", code, out, errs)
	}
	_, out, _ = h.cli(aliceToken, "history", "--team", "--by", "bob")
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "bob (approver)") || !strings.Contains(out, "approvers alice + bob") ||
		!strings.Contains(out, fmt.Sprintf("(completes the approval #%v)", first["id"])) || !strings.Contains(out, "(hook, http)  sent") {
		t.Fatalf("history --team --by bob:\n%s", out)
	}
	if code, _, errs := h.cli(aliceToken, "history", "--by", "bob"); code != 2 || !strings.Contains(errs, "add --team") {
		t.Fatalf("a filter without --team: exit %d %s", code, errs)
	}
	h.kill() // its log, read to the end
	if !strings.Contains(h.logs.String(), `msg="door refused a call" status=403 addr=127.0.0.1:`) {
		t.Fatalf("the refused viewer is not logged with its address:\n%s", h.logs)
	}
}

// Where the store is: --store, else the variable hub.store_env names,
// else hub.store, else SQLite in the state directory; a store_env that is
// not set is refused, saying what to do.
func TestServeStoreSettings(t *testing.T) {
	dir := t.TempDir()
	serve := func(cfg string, env []string, args ...string) (int, string) {
		t.Helper()
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, []byte(teamYAML+cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(builtBinary(t), append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
		cmd.Env = hermeticEnv(append(env, "HITL_CONFIG="+path, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)...)
		var out syncBuffer
		cmd.Stderr = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan int, 1)
		go func() { _ = cmd.Wait(); done <- cmd.ProcessState.ExitCode() }()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			select {
			case code := <-done:
				return code, out.String()
			default:
			}
			if strings.Contains(out.String(), "listens on http://") {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				return <-done, out.String()
			}
		}
		_ = cmd.Process.Kill()
		t.Fatalf("hitl serve neither listened nor ended:\n%s", out.String())
		return 0, ""
	}
	code, out := serve("", nil)
	if code != 0 || !strings.Contains(out, `msg="store open" kind=sqlite where=`+filepath.Join(dir, "state", "hitl", "hub", "hub.db")+fmt.Sprintf(" schema=%d", store.SchemaVersion())) {
		t.Fatalf("the default: exit %d\n%s", code, out)
	}
	other := filepath.Join(dir, "other.db")
	code, out = serve("hub:\n  store: sqlite:"+other+"\n  retention: 1h\n", nil)
	if code != 0 || !strings.Contains(out, "where="+other) {
		t.Fatalf("hub.store: exit %d\n%s", code, out)
	}
	code, out = serve("hub:\n  store: sqlite:"+other+"\n  store_env: HITL_TEST_STORE_NOT_SET\n", nil)
	if code != 2 || !strings.Contains(out, "hub.store_env names HITL_TEST_STORE_NOT_SET, which is not set: set it to the store's URL") {
		t.Fatalf("an unset store_env: exit %d\n%s", code, out)
	}
	third := filepath.Join(dir, "third.db")
	code, out = serve("hub:\n  store_env: HITL_TEST_STORE\n", []string{"HITL_TEST_STORE=sqlite:" + third})
	if code != 0 || !strings.Contains(out, "where="+third) {
		t.Fatalf("hub.store_env: exit %d\n%s", code, out)
	}
	code, out = serve("hub:\n  store_env: HITL_TEST_STORE\n", []string{"HITL_TEST_STORE=sqlite:" + third}, "--store", "sqlite:"+other)
	if code != 0 || !strings.Contains(out, "where="+other) {
		t.Fatalf("--store over the config: exit %d\n%s", code, out)
	}
	if code, out = serve("hub:\n  stor: x\n", nil); code == 0 || !strings.Contains(out, "stor") {
		t.Fatalf("an unknown hub setting: exit %d\n%s", code, out)
	}
}

// Two hubs on one PostgreSQL in front of one LangGraph server cost it one
// watcher: the store elects the hub that watches, and it tells the other
// of each change, which then lists; a new interrupt is on the other hub's
// door at once. When the watching hub goes, the other is elected.
func TestRealTwoHubsOneWatcher(t *testing.T) {
	// On the Python dev server: TestRealHubOneWatcherForEveryone counts a
	// watcher's requests to the JS one, and the JS server is the one the
	// most tests wait for.
	s := realDevOf(t, realserver.Python)
	isolate(t)
	db := pgtest.Database(t)
	c := newCounter(t, s.url)
	a := newTeamHub(t, c.url, "--store", db)
	time.Sleep(3 * time.Second) // the first listing's reads are done
	const window = 10 * time.Second
	r1, _ := c.rate(window)
	port := freePort(t)
	b := newTeamHub(t, c.url, "--store", db, "--http", fmt.Sprintf("127.0.0.1:%d", port))
	waitLog := func(h *teamHub, want string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(h.log.String(), want); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the hub never said %q:\n%s", want, h.log.String())
			}
		}
	}
	waitLog(a, "this hub watches the LangGraph server for every hub on the store")
	waitLog(b, "another hub on the store watches the LangGraph server")
	time.Sleep(3 * time.Second)
	r2, _ := c.rate(window)
	t.Logf("upstream over %s: one hub %d requests, two hubs %d", window, r1, r2)
	if r2 > r1*3/2+5 {
		t.Fatalf("two hubs cost %d requests in %s, one hub %d: the second hub watches too", r2, window, r1)
	}

	door := &hubProc{t: t, url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	start := time.Now()
	th := s.agent("email")
	door.waitRequest(th) // the LangGraph thread is the request's session
	t.Logf("the interrupt was on hub b's door %s after it was raised", time.Since(start).Round(time.Millisecond))

	a.stop()
	waitLog(b, "this hub watches the LangGraph server for every hub on the store")
	th = s.agent("email")
	door.waitRequest(th)
}
