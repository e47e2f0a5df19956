package main

// The idle cost of the team's inbox: the CPU of `hitl serve --ssh` (its
// process only) with nothing arriving, alone, with one and with ten real
// OpenSSH sessions (tmux, 80x24, colours on), each a reviewer of its own,
// read from /proc over a window once every session shows its inbox; and
// its resident memory at the end of each window.

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// targetHub is the hub's CPU with ten idle sessions (issue 20), in seconds
// an hour.
const targetHub = 20.0

// hubSessions is how many sessions the last row opens.
const hubSessions = 10

// idleHub measures the hub of each binary in front of a demo of 11 extra
// interrupts (30 pending), as the small inbox does.
func (b *bench) idleHub(ctx context.Context) (table, error) {
	t := table{title: "hitl serve --ssh, idle, a small inbox (--burst 11)", columns: b.columns()}
	for _, tool := range []string{"ssh", "ssh-keygen", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			return t, fmt.Errorf("%s is not installed (apt-get install openssh-client tmux)", tool)
		}
	}
	s, err := b.startDemo(11)(ctx)
	if err != nil {
		return t, err
	}
	defer b.stopAll()
	settle(ctx)
	labels := []string{"hub alone", "1 idle session", fmt.Sprintf("%d idle sessions", hubSessions)}
	cells := make([][]string, len(labels))
	mem := make([][]string, len(labels))
	for _, bin := range b.binaries() {
		vs, rss, err := b.hubCPU(ctx, s.url, bin)
		if err != nil {
			return t, err
		}
		for i, v := range vs {
			cells[i] = append(cells[i], v.String())
			mem[i] = append(mem[i], fmt.Sprintf("%.1f MB", float64(rss[i])/(1<<20)))
		}
	}
	for i, l := range labels {
		if i == len(labels)-1 {
			l += fmt.Sprintf(" (target ≤ %.0f)", targetHub)
		}
		t.rows = append(t.rows, row{"hub CPU, s an hour (wake-ups a second): " + l, b.pad(cells[i])})
	}
	for i, l := range labels {
		t.rows = append(t.rows, row{"hub RSS at the end of the window: " + l, b.pad(mem[i])})
	}
	return t, nil
}

// hubCPU runs bin's hub against u and returns its cost and its resident
// set in bytes: alone, with one session, and with hubSessions.
func (b *bench) hubCPU(ctx context.Context, u, bin string) (cpu []cost, rss []int64, err error) {
	dir, err := os.MkdirTemp(b.tmp, "hub-")
	if err != nil {
		return nil, nil, err
	}
	var cfg strings.Builder
	cfg.WriteString("team:\n  reviewers:\n")
	for i := range hubSessions {
		key := filepath.Join(dir, fmt.Sprintf("r%d", i))
		if out, err := exec.CommandContext(ctx, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", key).CombinedOutput(); err != nil {
			return nil, nil, fmt.Errorf("ssh-keygen: %v: %s", err, out)
		}
		pub, err := os.ReadFile(key + ".pub")
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(&cfg, "    r%d: {keys: [%q], role: approver}\n", i, strings.TrimSpace(string(pub)))
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg.String()), 0o600); err != nil {
		return nil, nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, bin, "serve", "--ssh", fmt.Sprintf("127.0.0.1:%d", port), "--url", u)
	var env []string
	for _, kv := range b.env() {
		if !strings.HasPrefix(kv, "HITL_CONFIG=") && !strings.HasPrefix(kv, "NO_COLOR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HITL_CONFIG="+filepath.Join(dir, "config.yaml"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := b.spawn(cmd); err != nil {
		return nil, nil, err
	}
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "msg=listening") {
				said = true
				close(listening)
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(time.Minute):
		return nil, nil, fmt.Errorf("hitl serve did not listen in a minute")
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	pid := cmd.Process.Pid
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM) }()

	sock := fmt.Sprintf("hitl-bench-hub-%d", rand.Int())
	tenv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TERM=xterm-256color", "COLORTERM=truecolor"}
	tmux := func(args ...string) (string, error) {
		c := exec.CommandContext(ctx, "tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...)
		c.Env = tenv
		out, err := c.Output()
		return string(out), err
	}
	defer func() { _, _ = tmux("kill-server") }()
	open := func(i int) error {
		ssh := fmt.Sprintf("exec ssh -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -o BatchMode=yes -o LogLevel=ERROR -i %s -p %d 127.0.0.1",
			filepath.Join(dir, fmt.Sprintf("r%d", i)), port)
		if _, err := tmux("new-session", "-d", "-s", fmt.Sprintf("r%d", i), "-x", "80", "-y", "24", ssh); err != nil {
			return fmt.Errorf("tmux: %v", err)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			screen, _ := tmux("capture-pane", "-p", "-t", fmt.Sprintf("r%d", i))
			if strings.Contains(screen, " pending") && strings.Contains(screen, "live (the hub's watcher)") {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("session %d showed no inbox in a minute:\n%s", i, screen)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	window := func() (cost, int64, error) {
		time.Sleep(5 * time.Second) // the sessions' first screens' after-effects
		u0, at := procUsage(pid), time.Now()
		select {
		case <-time.After(b.tuiIdle):
		case <-ctx.Done():
			return cost{}, 0, ctx.Err()
		}
		c, ok := spent(u0, procUsage(pid), time.Since(at))
		if !ok {
			return cost{}, 0, fmt.Errorf("hitl serve exited")
		}
		return c, procRSS(pid), nil
	}
	logf("hub (%s): alone", bin)
	v, m, err := window()
	if err != nil {
		return nil, nil, err
	}
	cpu, rss = append(cpu, v), append(rss, m)
	for n, i := 1, 0; n <= hubSessions; n *= hubSessions {
		for ; i < n; i++ {
			if err := open(i); err != nil {
				return nil, nil, err
			}
		}
		logf("hub (%s): %d idle session(s)", bin, n)
		if v, m, err = window(); err != nil {
			return nil, nil, err
		}
		cpu, rss = append(cpu, v), append(rss, m)
	}
	return cpu, rss, nil
}

// procRSS is a process's resident set in bytes (VmRSS; 0: unknown).
func procRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
