package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/realserver"
)

// A run the server loses, for real: a dev server of the test's own takes
// a decision (a run that works for 3 s) and is killed 150–300 ms after the
// resume POST, then restarted on the same port from what it had written to
// disk: the interrupt still waits and no run carries the decision. The
// reviewer who sent it learns it from `hitl check`, another from the next
// start (`hitl list`): the interrupt is pending again on their machine,
// history says the server lost the run, and answering again works.
func TestRealRunTheServerLost(t *testing.T) {
	t.Parallel()
	for _, k := range []realserver.Kind{realserver.JS, realserver.Python} {
		t.Run(string(k), func(t *testing.T) {
			in := realserver.Start(t, k)
			bin := builtBinary(t)
			c := &http.Client{Timeout: 30 * time.Second, Transport: realserver.Client.Transport}
			call := func(method, path string, body any) []byte {
				t.Helper()
				var rd io.Reader
				if body != nil {
					b, _ := json.Marshal(body)
					rd = bytes.NewReader(b)
				}
				req, _ := http.NewRequest(method, in.URL+path, rd)
				req.Header.Set("Content-Type", "application/json")
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode >= 300 {
					t.Fatalf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, b)
				}
				return b
			}
			interruptOf := func(thread string) string {
				var th struct {
					Interrupts map[string][]struct {
						ID string `json:"id"`
					} `json:"interrupts"`
				}
				json.Unmarshal(call("GET", "/threads/"+thread, nil), &th)
				for _, list := range th.Interrupts {
					for _, it := range list {
						return it.ID
					}
				}
				return ""
			}
			decisionRuns := func(thread string) int {
				var runs []struct {
					Metadata map[string]any `json:"metadata"`
				}
				json.Unmarshal(call("GET", "/threads/"+thread+"/runs?limit=100", nil), &runs)
				n := 0
				for _, r := range runs {
					if _, ok := r.Metadata["hitl_decision_id"]; ok {
						n++
					}
				}
				return n
			}
			// Two threads of the node that works 3 s after its first answer.
			var threads, ids [2]string
			for i := range threads {
				var th struct {
					ThreadID string `json:"thread_id"`
				}
				json.Unmarshal(call("POST", "/threads", map[string]any{}), &th)
				call("POST", "/threads/"+th.ThreadID+"/runs/wait", map[string]any{"assistant_id": "twice", "input": map[string]any{"topic": "slow"}})
				threads[i], ids[i] = th.ThreadID, interruptOf(th.ThreadID)
				if ids[i] == "" {
					t.Fatalf("thread %s did not pause", th.ThreadID)
				}
			}
			// The paused threads are on disk; what follows is not, for a
			// few seconds.
			in.WaitWritten(time.Now())

			alice, bob := newReviewer(t, "alice"), newReviewer(t, "bob")
			pa := alice.start(t, bin, in.URL, "respond", ids[0], "-m", "yes")
			pb := bob.start(t, bin, in.URL, "respond", ids[1], "-m", "yes")
			deadline := time.Now().Add(30 * time.Second)
			for decisionRuns(threads[0]) == 0 || decisionRuns(threads[1]) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("no run carries the decisions:\n%s\n%s", pa.stderr.String(), pb.stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(time.Duration(150+rand.IntN(150)) * time.Millisecond)
			in.Restart()
			ca, cb := pa.wait(), pb.wait()
			for _, p := range []struct {
				code int
				out  string
			}{{ca, pa.stdout.String() + pa.stderr.String()}, {cb, pb.stdout.String() + pb.stderr.String()}} {
				// While the server was down: sent and still going, or unknown.
				// Never finished, paused again, nor someone else's.
				if strings.Contains(p.out, "finished") || strings.Contains(p.out, "paused again") || strings.Contains(p.out, "handled elsewhere") {
					t.Fatalf("exit %d, said: %s", p.code, p.out)
				}
				t.Logf("while the server restarted: exit %d: %s", p.code, strings.TrimSpace(p.out))
			}

			// The scenario holds: the interrupts wait, no run carries a decision.
			for i := range threads {
				if got := interruptOf(threads[i]); got != ids[i] || decisionRuns(threads[i]) != 0 {
					t.Fatalf("after the restart thread %s holds interrupt %q (want %s) and %d decision runs: the server kept the run", threads[i], got, ids[i], decisionRuns(threads[i]))
				}
			}

			// Alice: hitl check finds it out.
			out, err := alice.cmd(bin, in.URL, "check").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "the server lost the run that carried this decision") || !strings.Contains(string(out), "decide it again") {
				t.Fatalf("check: %v\n%s", err, out)
			}
			// Bob: the next start finds it out, and lists it.
			out, err = bob.cmd(bin, in.URL, "list").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "the server lost the run") || !strings.Contains(string(out), ids[1][:8]) {
				t.Fatalf("list: %v\n%s", err, out)
			}
			for i, r := range []reviewer{alice, bob} {
				out, err := r.cmd(bin, in.URL, "list", "--json").Output()
				if err != nil || !strings.Contains(string(out), ids[i]) {
					t.Fatalf("%s's list does not show %s again: %v\n%s", r.name, ids[i], err, out)
				}
				out, err = r.cmd(bin, in.URL, "history").CombinedOutput()
				if err != nil || !strings.Contains(string(out), "lost") {
					t.Fatalf("%s's history: %v\n%s", r.name, err, out)
				}
				if out, _ := r.cmd(bin, in.URL, "check").CombinedOutput(); !strings.Contains(string(out), "No decision of unknown outcome") {
					t.Fatalf("%s's check again: %s", r.name, out)
				}
			}
			// Answered again, it takes effect: the node asks the details.
			out, err = alice.cmd(bin, in.URL, "respond", ids[0], "-m", "yes").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Sent respond") || !strings.Contains(string(out), "paused again at") {
				t.Fatalf("again: %v\n%s", err, out)
			}
			if got := interruptOf(threads[0]); got == "" || got == ids[0] {
				t.Fatalf("after the second answer the thread holds %q", got)
			}
		})
	}
}
