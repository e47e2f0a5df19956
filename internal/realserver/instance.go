package realserver

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Instance is a dev server of its own that a test starts, kills and
// restarts on the same port (to lose a run, as an in-memory server does
// when it restarts), from a temporary copy of the server's directory; or a
// langhost replica of its own, on the database and Redis of the replicas
// scripts/test runs (to kill -9 a replica while the others go on).
type Instance struct {
	Kind Kind
	URL  string

	t      testing.TB
	dir    string
	port   int
	bin    string
	args   []string
	env    []string
	cmd    *exec.Cmd
	exited chan struct{}
	log    *os.File
}

// Start starts an instance of the kind of server scripts/test runs (the
// test is skipped where scripts/test did not start that kind). It is
// stopped when the test ends.
func Start(t testing.TB, k Kind) *Instance {
	t.Helper()
	Get(t, k) // skipped (or failed, under CI) where scripts/test did not start it
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := &Instance{Kind: k, t: t, dir: dir}
	in.env = append(os.Environ(), "LANGSMITH_TRACING=false", "LANGCHAIN_TRACING_V2=false", "LANGCHAIN_TRACING=false",
		"LANGGRAPH_CLI_NO_ANALYTICS=1", "LANGSMITH_DISABLE_TELEMETRY=true",
		"LANGSMITH_API_KEY=", "LANGCHAIN_API_KEY=", "LANGGRAPH_API_KEY=")
	switch k {
	case JS:
		src := filepath.Join(root, "testserver")
		for _, f := range []string{"graphs", "langgraph.json", "package.json"} {
			if out, err := exec.Command("cp", "-R", filepath.Join(src, f), dir).CombinedOutput(); err != nil {
				t.Fatalf("copy %s: %v %s", f, err, out)
			}
		}
		if err := os.Symlink(filepath.Join(src, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		in.bin = filepath.Join(dir, "node_modules", ".bin", "langgraphjs")
	case Python:
		venv := os.Getenv("HITL_TEST_PY_VENV")
		if venv == "" {
			t.Skip("HITL_TEST_PY_VENV is not set: run the tests with scripts/test")
		}
		if out, err := exec.Command("cp", "-R", filepath.Join(root, "testserver", "python", "graphs"),
			filepath.Join(root, "testserver", "python", "langgraph.json"), dir).CombinedOutput(); err != nil {
			t.Fatalf("copy: %v %s", err, out)
		}
		in.bin = filepath.Join(venv, "bin", "langgraph")
		in.env = append(in.env, "PATH="+filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		in.args = []string{"--no-reload"}
	case Langhost:
		venv, db, redis := os.Getenv("HITL_TEST_LANGHOST_VENV"), os.Getenv("HITL_TEST_LANGHOST_DATABASE_URI"), os.Getenv("HITL_TEST_LANGHOST_REDIS_URI")
		if venv == "" || db == "" || redis == "" {
			t.Skip("HITL_TEST_LANGHOST_VENV, _DATABASE_URI or _REDIS_URI is not set: run the tests with scripts/test")
		}
		if out, err := exec.Command("cp", "-R", filepath.Join(root, "testserver", "python", "graphs"),
			filepath.Join(root, "testserver", "python", "langgraph.json"), dir).CombinedOutput(); err != nil {
			t.Fatalf("copy: %v %s", err, out)
		}
		in.bin = filepath.Join(venv, "bin", "langhost")
		in.env = append(in.env, "PATH="+filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
			"DATABASE_URI="+db, "REDIS_URI="+redis, "LG_RUNTIME_PG_AUTO_MIGRATE=false", "LG_BG_JOB_HEARTBEAT=5", "N_JOBS_PER_WORKER=4")
	default:
		t.Fatalf("realserver.Start: no instance of a %s server", k)
	}
	if in.port, err = freePort(); err != nil {
		t.Fatal(err)
	}
	in.URL = "http://127.0.0.1:" + strconv.Itoa(in.port)
	if in.log, err = os.Create(filepath.Join(dir, "server.log")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Kill()
		in.log.Close()
	})
	in.start()
	return in
}

func (in *Instance) start() {
	in.t.Helper()
	args := append([]string{"dev", "--host", "127.0.0.1", "--port", strconv.Itoa(in.port), "--no-browser"}, in.args...)
	if in.Kind == Langhost {
		args = []string{"serve", "--host", "127.0.0.1", "--port", strconv.Itoa(in.port), "-c", "langgraph.json", "--no-browser", "--allow-blocking"}
	}
	in.cmd = exec.Command(in.bin, args...)
	in.cmd.Dir, in.cmd.Env = in.dir, in.env
	in.cmd.Stdout, in.cmd.Stderr = in.log, in.log
	// Its own process group: killing it kills the workers it forks.
	in.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := in.cmd.Start(); err != nil {
		in.t.Fatal(err)
	}
	exited := make(chan struct{})
	in.exited = exited
	go func() { in.cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(180 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(in.URL + "/ok"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(in.log.Name())
			in.t.Fatalf("the %s server exited:\n%s", in.Kind, b)
		case <-time.After(200 * time.Millisecond):
		}
	}
	in.t.Fatalf("the %s server did not start in 180 s (log: %s)", in.Kind, in.log.Name())
}

// Kill stops the server at once (SIGKILL to its process group): what it
// had not written to disk is lost.
func (in *Instance) Kill() {
	if in.cmd == nil || in.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-in.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-in.exited:
	case <-time.After(10 * time.Second):
	}
	for i := 0; i < 100; i++ { // until the port is free
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", in.port), 100*time.Millisecond); err == nil {
			c.Close()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		break
	}
	in.cmd = nil
}

// WaitWritten waits until the server has written its state to disk after
// since, and then written nothing for 3.5 s. The in-memory servers write
// their state a while after it changes (langgraphjs: each file 3 s after
// its last change, so a quiet 3.5 s means every file is written; the
// Python one: every 10 s), so right after, a change stays in memory only
// for a few seconds.
func (in *Instance) WaitWritten(since time.Time) {
	in.t.Helper()
	dir := filepath.Join(in.dir, ".langgraph_api")
	newest := func() time.Time {
		var t time.Time
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && fi.ModTime().After(t) {
				t = fi.ModTime()
			}
		}
		return t
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if w := newest(); w.After(since) && time.Since(w) > 3500*time.Millisecond {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	in.t.Fatalf("the %s server did not write its state to %s in 60 s", in.Kind, dir)
}

// Restart kills the server and starts it again on the same port, from
// what it wrote to disk.
func (in *Instance) Restart() {
	in.t.Helper()
	in.Kill()
	in.start()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// repoRoot is the directory holding go.mod, above the test's directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's directory")
		}
		dir = parent
	}
}
