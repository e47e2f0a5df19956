package realserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Settle waits until the thread is no longer busy and none of its runs is
// pending or running: on langhost, runs/wait answers before the thread's
// status is written (measured: up to 0.35 s later). It reports whether
// the thread settled idle with an interrupt waiting: langhost's sweeper
// (langgraph-runtime-pg 0.11.1.post1, _idle_orphaned_busy_threads) reads
// the busy threads and writes "idle" over the status a run's end wrote
// meanwhile (a lost update), so the thread is no longer listed as
// interrupted (seen once in 390 threads started 20 at a time;
// docs/servers.md; once more after the status had read "interrupted":
// the stale write lands a moment after the run's end). A test then starts
// its graph again on a new thread.
func Settle(t testing.TB, url, thread string) (lost bool) {
	return settle(t, url, thread, 2*time.Second)
}

// settle is Settle with the time a status must hold before it is taken.
func settle(t testing.TB, url, thread string, stable time.Duration) (lost bool) {
	t.Helper()
	get := func(path string, v any) {
		resp, err := Client.Get(url + path)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK {
			json.Unmarshal(b, v)
		}
	}
	var last string
	var since time.Time
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var th struct {
			Status     string                       `json:"status"`
			Interrupts map[string][]json.RawMessage `json:"interrupts"`
		}
		var runs []struct {
			Status string `json:"status"`
		}
		get("/threads/"+thread, &th)
		get("/threads/"+thread+"/runs?limit=1000", &runs)
		busy := th.Status == "busy" || th.Status == ""
		var statuses []string
		for _, r := range runs {
			busy = busy || r.Status == "pending" || r.Status == "running"
			statuses = append(statuses, r.Status)
		}
		now := "thread " + th.Status + ", runs: " + strings.Join(statuses, " ")
		if busy || now != last {
			last, since = now, time.Now()
			continue
		}
		// The sweeper writes its stale "idle" a moment after the run's
		// end (it read the thread busy, then looked at every busy
		// thread's runs): the status is taken once it held for a while.
		if time.Since(since) >= stable {
			waiting := 0
			for _, its := range th.Interrupts {
				waiting += len(its)
			}
			return th.Status == "idle" && waiting > 0
		}
	}
	t.Fatalf("thread %s never settled in 60 s (%s)", thread, last)
	return false
}
