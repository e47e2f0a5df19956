package main

// The idle cost of a reviewer left open: the CPU of the TUI's process with
// nothing arriving, in a terminal (tmux, 80x24, colours on), read from
// /proc over a window after its first screen.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Targets (issue 23), in seconds of CPU an hour.
const (
	targetTUI   = 10.0
	targetWatch = 5.0
	targetCold  = 40 * time.Millisecond // more than curl of the same search
	// targetArrival bounds the p95 of an arrival at default settings.
	targetArrival = 300 * time.Millisecond
)

// perHour turns CPU over a window into seconds an hour.
func perHour(cpu time.Duration, window time.Duration) float64 {
	return cpu.Seconds() / window.Seconds() * 3600
}

// idleTUIs runs each of bins' TUI against u in a private tmux, side by
// side, and returns their costs over the same window of b.tuiIdle.
func (b *bench) idleTUIs(ctx context.Context, u string, bins []string) ([]cost, error) {
	env := []string{}
	for _, kv := range b.env() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	env = append(env, "TERM=xterm-256color", "COLORTERM=truecolor")
	var pids []int
	for _, bin := range bins {
		sock := fmt.Sprintf("hitl-bench-%d", rand.Int())
		tmux := func(args ...string) (string, error) {
			cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...)
			cmd.Env = env
			out, err := cmd.Output()
			return string(out), err
		}
		out, err := tmux("new-session", "-d", "-P", "-F", "#{pane_pid}", "-x", "80", "-y", "24", "exec "+bin+" --url "+u)
		if err != nil {
			return nil, fmt.Errorf("tmux: %v (is tmux installed?)", err)
		}
		defer func() { _, _ = tmux("kill-server") }()
		pid, err := strconv.Atoi(strings.TrimSpace(out))
		if err != nil {
			return nil, fmt.Errorf("tmux pane pid %q", out)
		}
		pids = append(pids, pid)
		// The first screen: the inbox has listed what waits.
		deadline := time.Now().Add(2 * time.Minute)
		for {
			screen, _ := tmux("capture-pane", "-p")
			if strings.Contains(screen, " pending") && !strings.Contains(screen, "loading") && !strings.Contains(screen, "not known yet") {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("the TUI showed no listing in 2 minutes:\n%s", screen)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	time.Sleep(3 * time.Second) // the first screen's after-effects (details rendered)
	u0 := make([]usage, len(pids))
	for i, pid := range pids {
		u0[i] = procUsage(pid)
	}
	at := time.Now()
	select {
	case <-time.After(b.tuiIdle):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	out := make([]cost, len(pids))
	for i, pid := range pids {
		c, ok := spent(u0[i], procUsage(pid), time.Since(at))
		if !ok {
			return nil, fmt.Errorf("the TUI of %s exited", bins[i])
		}
		out[i] = c
	}
	return out, nil
}

// usage is what the scheduler counted for one process's threads so far:
// their run time and how many times one of them was put on a processor
// (/proc/PID/task/*/schedstat, fields 1 and 3). An idle process is put on a
// processor only when something wakes it, so over a window the second is its
// wake-ups (with the rare preemption). A thread that exits in the window
// takes its counts with it.
type usage struct {
	cpu    time.Duration // -1: the process is gone
	slices int64         // -1: unknown (no schedstat)
}

// procUsage reads one process's usage, or where schedstat is missing its
// user and system time (/proc/PID/stat, in ticks of 10 ms: too coarse for a
// few seconds of an idle process) with no count of wake-ups.
func procUsage(pid int) usage {
	if tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid)); err == nil && len(tasks) > 0 {
		var u usage
		for _, t := range tasks {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
			f := strings.Fields(string(data))
			if err != nil || len(f) < 3 {
				return usage{statCPU(pid), -1}
			}
			ns, err1 := strconv.ParseInt(f[0], 10, 64)
			n, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 != nil || err2 != nil {
				return usage{statCPU(pid), -1}
			}
			u.cpu += time.Duration(ns)
			u.slices += n
		}
		return u
	}
	return usage{statCPU(pid), -1}
}

// cost is what an idle process spent over a window: CPU in seconds an hour
// and wake-ups a second (negative: unknown).
type cost struct{ perHour, wakes float64 }

// spent is the cost of the window from u0 to u1, which lasted d; ok is
// false if the process was gone at either end.
func spent(u0, u1 usage, d time.Duration) (c cost, ok bool) {
	if u0.cpu < 0 || u1.cpu < 0 {
		return cost{}, false
	}
	c = cost{perHour(u1.cpu-u0.cpu, d), -1}
	if u0.slices >= 0 && u1.slices >= 0 {
		c.wakes = float64(u1.slices-u0.slices) / d.Seconds()
	}
	return c, true
}

// String is the cost as the tables show it: "8.5 (15/s)", seconds of CPU
// an hour and wake-ups a second.
func (c cost) String() string {
	if c.wakes < 0 {
		return fmt.Sprintf("%.1f", c.perHour)
	}
	return fmt.Sprintf("%.1f (%.0f/s)", c.perHour, c.wakes)
}

// statCPU is the user and system time of one process (-1: gone).
func statCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc's times (100 on Linux).
const clockTicks = 100

// lastRaised is when the bench last made an interrupt (UnixNano).
var lastRaised atomic.Int64

func raised() { lastRaised.Store(time.Now().UnixNano()) }

// settle waits until every interrupt is over a minute old: an age under a
// minute is redrawn each second, which is not what a reviewer left open
// sees for long, and would favour whichever binary is measured later.
func settle(ctx context.Context) {
	until := time.Unix(0, lastRaised.Load()).Add(65 * time.Second)
	if d := time.Until(until); d > 0 {
		logf("waiting %s for the newest interrupt to be a minute old", d.Round(time.Second))
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
}

// idleRows measures the TUI of each binary against s, as it is and with a
// 1 MB payload pending (raised on it: a fan-out branch whose item is 512 KB,
// which its question repeats).
func (b *bench) idleRows(ctx context.Context, s *server, what string) ([]row, error) {
	var rows []row
	measure := func(label string) error {
		settle(ctx)
		logf("%s: idle TUI (%s), side by side", label, strings.Join(b.binaries(), ", "))
		costs, err := b.idleTUIs(ctx, s.url, b.binaries())
		if err != nil {
			return err
		}
		var cells []string
		for _, c := range costs {
			cells = append(cells, c.String())
		}
		rows = append(rows, row{label + fmt.Sprintf(" (target ≤ %.0f)", targetTUI), b.pad(cells)})
		return nil
	}
	if err := measure("idle TUI, " + what + ": CPU, s an hour (wake-ups a second)"); err != nil {
		return rows, err
	}
	if err := raiseBig(ctx, s.url); err != nil {
		return rows, err
	}
	if err := measure("idle TUI, " + what + " and a 1 MB payload: CPU, s an hour (wake-ups a second)"); err != nil {
		return rows, err
	}
	return rows, nil
}

// pad fills a row of per-binary cells to the table's columns.
func (b *bench) pad(cells []string) []string {
	for len(cells) < len(b.columns()) {
		cells = append(cells, "")
	}
	return cells
}

// raiseBig raises a fan-out thread with one branch whose item is 512 KB
// (the interrupt's question repeats it: about 1 MB), and waits for it.
func raiseBig(ctx context.Context, u string) error {
	before, err := count(ctx, u, "interrupted")
	if err != nil {
		return err
	}
	var th struct {
		ThreadID string `json:"thread_id"`
	}
	if _, err := post(ctx, u+"/threads", map[string]any{"metadata": map[string]string{"bench": "big"}}, &th); err != nil {
		return err
	}
	item := strings.Repeat("x", 512<<10)
	if _, err := post(ctx, u+"/threads/"+th.ThreadID+"/runs", map[string]any{"assistant_id": "fanout", "input": map[string]any{"topic": item}}, nil); err != nil {
		return err
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if n, err := count(ctx, u, "interrupted"); err == nil && n > before {
			raised()
			return nil
		}
	}
	return fmt.Errorf("the 1 MB interrupt did not show in a minute")
}

// idleSmall measures the idle TUI against a demo of 11 extra interrupts
// (30 pending): the everyday inbox.
func (b *bench) idleSmall(ctx context.Context) (table, error) {
	t := table{title: "hitl demo, a small inbox (--burst 11)", columns: b.columns()}
	s, err := b.startDemo(11)(ctx)
	if err != nil {
		return t, err
	}
	defer b.stopAll()
	n, _ := count(ctx, s.url, "interrupted")
	rows, err := b.idleRows(ctx, s, fmt.Sprintf("%d threads waiting", n))
	t.rows = rows
	return t, err
}
