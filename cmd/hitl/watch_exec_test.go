package main

// watch --exec: a command per new interrupt, with its JSON on stdin and
// its names in the environment; never a shell for the payload; failures
// and hangs reported, watch going on.

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// watching runs hitl watch with args until the test ends; its stdout and
// stderr are returned as they fill.
func (s *server) watching(args ...string) (stdout, stderr *syncBuffer) {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	done := make(chan int)
	go func() {
		te := envOf(s.t)
		done <- runIn(ctx, append([]string{"--url", s.url, "watch", "--interval", "200ms"}, args...), strings.NewReader(""), stdout, stderr, te.getenv, func() []string { return te.environ() })
	}()
	s.t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				s.t.Errorf("watch exited %d: %s", code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			s.t.Error("watch did not end within 10s of being stopped")
		}
	})
	return stdout, stderr
}

// eventually waits for cond, or fails with what.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRealWatchExecGetsTheJSONAndNoShell(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		dir := t.TempDir()
		canary := filepath.Join(dir, "canary")
		pwned := filepath.Join(dir, "pwned")
		if err := os.WriteFile(canary, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		// The recorder keeps its stdin and environment, by interrupt id.
		// Each file appears whole (written aside, then renamed), the .env
		// last: the test reads them once the .env exists.
		rec := script(t, dir, "rec.sh", `p="$1/$HITL_INTERRUPT_ID"; cat > "$p.json.part" && mv "$p.json.part" "$p.json"; env | grep ^HITL_ > "$p.env.part"; mv "$p.env.part" "$p.env"`)
		graph := s.graph("fanout")
		// A payload that would delete the canary and create pwned, were
		// any of it ever run by a shell.
		evil := "x;rm -rf " + canary + ";touch " + pwned + ";$(touch " + pwned + ")"
		stdout, _ := s.watching("--graph", graph, "--json", "--exec", rec+" '"+dir+"'")
		th := s.start("fanout", map[string]any{"topic": "safe," + evil})
		ids := map[string]string{} // item -> interrupt id
		eventually(t, "watch prints both branches", func() bool { return strings.Count(stdout.String(), th) >= 2 })
		for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			var it struct {
				ID       string `json:"id"`
				ThreadID string `json:"thread_id"`
				Raw      struct {
					Item string `json:"item"`
				} `json:"raw"`
			}
			if json.Unmarshal([]byte(line), &it) == nil && it.ThreadID == th {
				ids[it.Raw.Item] = it.ID
			}
		}
		id := ids[evil]
		if id == "" || ids["safe"] == "" {
			t.Fatalf("items: %v\n%s", ids, stdout.String())
		}
		eventually(t, "the command ran for the evil item", func() bool {
			_, err := os.Stat(filepath.Join(dir, id+".env"))
			return err == nil
		})
		got, _ := os.ReadFile(filepath.Join(dir, id+".json"))
		// stdin is the line watch --json printed, byte for byte.
		var line string
		for _, l := range strings.Split(stdout.String(), "\n") {
			if strings.Contains(l, `"id":"`+id+`"`) {
				line = l + "\n"
			}
		}
		if string(got) != line {
			t.Fatalf("stdin:\n%s\nwatch printed:\n%s", got, line)
		}
		env, _ := os.ReadFile(filepath.Join(dir, id+".env"))
		// watch's environment is passed on: the test's own, not the shell's.
		for _, want := range []string{"HITL_INTERRUPT_ID=" + id, "HITL_THREAD_ID=" + th, "HITL_GRAPH_ID=" + graph, "HITL_SCHEMA=raw",
			"HITL_CONFIG=" + envOf(t).getenv("HITL_CONFIG")} {
			if !strings.Contains(string(env), want+"\n") {
				t.Fatalf("env lacks %s:\n%s", want, env)
			}
		}
		if _, err := os.Stat(canary); err != nil {
			t.Fatal("the canary is gone: a payload reached a shell")
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Fatal("pwned exists: a payload reached a shell")
		}
		// The command line is argv, not shell: ';' is a character of it.
		if _, err := newExecHook("echo a;touch "+pwned, "", time.Second, io.Discard, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRealWatchExecFailureAndHang(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		dir := t.TempDir()
		graph := s.graph("prompt")
		fail := script(t, dir, "fail.sh", `cat >/dev/null; printf 'boom \033[31mred\n' >&2; for i in 1 2 3 4 5 6 7; do echo "line $i" >&2; done; exit 3`)
		stdout, stderr := s.watching("--graph", graph, "--json", "--exec", fail)
		th := s.start("prompt", map[string]any{"topic": "string"})
		id := s.interruptOf(th)
		eventually(t, "the failure is reported", func() bool { return strings.Contains(stderr.String(), "the command for "+id[:8]+" failed") })
		report := stderr.String()
		for _, want := range []string{"exit status 3", `| boom \u001b[31mred`, "| line 4", "… (3 more lines)"} {
			if !strings.Contains(report, want) {
				t.Fatalf("the report lacks %q:\n%s", want, report)
			}
		}
		if strings.Contains(report, "\x1b") {
			t.Fatal("the command's stderr reached watch's stderr raw")
		}
		// watch goes on: the next interrupt is printed, and run for.
		th2 := s.start("prompt", map[string]any{"topic": "string"})
		eventually(t, "watch prints the next one", func() bool { return strings.Contains(stdout.String(), th2) })
		id2 := s.interruptOf(th2)
		eventually(t, "the next command ran", func() bool { return strings.Contains(stderr.String(), "the command for "+id2[:8]+" failed") })

		// A command that hangs is killed at its timeout, with what it started.
		pidfile := filepath.Join(dir, "sleep.pid")
		_, hangErr := s.watching("--graph", graph, "--exec-shell", "sleep 30 & echo $! > '"+pidfile+"'; wait", "--exec-timeout", "500ms")
		eventually(t, "the hang is reported", func() bool {
			return strings.Contains(hangErr.String(), "the command for "+id2[:8]+" failed: killed after")
		})
		if !strings.Contains(hangErr.String(), "(--exec-timeout 500ms)") {
			t.Fatalf("report: %s", hangErr.String())
		}
		pid, _ := os.ReadFile(pidfile)
		eventually(t, "the shell's child is gone", func() bool {
			p := strings.TrimSpace(string(pid))
			if p == "" {
				return false
			}
			// Gone, or dead and waiting to be reaped by init.
			stat, err := os.ReadFile("/proc/" + p + "/stat")
			return os.IsNotExist(err) || strings.Contains(string(stat), ") Z ")
		})
	})
}
