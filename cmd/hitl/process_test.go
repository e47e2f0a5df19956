package main

// Races and crashes, for real: the built binary runs as separate reviewer
// processes (each with its own state directory) against each LangGraph
// server under test (see targets), and is killed at random moments. What each process says is
// checked against what reached the graph and what the audit log holds.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/realserver"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// builtBinary builds hitl once per test run.
func builtBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hitl-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "hitl")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// reviewer is one hitl process's identity: a name and a state directory.
type reviewer struct {
	name, state string
}

func newReviewer(t *testing.T, name string) reviewer {
	return reviewer{name: name, state: t.TempDir()}
}

func (r reviewer) cmd(bin, url string, args ...string) *exec.Cmd {
	c := exec.Command(bin, append([]string{"--url", url, "--reviewer", r.name}, args...)...)
	c.Env = (&testEnv{vars: map[string]string{"HOME": r.state}}).environ("XDG_STATE_HOME="+r.state, "HITL_CONFIG="+filepath.Join(r.state, "none.yaml"))
	return c
}

type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func (r reviewer) start(t *testing.T, bin, url string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: r.cmd(bin, url, args...)}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *proc) wait() int {
	err := p.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// audit reads a reviewer's audit log: decision id -> kinds of lines seen.
func (r reviewer) audit(t *testing.T) map[string][]string {
	t.Helper()
	return auditFile(t, filepath.Join(r.state, "hitl", "audit.jsonl"))
}

// auditFile reads an audit log: decision id to its lines' kind:outcome.
func auditFile(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string][]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Kind       string `json:"kind"`
			DecisionID string `json:"decision_id"`
			Outcome    string `json:"outcome"`
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.DecisionID != "" {
			out[e.DecisionID] = append(out[e.DecisionID], e.Kind+":"+e.Outcome)
		}
	}
	return out
}

// decisionRuns are the decision ids stamped on the thread's runs: every
// decision that reached the server.
func (s *server) decisionRuns(thread string) []string {
	s.t.Helper()
	var runs []struct {
		Metadata map[string]any `json:"metadata"`
	}
	json.Unmarshal(s.do("GET", "/threads/"+thread+"/runs?limit=1000", nil), &runs)
	var ids []string
	for _, r := range runs {
		if id, ok := r.Metadata["hitl_decision_id"].(string); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// interruptOf is the id of the thread's one pending interrupt, read from the
// server directly.
func (s *server) interruptOf(thread string) string {
	s.t.Helper()
	var th struct {
		Interrupts map[string][]struct {
			ID string `json:"id"`
		} `json:"interrupts"`
	}
	json.Unmarshal(s.do("GET", "/threads/"+thread, nil), &th)
	for _, list := range th.Interrupts {
		for _, it := range list {
			return it.ID
		}
	}
	// aegra lists no thread.interrupts: the state's tasks carry them.
	var st struct {
		Tasks []struct {
			Interrupts []struct {
				ID string `json:"id"`
			} `json:"interrupts"`
		} `json:"tasks"`
	}
	json.Unmarshal(s.do("GET", "/threads/"+thread+"/state", nil), &st)
	for _, task := range st.Tasks {
		for _, it := range task.Interrupts {
			return it.ID
		}
	}
	s.t.Fatalf("thread %s has no interrupt", thread)
	return ""
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// startMany starts n email agents, a few at a time.
func (s *server) startMany(n int) []string {
	threads := make([]string, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			threads[i] = s.agent("email")
		}()
	}
	wg.Wait()
	return threads
}

// Two reviewers decide the same interrupt at the same moment, alice
// approving and bob rejecting (or both approving): exactly one is told
// "sent", and its decision is the one that reached the graph; the other is
// told "already handled elsewhere" (exit 3). On langhost alice decides
// through replica A and bob through replica B. On aegra, which cannot show
// whose decision a run carried, a reviewer is told "sent" only when no
// other run was started on the thread since the interrupt (the other was
// refused), and its decision reached the graph; otherwise "sent, but this
// server cannot confirm it was yours" (exit 5) or "already handled
// elsewhere" (3), never both "sent", never both 3.
func TestRealTwoReviewersRace(t *testing.T) {
	everyServer(t, func(t *testing.T, s *server) {
		bin := builtBinary(t)
		n := envInt("HITL_RACES", 50)
		if s.kind == realserver.Langhost || s.kind == realserver.Aegra {
			n = envInt("HITL_PROD_RACES", 20)
		}
		threads := s.startMany(n)
		alice, bob := newReviewer(t, "alice"), newReviewer(t, "bob")
		// Both look at the inbox first, as reviewers do, until they see
		// every one of the interrupts (a replica lists what another raised
		// a moment later).
		want := map[string]bool{}
		for _, th := range threads {
			want[s.interruptOf(th)] = true
		}
		for _, rv := range []struct {
			r   reviewer
			url string
		}{{alice, s.url}, {bob, s.peer}} {
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				out, err := rv.r.cmd(bin, rv.url, "list", "--json").Output()
				if err != nil {
					t.Fatalf("%s: list: %v\n%s", rv.r.name, err, out)
				}
				var listed []listed
				json.Unmarshal(out, &listed)
				missing := maps.Clone(want)
				for _, it := range listed {
					delete(missing, it.ID)
				}
				if len(missing) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s never listed %d of the %d interrupts in 30 s on %s: %v", rv.r.name, len(missing), n, rv.url, slices.Collect(maps.Keys(missing)))
				}
			}
		}
		type tally struct{ bothSent, noneSent, wrongGraph, badLoser int }
		var mu sync.Mutex
		var got tally
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i, th := range threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				id := s.interruptOf(th)
				bobArgs := []string{"reject", id, "-m", "race " + strconv.Itoa(i)}
				if i%4 == 3 {
					bobArgs = []string{"approve", id}
				}
				a := alice.start(t, bin, s.url, "approve", id)
				b := bob.start(t, bin, s.peer, bobArgs...)
				ca, cb := a.wait(), b.wait()
				tool := s.toolMessages(th)["send_email"]
				mu.Lock()
				defer mu.Unlock()
				if s.kind == realserver.Aegra {
					bobs := s.rejected("send_email", "race "+strconv.Itoa(i))
					if bobArgs[0] == "approve" {
						bobs = "ran send_email"
					}
					ok := func(c int) bool { return c == 0 || c == 3 || c == 5 }
					switch {
					case ca == 0 && cb == 0:
						got.bothSent++
						t.Errorf("race %d: both told sent:\n alice: %s\n bob: %s", i, a.stdout.String(), b.stdout.String())
					case !ok(ca) || !ok(cb) || (ca == 3 && cb == 3):
						got.badLoser++
						t.Errorf("race %d: exits %d, %d (want 0, 3 or 5, not both 3):\n alice: %s%s\n bob: %s%s", i, ca, cb, a.stdout.String(), a.stderr.String(), b.stdout.String(), b.stderr.String())
					case ca == 0 && !strings.HasPrefix(tool, "ran send_email"), cb == 0 && !strings.HasPrefix(tool, bobs):
						got.wrongGraph++
						t.Errorf("race %d: a reviewer was told sent (exits %d, %d), but the tool got %q", i, ca, cb, tool)
					case !strings.HasPrefix(tool, "ran send_email") && !strings.HasPrefix(tool, bobs):
						got.wrongGraph++
						t.Errorf("race %d: the tool got %q, neither reviewer's decision", i, tool)
					}
					return
				}
				switch {
				case ca == 0 && cb == 0:
					got.bothSent++
					t.Errorf("race %d: both told sent:\n alice: %s\n bob: %s", i, a.stdout.String(), b.stdout.String())
				case ca != 0 && cb != 0:
					got.noneSent++
					t.Errorf("race %d: neither sent (%d, %d):\n alice: %s\n bob: %s", i, ca, cb, a.stderr.String(), b.stderr.String())
				case ca == 0:
					if !strings.HasPrefix(tool, "ran send_email") {
						got.wrongGraph++
						t.Errorf("race %d: alice's approve won, but the tool got %q", i, tool)
					}
					if cb != 3 || !strings.Contains(b.stderr.String(), "already handled elsewhere") {
						got.badLoser++
						t.Errorf("race %d: bob lost with exit %d: %s", i, cb, b.stderr.String())
					}
				default:
					want := s.rejected("send_email", "race "+strconv.Itoa(i))
					if bobArgs[0] == "approve" {
						want = "ran send_email"
					}
					if !strings.HasPrefix(tool, want) {
						got.wrongGraph++
						t.Errorf("race %d: bob's %s won, but the tool got %q", i, bobArgs[0], tool)
					}
					if ca != 3 || !strings.Contains(a.stderr.String(), "already handled elsewhere") {
						got.badLoser++
						t.Errorf("race %d: alice lost with exit %d: %s", i, ca, a.stderr.String())
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("%d races: %d with two told sent, %d with none, %d where the graph got another decision than the winner's, %d losers not told 'already handled elsewhere'",
			n, got.bothSent, got.noneSent, got.wrongGraph, got.badLoser)
	})
}

// kill -9 at a random moment of a send: every decision that reached the
// server has an audit line, and the next start resolves its outcome.
func TestRealKillNineLosesNoRecord(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		bin := builtBinary(t)
		n := envInt("HITL_KILLS", 50)
		threads := s.startMany(n)
		// The kills run a few at a time: each has its own thread and
		// reviewer (state directory).
		var mu sync.Mutex
		reached, recorded, resolved := 0, 0, 0
		kill := func(i int, th string) {
			r := newReviewer(t, "alice")
			id := s.interruptOf(th)
			p := r.start(t, bin, s.url, "approve", id)
			// Five processes start at once: each takes longer to reach
			// the send, so the kill comes within a longer window.
			time.Sleep(time.Duration(rand.IntN(700)) * time.Millisecond)
			p.cmd.Process.Signal(syscall.SIGKILL)
			p.wait()
			audit := r.audit(t)
			for _, d := range s.decisionRuns(th) {
				mu.Lock()
				reached++
				mu.Unlock()
				if len(audit[d]) == 0 || !strings.HasPrefix(audit[d][0], "intent:") {
					t.Errorf("kill %d: decision %s reached the server with no audit line (audit: %v)", i, d, audit)
					continue
				}
				mu.Lock()
				recorded++
				mu.Unlock()
			}
			// The next start looks up whatever the kill left unresolved.
			out, err := r.cmd(bin, s.url, "list").CombinedOutput()
			if err != nil {
				t.Errorf("list after kill %d: %v\n%s", i, err, out)
				return
			}
			if strings.Contains(string(out), "Outcome unknown") {
				t.Errorf("kill %d: still unknown after the next start:\n%s", i, out)
			}
			for d, lines := range r.audit(t) {
				last := lines[len(lines)-1]
				if strings.HasPrefix(last, "intent:") {
					t.Errorf("kill %d: decision %s has no outcome after the next start: %v", i, d, lines)
				} else if len(lines) > 1 {
					mu.Lock()
					resolved++
					mu.Unlock()
				}
			}
		}
		next := make(chan int, len(threads))
		for i := range threads {
			next <- i
		}
		close(next)
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				for i := range next {
					kill(i, threads[i])
				}
			})
		}
		wg.Wait()
		t.Logf("%d kill -9s: %d decisions reached the server, %d of them with an audit line; %d outcomes found at the next start", n, reached, recorded, resolved)
	})
}

// Every branch of a fan-out answered from the CLI in one resume: one run,
// each branch its answer; a second reviewer's decision on a branch is then
// refused, and the branch keeps the first answer.
func TestRealFanOutFromTheCLI(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := s.start("fanout", map[string]any{"topic": "a,b,c"})
		if n := len(s.pending(th)); n != 3 {
			t.Fatalf("%d branches listed, want 3", n)
		}
		before := s.runs(th)
		must(t, s.hitl("", "respond", "--thread", s.threadRef(th), "-m", "ship it"), 0, "Sent respond, respond, respond for")
		if s.runs(th) != before+1 {
			t.Fatalf("%d runs for one resume", s.runs(th)-before)
		}
		if got := s.got(th); strings.Count(got, `:"ship it"`) != 3 {
			t.Fatalf("the branches got %s", got)
		}

		th = s.start("fanout", map[string]any{"topic": "a,b"})
		alice, bob := envOf(t).getenv("XDG_STATE_HOME"), t.TempDir()
		setenv(t, "XDG_STATE_HOME", bob)
		p := s.pending(th) // bob looks at the inbox
		first := p[0]
		setenv(t, "XDG_STATE_HOME", alice)
		must(t, s.hitl("", "respond", first.ID, "-m", "yes"), 0, "Sent respond")
		left := s.pending(th)
		if len(left) != 1 || left[0].ID == first.ID {
			t.Fatalf("an answered branch is listed: %+v", left)
		}
		// Bob decides on what he saw: the branch alice answered.
		setenv(t, "XDG_STATE_HOME", bob)
		r := s.hitl("", "reject", first.ID, "-m", "no")
		if r.code != 3 || !strings.Contains(r.stderr, "already handled elsewhere") {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if got := s.got(th); !strings.Contains(got, `:"yes"`) || strings.Contains(got, `"no"`) {
			t.Fatalf("the branch got %s", got)
		}
	})
}
