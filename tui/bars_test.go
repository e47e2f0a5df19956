package tui

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
)

// The bulk confirm shows what the rows warn of and every argument it
// approves, not the summary alone: a hidden escape and an argument the
// summary leaves out are on screen before y sends them.
func TestBulkConfirmShowsWarningsAndEveryArgument(t *testing.T) {
	sneaky := toolCall(idEmail, "thread-a", "run_command", `{"cmd":"echo cleaning up\u001b[2J","file":"report\u202egnp.exe"}`)
	plain := toolCall(idOps, "thread-b", "notify", `{"channel":"#ops"}`)
	h := newHarness(t, 80, 24, sneaky, plain)
	h.now = h.now.Add(GracePeriod * 2)
	h.msg(space())
	h.msg(space())
	h.keys("A")
	h.wantScreen("Approve 2 interrupts in bulk?", "⚠ the payload contains", `"file": "report\u202egnp.exe"`, `"cmd": "echo cleaning up\u001b[2J"`, `"channel": "#ops"`)
	if n := strings.Count(h.screen(), "⚠"); n != 1 {
		t.Fatalf("want one warning (the sneaky row alone), got %d:\n%s", n, h.screen())
	}
}

// ? opens help from every screen that does not take typing, help says
// first the keys of the screen it was opened from, and q quits there as it
// does from the list; the bar offers both.
func TestHelpAndQuitOnEveryBrowsingScreen(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(h *harness)
		want string // a key of that screen, said first on help
	}{
		{"confirm", func(h *harness) { h.keys("enter", "a") }, "y/enter send"},
		{"bulk", func(h *harness) { h.msg(space()); h.keys("A") }, "y/enter send"},
		{"history", func(h *harness) { h.keys("H") }, "esc back"},
		{"failures", func(h *harness) { h.keys("E") }, "R refresh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
			h.now = h.now.Add(GracePeriod * 2)
			tc.open(h)
			front := h.m.top()
			bar := lastLine(h.screen())
			if !strings.Contains(bar, "? help") || !strings.Contains(bar, "q quit") {
				t.Fatalf("the bar offers no help or quit: %q", bar)
			}
			h.keys("?")
			if _, ok := h.m.top().(*helpScreen); !ok {
				t.Fatalf("? did not open help:\n%s", h.screen())
			}
			h.wantScreen("Keys here", tc.want, "Every key")
			h.keys("esc")
			if h.m.top() != front {
				t.Fatalf("esc on help went to %T", h.m.top())
			}
			if _, cmd := h.m.Update(keyMsg("q")); !quits(cmd) {
				t.Fatalf("q did not quit from %s", tc.name)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// A toggle's hint says what pressing it does now; a screen with nothing
// to open does not offer enter.
func TestBarSaysWhatAKeyDoesNow(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.now = h.now.Add(GracePeriod * 2)
	h.keys("enter", "a")
	if bar := lastLine(h.screen()); !strings.Contains(bar, "v resume JSON") {
		t.Fatalf("confirm: %q", bar)
	}
	h.keys("v")
	if bar := lastLine(h.screen()); !strings.Contains(bar, "v hide JSON") {
		t.Fatalf("with the JSON shown: %q", bar)
	}
	h.keys("esc", "esc", "E")
	h.wantScreen("None.")
	if bar := lastLine(h.screen()); strings.Contains(bar, "enter") {
		t.Fatalf("no failed run, yet the bar offers enter: %q", bar)
	}
}

// The list's bar offers what is in force: A on the marked rows, space,
// esc clearing a filter (kept when short, as back is), and where there is
// room x, c, H; nothing is cut without "…".
func TestListBarOffersWhatIsInForce(t *testing.T) {
	email := fixture(t, "middleware-js-email", idEmail, time.Minute)
	ops := fixture(t, "middleware-js-ops", idOps, 2*time.Minute)
	h := newHarness(t, 200, 50, email, ops)
	h.now = h.now.Add(GracePeriod * 2)
	bar := lastLine(h.screen())
	for _, want := range []string{"space mark", "x dismiss", "c conversation", "H history", "/ filter", "? help", "q quit"} {
		if !strings.Contains(bar, want) {
			t.Errorf("at 200 columns the bar lacks %q: %q", want, bar)
		}
	}
	h.msg(space())
	h.keys("k")
	bar = lastLine(h.screen())
	if !strings.Contains(bar, "A approve 1 marked") || !strings.Contains(bar, "space unmark") {
		t.Errorf("with a row marked: %q", bar)
	}
	h.msg(space()) // unmark
	h.keys("/")
	h.typeText("nothing-matches-this")
	h.keys("enter")
	h.wantScreen("esc clears it")
	for _, w := range []int{200, 60} {
		h.msg(tea.WindowSizeMsg{Width: w, Height: 20})
		if bar := lastLine(h.screen()); !strings.Contains(bar, "esc clear filter") || !strings.Contains(bar, "? help") {
			t.Errorf("at %d with a filter set: %q", w, bar)
		}
	}
	h.keys("esc")
	h.msg(tea.WindowSizeMsg{Width: 60, Height: 20})
	if bar := lastLine(h.screen()); !strings.Contains(bar, "…") || !strings.Contains(bar, "? help") {
		t.Errorf("at 60 the list's bar cuts without a mark: %q", bar)
	}
}

// On a failed run's detail at 80 columns, help stays on the bar.
func TestFailedRunBarKeepsHelp(t *testing.T) {
	held := fixture(t, "prompt-string", idHeld, 5*time.Minute)
	held.ThreadID = "thread-failed"
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute))
	fb.SetFailures(client.Failure{ThreadID: held.ThreadID, GraphID: "asker", UpdatedAt: t0.Add(-2 * time.Minute),
		Error: "ZodError: email: Invalid email", Interrupts: []client.Interrupt{held}})
	h := newHarnessOn(t, 80, 24, nil, fb)
	h.b = fb
	h.m.failed.now = true
	h.run(h.m.fetch(false))
	h.keys("E", "enter")
	h.wantScreen("Run failed · thread thread-failed")
	bar := lastLine(h.screen())
	if !strings.Contains(bar, "? help") || !strings.Contains(bar, "esc back") || ansi.StringWidth(bar) > 80 {
		t.Fatalf("the failed run's bar: %q", bar)
	}
	h.keys("c")
	if bar := lastLine(h.screen()); !strings.Contains(bar, "c hide conversation") && !strings.Contains(bar, "…") {
		t.Fatalf("after c: %q", bar)
	}
}

// The history keeps each row's short id at every width, and marks what it
// cuts: a long subject ends in "…", the title wraps.
func TestHistoryKeepsTheIDAtEveryWidth(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {200, 50}} {
		h := newHarness(t, sz[0], sz[1])
		h.j.Record(journal.Entry{DecisionID: "1", Time: t0, InterruptID: idEmail, Title: "Review tool call Bash",
			Decisions: []client.Decision{{Type: client.Approve}}, Outcome: journal.NotSent})
		h.j.Record(journal.Entry{DecisionID: "2", Time: t0, InterruptID: idOps, Title: "Review tool call " + strings.Repeat("very_long_tool_name_", 10),
			Decisions: []client.Decision{{Type: client.Approve}}, Outcome: journal.Finished})
		h.keys("H")
		h.wantScreen("aaaa1111", "bbbb2222", "Bash", "next)")
		if !regexp.MustCompile(`very_long_tool_\w*…`).MatchString(h.screen()) {
			t.Fatalf("at %v the long subject is cut without a mark:\n%s", sz, h.screen())
		}
	}
}

// A typed JSON answer is on the confirm screen once, as JSON, not also as
// a line of compact JSON after the decision.
func TestConfirmShowsAJSONAnswerOnce(t *testing.T) {
	raw := json.RawMessage(`{"question":"Which region?"}`)
	it := client.Interrupt{ID: idQ, ThreadID: "thread-q", GraphID: "g", CreatedAt: t0, UpdatedAt: t0, Payload: client.Parse(raw), Raw: raw}
	h := newHarness(t, 80, 24, it)
	h.now = h.now.Add(GracePeriod * 2)
	h.keys("enter", "f")
	h.typeText(`{"region":"eu-west-1"}`)
	h.keys("ctrl+s")
	h.wantScreen("Send this?", "decision: respond", `"region": "eu-west-1"`)
	if s := h.screen(); strings.Contains(s, "respond: {") || strings.Count(s, "eu-west-1") != 1 {
		t.Fatalf("the answer is shown twice:\n%s", s)
	}
}

// The header says where you are with one row shown too.
func TestHeaderCountsOneRow(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.wantScreen("hitl · 1 pending · 1/1")
}

// q on the confirm screen while a decision is being sent asks first (it
// was swallowed silently).
func TestQuitDuringASendAsks(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.now = h.now.Add(GracePeriod * 2)
	h.keys("enter", "a")
	h.wantScreen("Send this?")
	h.m.sending = true // as between y and the server's answer
	h.keys("q")
	h.wantScreen("Quit? A decision is being sent")
}
