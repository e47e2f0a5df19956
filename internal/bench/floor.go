package main

// What a look costs at the least. Two bare Go programs, run side by side
// in one window (the same load on the machine for each), wake five times a
// second, hitl's default look rate while a reviewer is there:
//
//   - wake: sleeps on a Go timer and does nothing else (what waking costs
//     any Go program here: the timer, the runtime's monitor thread);
//   - nethttp: asks the watcher's look, the first page of a watermark poll,
//     through net/http on a kept-alive connection, waiting on a Go timer
//     (as hitl's look does), and decodes nothing.
//
// Their CPU is the floor under `hitl watch`'s at five looks a second (or at
// the bench's -look-every). The bench runs each build's `hitl watch` in the
// same window (idleWindow), so that the machine's load is the same for all.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"
)

// floorEvery is the look interval of the bare pollers: hitl's default.
const floorEvery = 200 * time.Millisecond

// looks says how often the bare programs wake.
func (b *bench) looks() string {
	if b.lookEvery > 0 && b.lookEvery != floorEvery {
		return "every " + b.lookEvery.String()
	}
	return "five times a second"
}

// floorModes are the bare programs' modes.
var floorModes = []string{"wake", "nethttp"}

// floorProgram is one bare program the bench runs: a mode and its row's
// words.
type floorProgram struct {
	mode string
	what string
}

// floorPrograms are the bare programs, in the order the bench shows them.
var floorPrograms = []floorProgram{
	{"wake", "a Go program that only wakes, on a Go timer"},
	{"nethttp", "a bare Go poller, the same look through net/http on a Go timer (as hitl), no decoding"},
}

// runFloor is a bare program (bench -floor URL -floor-mode MODE): it wakes
// every every until killed.
func runFloor(mode, u string, every time.Duration) {
	body, _ := json.Marshal(map[string]any{"limit": 4, "offset": 0, "sort_by": "updated_at", "sort_order": "desc",
		"select": []string{"thread_id", "status", "created_at", "updated_at"}})
	var buf bytes.Buffer
	switch mode {
	case "wake":
		for {
			time.Sleep(every)
		}
	case "nethttp":
		for {
			time.Sleep(every)
			resp, err := http.Post(u+"/threads/search", "application/json", bytes.NewReader(body))
			if err != nil {
				continue
			}
			buf.Reset()
			_, _ = io.Copy(&buf, resp.Body)
			resp.Body.Close()
		}
	default:
		fmt.Fprintf(os.Stderr, "-floor-mode: %q is not one of %v\n", mode, floorModes)
		os.Exit(2)
	}
}

// idleWindow runs, side by side for b.idle, the bare programs and each
// build's `hitl watch --json` (directly on u, once its first listing is
// printed), and returns their costs: the bare programs' in floorPrograms'
// order, then the watches' in b.binaries' order.
func (b *bench) idleWindow(ctx context.Context, u string) ([]cost, []cost, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	var cmds []*exec.Cmd
	defer func() {
		for _, cmd := range cmds {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	for _, fp := range floorPrograms {
		cmd := exec.CommandContext(ctx, self, "-floor", u, "-floor-mode", fp.mode, "-look-every", cmp.Or(b.lookEvery, floorEvery).String())
		if err := b.spawn(cmd); err != nil {
			return nil, nil, err
		}
		cmds = append(cmds, cmd)
	}
	for _, bin := range b.binaries() {
		lines := make(chan printed, 1<<16)
		cmd, err := b.startWatch(ctx, bin, u, lines)
		if err != nil {
			return nil, nil, err
		}
		cmds = append(cmds, cmd)
		if err := firstListing(ctx, lines); err != nil {
			return nil, nil, err
		}
		go func() { // what it prints later is not read
			for range lines {
			}
		}()
	}
	time.Sleep(3 * time.Second) // started, connected, listed
	at := time.Now()
	u0 := make([]usage, len(cmds))
	for i, cmd := range cmds {
		u0[i] = procUsage(cmd.Process.Pid)
	}
	select {
	case <-time.After(b.idle):
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	out := make([]cost, len(cmds))
	for i, cmd := range cmds {
		c, ok := spent(u0[i], procUsage(cmd.Process.Pid), time.Since(at))
		if !ok {
			return nil, nil, fmt.Errorf("%s exited", cmd.Args)
		}
		out[i] = c
	}
	return out[:len(floorPrograms)], out[len(floorPrograms):], nil
}
