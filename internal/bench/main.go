// Command bench measures how fast hitl sees what waits, against the real
// LangGraph dev server and the embedded demo, side by side with a naive
// poller (an unselected /threads/search every 2 s) and, optionally, another
// build of hitl, and the idle cost of a reviewer left open (idle.go).
// scripts/bench builds and runs it; docs/performance.md shows its figures.
//
// Everything it starts listens on loopback and is stopped when it ends.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
)

type config struct {
	hitl, compare string // binaries
	realDir       string // testserver/ with node_modules: start langgraphjs dev there
	smoke         bool
	pending       int           // interrupts for the idle and arrival rows
	big           int           // interrupts for the slow-link row (demo)
	delay         time.Duration // added to each request of the slow link
	arrivals      int
	idle          time.Duration
	tuiIdle       time.Duration // the window of an idle TUI's CPU
	coldRuns      int
	only          string        // comma-separated parts: real, demo, small, attention, slow, hub, cold, store, storekill
	postgres      string        // a PostgreSQL (a role that may CREATE DATABASE) for the store's two-hub column
	lookEvery     time.Duration // HITL_LOOK_EVERY for every hitl run, and the bare poller's rate (0: hitl's default)
}

func (c config) part(name string) bool {
	return c.only == "" || slices.Contains(strings.Split(c.only, ","), name)
}

func main() {
	var c config
	flag.StringVar(&c.hitl, "hitl", "", "the hitl binary to measure")
	flag.StringVar(&c.compare, "compare", "", "another hitl binary (an older build) to measure beside it")
	flag.StringVar(&c.realDir, "real", "", "the testserver directory: start `langgraphjs dev` there and measure it too")
	flag.BoolVar(&c.smoke, "smoke", false, "small and quick: checks that every measurement works")
	flag.IntVar(&c.pending, "pending", 0, "pending interrupts (default 1000; smoke 100)")
	flag.IntVar(&c.big, "big", 0, "pending interrupts behind the slow link (default 10000; smoke 1000)")
	flag.DurationVar(&c.delay, "delay", 40*time.Millisecond, "round trip added by the slow link")
	flag.IntVar(&c.arrivals, "arrivals", 0, "interrupts raised to time their arrival (default 40; smoke 8)")
	flag.DurationVar(&c.idle, "idle", 0, "how long to count an idle watch's requests and CPU (default 60s; smoke 2s)")
	flag.DurationVar(&c.tuiIdle, "tui-idle", 0, "how long to read an idle TUI's CPU (default 60s; smoke 5s)")
	flag.StringVar(&c.only, "only", "", "only these parts, comma-separated: real, demo, small, attention, slow, hub, cold, store, storekill (store includes it)")
	flag.StringVar(&c.postgres, "postgres", "", "the store part: a PostgreSQL URL (a role that may CREATE DATABASE) for two hubs on one database")
	flag.DurationVar(&c.lookEvery, "look-every", 0, "the look interval of every hitl run (HITL_LOOK_EVERY; a build older than the setting keeps 200ms) and of the bare programs (default: hitl's, 200ms)")
	floor := flag.String("floor", "", "run a bare program against this URL (the bench runs them to measure a look's least cost)")
	floorMode := flag.String("floor-mode", "nethttp", "with -floor: wake (only wake) or nethttp (the look through net/http, as hitl)")
	hold := flag.String("hold", "", "start one server the bench measures (real: langgraphjs dev, needs -real; demo), raise -pending interrupts on it, print its URL and keep it until interrupted, to measure by hand")
	flag.Parse()
	if *floor != "" {
		runFloor(*floorMode, *floor, cmp.Or(c.lookEvery, floorEvery))
		return
	}
	def := func(v *int, full, smoke int) {
		if *v == 0 {
			*v = full
			if c.smoke {
				*v = smoke
			}
		}
	}
	def(&c.pending, 1000, 100)
	def(&c.big, 10000, 1000)
	def(&c.arrivals, 40, 8)
	def(&c.coldRuns, 15, 5)
	if c.idle == 0 {
		c.idle = 60 * time.Second
		if c.smoke {
			c.idle = 2 * time.Second
		}
	}
	if c.tuiIdle == 0 {
		c.tuiIdle = 60 * time.Second
		if c.smoke {
			c.tuiIdle = 5 * time.Second
		}
	}
	if c.hitl == "" {
		fail("usage: bench -hitl PATH [-compare PATH] [-real testserver] [-smoke]")
	}
	b := &bench{config: c}
	defer b.stopAll()
	if *hold != "" {
		if err := b.hold(*hold); err != nil {
			b.stopAll()
			fail(err.Error())
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if err := b.run(ctx); err != nil {
		b.stopAll()
		fail(err.Error())
	}
}

// hold starts one server as the bench measures it, prints its URL and
// keeps it until the bench is interrupted.
func (b *bench) hold(kind string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if b.tmp, err = os.MkdirTemp("", "hitl-bench-"); err != nil {
		return err
	}
	defer os.RemoveAll(b.tmp)
	var s *server
	switch {
	case kind == "demo":
		s, err = b.startDemo(b.pending)(ctx)
	case kind == "real" && b.realDir != "":
		s, err = b.startReal(ctx)
	case kind == "real":
		return fmt.Errorf("-hold real needs -real testserver (scripts/bench passes it where node is installed)")
	default:
		return fmt.Errorf("-hold: %q is not real or demo", kind)
	}
	if err != nil {
		return err
	}
	logf("%s holds %d pending interrupts; ctrl+c stops it", s.url, b.pending)
	fmt.Println(s.url)
	<-ctx.Done()
	b.stopAll()
	return nil
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "bench:", msg)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

type bench struct {
	config
	mu    sync.Mutex
	procs []*exec.Cmd
	tmp   string
}

// row is one line of a table: a figure per column.
type row struct {
	what  string
	cells []string
}

type table struct {
	title   string
	columns []string
	rows    []row
}

func (b *bench) run(ctx context.Context) error {
	var err error
	if b.tmp, err = os.MkdirTemp("", "hitl-bench-"); err != nil {
		return err
	}
	defer os.RemoveAll(b.tmp)
	var tables []table
	if b.realDir != "" && b.part("real") {
		t, err := b.backend(ctx, "langgraphjs dev", b.startReal)
		if err != nil {
			return fmt.Errorf("langgraphjs dev: %w", err)
		}
		tables = append(tables, t)
	}
	if b.part("demo") {
		t, err := b.backend(ctx, "hitl demo", b.startDemo(b.pending))
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		tables = append(tables, t)
	}
	if b.part("small") {
		t, err := b.idleSmall(ctx)
		if err != nil {
			return fmt.Errorf("small inbox: %w", err)
		}
		tables = append(tables, t)
	}
	if b.part("attention") && (!b.smoke || b.only != "") { // attention.go: over four minutes
		t, err := b.attention(ctx)
		if err != nil {
			return fmt.Errorf("attention: %w", err)
		}
		tables = append(tables, t)
	}
	if b.part("slow") {
		t, err := b.slowLink(ctx)
		if err != nil {
			return fmt.Errorf("slow link: %w", err)
		}
		tables = append(tables, t)
	}
	if b.part("hub") && (!b.smoke || b.only != "") { // hub.go
		if _, err := exec.LookPath("ssh"); err != nil {
			logf("hitl serve: left out: no ssh (apt-get install openssh-client)")
		} else {
			t, err := b.idleHub(ctx)
			if err != nil {
				return fmt.Errorf("hitl serve: %w", err)
			}
			tables = append(tables, t)
		}
	}
	if b.part("cold") {
		tables = append(tables, b.coldStart(ctx))
	}
	if b.part("store") && (!b.smoke || b.only != "") { // store.go
		t, err := b.hubStore(ctx)
		if err != nil {
			return fmt.Errorf("the hub's store: %w", err)
		}
		tables = append(tables, t)
	}
	if (b.part("store") || b.part("storekill")) && (!b.smoke || b.only != "") { // storekill.go
		if b.postgres == "" {
			logf("store: one of two hubs killed: left out: give -postgres URL (scripts/bench starts a cluster)")
		} else {
			t, err := b.storeKill(ctx)
			if err != nil {
				return fmt.Errorf("one of two hubs killed: %w", err)
			}
			tables = append(tables, t)
		}
	}
	b.print(tables)
	return nil
}

func (b *bench) print(tables []table) {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mode := "full"
	if b.smoke {
		mode = "smoke"
	}
	fmt.Printf("hitl bench (%s), %s, %d cores, %s/%s, %s\n", mode, cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02"))
	fmt.Printf("hitl: %s; compare: %s; naive: an unselected /threads/search (status interrupted, pages of 100) every 2 s\n", b.hitl, orNone(b.compare))
	if b.lookEvery > 0 {
		fmt.Printf("look_every: %s (HITL_LOOK_EVERY), not the default %s\n", b.lookEvery, floorEvery)
	}
	for _, t := range tables {
		fmt.Printf("\n%s\n", t.title)
		w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintf(w, "what\t%s\t\n", strings.Join(t.columns, "\t"))
		for _, r := range t.rows {
			cells := slices.Clone(r.cells)
			for i, c := range cells {
				if c == "" {
					cells[i] = "-"
				}
			}
			fmt.Fprintf(w, "%s\t%s\t\n", r.what, strings.Join(cells, "\t"))
		}
		w.Flush()
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// columns are hitl, [compare], naive, naive/hitl.
func (b *bench) columns() []string {
	cols := []string{"hitl"}
	if b.compare != "" {
		cols = append(cols, "compare")
	}
	return append(cols, "naive", "naive/hitl")
}

func (b *bench) binaries() []string {
	if b.compare != "" {
		return []string{b.hitl, b.compare}
	}
	return []string{b.hitl}
}

// server is a backend under test.
type server struct {
	url  string
	pgid int    // for its CPU time, 0: not measured
	kind string // "real" or "demo"
}

// backend measures one server: idle polls, arrivals, breakpoints.
func (b *bench) backend(ctx context.Context, name string, start func(context.Context) (*server, error)) (table, error) {
	logf("%s: starting", name)
	s, err := start(ctx)
	if err != nil {
		return table{}, err
	}
	t := table{title: fmt.Sprintf("%s, %d pending interrupts", name, b.pending), columns: b.columns()}
	breakpoints := b.countBreakpoints(ctx, s.url)
	t.title += fmt.Sprintf(" (%d of them breakpoints, fan-out branches included)", breakpoints)

	logf("%s: one poll, in process", name)
	poll, err := b.inProcess(ctx, s.url)
	if err != nil {
		return t, err
	}
	naive, err := naivePoll(ctx, s.url)
	if err != nil {
		return t, err
	}

	// The server's own CPU with no client, to read the watches' against.
	var baseCPU float64
	if s.pgid != 0 {
		cpu0, at := cpuTime(s.pgid), time.Now()
		time.Sleep(b.idle)
		baseCPU = (cpuTime(s.pgid) - cpu0).Seconds() / time.Since(at).Seconds() * 100
	}
	// Each binary's watch: idle rate, then arrivals.
	var watches []watchStats
	var naiveLat []time.Duration
	for _, bin := range b.binaries() {
		logf("%s: hitl watch (%s)", name, filepath.Base(filepath.Dir(bin))+"/"+filepath.Base(bin))
		w, err := b.watch(ctx, s, bin)
		if err != nil {
			return t, err
		}
		watches = append(watches, w)
	}
	// The naive poller's arrivals, on their own: its polls weigh on the
	// server (the whole conversations, every 2 s).
	logf("%s: the naive poller", name)
	np := &naivePoller{url: s.url}
	if naiveLat, err = b.naiveArrivals(ctx, s, np); err != nil {
		return t, err
	}
	hitl := watches[0]
	cells := func(h string, cmp func(watchStats) string, nv string, ratio string) []string {
		out := []string{h}
		if b.compare != "" {
			out = append(out, cmp(watches[1]))
		}
		return append(out, nv, ratio)
	}
	p50, p95 := pct(hitl.arrivals, 50), pct(hitl.arrivals, 95)
	n50, n95 := pct(naiveLat, 50), pct(naiveLat, 95)
	t.rows = append(t.rows, row{fmt.Sprintf("arrival on `watch --json`, p50 / p95 (ms; p95 target ≤ %d)", targetArrival.Milliseconds()), cells(
		fmt.Sprintf("%s / %s", ms(p50), ms(p95)),
		func(w watchStats) string {
			return fmt.Sprintf("%s / %s", ms(pct(w.arrivals, 50)), ms(pct(w.arrivals, 95)))
		},
		fmt.Sprintf("%s / %s", ms(n50), ms(n95)),
		fmt.Sprintf("%s / %s", ratio(float64(n50), float64(p50)), ratio(float64(n95), float64(p95))))})
	t.rows = append(t.rows, row{"requests per poll, nothing changed", cells(
		fmt.Sprint(poll.idleRequests),
		func(w watchStats) string { return fmt.Sprintf("%.1f", w.perPoll(2*time.Second).requests) },
		fmt.Sprint(naive.requests),
		ratio(float64(naive.requests), float64(poll.idleRequests)))})
	t.rows = append(t.rows, row{"bytes per poll, nothing changed", cells(
		size(poll.idleBytes),
		func(w watchStats) string { return size(int64(w.perPoll(2 * time.Second).bytes)) },
		size(naive.bytes),
		ratio(float64(naive.bytes), float64(poll.idleBytes)))})
	t.rows = append(t.rows, row{"extra requests per poll for breakpoint threads", cells(
		fmt.Sprint(poll.idleState),
		func(w watchStats) string { return fmt.Sprintf("%.1f", w.perPoll(2*time.Second).state) },
		"0 (shows none)", "")})
	t.rows = append(t.rows, row{"first listing: requests, bytes, time", cells(
		fmt.Sprintf("%d, %s, %s ms", poll.firstRequests, size(poll.firstBytes), ms(poll.firstTime)),
		func(w watchStats) string { return "" },
		fmt.Sprintf("%d, %s, %s ms", naive.requests, size(naive.bytes), ms(naive.time)), "")})
	idle := func(w watchStats) string {
		return fmt.Sprintf("%.1f req/s, %s/s", w.rate.requests, size(int64(w.rate.bytes)))
	}
	naiveRate := float64(naive.requests) / 2
	t.rows = append(t.rows, row{"idle `watch`: request rate", cells(idle(hitl), idle,
		fmt.Sprintf("%.1f req/s, %s/s", naiveRate, size(naive.bytes/2)),
		ratio(float64(naive.bytes)/2, hitl.rate.bytes)+" (bytes)")})
	logf("%s: hitl watch and bare Go programs waking %s, side by side", name, b.looks())
	floors, watchCPU, err := b.idleWindow(ctx, s.url)
	if err != nil {
		return t, err
	}
	wcpu := []string{watchCPU[0].String()}
	if b.compare != "" {
		wcpu = append(wcpu, watchCPU[1].String())
	}
	t.rows = append(t.rows, row{fmt.Sprintf("idle `watch`: its CPU, s an hour (wake-ups a second; target ≤ %.0f)", targetWatch), b.pad(wcpu)})
	for i, fp := range floorPrograms {
		t.rows = append(t.rows, row{"idle: " + fp.what + ", " + b.looks() + ": CPU, s an hour (wake-ups a second)", cells(floors[i].String(), func(watchStats) string { return "" }, "", "")})
	}
	tui, err := b.idleRows(ctx, s, fmt.Sprintf("%d pending", b.pending))
	t.rows = append(t.rows, tui...)
	if err != nil {
		return t, err
	}
	if s.pgid != 0 {
		cpu := func(w watchStats) string { return fmt.Sprintf("%.1f%%", w.serverCPU) }
		t.rows = append(t.rows, row{fmt.Sprintf("idle `watch`: server CPU (with no client: %.1f%%)", baseCPU), cells(cpu(hitl), cpu, "", "")})
	}
	b.stopAll()
	return t, nil
}

func ms(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return strconv.FormatInt(d.Milliseconds(), 10)
}

func ratio(num, den float64) string {
	if den <= 0 || num <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fx", num/den)
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return -1
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(min(i, len(s))-1, 0)]
}

// ---- servers ----

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (b *bench) spawn(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	b.mu.Lock()
	b.procs = append(b.procs, cmd)
	b.mu.Unlock()
	return nil
}

// stopAll stops every process the bench started (their process groups).
func (b *bench) stopAll() {
	b.mu.Lock()
	procs := b.procs
	b.procs = nil
	b.mu.Unlock()
	for _, p := range procs {
		_ = syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
}

func waitOK(ctx context.Context, u string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if resp, err := http.Get(u + "/ok"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer /ok in %v", u, d)
}

func (b *bench) env() []string {
	state := filepath.Join(b.tmp, fmt.Sprint("state-", rand.Int()))
	env := append(os.Environ(), "XDG_STATE_HOME="+state, "HITL_CONFIG="+filepath.Join(b.tmp, "none.yaml"), "NO_COLOR=1")
	if b.lookEvery > 0 {
		env = append(env, "HITL_LOOK_EVERY="+b.lookEvery.String())
	}
	return env
}

func (b *bench) startDemo(burst int) func(context.Context) (*server, error) {
	return func(ctx context.Context) (*server, error) {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		cmd := exec.CommandContext(ctx, b.hitl, "demo", "--serve", "--listen", addr, "--burst", fmt.Sprint(burst), "--every", "0")
		cmd.Env = b.env()
		if err := b.spawn(cmd); err != nil {
			return nil, err
		}
		u := "http://" + addr
		if err := waitOK(ctx, u, time.Minute); err != nil {
			return nil, err
		}
		// The burst is made while the server answers already.
		deadline := time.Now().Add(5 * time.Minute)
		for last := -1; time.Now().Before(deadline); time.Sleep(time.Second) {
			n, err := count(ctx, u, "interrupted")
			if err != nil {
				return nil, err
			}
			if n >= burst && n == last {
				raised()
				return &server{url: u, kind: "demo"}, nil
			}
			last = n
		}
		return nil, fmt.Errorf("the demo did not make its %d interrupts in 5 minutes", burst)
	}
}

func (b *bench) startReal(ctx context.Context) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	// A copy of the test server, so that it starts empty: the dev server
	// keeps its threads in .langgraph_api of its directory.
	dir, err := b.copyServer()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "node_modules", ".bin", "langgraphjs"), "dev",
		"--host", "127.0.0.1", "--port", fmt.Sprint(port), "--no-browser", "--no-reload")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LANGSMITH_TRACING=false", "LANGCHAIN_TRACING_V2=false")
	logPath := filepath.Join(b.tmp, "langgraph.log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := b.spawn(cmd); err != nil {
		return nil, err
	}
	u := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitOK(ctx, u, 2*time.Minute); err != nil {
		log, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("%w:\n%s", err, log)
	}
	s := &server{url: u, pgid: cmd.Process.Pid, kind: "real"}
	// As many interrupts as asked: tool calls, and one breakpoint and one
	// fan-out (three branches) in twenty.
	logf("langgraphjs dev: raising %d interrupts", b.pending)
	var graphs []string
	for i := 0; len(graphs) < b.pending; i++ {
		switch {
		case i%20 == 7:
			graphs = append(graphs, "breakpoint")
		case i%20 == 13 && len(graphs)+3 <= b.pending:
			graphs = append(graphs, "fanout")
		default:
			graphs = append(graphs, "agent")
		}
	}
	want := 0
	for _, g := range graphs {
		want += map[string]int{"fanout": 3}[g]
		if g != "fanout" {
			want++
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	var errs atomic.Int64
	for _, g := range graphs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := raise(ctx, u, g); err != nil {
				errs.Add(1)
			}
		}()
	}
	wg.Wait()
	if errs.Load() > 0 {
		return nil, fmt.Errorf("%d runs could not be started", errs.Load())
	}
	// The server runs them a few at a time.
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		n, err := count(ctx, u, "interrupted")
		if err != nil {
			return nil, err
		}
		if busy, _ := count(ctx, u, "busy"); n >= len(graphs) && busy == 0 {
			return s, nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return nil, fmt.Errorf("the runs did not all pause in 10 minutes")
}

// copyServer copies the test server's sources into the bench's directory,
// with its node_modules linked.
func (b *bench) copyServer() (string, error) {
	src, err := filepath.Abs(b.realDir)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(b.tmp, "testserver")
	err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		switch {
		case rel == "node_modules" || rel == ".langgraph_api":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		return "", err
	}
	return dst, os.Symlink(filepath.Join(src, "node_modules"), filepath.Join(dst, "node_modules"))
}

// input is what each graph is started with.
func input(graph string) any {
	switch graph {
	case "agent":
		return map[string]any{"messages": []any{map[string]string{"role": "user", "content": "email"}}}
	case "fanout":
		return map[string]any{"topic": "a,b,c"}
	case "prompt":
		return map[string]any{"topic": "string"}
	}
	return map[string]any{}
}

func post(ctx context.Context, u string, body any, into any) (http.Header, error) {
	data, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("POST %s: HTTP %d %s", u, resp.StatusCode, raw)
	}
	if into != nil {
		return resp.Header, json.Unmarshal(raw, into)
	}
	return resp.Header, nil
}

// raise starts a thread of graph in the background (POST /runs, no wait)
// and returns its id.
func raise(ctx context.Context, u, graph string) (string, error) {
	var th struct {
		ThreadID string `json:"thread_id"`
	}
	if _, err := post(ctx, u+"/threads", map[string]any{"metadata": map[string]string{"bench": "1"}}, &th); err != nil {
		return "", err
	}
	_, err := post(ctx, u+"/threads/"+th.ThreadID+"/runs", map[string]any{"assistant_id": graph, "input": input(graph)}, nil)
	raised()
	return th.ThreadID, err
}

func count(ctx context.Context, u, status string) (int, error) {
	var page []json.RawMessage
	h, err := post(ctx, u+"/threads/search", map[string]any{"status": status, "limit": 1, "select": []string{"thread_id"}}, &page)
	if err != nil {
		return 0, err
	}
	n, _ := strconv.Atoi(h.Get("X-Pagination-Total"))
	if len(page) == 1 && n == 2 {
		return 1, nil // the JS server counts one too many for a full page
	}
	return n, nil
}

func (b *bench) countBreakpoints(ctx context.Context, u string) int {
	lb, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: u}})
	if err != nil {
		return 0
	}
	its, err := lb.Pending(ctx)
	if err != nil {
		return 0
	}
	n := 0
	for _, it := range its {
		if it.Schema == "breakpoint" {
			n++
		}
	}
	return n
}

// ---- a counting, delaying proxy ----

type proxy struct {
	target   string
	tr       *http.Transport
	delay    time.Duration
	requests atomic.Int64
	bytes    atomic.Int64
	state    atomic.Int64 // GET /threads/{id}/state
	srv      *http.Server
	url      string
}

// newProxy forwards to target, waiting delay before each request. (A
// hand-written proxy: httputil.ReverseProxy here lost upstream bodies
// after a client of it had gone away.)
func newProxy(target string, delay time.Duration) (*proxy, error) {
	p := &proxy{target: strings.TrimRight(target, "/"), tr: http.DefaultTransport.(*http.Transport).Clone(), delay: delay}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.url = "http://" + l.Addr().String()
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(l) //nolint:errcheck // ended by close
	return p, nil
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	if strings.HasSuffix(r.URL.Path, "/state") {
		p.state.Add(1)
	}
	if p.delay > 0 {
		time.Sleep(p.delay)
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	req.ContentLength = r.ContentLength
	resp, err := p.tr.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			p.bytes.Add(int64(n))
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if f != nil {
				f.Flush() // streams go through as they come
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) reset() {
	p.requests.Store(0)
	p.bytes.Store(0)
	p.state.Store(0)
}

func (p *proxy) close() {
	_ = p.srv.Close()
	p.tr.CloseIdleConnections()
}

// ---- one poll, in process ----

type pollStats struct {
	firstRequests, idleRequests, idleState int64
	firstBytes, idleBytes                  int64
	firstTime                              time.Duration
}

func (b *bench) inProcess(ctx context.Context, u string) (pollStats, error) {
	var s pollStats
	p, err := newProxy(u, 0)
	if err != nil {
		return s, err
	}
	defer p.close()
	lb, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: p.url}})
	if err != nil {
		return s, err
	}
	at := time.Now()
	if _, err := lb.Pending(ctx); err != nil {
		return s, err
	}
	s.firstTime, s.firstRequests, s.firstBytes = time.Since(at), p.requests.Load(), p.bytes.Load()
	// The first poll after the listing also reads the ids and times of the
	// threads changed in the seconds before it (here: all, just made).
	if _, err := lb.Pending(ctx); err != nil {
		return s, err
	}
	const polls = 5
	p.reset()
	for range polls {
		if _, err := lb.Pending(ctx); err != nil {
			return s, err
		}
	}
	s.idleRequests, s.idleBytes, s.idleState = p.requests.Load()/polls, p.bytes.Load()/polls, p.state.Load()/polls
	return s, nil
}

// ---- the naive poller ----

type naiveStats struct {
	requests, bytes int64
	time            time.Duration
}

// naivePoll lists every interrupted thread, unselected (with its values),
// in pages of 100, as a client that knows nothing better does.
func naivePoll(ctx context.Context, u string) (naiveStats, error) {
	var s naiveStats
	at := time.Now()
	err := naiveList(ctx, u, &s, nil)
	s.time = time.Since(at)
	return s, err
}

func naiveList(ctx context.Context, u string, s *naiveStats, each func(id string, updated time.Time)) error {
	for offset := 0; ; offset += 100 {
		body, _ := json.Marshal(map[string]any{"status": "interrupted", "limit": 100, "offset": offset})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u+"/threads/search", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("naive search at offset %d: %w (HTTP %d, %d bytes)", offset, err, resp.StatusCode, len(raw))
		}
		s.requests++
		s.bytes += int64(len(raw))
		var page []struct {
			ThreadID  string    `json:"thread_id"`
			UpdatedAt time.Time `json:"updated_at"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return fmt.Errorf("naive search: %v", err)
		}
		for _, t := range page {
			if each != nil {
				each(t.ThreadID, t.UpdatedAt)
			}
		}
		if len(page) < 100 {
			return nil
		}
	}
}

// naivePoller polls every 2 s and notes when it first saw each thread.
type naivePoller struct {
	url  string
	mu   sync.Mutex
	seen map[string]time.Duration // thread → seen minus updated_at
	want map[string]bool
}

func (n *naivePoller) expect(thread string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.want == nil {
		n.want = map[string]bool{}
	}
	n.want[thread] = true
}

func (n *naivePoller) run(ctx context.Context) {
	tk := time.NewTicker(2 * time.Second)
	defer tk.Stop()
	for {
		var s naiveStats
		_ = naiveList(ctx, n.url, &s, func(id string, updated time.Time) {
			n.mu.Lock()
			defer n.mu.Unlock()
			if _, ok := n.seen[id]; !ok && n.want[id] {
				n.seen[id] = time.Since(updated)
			}
		})
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
	}
}

func (n *naivePoller) latencies() []time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []time.Duration
	for _, d := range n.seen {
		out = append(out, d)
	}
	return out
}

// ---- hitl watch ----

type rate struct{ requests, bytes, state float64 }

type watchStats struct {
	rate      rate // per second, idle
	serverCPU float64
	arrivals  []time.Duration
}

func (w watchStats) perPoll(interval time.Duration) rate {
	f := interval.Seconds()
	return rate{w.rate.requests * f, w.rate.bytes * f, w.rate.state * f}
}

// printed is a line of `watch --json`, and when it was read.
type printed struct {
	at      time.Time
	thread  string
	updated time.Time
}

// startWatch runs `bin --url u watch --json` and sends each printed line.
func (b *bench) startWatch(ctx context.Context, bin, u string, lines chan<- printed, extra ...string) (*exec.Cmd, error) {
	args := append([]string{"--url", u, "watch", "--json"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = b.env()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := b.spawn(cmd); err != nil {
		return nil, err
	}
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(lines)
				return
			}
			at := time.Now()
			var it struct {
				ThreadID  string    `json:"thread_id"`
				UpdatedAt time.Time `json:"updated_at"`
			}
			_ = json.Unmarshal(line, &it)
			lines <- printed{at: at, thread: it.ThreadID, updated: it.UpdatedAt}
		}
	}()
	return cmd, nil
}

func (b *bench) stop(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	b.mu.Lock()
	b.procs = slices.DeleteFunc(b.procs, func(c *exec.Cmd) bool { return c == cmd })
	b.mu.Unlock()
}

// firstListing waits for a watch's first listing: everything pending
// printed, then 3 s of quiet.
func firstListing(ctx context.Context, lines <-chan printed) error {
	quiet := time.NewTimer(3 * time.Second)
	defer quiet.Stop()
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				return fmt.Errorf("watch exited")
			}
			quiet.Reset(3 * time.Second)
		case <-quiet.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (b *bench) watch(ctx context.Context, s *server, bin string) (watchStats, error) {
	var w watchStats
	p, err := newProxy(s.url, 0)
	if err != nil {
		return w, err
	}
	defer p.close()
	lines := make(chan printed, 1<<16)
	cmd, err := b.startWatch(ctx, bin, p.url, lines)
	if err != nil {
		return w, err
	}
	defer b.stop(cmd)
	if err := firstListing(ctx, lines); err != nil {
		return w, err
	}
	// Idle: what it asks (its CPU is read beside the bare programs, with no
	// proxy in between: idleWindow).
	p.reset()
	cpu0 := cpuTime(s.pgid)
	at := time.Now()
	select {
	case <-time.After(b.idle):
	case <-ctx.Done():
		return w, ctx.Err()
	}
	el := time.Since(at).Seconds()
	w.rate = rate{float64(p.requests.Load()) / el, float64(p.bytes.Load()) / el, float64(p.state.Load()) / el}
	if s.pgid != 0 {
		w.serverCPU = (cpuTime(s.pgid) - cpu0).Seconds() / el * 100
	}
	// Arrivals.
	for range b.arrivals {
		time.Sleep(time.Duration(200+rand.IntN(800)) * time.Millisecond)
		thread, err := raise(ctx, s.url, s.arrivalGraph())
		if err != nil {
			return w, err
		}
		deadline := time.After(30 * time.Second)
	wait:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return w, fmt.Errorf("watch exited")
				}
				if l.thread == thread {
					w.arrivals = append(w.arrivals, l.at.Sub(l.updated))
					break wait
				}
			case <-deadline:
				return w, fmt.Errorf("watch did not print thread %s in 30s", thread)
			}
		}
	}
	return w, nil
}

func (s *server) arrivalGraph() string {
	if s.kind == "real" {
		return "agent"
	}
	return "asker"
}

// naiveArrivals raises interrupts as watch does and times when the naive
// poller first sees each.
func (b *bench) naiveArrivals(ctx context.Context, s *server, np *naivePoller) ([]time.Duration, error) {
	nctx, cancel := context.WithCancel(ctx)
	defer cancel()
	np.seen = map[string]time.Duration{}
	go np.run(nctx)
	for range b.arrivals {
		time.Sleep(time.Duration(200+rand.IntN(800)) * time.Millisecond)
		thread, err := raise(ctx, s.url, s.arrivalGraph())
		if err != nil {
			return nil, err
		}
		np.expect(thread)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(np.latencies()) < b.arrivals && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	return np.latencies(), nil
}

// cpuTime is the CPU time used by a process group (Linux).
func cpuTime(pgid int) time.Duration {
	if pgid == 0 {
		return 0
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// Fields after the command name, which ends with ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 13 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g != pgid {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + s
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// ---- a large inbox over a slow link ----

func (b *bench) slowLink(ctx context.Context) (table, error) {
	logf("demo with %d interrupts behind a %v round trip", b.big, b.delay)
	t := table{title: fmt.Sprintf("hitl demo, %d pending interrupts, %v added to each request", b.big, b.delay), columns: b.columns()}
	s, err := b.startDemo(b.big)(ctx)
	if err != nil {
		return t, err
	}
	defer b.stopAll()
	p, err := newProxy(s.url, b.delay)
	if err != nil {
		return t, err
	}
	defer p.close()
	type figures struct {
		list, first, all time.Duration
		requests         int64
		err              error
	}
	measure := func(bin string) figures {
		var f figures
		p.reset()
		at := time.Now()
		cmd := exec.CommandContext(ctx, bin, "--url", p.url, "list", "--json")
		cmd.Env = b.env()
		out, err := cmd.Output()
		f.list, f.requests = time.Since(at), p.requests.Load()
		var all []json.RawMessage
		if err == nil {
			err = json.Unmarshal(out, &all)
		}
		if err != nil {
			f.err = err
			return f
		}
		lines := make(chan printed, 1<<16)
		at = time.Now()
		wc, err := b.startWatch(ctx, bin, p.url, lines)
		if err != nil {
			f.err = err
			return f
		}
		defer b.stop(wc)
		n := 0
		deadline := time.After(3 * time.Minute)
		for n < len(all) {
			select {
			case _, ok := <-lines:
				if !ok {
					f.err = fmt.Errorf("watch exited")
					return f
				}
				if n == 0 {
					f.first = time.Since(at)
				}
				n++
			case <-deadline:
				f.err = fmt.Errorf("watch printed %d of %d in 3 minutes", n, len(all))
				return f
			}
		}
		f.all = time.Since(at)
		return f
	}
	var fs []figures
	for _, bin := range b.binaries() {
		f := measure(bin)
		if f.err != nil {
			logf("%s: %v", bin, f.err)
		}
		fs = append(fs, f)
	}
	var naive naiveStats
	at := time.Now()
	if err := naiveList(ctx, p.url, &naive, nil); err != nil {
		return t, err
	}
	naive.time = time.Since(at)
	cell := func(f figures, d time.Duration) string {
		if f.err != nil {
			return "failed"
		}
		return ms(d)
	}
	cells := func(pick func(figures) time.Duration, nv time.Duration) []string {
		var out []string
		for _, f := range fs {
			out = append(out, cell(f, pick(f)))
		}
		if nv > 0 {
			return append(out, ms(nv), ratio(float64(nv), float64(pick(fs[0]))))
		}
		return append(out, "", "")
	}
	t.rows = append(t.rows, row{"`hitl list --json` (ms)", cells(func(f figures) time.Duration { return f.list }, naive.time)})
	var reqs []string
	for _, f := range fs {
		reqs = append(reqs, fmt.Sprint(f.requests))
	}
	t.rows = append(t.rows, row{"`hitl list` requests", append(reqs, fmt.Sprint(naive.requests), ratio(float64(naive.requests), float64(fs[0].requests)))})
	t.rows = append(t.rows, row{"`watch --json`: first line (ms)", cells(func(f figures) time.Duration { return f.first }, 0)})
	t.rows = append(t.rows, row{"`watch --json`: every line (ms)", cells(func(f figures) time.Duration { return f.all }, 0)})
	return t, nil
}

// ---- cold start ----

func (b *bench) coldStart(ctx context.Context) table {
	logf("cold start")
	t := table{title: "cold start: `hitl list` of an empty listing (graph filter matching nothing) on the demo, median of runs", columns: b.columns()}
	s, err := b.startDemo(0)(ctx)
	if err != nil {
		t.rows = append(t.rows, row{"failed", []string{err.Error()}})
		return t
	}
	defer b.stopAll()
	timeRun := func(name string, args ...string) time.Duration {
		var ds []time.Duration
		for range b.coldRuns {
			cmd := exec.CommandContext(ctx, name, args...)
			cmd.Env = b.env()
			at := time.Now()
			if err := cmd.Run(); err != nil {
				return -1
			}
			ds = append(ds, time.Since(at))
		}
		return pct(ds, 50)
	}
	body := `{"status":"interrupted","limit":100,"offset":0,"sort_by":"updated_at","sort_order":"desc","metadata":{"graph_id":"bench-none"},"select":["thread_id","status","metadata","created_at","updated_at","interrupts"]}`
	curl := timeRun("curl", "-s", "-o", "/dev/null", "-X", "POST", "-H", "content-type: application/json", "-d", body, s.url+"/threads/search")
	var lists, inits []string
	var hitl time.Duration
	for i, bin := range b.binaries() {
		d := timeRun(bin, "--url", s.url, "--graph", "bench-none", "list")
		if i == 0 {
			hitl = d
		}
		lists = append(lists, ms(d))
		inits = append(inits, fmt.Sprintf("%.1f", initTrace(ctx, bin, b.env())))
	}
	t.rows = append(t.rows, row{"wall time (ms); naive: curl of the same search", append(lists, ms(curl), ratio(float64(curl), float64(hitl)))})
	t.rows = append(t.rows, row{"package init, `hitl version` (ms, GODEBUG=inittrace=1)", append(inits, "", "")})
	var over []string
	for _, l := range lists {
		d, err := strconv.Atoi(l)
		if err != nil || curl < 0 {
			over = append(over, "-")
			continue
		}
		over = append(over, fmt.Sprint(d-int(curl.Milliseconds())))
	}
	t.rows = append(t.rows, row{fmt.Sprintf("hitl list minus curl (ms; target ≤ %d)", targetCold.Milliseconds()), append(over, "", "")})
	return t
}

// initTrace sums the init clock of every package (median of 5).
func initTrace(ctx context.Context, bin string, env []string) float64 {
	var sums []float64
	for range 5 {
		cmd := exec.CommandContext(ctx, bin, "version")
		cmd.Env = append(env, "GODEBUG=inittrace=1")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if cmd.Run() != nil {
			return -1
		}
		sum := 0.0
		for _, line := range strings.Split(errb.String(), "\n") {
			// init pkg @0.1 ms, 0.2 ms clock, 100 bytes, 2 allocs
			f := strings.Fields(line)
			if len(f) > 6 && f[0] == "init" && f[6] == "clock," {
				v, _ := strconv.ParseFloat(f[4], 64)
				sum += v
			}
		}
		sums = append(sums, sum)
	}
	slices.Sort(sums)
	return sums[len(sums)/2]
}
