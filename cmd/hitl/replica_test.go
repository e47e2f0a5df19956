package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/faultproxy"
	"github.com/hitl-sh/hitl/internal/realserver"
)

// kill -9 of a langhost replica, in the middle of a decision: the
// decision reached the shared database, another replica takes its run up
// (after LG_BG_JOB_HEARTBEAT, 5 s in scripts/test), the graph gets exactly
// one resume, and `hitl check` settles the decision through another
// replica: it finds it by the profile (the deployment), though the
// profile's address moved from the dead replica to a live one.
func TestRealKillNineReplica(t *testing.T) {
	var tg *target
	for _, x := range targetsOf(t, true) {
		if x.kind == realserver.Langhost {
			tg = &x
		}
	}
	if tg == nil {
		t.Skip("no langhost replicas: run the tests with scripts/test")
	}
	t.Parallel()
	bin := builtBinary(t)
	// hitl with a config file of one profile, "prod", at url.
	hitlAt := func(t *testing.T, r reviewer, url string, args ...string) *exec.Cmd {
		cfg := filepath.Join(r.state, "config.yaml")
		if err := os.WriteFile(cfg, []byte("profiles:\n  prod:\n    url: "+url+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(bin, append([]string{"--reviewer", r.name}, args...)...)
		c.Env = (&testEnv{vars: map[string]string{"HOME": r.state}}).environ("XDG_STATE_HOME="+r.state, "HITL_CONFIG="+cfg)
		return c
	}
	// settle runs hitl check through replica B until nothing is left
	// unknown or running.
	settle := func(t *testing.T, s *server, r reviewer) string {
		var out []byte
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
			var err error
			out, err = hitlAt(t, r, s.peer, "check").CombinedOutput()
			if err == nil && !strings.Contains(string(out), "Still running on the server") {
				return string(out)
			}
		}
		t.Fatalf("hitl check did not settle the decision in 90 s:\n%s", out)
		return ""
	}
	each := func(name string, f func(t *testing.T, s *server)) {
		t.Run(name, func(t *testing.T) {
			// langhost to itself (the other servers' tests go on: holding
			// them all for this test's minute or more was the longest
			// wait of the suite). A replica started beside them can be
			// slow to list what replica A raised: the test waits for
			// the listing before it kills anything.
			realserver.Hold(t, tg.url)
			isolate(t)
			f(t, &server{t: t, target: *tg})
		})
	}

	each("during the resume POST", func(t *testing.T, s *server) {
		replica := realserver.Start(t, realserver.Langhost)
		p, err := faultproxy.New(replica.URL)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		// The replica gets the resume and never answers it: it dies.
		p.Inject(faultproxy.Rule{Method: "POST", Path: "/threads/*/runs", Fault: faultproxy.StallForwarded(0)})
		th := s.agent("email") // raised through replica A
		id := s.interruptOf(th)
		r := newReviewer(t, "alice")
		// The reviewer looks at the inbox first, as reviewers do: a
		// replica started a moment ago lists an interrupt raised through
		// another one a little later (seen under load in CI: "no waiting
		// interrupt"); the kill is what this test is about.
		for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			out, _ := hitlAt(t, r, replica.URL, "list").CombinedOutput()
			if strings.Contains(string(out), id[:8]) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the new replica never listed the interrupt raised through replica A:\n%s", out)
			}
		}
		pr := &proc{cmd: hitlAt(t, r, p.URL(), "approve", id)}
		pr.cmd.Stdout, pr.cmd.Stderr = &pr.stdout, &pr.stderr
		if err := pr.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); len(s.decisionRuns(th)) == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the resume never reached the replica:\n%s", pr.stderr.String())
			}
		}
		replica.Kill()
		p.Close() // the address answers no more
		if code := pr.wait(); code == 0 {
			t.Fatalf("told sent though the server died before answering:\n%s", pr.stdout.String())
		}
		out := settle(t, s, r)
		if !strings.Contains(out, "Sent approve") {
			t.Fatalf("hitl check after the kill:\n%s", out)
		}
		if runs := s.decisionRuns(th); len(runs) != 1 {
			t.Fatalf("decision runs: %v", runs)
		}
		if tool := s.toolMessages(th)["send_email"]; !strings.HasPrefix(tool, "ran send_email") {
			t.Fatalf("the tool got %q", tool)
		}
	})

	each("while following the run", func(t *testing.T, s *server) {
		replica := realserver.Start(t, realserver.Langhost)
		th := s.start("fanout", map[string]any{"topic": "a,b,c"})
		// runs/wait answered through replica A; the listing follows the
		// run's end (seen once in CI: nothing listed at the first look,
		// with a replica starting beside it).
		its := s.pending(th)
		for deadline := time.Now().Add(30 * time.Second); len(its) != 3; its = s.pending(th) {
			if time.Now().After(deadline) {
				t.Fatalf("%d branches listed in 30 s; the thread: %.400s; its runs: %.600s",
					len(its), s.do("GET", "/threads/"+th, nil), s.do("GET", "/threads/"+th+"/runs", nil))
			}
			time.Sleep(250 * time.Millisecond)
		}
		r := newReviewer(t, "alice")
		// The answer keeps its branch busy 8 s: hitl follows the run.
		pr := &proc{cmd: hitlAt(t, r, replica.URL, "resume", its[0].ID, "--value", `{"sleep":8000}`)}
		pr.cmd.Stdout, pr.cmd.Stderr = &pr.stdout, &pr.stderr
		if err := pr.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); len(s.decisionRuns(th)) == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the resume never reached the replica:\n%s", pr.stderr.String())
			}
		}
		time.Sleep(500 * time.Millisecond) // hitl is following by now
		replica.Kill()
		pr.wait()
		if msg := pr.stdout.String() + pr.stderr.String(); !strings.Contains(msg, "went away while hitl followed run") || strings.Contains(msg, "something else listening") {
			t.Fatalf("the replica's death, as told:\n%s", msg)
		}
		settle(t, s, r)
		var st struct {
			Values struct {
				Log []struct {
					Node  string          `json:"node"`
					Item  string          `json:"item"`
					Value json.RawMessage `json:"value"`
				} `json:"log"`
			} `json:"values"`
		}
		json.Unmarshal(s.do("GET", "/threads/"+th+"/state", nil), &st)
		got := 0
		for _, e := range st.Values.Log {
			if e.Node == "branch" && strings.Contains(string(e.Value), "8000") {
				got++
			}
		}
		if got != 1 {
			t.Fatalf("the branch got the answer %d times: %+v", got, st.Values.Log)
		}
		if runs := s.decisionRuns(th); len(runs) != 1 {
			t.Fatalf("decision runs: %v", runs)
		}
	})
}
