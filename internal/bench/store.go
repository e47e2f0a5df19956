package main

// The hub's store under load (issue 32): 200 real hooks (`hitl hook
// claude`) wait on `hitl serve --http`, and three approvers race to decide
// each (alice approves, bob and carol reject with their own message), on
// one hub with SQLite and on two hubs sharing one PostgreSQL (hooks and
// approvers spread over both). Counted: hooks that got no answer (lost),
// requests two decisions took (doubled), hooks whose answer is not the
// decision the hub took (wrong); the time from the taken decision's answer
// to its hook's exit; decisions taken a second. Then 1,000 requests put
// up: the time from a SIGKILL to the restarted hub listing them all, and
// that hub's resident memory then, less an empty hub's.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-sh/hitl/coord/wire"
)

const (
	storeHooks     = 200
	storeWaiting   = 1000
	benchPublisher = "bench-publisher-token-0123456789"
)

var benchApprovers = []struct{ name, token, resp, want string }{
	{"alice", "bench-alice-token-0123456789", `{"decisions":[{"type":"approve"}]}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
	{"bob", "bench-bob-token-0123456789ab", `{"decisions":[{"type":"reject","message":"no, bob"}]}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no, bob"}}}`},
	{"carol", "bench-carol-token-0123456789", `{"decisions":[{"type":"reject","message":"no, carol"}]}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no, carol"}}}`},
}

// storeHub is one `hitl serve --http` of the bench.
type storeHub struct {
	url, addr, dir, store string
	cmd                   *exec.Cmd
}

func (b *bench) startStoreHub(ctx context.Context, dir, addr, store string) (*storeHub, error) {
	var cfg strings.Builder
	cfg.WriteString("team:\n  reviewers:\n")
	for _, a := range benchApprovers {
		fmt.Fprintf(&cfg, "    %s: {token: %q, role: approver}\n", a.name, a.token)
	}
	fmt.Fprintf(&cfg, "  publishers:\n    bench: {token: %q}\n", benchPublisher)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg.String()), 0o600); err != nil {
		return nil, err
	}
	args := []string{"serve", "--http", addr}
	if store != "" {
		args = append(args, "--store", store)
	}
	cmd := exec.CommandContext(ctx, b.hitl, args...)
	cmd.Env = append(os.Environ(), "HITL_CONFIG="+filepath.Join(dir, "config.yaml"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := b.spawn(cmd); err != nil {
		return nil, err
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "listens on http://"); i >= 0 {
				select {
				case urls <- strings.Fields(sc.Text()[i+len("listens on "):])[0]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-urls:
		return &storeHub{url: u, addr: strings.TrimPrefix(u, "http://"), dir: dir, store: store, cmd: cmd}, nil
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("hitl serve --http did not listen in a minute")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func benchCall(u, token, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, u+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// pendingIDs lists the hub's pending requests: session id -> request id.
func pendingIDs(u string) (map[string]string, error) {
	code, body, err := benchCall(u, benchApprovers[0].token, "GET", "/hitl/pending", nil)
	if err != nil || code != 200 {
		return nil, fmt.Errorf("pending: %d %v", code, err)
	}
	var list []wire.Request
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range list {
		out[r.SessionID] = r.RequestID
	}
	return out, nil
}

type raceFigures struct {
	lost, doubled, wrong int
	p50, p95             time.Duration
	perSecond            float64
	restart              time.Duration
	perThousand          int64
}

// hubStore is the table: SQLite, and two hubs on PostgreSQL when given.
func (b *bench) hubStore(ctx context.Context) (table, error) {
	cols := []string{"SQLite, one hub"}
	if b.postgres != "" {
		cols = append(cols, "PostgreSQL, two hubs")
	}
	t := table{title: fmt.Sprintf("hitl serve --http: %d hooks, three approvers racing on each; %d requests waiting", storeHooks, storeWaiting), columns: cols}
	var figs []raceFigures
	for _, pg := range []bool{false, true} {
		if pg && b.postgres == "" {
			logf("store: two hubs on PostgreSQL left out: give -postgres URL (scripts/bench starts a cluster)")
			continue
		}
		f, err := b.storeRace(ctx, pg)
		if err != nil {
			return t, err
		}
		figs = append(figs, f)
	}
	add := func(what string, cell func(raceFigures) string) {
		var cells []string
		for _, f := range figs {
			cells = append(cells, cell(f))
		}
		t.rows = append(t.rows, row{what, cells})
	}
	add("lost / doubled / wrong (all must be 0)", func(f raceFigures) string { return fmt.Sprintf("%d / %d / %d", f.lost, f.doubled, f.wrong) })
	add("decision to hook exit, p50 / p95 ms", func(f raceFigures) string { return ms(f.p50) + " / " + ms(f.p95) })
	add("decisions taken a second", func(f raceFigures) string { return fmt.Sprintf("%.0f", f.perSecond) })
	add(fmt.Sprintf("hub killed (SIGKILL) to listing %d requests again", storeWaiting), func(f raceFigures) string { return ms(f.restart) + " ms" })
	add("hub RSS with 1,000 requests waiting (listed once), less an empty hub's", func(f raceFigures) string { return size(f.perThousand) })
	return t, nil
}

func (b *bench) storeRace(ctx context.Context, pg bool) (raceFigures, error) {
	var f raceFigures
	store := ""
	n := 1
	if pg {
		db, err := freshDatabase(ctx, b.postgres)
		if err != nil {
			return f, err
		}
		store, n = db, 2
	}
	var hubs []*storeHub
	for range n {
		dir, err := os.MkdirTemp(b.tmp, "storehub-")
		if err != nil {
			return f, err
		}
		h, err := b.startStoreHub(ctx, dir, "127.0.0.1:0", store)
		if err != nil {
			return f, err
		}
		hubs = append(hubs, h)
	}
	defer b.stopAll()
	time.Sleep(time.Second)
	empty := procRSS(hubs[0].cmd.Process.Pid)
	logf("store (%s): %d hooks", strings.Join([]string{"sqlite", "postgres"}[:n], "+"), storeHooks)

	type hook struct {
		out  bytes.Buffer
		done chan time.Time
		cmd  *exec.Cmd
	}
	hooks := make([]*hook, storeHooks)
	for i := range storeHooks {
		h := &hook{done: make(chan time.Time, 1)}
		input := fmt.Sprintf(`{"session_id":"bench-%d","cwd":"/src","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"make test %d"}}`, i, i)
		h.cmd = exec.CommandContext(ctx, b.hitl, "hook", "claude", "--url", hubs[i%n].url, "--timeout", "10m")
		h.cmd.Env = append(b.env(), "HITL_BEARER_TOKEN="+benchPublisher)
		h.cmd.Stdin, h.cmd.Stdout = strings.NewReader(input), &h.out
		if err := h.cmd.Start(); err != nil { // ended by ctx, or by its answer
			return f, err
		}
		go func() { _ = h.cmd.Wait(); h.done <- time.Now() }()
		hooks[i] = h
	}
	var ids map[string]string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var err error
		if ids, err = pendingIDs(hubs[n-1].url); err == nil && len(ids) == storeHooks {
			break
		}
		if time.Now().After(deadline) {
			return f, fmt.Errorf("%d of %d hooks' requests listed after 2 minutes", len(ids), storeHooks)
		}
	}
	// Three approvers on each request, at once, over the hubs.
	type taken struct {
		who  int
		at   time.Time
		wins int
	}
	results := make([]taken, storeHooks)
	var mu sync.Mutex
	sem := make(chan struct{}, 48)
	var wg sync.WaitGroup
	start := time.Now()
	var last time.Time
	for i := range storeHooks {
		id := ids[fmt.Sprintf("bench-%d", i)]
		for a := range benchApprovers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				body, _ := json.Marshal(wire.Response{RequestID: id, Response: json.RawMessage(benchApprovers[a].resp)})
				code, _, err := benchCall(hubs[(i+a)%n].url, benchApprovers[a].token, "POST", "/hitl/respond", body)
				if err == nil && code == 200 {
					now := time.Now()
					mu.Lock()
					results[i].wins++
					results[i].who, results[i].at = a, now
					if now.After(last) {
						last = now
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	var lat []time.Duration
	for i, h := range hooks {
		var exit time.Time
		select {
		case exit = <-h.done:
		case <-time.After(time.Minute):
			f.lost++
			continue
		}
		r := results[i]
		got := strings.TrimSpace(h.out.String())
		switch {
		case got == "":
			f.lost++
		case r.wins > 1:
			f.doubled++
		case r.wins == 0 || got != benchApprovers[r.who].want:
			f.wrong++
		default:
			lat = append(lat, max(exit.Sub(r.at), 0))
		}
	}
	f.p50, f.p95 = pct(lat, 50), pct(lat, 95)
	if el := last.Sub(start).Seconds(); el > 0 {
		f.perSecond = float64(storeHooks) / el
	}

	// 1,000 requests waiting: the first hub's memory for them, then a
	// SIGKILL and the time to list them again.
	h := hubs[0]
	data := []byte(`{"agent":"bench","session_id":"s","data":{"action_requests":[{"name":"Bash","args":{"command":"make deploy"}}],"review_configs":[{"action_name":"Bash","allowed_decisions":["approve","reject"]}]}}`)
	for i := 0; i < storeWaiting; i++ {
		if code, body, err := benchCall(h.url, benchPublisher, "POST", "/hitl/requests", data); err != nil || code != 201 {
			return f, fmt.Errorf("publish: %d %v %s", code, err, body)
		}
	}
	_ = syscall.Kill(h.cmd.Process.Pid, syscall.SIGKILL)
	killed := time.Now()
	_ = h.cmd.Wait()
	h2, err := b.startStoreHub(ctx, h.dir, h.addr, h.store)
	if err != nil {
		return f, err
	}
	for {
		code, body, _ := benchCall(h2.url, benchApprovers[0].token, "GET", "/hitl/pending", nil)
		var list []json.RawMessage
		if code == 200 && json.Unmarshal(body, &list) == nil && len(list) == storeWaiting {
			break
		}
		if time.Since(killed) > time.Minute {
			return f, fmt.Errorf("the restarted hub did not list %d requests in a minute", storeWaiting)
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.restart = time.Since(killed)
	time.Sleep(time.Second)
	f.perThousand = (procRSS(h2.cmd.Process.Pid) - empty) * 1000 / storeWaiting
	return f, nil
}

// freshDatabase creates a database of the bench's own on the PostgreSQL
// at admin (a role that may CREATE DATABASE) and returns its URL.
func freshDatabase(ctx context.Context, admin string) (string, error) {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("PostgreSQL: %v", err)
	}
	defer conn.Close(context.Background())
	name := fmt.Sprintf("hitl_bench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}
