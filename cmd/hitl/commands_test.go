package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/present"
)

// respond on a tool call is taken as the tool's result: said on stderr
// before anything is sent.
func TestRespondOnAToolCallWarnsFirst(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := s.start("inbox", map[string]any{"topic": "single"})
		it := s.onlyPending(th)
		r := s.hitl("", "respond", it.ID, "-m", "do not post it")
		must(t, r, 0, "Sent respond")
		if !strings.Contains(r.stderr, "note: respond on the tool call post_tweet: the agent takes your message as the tool's successful result") {
			t.Fatalf("no warning on stderr:\n%s", r.stderr)
		}
	})
}

// A reject without -m sends no reason: said on stderr, and what the agent
// reads is the middleware's own words, which give none.
func TestRejectWithoutAMessageSaysTheAgentGetsNoReason(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := s.agent("email")
		it := s.onlyPending(th)
		r := s.hitl("", "reject", it.ID)
		must(t, r, 0, "Sent reject")
		if !strings.Contains(r.stderr, "note: reject of send_email without a message: the agent is told only that the call was rejected, not why") {
			t.Fatalf("no note on stderr:\n%s", r.stderr)
		}
		if got := s.rawToolMessages(th)["send_email"]; !strings.Contains(got, "rejected") {
			t.Fatalf("the agent read %q", got)
		}
		r = s.hitl("", "reject", s.onlyPending(s.agent("email")).ID, "-m", "wrong customer")
		must(t, r, 0, "Sent reject")
		if strings.Contains(r.stderr, "without a message") {
			t.Fatalf("a reject with a message noted as without:\n%s", r.stderr)
		}
	})
}

// --set changes one argument and keeps the others; --field does the same
// on a tool with no args_schema (the test agent's own); the change is
// printed before it is sent; --args says what it drops.
func TestEditSetKeepsTheOtherArguments(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		for _, flag := range []string{"--set", "--field"} {
			th := s.agent("email")
			it := s.onlyPending(th)
			var proposed map[string]any
			json.Unmarshal(it.Actions[0].Args, &proposed)
			r := s.hitl("", "edit", it.ID, flag, "to=jane@example.com")
			must(t, r, 0, "the run finished")
			if !strings.Contains(r.stderr, `-   "to": "`) || !strings.Contains(r.stderr, `+   "to": "jane@example.com"`) {
				t.Fatalf("%s: no diff on stderr:\n%s", flag, r.stderr)
			}
			var ran map[string]any
			got := s.toolMessages(th)["send_email"]
			json.Unmarshal([]byte(strings.TrimPrefix(got, "ran send_email ")), &ran)
			proposed["to"] = "jane@example.com"
			if !reflect.DeepEqual(ran, proposed) {
				t.Fatalf("%s: the tool ran with %s, want %v", flag, got, proposed)
			}
		}
		th := s.agent("email")
		it := s.onlyPending(th)
		r := s.hitl(`{"to": "x@example.com"}`, "edit", it.ID, "--args", "-", "--dry-run")
		if !strings.Contains(r.stderr, `-   "subject"`) || !strings.Contains(r.stderr, "--args replaces the whole object") {
			t.Fatalf("--args did not say what it drops (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// config init writes a starter file once, never over one; config show
// prints notify and theme.
func TestConfigInit(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "hitl", "config.yaml")
	setenv(t, "HITL_CONFIG", path)
	setenv(t, "HITL_THEME", "")
	setenv(t, "HITL_NOTIFY", "")
	setenv(t, "HITL_PROFILE", "")
	must(t, hitl(t, "", "config", "init"), 0, "Wrote "+path)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file: %v %v", fi, err)
	}
	must(t, hitl(t, "", "config", "init"), 2, "exists already; nothing written")
	r := hitl(t, "", "config", "show")
	must(t, r, 0, `"notify": "desktop"`)
	must(t, r, 0, `"theme": "auto"`)
	must(t, r, 0, `"profile": "local"`)
}

// Without a terminal the reviewer says so, and what to use instead.
func TestNoTerminalIsSaidPlainly(t *testing.T) {
	err := noTerminal(func() (io.Closer, error) {
		return nil, &fs.PathError{Op: "open", Path: "/dev/tty", Err: syscall.ENXIO}
	})
	if err == nil || !strings.Contains(err.Error(), "the reviewer needs a terminal") || !strings.Contains(err.Error(), "hitl list") {
		t.Fatalf("error: %v", err)
	}
	var ee *exitErr
	if !errors.As(err, &ee) || ee.code != exitUsage {
		t.Fatalf("exit: %#v", err)
	}
}

// watch --exec started again does not run the command again for what it
// ran for, and says so.
func TestWatchExecRemembersWhatItRan(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		dir := t.TempDir()
		log := filepath.Join(dir, "ran")
		rec := script(t, dir, "rec.sh", `echo "$HITL_INTERRUPT_ID" >> "$1"`)
		graph := s.graph("fanout")
		th := s.start("fanout", map[string]any{"topic": "a,b"})
		ids := s.pending(th)
		lines := func() []string {
			b, _ := os.ReadFile(log)
			return strings.Fields(string(b))
		}
		watchOnce := func() string {
			ctx, cancel := context.WithCancel(context.Background())
			stdout, stderr := &syncBuffer{}, &syncBuffer{}
			done := make(chan int)
			go func() {
				done <- run(ctx, []string{"--url", s.url, "watch", "--interval", "200ms", "--graph", graph, "--exec", rec + " " + log}, strings.NewReader(""), stdout, stderr, envOf(t).getenv)
			}()
			eventually(t, "watch lists the thread's interrupts", func() bool {
				for _, it := range ids {
					if !strings.Contains(stdout.String(), it.ID[:8]) {
						return false
					}
				}
				return true
			})
			eventually(t, "the command ran for each", func() bool { return len(lines()) >= len(ids) })
			time.Sleep(500 * time.Millisecond) // time for a wrong second run
			cancel()
			if code := <-done; code != 0 {
				t.Fatalf("watch exited %d: %s", code, stderr.String())
			}
			return stderr.String()
		}
		watchOnce()
		first := lines()
		for _, it := range ids {
			if !slices.Contains(first, it.ID) {
				t.Fatalf("the command did not run for %s: %v", it.ID, first)
			}
		}
		stderr := watchOnce()
		if again := lines(); len(again) != len(first) {
			t.Fatalf("the command ran again: %d runs, then %d", len(first), len(again))
		}
		if !strings.Contains(stderr, "--exec not run again for") {
			t.Fatalf("the second watch did not say so:\n%s", stderr)
		}
	})
}

// A build without version information does not say "commit none".
func TestVersionSaysNoNone(t *testing.T) {
	r := hitl(t, "", "version")
	if strings.Contains(r.stdout, "none") || strings.Contains(r.stdout, "unknown") || !strings.HasPrefix(r.stdout, "hitl ") {
		t.Fatalf("version: %q", r.stdout)
	}
}

// history --json: JSON Lines, one object per decision, with the tool, its
// proposed and edited arguments, the decision, the reviewer, the outcome.
func TestHistoryJSONLines(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := s.agent("email")
		it := s.onlyPending(th)
		must(t, s.hitl("", "--reviewer", "dana", "edit", it.ID, "--set", "to=jane@example.com"), 0, "the run finished")
		ops := s.onlyPending(s.agent("ops"))
		must(t, s.hitl("", "reject", ops.ID, "-m", "not today"), 0, "Sent reject")
		r := s.hitl("", "history", "--json")
		must(t, r, 0, "")
		type line struct {
			InterruptID string          `json:"interrupt_id"`
			ThreadID    string          `json:"thread_id"`
			GraphID     string          `json:"graph_id"`
			Action      int             `json:"action"`
			Tool        string          `json:"tool"`
			Proposed    json.RawMessage `json:"proposed_args"`
			Decision    string          `json:"decision"`
			EditedArgs  json.RawMessage `json:"edited_args"`
			Message     string          `json:"message"`
			Reviewer    string          `json:"reviewer"`
			Time        time.Time       `json:"time"`
			Outcome     string          `json:"outcome"`
		}
		var lines []line
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var x line
			if err := json.Unmarshal([]byte(l), &x); err != nil {
				t.Fatalf("not one JSON object a line: %v\n%s", err, r.stdout)
			}
			lines = append(lines, x)
		}
		if len(lines) != 3 {
			t.Fatalf("%d lines, want 3 (one edit, two rejects):\n%s", len(lines), r.stdout)
		}
		ed := lines[2] // newest first
		if ed.InterruptID != it.ID || ed.ThreadID != th || ed.GraphID != s.graph("email") || ed.Tool != "send_email" || ed.Decision != "edit" ||
			ed.Reviewer != "dana" || ed.Outcome != "finished" || ed.Time.IsZero() ||
			!strings.Contains(string(ed.Proposed), `"subject"`) || !strings.Contains(string(ed.EditedArgs), `"to":"jane@example.com"`) {
			t.Fatalf("the edit: %+v\n%s", ed, r.stdout)
		}
		for i, tool := range []string{"delete_records", "notify"} {
			x := lines[i]
			if x.InterruptID != ops.ID || x.Action != i+1 || x.Tool != tool || x.Decision != "reject" || x.Message != "not today" || len(x.Proposed) == 0 {
				t.Fatalf("reject %d: %+v", i+1, x)
			}
		}
	})
}

// approve --all --tool lists what it approves and what it refuses, then
// sends one resume per thread and reports each; --dry-run sends nothing.
func TestApproveAllByTool(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		e1, e2 := s.onlyPending(s.agent("email")), s.onlyPending(s.agent("email"))
		ops := s.onlyPending(s.agent("ops"))
		r := s.hitl("", "approve", "--all", "--tool", "send_email", "--dry-run")
		must(t, r, 0, "--dry-run: nothing sent.")
		for _, it := range []listed{e1, e2} {
			if !strings.Contains(r.stdout, it.ID[:8]+"  thread "+present.ThreadName(it.ThreadID)+"  send_email(to=") {
				t.Fatalf("the list does not name %s:\n%s", it.ID[:8], r.stdout)
			}
			// As a single --dry-run, it prints what would be sent.
			if !strings.Contains(r.stdout, "thread "+it.ThreadID+", one resume:") {
				t.Fatalf("no resume value for %s:\n%s", it.ID[:8], r.stdout)
			}
		}
		if !strings.Contains(r.stdout, `"approve"`) {
			t.Fatalf("the resume values do not say approve:\n%s", r.stdout)
		}
		if len(s.pending(e1.ThreadID)) != 1 {
			t.Fatal("--dry-run sent")
		}
		r = s.hitl("", "approve", "--all", "--tool", "notify", "--dry-run")
		must(t, r, 4, ops.ID[:8])
		must(t, r, 4, "not approved: it also calls delete_records")
		if s.real {
			return // a real server is shared by every test: nothing sent in bulk there
		}
		r = s.hitl("", "approve", "--all", "--tool", "send_email")
		must(t, r, 0, "Approving 2 interrupts of send_email:")
		for _, it := range []listed{e1, e2} {
			must(t, r, 0, "Sent approve for "+it.ID[:8])
			if p := s.pending(it.ThreadID); len(p) != 0 {
				t.Fatalf("%s still waits", it.ID[:8])
			}
		}
		if len(s.pending(ops.ThreadID)) != 1 {
			t.Fatal("the ops interrupt was answered")
		}
	})
}

// hitl list puts what expires first and says so; --json carries
// expires_at and the default decision.
func TestListDeadlines(t *testing.T) {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	mk := func(id, raw string, age time.Duration) client.Interrupt {
		return client.Interrupt{ID: id, ThreadID: "t-" + id, GraphID: "g", UpdatedAt: now.Add(-age), Payload: client.Parse([]byte(raw)), Raw: json.RawMessage(raw)}
	}
	its := []client.Interrupt{
		mk("aaaa1111", `{"question":"newest"}`, time.Minute),
		mk("bbbb2222", `{"question":"due","expires_at":"2026-11-22T03:04:00Z","default":"reject"}`, time.Hour),
	}
	present.DeadlinesFirst(its)
	var out bytes.Buffer
	printList(&out, its, now)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "bbbb2222") || !strings.Contains(lines[1], "[expires in 4m, then: reject]") {
		t.Fatalf("list:\n%s", out.String())
	}
	out.Reset()
	if err := writeJSON(&out, its, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"expires_at": "2026-11-22T03:04:00Z"`) || !strings.Contains(out.String(), `"default_decision": "reject"`) {
		t.Fatalf("--json:\n%s", out.String())
	}
}

// The demo's waiter asks with a deadline: hitl list says when and what
// then, puts it first, and --json carries it.
func TestDemoDeadline(t *testing.T) {
	isolate(t)
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.Seed(0)
	r := hitl(t, "", "--url", srv.URL(), "list")
	lines := strings.Split(r.stdout, "\n")
	if r.code != 0 || len(lines) < 2 || !strings.Contains(lines[1], "[expires in 9m, then: reject]") || !strings.Contains(lines[1], "Deploy build 1842") {
		t.Fatalf("list (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = hitl(t, "", "--url", srv.URL(), "list", "--json")
	if !strings.Contains(r.stdout, `"expires_at": "`) || !strings.Contains(r.stdout, `"default_decision": "reject"`) {
		t.Fatalf("list --json:\n%s", r.stdout)
	}
}

// show of an interrupt that no longer waits says what became of it, as a
// read: decided here (from the audit log), or answered elsewhere (by whom,
// as the server tells), never "nothing sent".
func TestShowOfADecidedInterruptSaysWhatBecameOfIt(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		here := s.onlyPending(s.agent("email"))
		must(t, s.hitl("", "--reviewer", "dana", "approve", here.ID), 0, "Sent approve")
		r := s.hitl("", "show", here.ID)
		must(t, r, 3, "no longer waits: it was decided from this machine: approve by dana at ")
		if strings.Contains(r.stdout+r.stderr, "nothing sent") {
			t.Fatalf("show speaks of sending:\n%s", r.stderr)
		}
		// The decision is still refused with the words of a decision.
		must(t, s.hitl("", "approve", here.ID), 3, "already handled from this machine")

		there := s.onlyPending(s.agent("ops")) // listed: seen pending here
		mine := envOf(t).getenv("XDG_STATE_HOME")
		envOf(t).set("XDG_STATE_HOME", t.TempDir()) // another machine
		must(t, s.hitl("", "--reviewer", "bob", "reject", there.ID, "-m", "no"), 0, "Sent reject")
		envOf(t).set("XDG_STATE_HOME", mine)
		r = s.hitl("", "show", there.ID)
		must(t, r, 3, "no longer waits: it was answered elsewhere (by bob")
		if strings.Contains(r.stdout+r.stderr, "nothing sent") {
			t.Fatalf("show speaks of sending:\n%s", r.stderr)
		}
	})
}

// A script's `hitl approve ID || [ $? -eq 3 ]` takes 3 as "someone else
// already decided": an id that never waited here (a typo) is not that.
func TestAMistypedIDIsNotAlreadyHandled(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		it := s.onlyPending(s.agent("email")) // listed: seen pending here
		typo := "0000" + strings.Repeat("f", 28)
		for _, cmd := range [][]string{{"approve", typo}, {"show", typo}, {"reject", typo, "-m", "no"}} {
			must(t, s.hitl("", cmd...), 4, `no waiting interrupt "`+typo+`" on `+s.url+": it was answered, or never existed (this machine never saw it listed, so cannot tell which; hitl list shows what waits)")
		}
		mine := envOf(t).getenv("XDG_STATE_HOME")
		envOf(t).set("XDG_STATE_HOME", t.TempDir()) // another machine
		must(t, s.hitl("", "--reviewer", "bob", "approve", it.ID), 0, "Sent approve")
		envOf(t).set("XDG_STATE_HOME", mine)
		must(t, s.hitl("", "approve", it.ID), 3, "already handled elsewhere; nothing sent (by bob")
		// The refused attempt is not a decision of this machine's: asked
		// again, and shown, it is bob's.
		r := s.hitl("", "approve", it.ID)
		must(t, r, 3, "already handled elsewhere; nothing sent (by bob")
		r = s.hitl("", "show", it.ID)
		must(t, r, 3, "no longer waits: it was answered elsewhere (by bob")
		if strings.Contains(r.stderr, "this machine") {
			t.Fatalf("show calls bob's decision this machine's:\n%s", r.stderr)
		}
	})
}

// show gives a tool call's arguments once: the middleware's default
// description ("…\n\nTool: NAME\nArgs: {…}") says them again, and is shown
// without that part, as in the TUI.
func TestShowGivesTheArgumentsOnce(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		it := s.onlyPending(s.agent("email"))
		r := s.hitl("", "show", it.ID)
		must(t, r, 0, "Action 1 of 1: send_email")
		if strings.Count(r.stdout, `"to":`) != 1 || strings.Contains(r.stdout, "Args: {") {
			t.Fatalf("the arguments are not shown once:\n%s", r.stdout)
		}
		// What was left out is the server's, kept in full by --raw.
		must(t, s.hitl("", "show", it.ID, "--raw"), 0, `Tool: send_email\nArgs: {`)
	})
}

// A script that asks for --json gets one object whatever happened: also
// when nothing was sent because the interrupt no longer waits (exit 3, the
// winner as the server tells) or hitl refused (exit 4).
func TestJSONSaysWhyNothingWasSent(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		obj := func(r result, code int) map[string]any {
			t.Helper()
			var m map[string]any
			if r.code != code || json.Unmarshal([]byte(r.stdout), &m) != nil {
				t.Fatalf("exit %d (want %d), stdout is not one JSON object:\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
			}
			if m["message"] != strings.TrimSpace(strings.TrimPrefix(r.stderr, "hitl: ")) {
				t.Fatalf("the object's message is not the words on stderr: %q vs %q", m["message"], r.stderr)
			}
			return m
		}
		it := s.onlyPending(s.agent("email")) // seen pending here
		mine := envOf(t).getenv("XDG_STATE_HOME")
		envOf(t).set("XDG_STATE_HOME", t.TempDir()) // another machine
		must(t, s.hitl("", "--reviewer", "bob", "approve", it.ID), 0, "Sent approve")
		envOf(t).set("XDG_STATE_HOME", mine)
		for _, args := range [][]string{{"approve", it.ID}, {"reject", it.ID, "-m", "no"}, {"respond", it.ID, "-m", "no"},
			{"edit", it.ID, "--set", "to=x@example.com"}, {"dismiss", it.ID}} {
			m := obj(s.hitl("", append(args, "--json")...), 3)
			w, _ := m["winner"].(map[string]any)
			if m["result"] != "handled-elsewhere" || m["interrupt_id"] != it.ID || m["exit_code"] != float64(3) || w == nil || w["reviewer"] != "bob" {
				t.Fatalf("%s --json: %v", args[0], m)
			}
		}
		typo := "0000" + strings.Repeat("f", 28)
		m := obj(s.hitl("", "approve", typo, "--json"), 4)
		if m["result"] != "refused" || m["exit_code"] != float64(4) || fmt.Sprint(m["asked"]) != "["+typo+"]" {
			t.Fatalf("approve of a typo --json: %v", m)
		}
		m = obj(s.hitl("", "approve", "--all", "--tool", "no_such_tool", "--json"), 3)
		if m["result"] != "nothing-matched" {
			t.Fatalf("approve --all --json: %v", m)
		}
	})
}

// Dismissed without a reason, the result says what the note before it
// said: each call's result says it was not run, and no reason is given (not
// "the reason is in the conversation").
func TestDismissWithoutAReasonSaysNoneWasGiven(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		th := s.agent("email")
		it := s.onlyPending(th)
		dry := s.hitl("", "dismiss", it.ID, "--dry-run")
		must(t, dry, 0, "each call's result in the conversation says it was not run (no reason given)")
		r := s.hitl("", "dismiss", it.ID)
		must(t, r, 0, "Dismissed "+it.ID[:8])
		must(t, r, 0, "each call's result in the conversation says it was not run; no reason given")
		if strings.Contains(r.stdout+r.stderr, "the reason is in the conversation") {
			t.Fatalf("the result speaks of a reason none gave:\n%s%s", r.stdout, r.stderr)
		}
		if tools := s.toolMessages(th); s.real && !strings.Contains(tools["send_email"], "not run") {
			t.Fatalf("the conversation holds %q", tools["send_email"])
		}
	})
}

// JSON typed where a file is expected: hitl says how to give it (standard
// input with -), and how to change one field, rather than "no such file".
func TestInlineJSONWhereAFileIsExpected(t *testing.T) {
	eachServerShared(t, func(t *testing.T, s *server) {
		it := s.onlyPending(s.agent("email"))
		r := s.hitl("", "edit", it.ID, "--args", `{"to":"x@example.com"}`)
		must(t, r, 2, "--args takes a file, not JSON: give the JSON on standard input with --args - (echo '{…}' | hitl --url "+s.url+" edit "+it.ID+" --args -), or change one argument with --set KEY=VALUE")
		if strings.Contains(r.stderr, "no such file") {
			t.Fatalf("edit speaks of a file:\n%s", r.stderr)
		}
		must(t, s.hitl("", "decide", it.ID, "--decisions", `[{"type":"approve"}]`), 2, "--decisions takes a file, not JSON: give the JSON on standard input with --decisions -")
		if p := s.pending(it.ThreadID); len(p) != 1 {
			t.Fatalf("something was sent: %+v", p)
		}
	})
}
