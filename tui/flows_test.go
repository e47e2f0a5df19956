package tui

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/present"
)

// Nothing in the detail is wider than the pane: the pane would cut it
// without a mark (the allowed line of an action read "allowed: approve,"
// at 100 columns).
func TestDetailWrapsAtEveryWidth(t *testing.T) {
	ops := fixture(t, "middleware-js-ops", idOps, time.Minute)
	ops.ThreadID = "4c4f134d-7413-b994-7f72-d21837d977a8-a-long-thread-id"
	for w := 20; w <= 125; w++ {
		h := newHarness(t, 200, 50, ops)
		text := h.m.detailText(h.m.items.current(), w)
		for _, l := range strings.Split(text, "\n") {
			if ansi.StringWidth(l) > w {
				t.Fatalf("at %d columns a line is %d wide: %q", w, ansi.StringWidth(l), ansi.Strip(l))
			}
		}
		flat := strings.Join(strings.Fields(ansi.Strip(text)), " ")
		if !strings.Contains(flat, "allowed: approve, reject") || !strings.Contains(flat, "allowed: approve, edit, reject") {
			t.Fatalf("at %d columns the allowed decisions are not all shown:\n%s", w, ansi.Strip(text))
		}
	}
}

// The failed-run screen wraps what is wider than the window.
func TestFailedRunScreenWraps(t *testing.T) {
	h := newHarness(t, 60, 20)
	ops := fixture(t, "middleware-js-ops", idOps, time.Minute)
	h.b.SetFailures(client.Failure{ThreadID: ops.ThreadID, GraphID: "ops", UpdatedAt: t0.Add(-time.Minute),
		Error:      "GraphRecursionError: Recursion limit of 25 reached without hitting a stop condition. You can increase the limit by setting the recursion_limit config key.",
		Interrupts: []client.Interrupt{ops}})
	h.m.failed.now = true
	h.run(h.m.fetch(false))
	h.keys("E")
	for _, open := range []bool{false, true} {
		if open {
			h.keys("enter")
		}
		s := h.m.top().(*failuresScreen)
		for _, l := range strings.Split(s.text(h.m.env(), 60), "\n") {
			if ansi.StringWidth(l) > 60 {
				t.Fatalf("a line is %d wide at 60 columns: %q", ansi.StringWidth(l), ansi.Strip(l))
			}
		}
	}
}

// ctrl+e in an arguments form opens the arguments in $EDITOR; what is
// saved there is what the confirm screen shows and what the tool runs with.
func TestFormCtrlEEditsTheArgumentsInEditor(t *testing.T) {
	h, srv, it := demoHarness(t, "support", "refund")
	id, thread := it.ID, it.ThreadID
	h.keys("enter", "e")
	h.wantScreen("Arguments of issue_refund", "amount *  number")
	h.keys("ctrl+e")
	ed, ok := h.m.top().(*editorScreen)
	if !ok || ed.kind != editArgs {
		t.Fatalf("ctrl+e in the form did not open the arguments:\n%s", h.screen())
	}
	if !strings.Contains(ed.fields[0].Value(), `"order_id": "A-1001"`) {
		t.Fatalf("the editor does not hold the arguments: %q", ed.fields[0].Value())
	}
	// What the external editor saved comes back as this message.
	h.msg(externalEditMsg{text: `{"order_id": "A-1001", "amount": 7, "currency": "EUR", "reason": "saved in vi"}` + "\n"})
	h.keys("ctrl+s")
	h.wantScreen("Send this?", `+   "amount": [7]`, "saved in vi")
	h.keys("y")
	h.wantScreen("Sent edit for " + id[:8])
	resp, err := http.Get(srv.URL() + "/threads/" + thread + "/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	state, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(state), `ran issue_refund {\"order_id\":\"A-1001\",\"amount\":7,\"currency\":\"EUR\",\"reason\":\"saved in vi\"}`) {
		t.Fatalf("the tool did not run with what was saved:\n%s", state)
	}
}

// With neither $VISUAL nor $EDITOR set, ctrl+e runs vi, as git does.
func TestExternalEditorFallsBackToVi(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	if got := h.m.editorCommand(); got != "vi" {
		t.Fatalf("editor %q", got)
	}
	h.keys("enter", "e", "ctrl+e")
	if strings.Contains(h.screen(), "no external editor") {
		t.Fatalf("ctrl+e refused:\n%s", h.screen())
	}
}

// A problem under a field goes once the field is changed.
func TestFormClearsAProblemOnceFilled(t *testing.T) {
	h := newHarness(t, 80, 24, schemaFixture(t, "form-zod", idForm, time.Minute))
	h.keys("enter", "f", "2", "tab")
	h.msg(space())
	h.keys("tab", "ctrl+s")
	h.wantScreen("✗ required")
	h.typeText("5")
	if s := h.screen(); strings.Contains(s, "✗") {
		t.Fatalf("the filled field still shows its problem:\n%s", s)
	}
	h.keys("ctrl+s")
	h.wantScreen("Send this?")
}

// `/` finds what a [raw] row shows: its summary is read from its value.
func TestFilterMatchesTheRawSummary(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "raw", idQ, time.Minute), fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.wantScreen("kind: budget_check")
	h.keys("/")
	h.typeText("kind: budget")
	h.keys("enter")
	h.wantScreen("1 shown", "kind: budget_check")
}

// In a narrow window the summary keeps its room: the graph column goes
// first, then the badge.
func TestNarrowInboxDropsGraphBeforeSummary(t *testing.T) {
	email := fixture(t, "middleware-js-email", idEmail, time.Minute)
	email.GraphID = "graphname"
	for _, c := range []struct {
		w            int
		graph, badge bool
	}{{90, true, true}, {80, true, true}, {60, false, true}, {50, false, false}} {
		h := newHarness(t, c.w, 20, email)
		row := ""
		for _, l := range strings.Split(h.screen(), "\n") {
			if strings.Contains(l, idEmail[:8]) && row == "" {
				row = l
			}
		}
		if strings.Contains(row, "graphname") != c.graph || strings.Contains(row, "[tool]") != c.badge {
			t.Fatalf("at %d columns (graph %v, badge %v): %q", c.w, c.graph, c.badge, row)
		}
		if !strings.Contains(row, `send_email(to="`) {
			t.Fatalf("at %d columns the summary is cut short: %q", c.w, row)
		}
	}
}

// One resume for two interrupts of a thread: each is named by what it
// holds, and v shows the one value sent.
func TestConfirmOfSeveralNamesEachAndShowsTheOneValue(t *testing.T) {
	x1 := fixture(t, "raw", "f1110000f1110000f1110000f1110000", 10*time.Minute)
	x2 := fixture(t, "raw", "f2220000f2220000f2220000f2220000", 9*time.Minute)
	x2.ThreadID = x1.ThreadID
	h := newHarness(t, 100, 40, x1, x2)
	h.keys("enter", "f")
	h.typeText("first")
	h.keys("ctrl+s", "esc", "esc", "esc")
	h.m.items.selected = x1.ID
	h.keys("enter", "f")
	h.typeText("second")
	h.keys("ctrl+s")
	h.wantScreen("One resume answers 2 interrupts", "1. f1110000  kind: budget_check", "2. f2220000  kind: budget_check")
	if strings.Contains(h.screen(), "no known shape") {
		t.Fatalf("an interrupt is named by its shape:\n%s", h.screen())
	}
	h.keys("v")
	h.wantScreen("Resume value, exactly as sent: one value for the 2", `"f1110000f1110000f1110000f1110000": "second"`, `"f2220000f2220000f2220000f2220000": "first"`)
	h.keys("y")
	if h.sent(x1.ID) != `"second"` || h.sent(x2.ID) != `"first"` {
		t.Fatalf("sent %s and %s", h.sent(x1.ID), h.sent(x2.ID))
	}
}

// A status line goes after a while: "Sent approve" minutes later reads as
// news.
func TestStatusLineExpires(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "a", "y")
	h.wantScreen("Sent approve for aaaa1111")
	// The clock wakes the app when the status goes, idle or not.
	if due, end := h.m.due(), h.m.statusEnds(); end.IsZero() || due.IsZero() || due.After(end) {
		t.Fatalf("no tick is due when the status goes: due %v, status ends %v", due, end)
	}
	h.now = h.now.Add(5 * time.Second)
	h.msg(tickMsg{gen: h.m.clock.gen, at: h.now})
	h.wantScreen("Sent approve for aaaa1111")
	h.now = h.now.Add(statusTTL)
	h.msg(tickMsg{gen: h.m.clock.gen, at: h.now})
	if strings.Contains(h.screen(), "Sent approve") {
		t.Fatalf("the status is still there after %s:\n%s", statusTTL+5*time.Second, h.screen())
	}
}

// quits reports whether cmd ends the program (run through a sequence or a
// batch).
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	msg := cmd()
	if _, ok := msg.(tea.QuitMsg); ok {
		return true
	}
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Slice {
		for i := 0; i < v.Len(); i++ {
			if c, ok := v.Index(i).Interface().(tea.Cmd); ok && quits(c) {
				return true
			}
		}
	}
	return false
}

// q quits from the history too, as everywhere else.
func TestQuitFromHistory(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("H")
	if len(h.m.stack) == 0 {
		t.Fatal("H did not open the history")
	}
	_, cmd := h.m.Update(keyMsg("q"))
	if !quits(cmd) {
		t.Fatalf("q in the history did not quit:\n%s", h.screen())
	}
}

// Help lists the keys of this backend only: no run controls where runs
// cannot be paused.
func TestHelpListsOnlyThisBackendsKeys(t *testing.T) {
	h := newHarness(t, 200, 50, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("?")
	s := h.screen()
	for _, k := range []string{"pause run", "cancel run"} {
		if strings.Contains(s, k) {
			t.Fatalf("help lists %q for a backend without run controls:\n%s", k, s)
		}
	}
	h.wantScreen("approve")
}

// Respond on a tool call is taken as the tool's successful result: the
// confirm screen says so before anything is sent.
func TestRespondOnAToolCallWarns(t *testing.T) {
	h := newHarness(t, 80, 40, fixture(t, "inbox-single", idEmail, time.Minute))
	h.keys("enter", "f")
	h.typeText("do not post this")
	h.keys("ctrl+s")
	h.wantScreen("Send this?")
	flat := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(flat, "Note: respond on the tool call post_tweet: the agent takes your message as the tool's successful result") ||
		!strings.Contains(flat, "reject it instead") {
		t.Fatalf("no warning:\n%s", h.screen())
	}
}

// demoHarness starts the embedded demo server with one thread of graph,
// and the reviewer on it, the cursor on that thread's interrupt.
func demoHarness(t *testing.T, graph, say string) (*harness, *demo.Server, client.Interrupt) {
	t.Helper()
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	th, err := srv.Spawn(graph, map[string]any{"messages": []any{map[string]any{"role": "user", "content": say}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	its, err := b.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var it client.Interrupt
	for _, x := range its {
		if x.ThreadID == th {
			it = x
		}
	}
	if it.ID == "" {
		t.Fatalf("no interrupt on the %s thread", graph)
	}
	h := newHarnessOn(t, 80, 24, nil, b)
	h.m.items.selected = it.ID
	h.now = h.now.Add(GracePeriod * 2)
	return h, srv, it
}

// A breakpoint is "continue" on the confirm screen, as after.
func TestBreakpointConfirmSaysContinue(t *testing.T) {
	h, _, it := demoHarness(t, "release", "ship")
	h.keys("enter", "a")
	h.wantScreen("Send this?", "continue (the run goes on from the breakpoint)")
	if strings.Contains(h.screen(), "approve") {
		t.Fatalf("the confirm says approve:\n%s", h.screen())
	}
	h.keys("y")
	h.wantScreen("Sent continue for " + it.ID[:8])
}

// The bulk confirm names a breakpoint's decision as its outcome does:
// "continue", not "approve".
func TestBulkConfirmSaysContinueForABreakpoint(t *testing.T) {
	h, _, it := demoHarness(t, "release", "ship")
	h.msg(space())
	h.wantScreen("1 marked")
	h.keys("A")
	row := it.ID[:8] + "  thread " + it.ThreadID[:8] + "  " + present.BadgeOf(it) + "  continue: "
	h.wantScreen("Approve 1 interrupt in bulk?", row)
	if strings.Contains(h.screen(), "approve: ") {
		t.Fatalf("the bulk confirm says approve for a breakpoint:\n%s", h.screen())
	}
	h.keys("y")
	h.wantScreen("Sent continue for " + it.ID[:8])
}

// threadStatus reads a demo thread's status.
func threadStatus(t *testing.T, srv *demo.Server, thread string) string {
	t.Helper()
	resp, err := http.Get(srv.URL() + "/threads/" + thread)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Status string `json:"status"`
	}
	json.NewDecoder(resp.Body).Decode(&st)
	return st.Status
}

// x dismisses: the confirm screen asks first, y ends the thread's work,
// history says "dismissed".
func TestDismissKey(t *testing.T) {
	h, srv, it := demoHarness(t, "support", "refund")
	h.keys("enter", "x")
	h.wantScreen("Send this?", "dismiss")
	flat := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(flat, "the thread's work ends there") {
		t.Fatalf("the confirm does not say what dismiss does:\n%s", h.screen())
	}
	if s := threadStatus(t, srv, it.ThreadID); s != "interrupted" {
		t.Fatalf("before y the thread is %s", s)
	}
	h.keys("v")
	h.wantScreen("(none: nothing is resumed;")
	h.keys("y")
	h.wantScreen("Dismissed " + it.ID[:8])
	if s := threadStatus(t, srv, it.ThreadID); s != "idle" {
		t.Fatalf("after the dismiss the thread is %s", s)
	}
	h.keys("H")
	h.wantScreen("dismissed")
}

// x on the confirm screen of a reject stops the thread there too; at
// 80x24 the screen says what that means before x is pressed.
func TestRejectAndStopKey(t *testing.T) {
	h, srv, it := demoHarness(t, "support", "refund")
	h.keys("enter", "r")
	h.typeText("not on a Sunday")
	h.keys("ctrl+s")
	h.wantScreen("Send this?", "reject: not on a Sunday", "x stop the agent too")
	flat := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(flat, "x also stops the agent: the reject ends the thread's work, the agent does not go on (it is not asked again)") {
		t.Fatalf("the confirm does not say what x does:\n%s", h.screen())
	}
	for _, row := range strings.Split(h.screen(), "\n") {
		if ansi.StringWidth(row) > 80 {
			t.Fatalf("a row wider than 80 columns: %q", row)
		}
	}
	h.keys("x")
	h.wantScreen("reject and stop: not on a Sunday", "rejected and stopped", "x let the agent go on")
	if s := h.screen(); strings.Contains(s, "also stops the agent") {
		t.Fatalf("once x is pressed the screen still offers it as to come:\n%s", s)
	}
	h.keys("y")
	h.wantScreen("Rejected and stopped " + it.ID[:8])
	if s := threadStatus(t, srv, it.ThreadID); s != "idle" {
		t.Fatalf("after the stop the thread is %s", s)
	}
}

// An interrupt with a deadline goes first, says when and what then, and
// is marked once expired.
func TestDeadlineFirstAndMarked(t *testing.T) {
	plain := fixture(t, "middleware-js-email", idEmail, time.Minute)
	raw := []byte(`{"question":"Ship 1842?","expires_at":"2026-11-22T03:04:00Z","default":"reject"}`)
	due := client.Interrupt{ID: idQ, ThreadID: "thread-due", GraphID: "wait", CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-time.Hour),
		Payload: client.Parse(raw), Raw: raw}
	h := newHarness(t, 120, 30, plain, due)
	if c := h.m.items.current(); c == nil || c.ID != idQ {
		t.Fatalf("the interrupt with a deadline is not first: %+v", c)
	}
	h.wantScreen("[expires in 4m, then: reject]", "⏳ expires in 4m, then: reject")
	if due := h.m.due(); due.IsZero() || due.After(h.now.Add(30*time.Second)) {
		t.Fatalf("no tick is due while a deadline counts down: %v", due)
	}
	h.now = t0.Add(6 * time.Minute)
	h.msg(tickMsg{gen: h.m.clock.gen, at: h.now})
	h.wantScreen("[EXPIRED 2m ago, then: reject]", "⏳ EXPIRED 2m ago, then: reject")
}

// space marks rows; A opens one confirm screen listing what it approves
// and what it leaves out; y sends, one resume per thread, and each outcome
// is shown.
func TestBulkApproveMarkedRows(t *testing.T) {
	email := fixture(t, "middleware-js-email", idEmail, time.Minute)
	ops := fixture(t, "middleware-js-ops", idOps, 2*time.Minute)
	q := fixture(t, "prompt-string", idQ, 3*time.Minute)
	h := newHarness(t, 100, 50, email, ops, q)
	h.now = h.now.Add(GracePeriod * 2)
	h.msg(space())
	h.msg(space())
	h.msg(space())
	h.wantScreen("3 marked")
	h.keys("A")
	h.wantScreen("Approve 2 interrupts in bulk?", "aaaa1111  thread thread-a", "bbbb2222  thread thread-b", "Left out (1):", "cccc3333", "approve is not allowed")
	if h.sent(idEmail) != "" {
		t.Fatal("sent before y")
	}
	h.keys("y")
	if h.sent(idEmail) != `{"decisions":[{"type":"approve"}]}` || h.sent(idOps) != `{"decisions":[{"type":"approve"},{"type":"approve"}]}` || h.sent(idQ) != "" {
		t.Fatalf("sent %q %q %q", h.sent(idEmail), h.sent(idOps), h.sent(idQ))
	}
	h.wantScreen("Outcomes", "Sent approve for aaaa1111", "Sent approve, approve for bbbb2222", "Approved 2 of 2")
	h.keys("esc")
	if len(h.m.marked) != 0 || len(h.m.stack) != 0 {
		t.Fatalf("after esc: marked %v, on %T", h.m.marked, h.m.top())
	}
}

// With a filter and no marks, A acts on every row shown.
func TestBulkApproveFilteredList(t *testing.T) {
	e1 := fixture(t, "middleware-js-email", idEmail, time.Minute)
	e2 := fixture(t, "middleware-js-email", "dddd4444dddd4444dddd4444dddd4444", 2*time.Minute)
	ops := fixture(t, "middleware-js-ops", idOps, 3*time.Minute)
	h := newHarness(t, 100, 30, e1, e2, ops)
	h.now = h.now.Add(GracePeriod * 2)
	h.keys("/")
	h.typeText("send_email")
	h.keys("enter", "A")
	h.wantScreen("Approve 2 interrupts in bulk?", "aaaa1111", "dddd4444")
	if strings.Contains(h.screen(), "bbbb2222") {
		t.Fatalf("the bulk takes a row the filter hides:\n%s", h.screen())
	}
}

// In a hub's session ctrl+e opens no program: it would run on the hub's
// machine, a shell for whoever types. The editor and the form say so, and
// the key bar does not offer it.
func TestNoExternalEditorInAHubSession(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.m.opts.NoExternalEditor = true
	h.keys("enter", "e")
	if _, ok := h.m.top().(*editorScreen); !ok {
		t.Fatalf("e did not open the editor:\n%s", h.screen())
	}
	if strings.Contains(h.screen(), "$EDITOR") {
		t.Fatalf("the key bar offers $EDITOR:\n%s", h.screen())
	}
	as := h.m.top().(*editorScreen).key(h.m.env(), tea.KeyPressMsg{Code: 'e', Mod: tea.ModCtrl})
	if len(as) != 0 {
		t.Fatal("ctrl+e returned a command: an editor would run")
	}
	h.keys("ctrl+e")
	h.wantScreen("no external editor here")

	h2, _, _ := demoHarness(t, "support", "refund")
	h2.m.opts.NoExternalEditor = true
	h2.keys("enter", "e")
	h2.wantScreen("Arguments of issue_refund")
	h2.keys("ctrl+e")
	if _, ok := h2.m.top().(*editorScreen); ok {
		t.Fatalf("ctrl+e in the form opened the JSON editor to run $EDITOR:\n%s", h2.screen())
	}
	h2.wantScreen("no external editor here")
}

// The detail on a screen of its own (under 100 columns) counts a deadline
// down each second in its last two minutes, as the list does: its text
// asks for the next tick (a reviewer saw it stand at "39s" for a minute).
func TestDetailScreenDeadlineCountsDown(t *testing.T) {
	raw := []byte(`{"question":"Ship 1842?","expires_at":"2026-11-22T03:04:00Z","default":"reject"}`)
	due := client.Interrupt{ID: idQ, ThreadID: "thread-due", GraphID: "wait", CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-time.Hour),
		Payload: client.Parse(raw), Raw: raw}
	h := newHarness(t, 80, 24, due)
	h.keys("enter")
	h.now = time.Date(2026, 11, 22, 3, 3, 15, 0, time.UTC)
	h.msg(tickMsg{gen: h.m.clock.gen, at: h.now})
	h.wantScreen("⏳ expires in 45s, then: reject")
	if next := h.m.due(); next.IsZero() || next.After(h.now.Add(time.Second)) {
		t.Fatalf("the detail's deadline asks for no tick within a second (next %v, now %v)", next, h.now)
	}
	h.now = h.now.Add(time.Second)
	h.msg(tickMsg{gen: h.m.clock.gen, at: h.now})
	if frame := ansi.Strip(h.m.frame); !strings.Contains(frame, "⏳ expires in 44s, then: reject") {
		t.Fatalf("a second later the frame drawn does not count down:\n%s", frame)
	}
}

// The key bar offers a key only where it does something: A on a filter
// that shows only questions (nothing it could approve), s before every
// action has a decision, space to a viewer (marks serve a bulk approve).
func TestKeysOfferedOnlyWhereTheyDoSomething(t *testing.T) {
	q1 := fixture(t, "prompt-string", idQ, time.Minute)
	q2 := fixture(t, "prompt-string", "dddd4444dddd4444dddd4444dddd4444", 2*time.Minute)
	ops := fixture(t, "middleware-js-ops", idOps, 3*time.Minute)
	h := newHarness(t, 80, 24, q1, q2, ops)
	h.now = h.now.Add(GracePeriod * 2)
	h.keys("/")
	h.typeText("prompt")
	h.keys("enter")
	if strings.Contains(h.screen(), "approve 2 shown") {
		t.Fatalf("A offered on questions it cannot approve:\n%s", h.screen())
	}
	h.keys("A")
	if _, ok := h.m.top().(*bulkScreen); ok {
		t.Fatalf("A opened a bulk approve of nothing:\n%s", h.screen())
	}
	h.wantScreen("None of the 2 shown can be approved")

	h = newHarness(t, 80, 24, ops)
	h.now = h.now.Add(GracePeriod * 2)
	h.keys("enter")
	if strings.Contains(h.screen(), "s submit") {
		t.Fatalf("s offered with no decision yet:\n%s", h.screen())
	}
	h.keys("a", "a")
	h.wantScreen("Send this?")
	h.keys("esc")
	h.wantScreen("s submit")

	h = newHarness(t, 80, 24, q1, ops)
	h.m.opts.ViewOnly = true
	if strings.Contains(h.screen(), "mark") {
		t.Fatalf("a viewer is offered marks:\n%s", h.screen())
	}
	h.msg(space())
	if len(h.m.marked) != 0 {
		t.Fatal("a viewer marked a row")
	}
	h.wantScreen("View only")
}

// The status line of a send does not stay on once the filter changes:
// what it said was about the list as it was.
func TestFilterClearsTheLastSendsStatus(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.now = h.now.Add(GracePeriod * 2)
	h.keys("a", "y")
	h.wantScreen("Sent approve")
	h.keys("/")
	h.typeText("ops")
	if strings.Contains(h.screen(), "Sent approve") {
		t.Fatalf("the last send's status stays after the filter changed:\n%s", h.screen())
	}
}

// After a reject and stop of a question, the confirm says what is rejected
// (no "every call": it has none), and the status quotes no agent's reply: the agent
// was not asked again, and the thread's last message (the planner's draft,
// written before it asked) is no answer to the decision.
func TestRejectAndStopQuotesNoReply(t *testing.T) {
	h, srv, it := demoHarness(t, "planner", "lunch tracker")
	h.keys("enter", "r")
	h.typeText("not now")
	h.keys("ctrl+s", "x")
	h.wantScreen("reject and stop: not now")
	// A question has no calls: the note does not say it rejects them.
	if flat := strings.Join(strings.Fields(h.screen()), " "); !strings.Contains(flat, "rejected and stopped: it is rejected and the thread's work ends there") {
		t.Fatalf("the note on a question:\n%s", h.screen())
	}
	h.keys("y")
	h.wantScreen("Rejected and stopped " + it.ID[:8])
	if s := threadStatus(t, srv, it.ThreadID); s != "idle" {
		t.Fatalf("after the stop the thread is %s", s)
	}
	flat := strings.Join(strings.Fields(h.screen()), " ")
	if strings.Contains(flat, "Agent:") || strings.Contains(flat, "Draft plan") {
		t.Fatalf("the status quotes a reply the agent never gave:\n%s", h.screen())
	}
}

// After a bulk send at 80x24, the outcomes are what the screen shows,
// without a key: each one sent and each one refused; what was confirmed is
// above them, a scroll up.
func TestBulkOutcomesInViewAt80x24(t *testing.T) {
	e1 := fixture(t, "middleware-js-email", idEmail, time.Minute)
	e2 := fixture(t, "middleware-js-email", "dddd4444dddd4444dddd4444dddd4444", 2*time.Minute)
	ops := fixture(t, "middleware-js-ops", idOps, 3*time.Minute)
	q := fixture(t, "prompt-string", idQ, 4*time.Minute)
	h := newHarness(t, 80, 24, e1, e2, ops, q)
	h.now = h.now.Add(GracePeriod * 2)
	for range 4 {
		h.msg(space())
	}
	h.keys("A")
	h.wantScreen("Approve 3 interrupts in bulk?")
	h.b.SetBusy(e2.ThreadID, true) // its thread runs another task: refused
	h.keys("y")
	h.wantScreen("Outcomes", "Sent approve for aaaa1111", "dddd4444", "Sent approve, approve for bbbb2222", "Approved 2 of 3", "esc back to the list", "↑")
	// What was confirmed is a scroll up.
	h.keys("g")
	h.wantScreen("Approve 3 interrupts in bulk?")
}
