package main

// Two reviewers on one server, as separate processes with their own state
// directories: what one drafts in the TUI, the other sees (claims in the
// thread's metadata), until it is sent or expires.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/realserver"
)

// claimOf is the record of interrupt id's claim in the thread's metadata.
func (s *server) claimOf(thread, id string) map[string]any {
	s.t.Helper()
	var th struct {
		Metadata map[string]any `json:"metadata"`
	}
	json.Unmarshal(s.do("GET", "/threads/"+thread, nil), &th)
	// One key per interrupt and reviewer's client: hitl_claim_<id>_<client>.
	// Only one reviewer claims in these tests.
	for k, v := range th.Metadata {
		if strings.HasPrefix(k, "hitl_claim_"+id+"_") {
			m, _ := v.(map[string]any)
			return m
		}
	}
	return nil
}

func TestRealClaimsBetweenTwoReviewerProcesses(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		bin := builtBinary(t)
		alice, bob := newReviewer(t, "alice"), newReviewer(t, "bob")
		th := s.start("prompt", map[string]any{"topic": "string"})
		id := s.interruptOf(th)

		tui := startTUIAt(t, s.url, 80, 24, "NO_COLOR=1", "XDG_STATE_HOME="+alice.state, "HITL_REVIEWER=alice")
		tui.waitFor("pending", "updated")
		tui.keys("/")
		tui.text(th)
		tui.keys("Enter", "Enter", "f") // the editor is open: a claim
		tui.waitFor("Your response")

		bobSays := func(args ...string) (string, string) {
			c := bob.cmd(bin, s.url, args...)
			var out, errb strings.Builder
			c.Stdout, c.Stderr = &out, &errb
			_ = c.Run()
			return out.String(), errb.String()
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			out, _ := bobSays("show", id)
			if strings.Contains(out, "Editing    alice is editing (<1m): a decision now may race theirs") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("bob never saw alice's claim:\n%s\nmetadata: %v", out, s.claimOf(th, id))
			}
			time.Sleep(200 * time.Millisecond)
		}
		// Nothing is blocked: bob's decision goes through the pipeline, with
		// a note (a dry run here: alice is the one who sends).
		_, errOut := bobSays("respond", id, "-m", "bob's answer", "--dry-run")
		if !strings.Contains(errOut, "alice is editing (<1m); your decision may race theirs") {
			t.Fatalf("bob's decision did not say so: %s", errOut)
		}
		if c := s.claimOf(th, id); c["reviewer"] != "alice" || c["interrupt_id"] != id || c["waiting_since"] == nil || c["expires"] == nil {
			t.Fatalf("claim record: %v", c)
		}

		// Alice sends: her claim is cleared (the record keeps only when the
		// interrupt started to wait).
		tui.text("eu-west-1")
		tui.keys("C-s")
		tui.waitFor("Send this?")
		tui.keys("y")
		tui.waitFor("the run finished")
		deadline = time.Now().Add(10 * time.Second)
		for s.claimOf(th, id)["reviewer"] != nil {
			if time.Now().After(deadline) {
				t.Fatalf("the claim outlived the send: %v", s.claimOf(th, id))
			}
			time.Sleep(100 * time.Millisecond)
		}

		// A claim not refreshed in time counts for nobody; one in force
		// does, with its age, whoever wrote it.
		th2 := s.start("prompt", map[string]any{"topic": "string"})
		id2 := s.interruptOf(th2)
		now := time.Now().UTC()
		claim := func(expires time.Time) {
			s.do("PATCH", "/threads/"+th2, map[string]any{"metadata": map[string]any{"hitl_claim_" + id2: map[string]any{
				"reviewer": "carol", "client": "carols-laptop", "interrupt_id": id2,
				"since": now.Add(-10 * time.Minute), "expires": expires}}})
		}
		claim(now.Add(-time.Minute))
		if out, _ := bobSays("show", id2); strings.Contains(out, "carol") {
			t.Fatalf("an expired claim is shown:\n%s", out)
		}
		claim(now.Add(time.Minute))
		if out, _ := bobSays("show", id2); !strings.Contains(out, "carol is editing (10m)") {
			t.Fatalf("a claim in force is not shown:\n%s", out)
		}
	})
}

// A decision the graph refuses fails the run: the thread is listed in a
// section of its own, with the server's error and the decision this
// machine sent, by the CLI and the TUI, and its interrupt can be answered
// again.
func TestRealFailedRunListedAndAnsweredAgain(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		th := s.startGraph("survey", "form", map[string]any{"topic": "zod"})
		id := s.onlyPending(th).ID
		// The unchecked escape hatch sends what the graph refuses.
		r := s.hitl("", "resume", id, "--value", `{"framework":"angular","tests":true,"budget":500}`)
		must(t, r, 1, "the run failed")
		errText, errFull := "the answer does not match the response schema", "the answer does not match the response schema"
		if s.kind == realserver.Python {
			// A Pydantic model checks the answer: its ValidationError,
			// as the Python server keeps it on the thread.
			errText, errFull = "ValidationError: framework: Input should be 'react', 'vue' or 'svelte'", "budget: Input should be less than or equal to 100"
		}
		if s.js {
			errText, errFull = "ZodError: framework: Invalid enum value. Expected 'react' | 'vue' | 'svelte', received 'angular'", "budget: Number must be less than or equal to 100"
		}
		// hitl list: not pending; in the failed section, with the error,
		// this machine's decision and how to answer again.
		if len(s.pending(th)) != 0 {
			t.Fatal("a failed thread is listed as pending")
		}
		out := s.hitl("", "list").stdout
		for _, want := range []string{"Runs that failed (", "thread " + th, "error: " + errText,
			"sent from here: ", "resume value on " + id[:8] + " → failed", "still holds " + id[:8] + " [form]", "hitl respond " + id[:8]} {
			if !strings.Contains(out, want) {
				t.Fatalf("hitl list lacks %q:\n%s", want, out)
			}
		}
		must(t, s.hitl("", "list", "--failed"), 0, errFull)
		var failed []struct {
			ThreadID   string `json:"thread_id"`
			Error      string `json:"error"`
			Interrupts []struct {
				ID    string `json:"id"`
				Retry bool   `json:"retry"`
			} `json:"interrupts"`
			Sent *struct {
				Outcome string          `json:"outcome"`
				Resume  json.RawMessage `json:"resume"`
			} `json:"sent_from_here"`
		}
		r = s.hitl("", "list", "--failed", "--json")
		if err := json.Unmarshal([]byte(r.stdout), &failed); err != nil {
			t.Fatalf("list --failed --json: %v\n%s", err, r.stdout)
		}
		found := false
		for _, f := range failed {
			if f.ThreadID == th {
				found = true
				if !strings.Contains(f.Error, errText) || len(f.Interrupts) != 1 || f.Interrupts[0].ID != id || !f.Interrupts[0].Retry ||
					f.Sent == nil || f.Sent.Outcome != "failed" || !strings.Contains(string(f.Sent.Resume), "angular") {
					t.Fatalf("failed thread: %+v", f)
				}
			}
		}
		if !found {
			t.Fatalf("list --failed --json lacks thread %s: %s", th, r.stdout)
		}

		// The TUI shows it too: the section, then the error in full.
		tui := startTUI(t, s, 100, 30, "NO_COLOR=1")
		tui.waitFor("whose run failed", "E shows them")
		tui.keys("E")
		tui.waitFor("Threads whose last run failed")
		for i := 0; i < 60 && !strings.Contains(tui.screen(), "▸ "+s.threadRef(th)); i++ {
			tui.keys("j")
		}
		tui.keys("Enter")
		tui.waitFor("Run failed · thread "+th, errFull, "Decision sent from this machine", "→ failed")
		tui.keys("q")

		// Answered again, with a value the graph takes.
		r = s.hitl("", "respond", id[:8], "--field", "framework=react", "--field", "tests=true", "--field", "budget=5")
		must(t, r, 0, "finished")
		must(t, r, 0, "this answers "+id[:8]+" again")
		if got := s.got(th); !strings.Contains(got, `{"framework":"react","tests":true,"budget":`+s.number("5")+`}`) {
			t.Fatalf("got %s", got)
		}
		if strings.Contains(s.hitl("", "list").stdout, "thread "+th) {
			t.Fatal("still listed as failed after the run went on")
		}
	})
}

// Bob answers what alice has open in her editor: alice's screen says who
// answered and what, read from the server, and keeps her text.
func TestRealAnsweredWhileOpenSaysWho(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		bin := builtBinary(t)
		alice, bob := newReviewer(t, "alice"), newReviewer(t, "bob")
		th := s.start("prompt", map[string]any{"topic": "string"})
		id := s.interruptOf(th)
		tui := startTUIAt(t, s.url, 80, 24, "NO_COLOR=1", "XDG_STATE_HOME="+alice.state, "HITL_REVIEWER=alice")
		tui.waitFor("pending", "updated")
		tui.keys("/")
		tui.text(th)
		tui.keys("Enter", "Enter", "f")
		tui.waitFor("Your response")
		tui.text("my half answer")
		c := bob.cmd(bin, s.url, "respond", id, "-m", "bob was first")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("bob: %v\n%s", err, out)
		}
		tui.waitFor(id[:8]+" was answered elsewhere (by bob", "bob was first", "my half answer")
	})
}
