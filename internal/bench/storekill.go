package main

// One of two hubs killed under load (issue 32): two `hitl serve --http` on
// one PostgreSQL, 200 real hooks spread over both (each given both hubs'
// URLs, its own hub first), three approvers racing on each request over
// both hubs; when half the requests are decided, hub A is killed with
// SIGKILL. An approver whose hub is gone decides on the other (a reviewer
// who lost one hub's address uses the team's other). The truth is the
// store's: the decision hub B says was taken (responded_by) and the team's
// audit log. Counted: hooks with no answer (lost), requests with more than
// one decision sent (doubled), hooks whose answer is not the decision
// taken (wrong), hooks that were waiting on A and answered from B, and the
// time from the kill to the last hook's answer.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hitl-sh/hitl/coord/wire"
)

type killFigures struct {
	lost, doubled, wrong int
	moved                int           // hooks waiting on the killed hub, answered through the other
	drain                time.Duration // the kill to the last hook's answer
	failed               int           // approvers' calls cut by the kill (then sent to the other hub)
}

func (b *bench) storeKill(ctx context.Context) (table, error) {
	t := table{title: fmt.Sprintf("two hubs on one PostgreSQL, %d hooks (each given both URLs), three approvers racing on each; hub A killed (SIGKILL) with half decided", storeHooks),
		columns: []string{"PostgreSQL, two hubs"}}
	f, err := b.storeKillRun(ctx)
	if err != nil {
		return t, err
	}
	t.rows = append(t.rows,
		row{"lost / doubled / wrong (all must be 0)", []string{fmt.Sprintf("%d / %d / %d", f.lost, f.doubled, f.wrong)}},
		row{"hooks waiting on A, answered through B", []string{fmt.Sprint(f.moved)}},
		row{"approvers' calls cut by the kill (sent again to B)", []string{fmt.Sprint(f.failed)}},
		row{"kill to the last hook's answer", []string{ms(f.drain) + " ms"}},
	)
	return t, nil
}

func (b *bench) storeKillRun(ctx context.Context) (killFigures, error) {
	var f killFigures
	db, err := freshDatabase(ctx, b.postgres)
	if err != nil {
		return f, err
	}
	var hubs [2]*storeHub
	for i := range hubs {
		dir, err := os.MkdirTemp(b.tmp, "killhub-")
		if err != nil {
			return f, err
		}
		if hubs[i], err = b.startStoreHub(ctx, dir, "127.0.0.1:0", db); err != nil {
			return f, err
		}
	}
	defer b.stopAll()
	logf("store: %d hooks on two hubs, one killed mid-way", storeHooks)

	type hook struct {
		out, errs bytes.Buffer
		done      chan time.Time
		cmd       *exec.Cmd
	}
	hooks := make([]*hook, storeHooks)
	defer func() {
		// A run that failed half-way leaves no hook behind.
		for _, h := range hooks {
			if h != nil {
				_ = h.cmd.Process.Kill()
			}
		}
	}()
	for i := range storeHooks {
		h := &hook{done: make(chan time.Time, 1)}
		input := fmt.Sprintf(`{"session_id":"kill-%d","cwd":"/src","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"make test %d"}}`, i, i)
		urls := hubs[i%2].url + "," + hubs[(i+1)%2].url
		h.cmd = exec.CommandContext(ctx, b.hitl, "hook", "claude", "--url", urls, "--timeout", "10m")
		h.cmd.Env = append(b.env(), "HITL_BEARER_TOKEN="+benchPublisher)
		h.cmd.Stdin, h.cmd.Stdout, h.cmd.Stderr = strings.NewReader(input), &h.out, &h.errs
		if err := h.cmd.Start(); err != nil {
			return f, err
		}
		go func() { _ = h.cmd.Wait(); h.done <- time.Now() }()
		hooks[i] = h
	}
	var ids map[string]string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if ids, err = pendingIDs(hubs[1].url); err == nil && len(ids) == storeHooks {
			break
		}
		if time.Now().After(deadline) {
			for i, h := range hooks {
				if _, ok := ids[fmt.Sprintf("kill-%d", i)]; !ok {
					logf("store: hook %d's request is not listed; the hook said: %q %q", i, h.out.String(), h.errs.String())
				}
			}
			return f, fmt.Errorf("%d of %d hooks' requests listed after 2 minutes", len(ids), storeHooks)
		}
	}

	// The approvers race; hub A goes when half the requests are decided.
	var decided atomic.Int32
	var killOnce sync.Once
	var killed time.Time
	var dead atomic.Bool
	kill := func() {
		killOnce.Do(func() {
			_ = syscall.Kill(hubs[0].cmd.Process.Pid, syscall.SIGKILL)
			killed = time.Now()
			dead.Store(true)
		})
	}
	var cut atomic.Int32
	sem := make(chan struct{}, 48)
	var wg sync.WaitGroup
	for i := range storeHooks {
		id := ids[fmt.Sprintf("kill-%d", i)]
		for a := range benchApprovers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				body, _ := json.Marshal(wire.Response{RequestID: id, Response: json.RawMessage(benchApprovers[a].resp)})
				h := (i + a) % 2
				if h == 0 && dead.Load() {
					h = 1
				}
				code, _, err := benchCall(hubs[h].url, benchApprovers[a].token, "POST", "/hitl/respond", body)
				if err != nil && h == 0 {
					// Cut by the kill (the hub may have taken it or
					// not): the approver sends it again to the other.
					cut.Add(1)
					code, _, err = benchCall(hubs[1].url, benchApprovers[a].token, "POST", "/hitl/respond", body)
				}
				if err == nil && code == 200 && int(decided.Add(1)) >= storeHooks/2 {
					kill()
				}
			}()
		}
	}
	wg.Wait()
	kill()
	_ = hubs[0].cmd.Wait()
	f.failed = int(cut.Load())

	// The truth, from the surviving hub: the decision taken on each
	// request, and the audit log's sent decisions.
	code, body, err := benchCall(hubs[1].url, benchApprovers[0].token, "GET", "/hitl/history?outcome=sent&limit=10000", nil)
	if err != nil || code != 200 {
		return f, fmt.Errorf("history: %d %v", code, err)
	}
	sent := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		var e struct {
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.RequestID != "" {
			sent[e.RequestID]++
		}
	}
	want := map[string]string{}
	for _, a := range benchApprovers {
		want[a.name] = a.want
	}
	var lastAnswer time.Time
	for i, h := range hooks {
		id := ids[fmt.Sprintf("kill-%d", i)]
		var exit time.Time
		select {
		case exit = <-h.done:
		case <-time.After(time.Minute):
			f.lost++
			continue
		}
		got := strings.TrimSpace(h.out.String())
		var st struct {
			Status      string `json:"status"`
			RespondedBy string `json:"responded_by"`
		}
		code, body, err := benchCall(hubs[1].url, benchApprovers[0].token, "GET", "/hitl/requests/"+id, nil)
		if err != nil || code != 200 || json.Unmarshal(body, &st) != nil {
			return f, fmt.Errorf("standing of %s: %d %v", id, code, err)
		}
		switch {
		case got == "":
			f.lost++
			logf("store: lost: hook %d (request %s) printed nothing", i, id)
		case sent[id] > 1:
			f.doubled++
			logf("store: doubled: request %s: %d sent in the audit log", id, sent[id])
		case st.Status != "answered" || sent[id] != 1 || got != want[st.RespondedBy]:
			f.wrong++
			logf("store: wrong: hook %d (request %s) printed %q; hub B says %s by %q, %d sent in the audit log", i, id, got, st.Status, st.RespondedBy, sent[id])
		}
		if exit.After(killed) {
			if i%2 == 0 {
				f.moved++
			}
			if exit.After(lastAnswer) {
				lastAnswer = exit
			}
		}
	}
	if !lastAnswer.IsZero() {
		f.drain = lastAnswer.Sub(killed)
	}
	return f, nil
}
