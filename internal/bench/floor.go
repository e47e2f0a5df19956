package main

// What a look costs at the least: a bare Go poller (net/http, one
// kept-alive connection, no decoding) asking the watcher's look, the first
// page of a watermark poll, five times a second. Its CPU is the floor
// under `hitl watch`'s: what five looks a second cost any Go program here,
// the runtime's wake-ups included.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"
)

// floorEvery is the look interval of the bare poller: hitl's default.
const floorEvery = 200 * time.Millisecond

// looks says how often the bare poller looks.
func (b *bench) looks() string {
	if b.lookEvery > 0 && b.lookEvery != floorEvery {
		return "every " + b.lookEvery.String()
	}
	return "five times a second"
}

// runFloor is the bare poller (bench -floor URL): it looks every every
// until killed.
func runFloor(u string, every time.Duration) {
	body, _ := json.Marshal(map[string]any{"limit": 4, "offset": 0, "sort_by": "updated_at", "sort_order": "desc",
		"select": []string{"thread_id", "status", "created_at", "updated_at"}})
	var buf bytes.Buffer
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
}

// floorCPU runs the bare poller against u for b.idle and returns its CPU,
// in seconds an hour.
func (b *bench) floorCPU(ctx context.Context, u string) (float64, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.CommandContext(ctx, self, "-floor", u, "-look-every", cmp.Or(b.lookEvery, floorEvery).String())
	if err := b.spawn(cmd); err != nil {
		return 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	time.Sleep(3 * time.Second) // started, connected
	cpu0, at := procCPU(cmd.Process.Pid), time.Now()
	select {
	case <-time.After(b.idle):
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return perHour(procCPU(cmd.Process.Pid)-cpu0, time.Since(at)), nil
}
