package main

// Every shape of interrupt, on every real server (realserver.All), as
// separate reviewer processes: a decision that took effect is told "sent"
// (and a new interrupt it led to is named as new, and listed); of two
// reviewers deciding at once exactly one is told "sent", and its answer is
// what reached the graph, the other "already handled elsewhere" naming the
// winner; a stale answer sends nothing (no new run) and says so.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/realserver"
)

// shape is one kind of interrupt and how a reviewer answers it.
type shape struct {
	name, graph string
	input       any
	// pick chooses, of the thread's interrupts, the one to answer (nil:
	// the only one).
	pick func([]listed) listed
	// decide is reviewer who's answer, marked with the reviewer's name
	// where the answer has text.
	decide func(who, id string) []string
	// then: after the first answer, alice's run paused again at a new
	// interrupt, answered with these arguments (the node finishes, so what
	// it received shows in its state); "" for the run's text otherwise.
	then []string
	// sent is what alice's sent message says of the run.
	sent string
	// marker is, per reviewer, what the graph's state holds once that
	// reviewer's answer reached it ("" where answers do not differ).
	marker func(who string) string
}

func respondWith(who, id string) []string { return []string{"respond", id, "-m", "race-" + who} }
func resumeWith(who, id string) []string {
	return []string{"resume", id, "--value", `"race-` + who + `"`}
}
func approveOrReject(who, id string) []string {
	if who == "alice" {
		return []string{"approve", id}
	}
	return []string{"reject", id, "-m", "race-" + who}
}
func raceMarker(who string) string { return "race-" + who }
func ranOrRejected(who string) string {
	if who == "alice" {
		return "ran send_email"
	}
	return "race-" + who
}

var shapes = []shape{
	{name: "middleware-batched", graph: "agent", input: msgs("email"), decide: approveOrReject, sent: "finished", marker: ranOrRejected},
	{name: "middleware-per-call", graph: "percall", input: map[string]any{"topic": "js"}, decide: approveOrReject, sent: "finished", marker: ranOrRejected},
	{name: "agent-inbox", graph: "inbox", input: map[string]any{"topic": "single"}, decide: respondWith, sent: "finished", marker: raceMarker},
	{name: "questions", graph: "questions", input: map[string]any{"topic": "tests"},
		decide: func(who, id string) []string {
			return []string{"respond", id, "-m", "race-" + who, "--answer", "React", "--answer", "Yes"}
		},
		then: []string{"reject", "-m", "enough"}, sent: "paused again at", marker: raceMarker},
	{name: "prompt", graph: "prompt", input: map[string]any{"topic": "string"}, decide: respondWith, sent: "finished", marker: raceMarker},
	{name: "parallel", graph: "parallel", input: map[string]any{},
		pick: func(p []listed) listed {
			for _, x := range p {
				if x.Schema == "prompt" {
					return x
				}
			}
			return listed{}
		},
		decide: respondWith, sent: "still waits as before", marker: raceMarker},
	{name: "send-fan-out", graph: "fanout", input: map[string]any{"topic": "alpha,beta"},
		pick: func(p []listed) listed { return p[0] }, decide: resumeWith, sent: "still waits as before", marker: raceMarker},
	{name: "breakpoint", graph: "breakpoint", input: map[string]any{},
		decide: func(_, id string) []string { return []string{"approve", id} }, sent: "finished", marker: func(string) string { return "" }},
	{name: "response-schema", graph: "form", input: map[string]any{"topic": "zod"},
		// The whole value: the Python server's Pydantic schema has
		// alternatives, which hitl offers no fields for.
		decide: func(who, id string) []string {
			budget := "50"
			if who == "bob" {
				budget = "7"
			}
			return []string{"respond", id, "--value", `{"framework":"react","tests":true,"budget":` + budget + `}`}
		},
		sent: "finished",
		marker: func(who string) string {
			if who == "bob" {
				return `"budget":7`
			}
			return `"budget":50`
		}},
	{name: "subgraph", graph: "subgraph", input: map[string]any{"topic": "v2"}, decide: resumeWith, sent: "finished", marker: raceMarker},
	{name: "functional-api", graph: "functional", input: map[string]any{"topic": "v2"}, decide: respondWith,
		then: []string{"respond", "-m", "yes"}, sent: "paused again at", marker: raceMarker},
	{name: "two-interrupts-in-one-node", graph: "twice", input: map[string]any{"topic": "v2"},
		decide: func(who, id string) []string { return []string{"respond", id, "-m", "yes race-" + who} },
		then:   []string{"respond", "-m", "eu-west tonight"}, sent: "paused again at", marker: raceMarker},
	{name: "two-tools-in-one-toolnode", graph: "toolnode2", input: msgs("go"), decide: respondWith,
		then: []string{"respond", "-m", "sunday"}, sent: "paused again at", marker: raceMarker},
	{name: "sub-agent-in-a-tool", graph: "subagent", input: msgs("email"), decide: approveOrReject, sent: "finished", marker: ranOrRejected},
}

func msgs(first string) map[string]any {
	return map[string]any{"messages": []any{map[string]string{"role": "user", "content": first}}}
}

// shapeServer is one real server, read and written directly.
type shapeServer struct {
	t   *testing.T
	url string
}

func (s shapeServer) call(method, path string, body any) []byte {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	req.Header.Set("Content-Type", "application/json")
	c := &http.Client{Timeout: 60 * time.Second, Transport: realserver.Client.Transport}
	resp, err := c.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, b)
	}
	return b
}

func (s shapeServer) start(sh shape) string {
	s.t.Helper()
	var th struct {
		ThreadID string `json:"thread_id"`
	}
	json.Unmarshal(s.call("POST", "/threads", map[string]any{}), &th)
	s.call("POST", "/threads/"+th.ThreadID+"/runs/wait", map[string]any{"assistant_id": sh.graph, "input": sh.input})
	return th.ThreadID
}

// values is the thread's state values, as JSON to search.
func (s shapeServer) values(thread string) string {
	var st struct {
		Values json.RawMessage `json:"values"`
	}
	json.Unmarshal(s.call("GET", "/threads/"+thread+"/state", nil), &st)
	var b bytes.Buffer
	json.Compact(&b, st.Values)
	return b.String()
}

func (s shapeServer) runCount(thread string) int {
	var runs []any
	json.Unmarshal(s.call("GET", "/threads/"+thread+"/runs?limit=1000", nil), &runs)
	return len(runs)
}

// listedOn lists, as reviewer r, the interrupts of one thread.
func listedOn(t *testing.T, bin, url string, r reviewer, thread string) []listed {
	t.Helper()
	out, err := r.cmd(bin, url, "list", "--json").Output()
	if err != nil {
		t.Fatalf("%s: list: %v", r.name, err)
	}
	var all, mine []listed
	if err := json.Unmarshal(out, &all); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	for _, it := range all {
		if it.ThreadID == thread {
			mine = append(mine, it)
		}
	}
	return mine
}

func (sh shape) choose(t *testing.T, p []listed) listed {
	t.Helper()
	if len(p) == 0 {
		t.Fatal("nothing pending")
	}
	if sh.pick != nil {
		it := sh.pick(p)
		if it.ID == "" {
			t.Fatalf("no interrupt to pick among %+v", p)
		}
		return it
	}
	if len(p) != 1 {
		t.Fatalf("%d pending, want 1: %+v", len(p), p)
	}
	return p[0]
}

func TestRealEveryShape(t *testing.T) {
	servers := realserver.All(t)
	if len(servers) == 0 {
		t.Skip("no real server: run the tests with scripts/test")
	}
	t.Parallel()
	bin := builtBinary(t)
	for _, srv := range servers {
		t.Run(srv.Name(), func(t *testing.T) {
			t.Parallel()
			// Each shape has threads of its own and finds them by id: the
			// shapes run a few at a time, beside the other tests that
			// share the server. Not as parallel subtests: those would wait
			// for a free test slot while this test keeps the server from
			// the tests that fill the slots waiting for it.
			realserver.Share(t, srv.URL)
			var wg sync.WaitGroup
			few := make(chan struct{}, 4)
			for _, sh := range shapes {
				wg.Go(func() {
					few <- struct{}{}
					defer func() { <-few }()
					t.Run(sh.name, func(t *testing.T) {
						s := shapeServer{t: t, url: srv.URL}
						sentAlone(t, bin, s, sh)
						raced(t, bin, s, sh)
					})
				})
			}
			wg.Wait()
		})
	}
}

// sentAlone: one reviewer's decision takes effect: "sent", with the new
// interrupt it led to named and listed as new; what reached the graph is
// that decision.
func sentAlone(t *testing.T, bin string, s shapeServer, sh shape) {
	alice := newReviewer(t, "alice")
	th := s.start(sh)
	before := listedOn(t, bin, s.url, alice, th)
	it := sh.choose(t, before)
	p := alice.start(t, bin, s.url, sh.decide("alice", it.ID)...)
	if code := p.wait(); code != 0 || !strings.HasPrefix(p.stdout.String(), "Sent ") || !strings.Contains(p.stdout.String(), sh.sent) {
		t.Fatalf("exit %d, want sent and %q:\n%s%s", code, sh.sent, p.stdout.String(), p.stderr.String())
	}
	after := listedOn(t, bin, s.url, alice, th)
	if sh.sent == "paused again at" {
		fresh := newIn(before, after)
		if len(fresh) != 1 || !strings.Contains(p.stdout.String(), "paused again at "+fresh[0].ID[:8]) {
			t.Fatalf("the new interrupt %+v is not the one named: %s", fresh, p.stdout.String())
		}
		args := append([]string{sh.then[0], fresh[0].ID}, sh.then[1:]...)
		if out, err := alice.cmd(bin, s.url, args...).CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "Sent ") {
			t.Fatalf("then %v: %v\n%s", args, err, out)
		}
	}
	for _, x := range after {
		if x.ID == it.ID {
			t.Fatalf("%s is still listed after it took effect", it.ID)
		}
	}
	if m := sh.marker("alice"); m != "" && !strings.Contains(s.values(th), m) {
		t.Fatalf("the graph did not get alice's answer %q: %s", m, s.values(th))
	}
	t.Logf("sent: %s", strings.TrimSpace(p.stdout.String()))
}

// newIn is what after lists that before did not.
func newIn(before, after []listed) []listed {
	seen := map[string]bool{}
	for _, x := range before {
		seen[x.ID] = true
	}
	var out []listed
	for _, x := range after {
		if !seen[x.ID] {
			out = append(out, x)
		}
	}
	return out
}

// raced: alice and bob decide the same interrupt at once. Exactly one is
// told "sent" and its answer reached the graph; the other is told "already
// handled elsewhere" with the winner's name. Then the loser answers again
// (stale): nothing is sent.
func raced(t *testing.T, bin string, s shapeServer, sh shape) {
	alice, bob := newReviewer(t, "alice"), newReviewer(t, "bob")
	th := s.start(sh)
	it := sh.choose(t, listedOn(t, bin, s.url, alice, th))
	listedOn(t, bin, s.url, bob, th)
	pa := alice.start(t, bin, s.url, sh.decide("alice", it.ID)...)
	pb := bob.start(t, bin, s.url, sh.decide("bob", it.ID)...)
	ca, cb := pa.wait(), pb.wait()
	winner, loser, lp, lc := alice, bob, pb, cb
	switch {
	case ca == 0 && cb == 0:
		t.Fatalf("both told sent:\n alice: %s\n bob: %s", pa.stdout.String(), pb.stdout.String())
	case ca != 0 && cb != 0:
		t.Fatalf("neither sent (%d, %d):\n alice: %s%s\n bob: %s%s", ca, cb, pa.stdout.String(), pa.stderr.String(), pb.stdout.String(), pb.stderr.String())
	case cb == 0:
		winner, loser, lp, lc = bob, alice, pa, ca
	}
	said := lp.stdout.String() + lp.stderr.String()
	if lc != 3 || !strings.Contains(said, "already handled elsewhere") || !strings.Contains(said, "by "+winner.name) {
		t.Fatalf("%s lost with exit %d, without naming %s: %s", loser.name, lc, winner.name, said)
	}
	// What reached the graph is the winner's: finish the node first where
	// the winner's answer led to another interrupt.
	if sh.then != nil {
		if p := listedOn(t, bin, s.url, winner, th); len(p) == 1 && p[0].ID != it.ID {
			args := append([]string{sh.then[0], p[0].ID}, sh.then[1:]...)
			winner.cmd(bin, s.url, args...).Run()
		}
	}
	if m := sh.marker(winner.name); m != "" && !strings.Contains(s.values(th), m) {
		t.Fatalf("%s won, but the graph got: %s", winner.name, s.values(th))
	}
	if m := sh.marker(loser.name); m != "" && m != sh.marker(winner.name) && strings.Contains(s.values(th), m) {
		t.Fatalf("%s lost, but the graph got its answer: %s", loser.name, s.values(th))
	}
	// Stale: the loser answers again: nothing is sent.
	runs := s.runCount(th)
	out, _ := loser.cmd(bin, s.url, sh.decide(loser.name, it.ID)...).CombinedOutput()
	if !strings.Contains(string(out), "nothing sent") || s.runCount(th) != runs {
		t.Fatalf("a stale answer: %s (runs %d -> %d)", out, runs, s.runCount(th))
	}
	t.Logf("race won by %s; %s told: %s", winner.name, loser.name, strings.TrimSpace(said))
}

// Two reviewers answer the first question of a node that asks twice, many
// times over (HITL_RACES, default 5): the loser's answer must not reach
// the graph. The servers apply a stale resume naming a task's first
// interrupt to that task's next one (non-strict resume), so a loser whose
// run is created after the winner's ended would answer the second question
// while told it was not applied.
func TestRealRaceOnANodeThatAsksTwice(t *testing.T) {
	servers := realserver.All(t)
	if len(servers) == 0 {
		t.Skip("no real server: run the tests with scripts/test")
	}
	t.Parallel()
	bin := builtBinary(t)
	sh := shapes[11]
	if sh.graph != "twice" {
		t.Fatal("shapes[11] is not the twice shape")
	}
	for _, srv := range servers {
		t.Run(srv.Name(), func(t *testing.T) {
			t.Parallel()
			realserver.Share(t, srv.URL) // its threads of its own, found by id
			s := shapeServer{t: t, url: srv.URL}
			n := envInt("HITL_RACES", 5)
			alice, bob := newReviewer(t, "alice"), newReviewer(t, "bob")
			var bothSent, noneSent, badLoser, loserApplied int
			for i := 0; i < n; i++ {
				th := s.start(sh)
				it := sh.choose(t, listedOn(t, bin, s.url, alice, th))
				listedOn(t, bin, s.url, bob, th) // both look first, as reviewers do
				pa := alice.start(t, bin, s.url, sh.decide("alice", it.ID)...)
				pb := bob.start(t, bin, s.url, sh.decide("bob", it.ID)...)
				ca, cb := pa.wait(), pb.wait()
				loser, lp, lc := "bob", pb, cb
				switch {
				case ca == 0 && cb == 0:
					bothSent++
					continue
				case ca != 0 && cb != 0:
					noneSent++
					t.Logf("race %d: neither sent:\n alice: %s\n bob: %s", i, pa.stderr.String(), pb.stderr.String())
					continue
				case cb == 0:
					loser, lp, lc = "alice", pa, ca
				}
				if lc != 3 || !strings.Contains(lp.stderr.String(), "already handled elsewhere") {
					badLoser++
					t.Logf("race %d: %s lost with exit %d: %s", i, loser, lc, lp.stderr.String())
				}
				if strings.Contains(s.values(th), "race-"+loser) {
					loserApplied++
					t.Logf("race %d: %s was told %q, but the graph got its answer: %s", i, loser, strings.TrimSpace(lp.stderr.String()), s.values(th))
				}
			}
			t.Logf("%d races: %d with two told sent, %d with none, %d losers not told 'already handled elsewhere', %d losers whose answer reached the graph",
				n, bothSent, noneSent, badLoser, loserApplied)
			if bothSent+noneSent+badLoser+loserApplied > 0 {
				t.Fail()
			}
		})
	}
}
