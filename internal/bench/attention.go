package main

// What an idle TUI costs its server: the requests it sends a minute while
// the reviewer is there (it just started) and once left alone (three
// minutes without a key), counted by a proxy in front of the demo, each
// build's TUI with a proxy of its own, side by side; and how soon a key
// brings a new interrupt on screen after the TUI was left alone.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Targets (issue 33).
const (
	targetAloneRate = 12.0            // requests a minute, left alone
	targetBack      = 2 * time.Second // a new interrupt on screen after a key
	// awayAfter is the TUI's: how long without a key it counts as left
	// alone (tui/attention.go).
	awayAfter = 3 * time.Minute
)

// tuiInTmux is one TUI running in a private tmux at 80x24.
type tuiInTmux struct {
	tmux    func(args ...string) (string, error)
	started time.Time
	pid     int
}

func (b *bench) startTUI(ctx context.Context, bin, u string) (*tuiInTmux, func(), error) {
	env := []string{}
	for _, kv := range b.env() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	env = append(env, "TERM=xterm-256color", "COLORTERM=truecolor")
	sock := fmt.Sprintf("hitl-bench-%d", rand.Int())
	t := &tuiInTmux{tmux: func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...)
		cmd.Env = env
		out, err := cmd.Output()
		return string(out), err
	}}
	out, err := t.tmux("new-session", "-d", "-P", "-F", "#{pane_pid}", "-x", "80", "-y", "24", "exec "+bin+" --url "+u)
	if err != nil {
		return nil, nil, fmt.Errorf("tmux: %v (is tmux installed?)", err)
	}
	if t.pid, err = strconv.Atoi(strings.TrimSpace(out)); err != nil {
		_, _ = t.tmux("kill-server")
		return nil, nil, fmt.Errorf("tmux pane pid %q", out)
	}
	t.started = time.Now()
	stop := func() { _, _ = t.tmux("kill-server") }
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if _, ok := t.pending(); ok {
			return t, stop, nil
		}
		if time.Now().After(deadline) {
			screen, _ := t.tmux("capture-pane", "-p")
			stop()
			return nil, nil, fmt.Errorf("the TUI showed no listing in 2 minutes:\n%s", screen)
		}
	}
}

var pendingHeader = regexp.MustCompile(`hitl · (\d+) pending`)

// pending is the count the TUI's header shows, once it has listed.
func (t *tuiInTmux) pending() (int, bool) {
	screen, _ := t.tmux("capture-pane", "-p")
	if strings.Contains(screen, "loading") || strings.Contains(screen, "not known yet") {
		return 0, false
	}
	m := pendingHeader.FindStringSubmatch(screen)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// attention measures each binary's TUI against a demo of b.pending: its
// request rate while there and left alone, and a key's arrival.
func (b *bench) attention(ctx context.Context) (table, error) {
	t := table{title: fmt.Sprintf("hitl demo, %d pending interrupts: what an idle TUI asks its server", b.pending), columns: b.columns()}
	s, err := b.startDemo(b.pending)(ctx)
	if err != nil {
		return t, err
	}
	defer b.stopAll()
	bins := b.binaries()
	proxies := make([]*proxy, len(bins))
	tuis := make([]*tuiInTmux, len(bins))
	for i, bin := range bins {
		if proxies[i], err = newProxy(s.url, 0); err != nil {
			return t, err
		}
		defer proxies[i].close()
		tui, stop, err := b.startTUI(ctx, bin, proxies[i].url)
		if err != nil {
			return t, err
		}
		defer stop()
		tuis[i] = tui
	}
	window := b.tuiIdle
	// rates counts each TUI's requests over the window, and reads its CPU.
	rates := func() ([]float64, []cost, error) {
		u0 := make([]usage, len(tuis))
		for i, p := range proxies {
			p.reset()
			u0[i] = procUsage(tuis[i].pid)
		}
		at := time.Now()
		time.Sleep(window)
		out := make([]float64, len(proxies))
		costs := make([]cost, len(proxies))
		for i, p := range proxies {
			out[i] = float64(p.requests.Load()) / time.Since(at).Minutes()
			c, ok := spent(u0[i], procUsage(tuis[i].pid), time.Since(at))
			if !ok {
				return nil, nil, fmt.Errorf("the TUI of %s exited", bins[i])
			}
			costs[i] = c
		}
		return out, costs, nil
	}
	cells := func(f func(i int) string) []string {
		var out []string
		for i := range bins {
			out = append(out, f(i))
		}
		return b.pad(out)
	}
	logf("attention: the TUIs just started (%s each)", window)
	time.Sleep(3 * time.Second) // the first screen's after-effects
	there, thereCPU, err := rates()
	if err != nil {
		return t, err
	}
	t.rows = append(t.rows, row{"idle TUI, the reviewer there (just started): requests a minute", cells(func(i int) string { return fmt.Sprintf("%.0f", there[i]) })})
	t.rows = append(t.rows, row{"the same: its CPU, s an hour (wake-ups a second)", cells(func(i int) string { return thereCPU[i].String() })})
	alone := tuis[len(tuis)-1].started.Add(awayAfter + 10*time.Second) // the last one started last
	logf("attention: waiting %s for three minutes without a key", time.Until(alone).Round(time.Second))
	time.Sleep(time.Until(alone))
	left, leftCPU, err := rates()
	if err != nil {
		return t, err
	}
	t.rows = append(t.rows, row{fmt.Sprintf("idle TUI, left alone (no key for 3 minutes): requests a minute (target ≤ %.0f)", targetAloneRate), cells(func(i int) string {
		mark := ""
		if i == 0 {
			mark = " ✓"
			if left[i] > targetAloneRate {
				mark = " ✗"
			}
		}
		return fmt.Sprintf("%.1f%s", left[i], mark)
	})})
	t.rows = append(t.rows, row{"the same: its CPU, s an hour (wake-ups a second)", cells(func(i int) string { return leftCPU[i].String() })})

	// An interrupt arrives while every TUI is left alone; a second later
	// a key is pressed in each (j: the cursor moves down), and the time
	// to the new count in its header is taken.
	logf("attention: a new interrupt, then a key a second later")
	before := make([]int, len(tuis))
	for i, tui := range tuis {
		before[i], _ = tui.pending()
	}
	if _, err := raise(ctx, s.url, s.arrivalGraph()); err != nil {
		return t, err
	}
	time.Sleep(time.Second)
	shownBefore := make([]bool, len(tuis))
	for i, tui := range tuis {
		n, _ := tui.pending()
		shownBefore[i] = n > before[i]
	}
	took := make([]time.Duration, len(tuis))
	for i, tui := range tuis {
		if shownBefore[i] {
			continue
		}
		if _, err := tui.tmux("send-keys", "j"); err != nil {
			return t, err
		}
		key := time.Now()
		took[i] = -1
		for time.Since(key) < 30*time.Second {
			if n, _ := tui.pending(); n > before[i] {
				took[i] = time.Since(key)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.rows = append(t.rows, row{fmt.Sprintf("left alone, a new interrupt, a key a second later: on screen after the key (ms; target ≤ %d)", targetBack.Milliseconds()), cells(func(i int) string {
		switch {
		case shownBefore[i]:
			return "on screen before the key"
		case took[i] < 0:
			return "not in 30 s"
		}
		return ms(took[i])
	})})
	return t, nil
}
