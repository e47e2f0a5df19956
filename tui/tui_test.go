package tui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/events"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/client/rest"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/present"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC
	os.Exit(m.Run())
}

var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

// fixture builds an interrupt from a payload captured from the real server.
func fixture(t *testing.T, name, id string, age time.Duration) client.Interrupt {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "client", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return client.Interrupt{ID: id, ThreadID: "thread-" + id[:4], GraphID: strings.SplitN(name, "-", 2)[0],
		AssistantID: "asst-1", CreatedAt: t0.Add(-age), UpdatedAt: t0.Add(-age), Payload: client.Parse(raw), Raw: raw}
}

type harness struct {
	t   *testing.T
	m   *Model
	b   *fake.Backend
	be  client.Backend
	j   *journal.Journal
	now time.Time
}

func newHarness(t *testing.T, w, h int, items ...client.Interrupt) *harness {
	t.Helper()
	return newHarnessKeys(t, w, h, nil, items...)
}

func newHarnessKeys(t *testing.T, w, h int, keys map[string][]string, items ...client.Interrupt) *harness {
	t.Helper()
	fb := fake.New(items...)
	hs := newHarnessOn(t, w, h, keys, fb)
	hs.b = fb
	return hs
}

func newHarnessOn(t *testing.T, w, h int, keys map[string][]string, backend client.Backend) *harness {
	t.Helper()
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessWith(t, w, h, keys, backend, j)
}

// newHarnessJournal is a harness on the fake backend with items, writing
// to journal j.
func newHarnessJournal(t *testing.T, w, h int, j *journal.Journal, items ...client.Interrupt) *harness {
	t.Helper()
	fb := fake.New(items...)
	hs := newHarnessWith(t, w, h, nil, fb, j)
	hs.b = fb
	return hs
}

func newHarnessWith(t *testing.T, w, h int, keys map[string][]string, backend client.Backend, j *journal.Journal) *harness {
	t.Helper()
	hs := &harness{t: t, be: backend, j: j, now: t0}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m, err := New(Options{Backend: backend, Journal: j, Reviewer: "tester", PollInterval: time.Second, Context: ctx,
		Now: func() time.Time { return hs.now }, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	hs.m = m
	hs.msg(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.fetch(false))
	return hs
}

// msg feeds one message and runs what it starts.
func (h *harness) msg(msg tea.Msg) {
	h.t.Helper()
	next, cmd := h.m.Update(msg)
	h.m = next.(*Model)
	h.run(cmd)
}

// run executes a command and feeds back the answers of the backend and the
// journal; timers (ticks, polls) are left alone.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	for _, msg := range collect(cmd) {
		switch msg.(type) {
		case pendingMsg, progressMsg, sentMsg, bulkSentMsg, checkedMsg, historyMsg, conversationMsg, runCtlMsg, detailRenderedMsg, claimMsg, winnerMsg, draftsSavedMsg:
			h.msg(msg)
		}
	}
}

// sequenceOf is the commands of a tea.Sequence's message (a private type
// of Bubble Tea's: a slice of commands), or nil.
func sequenceOf(msg tea.Msg) []tea.Cmd {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() || v.Type() == reflect.TypeFor[tea.BatchMsg]() {
		return nil
	}
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return out
}

// collect runs cmd and returns its messages, however long it takes; timers
// and waits (see waits) are not run: their messages would come later.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil || waits(cmd) {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		if seq := sequenceOf(msg); seq != nil {
			// The commands of a sequence run one after another, in order.
			var out []tea.Msg
			for _, c := range seq {
				out = append(out, collect(c)...)
			}
			return out
		}
		batch, ok := msg.(tea.BatchMsg)
		if !ok {
			return []tea.Msg{msg}
		}
		// The commands of a batch run at once, as Bubble Tea runs them.
		results := make([][]tea.Msg, len(batch))
		var wg sync.WaitGroup
		for i, c := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = collect(c)
			}()
		}
		wg.Wait()
		var out []tea.Msg
		for _, r := range results {
			out = append(out, r...)
		}
		return out
	case <-time.After(time.Minute):
		panic("a command did not answer in a minute; if it is a timer or a wait, teach waits its maker: " + maker(cmd))
	}
}

// waits reports whether cmd is a timer or a wait for a signal: Bubble Tea's
// Tick and Every (the spinner), the app's after (its poll, clock and rest) and its
// waitChange. A command is a function, so it is told by the function that
// made it; inlining prefixes the name (tui.Model.Update.waitChange.func3),
// so only the maker's segment is matched.
func waits(cmd tea.Cmd) bool {
	name := maker(cmd)
	for _, m := range []string{".Tick.func", ".Every.func", ".after.func", ".waitChange.func"} {
		if strings.Contains(name, m) {
			return true
		}
	}
	return false
}

func maker(cmd tea.Cmd) string {
	return runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
}

func (h *harness) keys(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.msg(keyMsg(k))
	}
}

func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		if r == '\n' {
			h.msg(tea.KeyPressMsg{Code: tea.KeyEnter})
			continue
		}
		h.msg(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	if strings.HasPrefix(k, "ctrl+") {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func (h *harness) screen() string { return ansi.Strip(h.m.render()) }

func (h *harness) sent(id string) string {
	h.t.Helper()
	r, ok := h.b.SentValue(id)
	if !ok {
		return ""
	}
	if r.Continue {
		return "continue"
	}
	return string(r.Value)
}

func (h *harness) wantScreen(parts ...string) {
	h.t.Helper()
	s := h.screen()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			h.t.Fatalf("screen does not show %q:\n%s", p, s)
		}
	}
}

const (
	idEmail = "aaaa1111aaaa1111aaaa1111aaaa1111"
	idOps   = "bbbb2222bbbb2222bbbb2222bbbb2222"
	idQ     = "cccc3333cccc3333cccc3333cccc3333"
)

// slowBackend answers reads after a while, as a real server may.
type slowBackend struct{ *fake.Backend }

func (b slowBackend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	time.Sleep(300 * time.Millisecond)
	return b.Backend.Pending(ctx)
}

// The harness waits for a slow answer; only timers are left alone.
func TestHarnessWaitsForSlowAnswers(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute))
	h := newHarnessOn(t, 80, 24, nil, slowBackend{fb})
	h.b = fb
	h.keys("enter", "a", "y")
	h.wantScreen("Sent approve for aaaa1111")
}

func TestApproveSendsExactlyOnceAndRemembers(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "a")
	h.wantScreen("Send this?", "Action 1/1 send_email: approve")
	if h.sent(idEmail) != "" {
		t.Fatal("sent before the confirm")
	}
	h.keys("y")
	if got := h.sent(idEmail); got != `{"decisions":[{"type":"approve"}]}` {
		t.Fatalf("sent %s", got)
	}
	h.wantScreen("Sent approve for aaaa1111 (thread thread-aaaa): the run finished.", "No pending interrupts")
	if !h.j.IsHandled(idEmail) {
		t.Fatal("not recorded as handled")
	}
	// The server still lists it for a moment: it does not come back.
	h.b.Set(fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.run(h.m.fetch(false))
	h.wantScreen("No pending interrupts")
}

func TestEditShowsDiffBeforeSending(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "e")
	h.wantScreen("Arguments of send_email (JSON)", `"to": "customer@example.com"`)
	// What $EDITOR (ctrl+e) hands back replaces the draft.
	h.msg(externalEditMsg{text: `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi", "cc": []}`})
	h.keys("ctrl+s")
	h.wantScreen("Changed: $.body, $.cc[0] removed, $.to", `-   "to": "[customer]@example.com"`, `+   "to": "[jane]@example.com"`)
	h.keys("v")
	h.wantScreen(`"editedAction"`)
	h.keys("y")
	want := `{"decisions":[{"type":"edit","editedAction":{"name":"send_email","args":{"to":"jane@example.com","subject":"Your refund","body":"Hi","cc":[]}}}]}`
	if got := h.sent(idEmail); got != want {
		t.Fatalf("sent %s\nwant %s", got, want)
	}
}

func TestEditErrorsKeepTheDraft(t *testing.T) {
	h := newHarness(t, 140, 40, fixture(t, "middleware-js-refund", idEmail, time.Minute))
	h.keys("e", "ctrl+j") // the args_schema's form, then the arguments as JSON
	h.wantScreen("Arguments of issue_refund (JSON)")
	h.msg(externalEditMsg{text: `{"order_id": "A-1001", "amount": 150, "currency": "EUR"}`})
	h.keys("ctrl+s")
	h.wantScreen("at $.amount: must be at most 100 (got 150)", "Your text is kept")
	h.keys("esc") // back to the form: the draft is there
	h.wantScreen("amount *  number at most 100", "│ 150")
	h.keys("esc", "e") // leave and come back: still there
	h.wantScreen("amount *  number at most 100", "│ 150")
	h.keys("ctrl+j")
	h.wantScreen(`"amount": 150`)
	// An edit that changes nothing is an approve.
	h.msg(externalEditMsg{text: `{"order_id":"A-1001","amount":12.5,"currency":"EUR"}`})
	h.keys("ctrl+s")
	h.wantScreen("Action 1/1 issue_refund: approve")
}

// An action with an args_schema is edited in a form built from it, with
// the arguments filled in; a value out of bounds is refused next to its
// field, and what reaches the server keeps the keys' order and the values
// not touched.
func TestEditArgumentsInTheirForm(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-refund", idEmail, time.Minute))
	h.keys("e")
	h.wantScreen("Arguments of issue_refund", "order_id *  text", "│ A-1001", "amount *  number at most 100", "│ 12.5", "ctrl+j edits it as JSON")
	h.keys("tab", "ctrl+u")
	h.typeText("150")
	h.keys("ctrl+s")
	h.wantScreen("✗ must be at most 100 (got 150)")
	h.keys("ctrl+u")
	h.typeText("20")
	h.keys("ctrl+s")
	h.wantScreen("Action 1/1 issue_refund: edit", `-   "amount": [12.5],`, `+   "amount": [20],`)
	h.keys("y")
	want := `{"decisions":[{"type":"edit","editedAction":{"name":"issue_refund","args":{"order_id":"A-1001","amount":20,"currency":"EUR"}}}]}`
	if got := h.sent(idEmail); got != want {
		t.Fatalf("sent %s\nwant %s", got, want)
	}
}

// Arguments the form cannot show exactly (a key of the wrong type for its
// field) open in the JSON editor: a form never edits what it hides.
func TestArgumentsTheFormCannotShowOpenAsJSON(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-refund", idEmail, time.Minute))
	h.keys("e", "ctrl+j")
	h.msg(externalEditMsg{text: `{"order_id": "A-1001", "amount": {"value": 12.5}, "currency": "EUR"}`})
	h.keys("esc") // not back to the form: it cannot show this
	h.wantScreen("Arguments of issue_refund (JSON)", "the form cannot show this JSON")
	h.keys("esc", "e")
	h.wantScreen("Arguments of issue_refund (JSON)", `"value": 12.5`)
}

func TestRejectWithFeedback(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "r")
	h.wantScreen("Reason for rejecting send_email (sent to the agent)")
	h.typeText("wrong customer\nask first")
	h.keys("ctrl+s", "enter")
	if got := h.sent(idEmail); got != `{"decisions":[{"type":"reject","message":"wrong customer\nask first"}]}` {
		t.Fatalf("sent %s", got)
	}
}

func TestMultiActionMix(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-ops", idOps, time.Minute))
	h.keys("enter", "e")
	h.wantScreen("edit is not allowed for action 1; allowed: approve, reject")
	h.keys("a") // action 1 approved; action 2 is next
	h.wantScreen("Now action 2 of 2")
	// tab wraps to action 1: the status follows, not "action 2 next".
	h.keys("tab")
	h.wantScreen("On action 1 of 2 (decided: approve); 1 still undecided.")
	h.keys("tab")
	h.wantScreen("On action 2 of 2 (undecided); 1 still undecided.")
	h.keys("e")
	h.msg(externalEditMsg{text: `{"channel": "#ops-quiet", "text": "Pruned"}`})
	h.keys("ctrl+s")
	h.wantScreen("Action 1/2 delete_records: approve", "Action 2/2 notify: edit", "Changed: $.channel")
	h.keys("y")
	want := `{"decisions":[{"type":"approve"},{"type":"edit","editedAction":{"name":"notify","args":{"channel":"#ops-quiet","text":"Pruned"}}}]}`
	if got := h.sent(idOps); got != want {
		t.Fatalf("sent %s", got)
	}
}

func TestMixWithRejectWarnsOfJSMiddleware(t *testing.T) {
	h := newHarness(t, 80, 40, fixture(t, "middleware-js-ops", idOps, time.Minute))
	h.keys("enter", "r")
	h.typeText("no")
	h.keys("ctrl+s", "a")
	h.wantScreen("Note: LangChain's JavaScript middleware does not run the approved")
	h.keys("esc", "s")
	h.wantScreen("Send this?")
}

func TestSubmitNeedsEveryDecision(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-ops", idOps, time.Minute))
	h.keys("enter", "s")
	h.wantScreen("Action 1 has no decision yet.")
	h.keys("A")
	h.wantScreen("Send this?")
	h.keys("enter")
	if got := h.sent(idOps); got != `{"decisions":[{"type":"approve"},{"type":"approve"}]}` {
		t.Fatalf("sent %s", got)
	}
}

// The list alone (below 100 columns, no detail open): the selected row
// leaves and the keys on the row are held for GracePeriod. (The interrupt
// open in a detail, or beside the list, holds them until a row is chosen:
// vanish_test.go.)
func TestGracePeriodAfterTheSelectionChanges(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.wantScreen("▸   aaaa1111")
	// Someone else handles the selected one; the cursor lands on the other.
	h.b.Set(h.b.Items()[1:]...)
	h.run(h.m.fetch(false))
	h.wantScreen("▸   bbbb2222")
	h.keys("A")
	h.wantScreen("Key ignored: the selected interrupt just changed")
	if onTop[*confirmScreen](h.m) {
		t.Fatal("a key meant for the previous item acted on the new one")
	}
	h.now = h.now.Add(GracePeriod + time.Millisecond)
	h.keys("A")
	h.wantScreen("Send this?", "delete_records")
}

func TestFailureKeepsTheDraft(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.b.SetSendErr(errors.New("resume thread: the server at http://fake refused the connection"))
	h.keys("enter", "r")
	h.typeText("not this one")
	h.keys("ctrl+s", "y")
	h.wantScreen("Draft kept (s sends it again). aaaa1111: not sent:")
	if h.j.IsHandled(idEmail) {
		t.Fatal("a failed send was recorded as handled")
	}
	h.b.SetSendErr(nil)
	h.keys("s")
	h.wantScreen("reject: not this one")
	h.keys("y")
	if got := h.sent(idEmail); got != `{"decisions":[{"type":"reject","message":"not this one"}]}` {
		t.Fatalf("sent %s", got)
	}
}

func TestAlreadyHandledElsewhere(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"reject"}]}`)})
	h.keys("enter", "a", "y")
	h.wantScreen("already handled elsewhere; nothing sent", "by bob", "No pending interrupts")
}

// A decision whose fate cannot be established is never hidden: it stays in
// a section of its own until the server tells, and C looks it up.
func TestUnknownOutcomeStaysVisibleUntilChecked(t *testing.T) {
	h := newHarness(t, 160, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.b.LoseAnswer = true
	h.b.SetVerifyErr(errors.New("the server at http://fake did not answer in time"))
	h.keys("a", "y")
	h.wantScreen("cannot tell whether the decision reached the server")
	h.run(h.m.fetch(false))
	h.wantScreen("? 1 decision(s) of unknown outcome · C looks them up again", "? aaaa1111")
	if h.j.IsHandled(idEmail) {
		t.Fatal("a guess hid the interrupt")
	}
	h.b.SetVerifyErr(nil)
	h.keys("C")
	h.wantScreen("Looked up again: Sent approve for aaaa1111")
	if strings.Contains(h.screen(), "unknown outcome") || !h.j.IsHandled(idEmail) {
		t.Fatalf("still unknown:\n%s", h.screen())
	}
}

// A run the server lost after the TUI sent it (an in-memory server that
// restarted while the run was going): the TUI's reconcile (at start, and
// C) finds it lost, says so, and the interrupt is back in the list, ready
// to be decided again.
func TestRunTheServerLostComesBack(t *testing.T) {
	h := newHarness(t, 160, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.b.Outcome = client.Outcome{Status: client.Running, Error: "follow run: connection refused"}
	h.keys("a", "y")
	h.wantScreen("the run is still going")
	h.run(h.m.fetch(false))
	h.wantScreen("No pending interrupts")
	h.b.Restart()
	h.run(h.m.reconcile())
	h.wantScreen("the server lost the run that carried this decision", "decide it again", "aaaa1111")
	if strings.Contains(h.screen(), "No pending interrupts") || h.j.IsHandled(idEmail) {
		t.Fatalf("the interrupt is still hidden:\n%s", h.screen())
	}
}

func TestQuestionsNeedFeedbackAndTakeAnswers(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "questions", idQ, time.Minute))
	h.keys("enter", "r", "ctrl+s")
	h.wantScreen("this interrupt needs feedback text for reject")
	h.keys("esc", "f")
	h.typeText("React, with tests")
	h.keys("tab")
	h.typeText("React")
	h.keys("tab")
	h.typeText("Yes")
	// shift+tab goes back a field: here, to the first answer.
	h.keys("shift+tab")
	h.typeText(" 19")
	h.keys("ctrl+s", "y")
	if got := h.sent(idQ); got != `{"decision":"edit","feedback":"React, with tests","answers":["React 19","Yes"]}` {
		t.Fatalf("sent %s", got)
	}
}

// Quitting keeps the drafts: a reviewer interrupted mid-edit (q, ctrl+c,
// a dropped connection) finds the text again in the next run.
func TestDraftsSurviveQuitting(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "r")
	h.typeText("half a thought")
	_, cmd := h.m.Update(keyMsg("ctrl+c")) // mid-edit
	runAll(cmd)
	next, err := New(Options{Backend: h.b, Journal: h.j, Now: func() time.Time { return h.now }})
	if err != nil {
		t.Fatal(err)
	}
	h2 := &harness{t: t, m: next, b: h.b, be: h.b, j: h.j, now: h.now}
	h2.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	h2.run(h2.m.fetch(false))
	h2.wantScreen("✎")
	h2.keys("enter", "r")
	h2.wantScreen("half a thought")
}

// runAll runs a command and what it batches or sequences, for their effects.
func runAll(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			runAll(c)
		}
	default:
		// tea.Sequence's message is an unexported slice of commands.
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice {
			for i := range v.Len() {
				if c, ok := v.Index(i).Interface().(tea.Cmd); ok {
					runAll(c)
				}
			}
		}
	}
}

func TestBackendErrorShowsAndRecovers(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.b.SetListErr(errors.New("list interrupted threads: the server at http://fake refused the connection"))
	h.run(h.m.fetch(false))
	h.wantScreen("✗ list interrupted threads", "aaaa1111")
	if h.m.backoff != 2*time.Second {
		t.Fatalf("backoff %s", h.m.backoff)
	}
	h.b.SetListErr(nil)
	h.run(h.m.fetch(false))
	h.wantScreen("● http://fake · updated")
}

func TestFilterAndSort(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "questions", idQ, 2*time.Minute))
	h.keys("/")
	h.typeText("framework")
	h.keys("enter")
	h.wantScreen("1 shown", "cccc3333")
	if strings.Contains(h.screen(), "aaaa1111") {
		t.Fatal("the filter kept a non-matching item")
	}
	h.keys("esc", "o")
	h.wantScreen("sorted by oldest")
}

func TestHostileTextIsInert(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "escape", idEmail, time.Minute))
	h.keys("enter")
	raw := h.m.render()
	for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\a", "\u202e", "\u200b", "\x1b[31mharmless"} {
		if strings.Contains(raw, bad) {
			t.Fatalf("the screen carries %q raw", bad)
		}
	}
	h.wantScreen(`\u001b[2J`, `\u202e`, "⚠ This interrupt contains control characters, bidi", `Looks \u001b[31mharmless`)
}

// Golden screens of every payload shape at 80x24 and 140x40. Update them
// with: go test ./tui -run TestGolden -update
func TestGolden(t *testing.T) {
	shapes := []struct{ name, fixture string }{
		{"middleware", "middleware-js-ops"}, {"middleware-py", "middleware-py"}, {"inbox", "inbox-list"},
		{"questions", "questions"}, {"prompt", "prompt-object"}, {"raw", "raw"}, {"escape", "escape"},
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		for _, s := range shapes {
			t.Run(s.name+"-"+strconv.Itoa(size.w)+"x"+strconv.Itoa(size.h), func(t *testing.T) {
				items := []client.Interrupt{
					fixture(t, s.fixture, "dddd4444dddd4444dddd4444dddd4444", 3*time.Minute),
					fixture(t, "prompt-string", "eeee5555eeee5555eeee5555eeee5555", 2*time.Hour),
				}
				bp := items[1]
				bp.ID, bp.Payload, bp.Raw = "ffff6666ffff6666ffff6666ffff6666", client.Breakpoint([]string{"act"}), json.RawMessage("null")
				items = append(items, bp)
				h := newHarness(t, size.w, size.h, items...)
				if size.w < 100 {
					h.keys("enter")
				}
				golden.RequireEqual(t, h.screen())
			})
		}
	}
}

func TestKeysFromConfig(t *testing.T) {
	h := newHarnessKeys(t, 80, 24, map[string][]string{"approve": {"Y"}, "confirm": {"ctrl+y"}},
		fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "a")
	if onTop[*confirmScreen](h.m) {
		t.Fatal("the default key still approves")
	}
	h.keys("Y")
	h.wantScreen("Send this?")
	h.keys("y")
	if h.sent(idEmail) != "" {
		t.Fatal("the default confirm key still sends")
	}
	h.keys("ctrl+y")
	if h.sent(idEmail) == "" {
		t.Fatal("the configured confirm key did not send")
	}
	if _, err := New(Options{Backend: h.b, Keys: map[string][]string{"aprove": {"x"}}}); err == nil || !strings.Contains(err.Error(), "approve_all") {
		t.Fatalf("err = %v", err)
	}
}

func TestRawAnsweredWithJSONOrText(t *testing.T) {
	h := newHarness(t, 140, 40, fixture(t, "raw", idEmail, time.Minute), fixture(t, "raw", idOps, 2*time.Minute))
	h.keys("f")
	h.typeText(`{"approved": true, "limit": 50}`)
	h.keys("ctrl+s", "y")
	if got := h.sent(idEmail); got != `{"approved":true,"limit":50}` {
		t.Fatalf("sent %s", got)
	}
	h.now = h.now.Add(time.Second)
	h.keys("f")
	h.typeText("go ahead")
	h.keys("ctrl+s", "y")
	if got := h.sent(idOps); got != `"go ahead"` {
		t.Fatalf("sent %s", got)
	}
}

func TestRESTCheckpointsAndRunControls(t *testing.T) {
	fake := demo.NewREST()
	fake.StepDelay = 0
	ts := httptest.NewServer(fake.Handler())
	defer func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }() // streams end first
	b, err := rest.New(rest.Options{Options: transport.Options{URL: ts.URL}})
	if err != nil {
		t.Fatal(err)
	}
	run := fake.Spawn("")
	h := newHarnessOn(t, 120, 50, nil, b)
	h.wantScreen("Information review: black-forest-labs/flux-schnell", "[info]", "Confidence: 0.62")
	h.keys("P")
	h.wantScreen("Pause run " + run)
	h.keys("y")
	h.wantScreen("Run " + run + ": pause (status paused)")
	h.keys("U", "y")
	h.wantScreen("status awaiting_human")
	h.keys("a", "y")
	h.wantScreen("the run paused again")
	h.run(h.m.fetch(false))
	h.now = h.now.Add(time.Second) // past the grace period of the new item
	h.wantScreen("Payload review", "proposed, against its example:", "$.image_file added", `+   "num_outputs": [4]`, "suggested fix")
	h.keys("e")
	h.msg(externalEditMsg{text: `{"prompt": "A watercolor fox reading a newspaper in a cafe", "num_outputs": 1, "aspect_ratio": "16:9", "output_format": "png"}`})
	h.keys("ctrl+s", "v")
	h.wantScreen(`"edits": {`, `"num_outputs": 1`, `"image_file": null`, `"approved_by": "tester"`)
	h.keys("y")
	h.run(h.m.fetch(false))
	h.now = h.now.Add(time.Second)
	h.wantScreen("Response review", "raw output", "cleaned text", "Generated 1 image")
	h.keys("X")
	h.wantScreen("Cancel (cannot be undone) run " + run)
	h.keys("n")
	h.wantScreen("Nothing done.")
}

// Two reviewers on one event-stream coordinator: what one answers vanishes
// from the other's screen as soon as the answered event arrives.
func TestEventsAnsweredVanishFromTheOtherReviewer(t *testing.T) {
	fake := demo.NewEvents()
	ts := httptest.NewServer(fake.Handler())
	defer func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }()
	open := func() *harness {
		b, err := events.New(events.Options{Options: transport.Options{URL: ts.URL}, Reviewer: "tester"})
		if err != nil {
			t.Fatal(err)
		}
		return newHarnessOn(t, 120, 30, nil, b)
	}
	alice, bob := open(), open()
	// The stream's signal is what makes the app refetch (Update on changeMsg
	// does what onChange below does; see TestChangeRefetches).
	onChange := func(h *harness) {
		t.Helper()
		select {
		case <-h.m.changes:
		case <-time.After(5 * time.Second):
			t.Fatal("no change signal from the stream")
		}
		h.run(h.m.fetch(false))
	}
	id := fake.Ask("deploy-bot", "s1", map[string]any{"questions": []any{"Deploy now?"}, "allowed_decisions": []any{"approve", "reject"}})
	onChange(bob) // hitl_asked
	bob.wantScreen(present.ShortID(id), "Deploy now?")
	alice.run(alice.m.fetch(false))
	alice.keys("a", "y")
	if got := string(fake.Answers[id]); got != `{"decision":"approve"}` {
		t.Fatalf("the agent got %s", got)
	}
	onChange(bob) // hitl_answered
	bob.wantScreen("No pending interrupts")
}

func TestChangeRefetches(t *testing.T) {
	h := newHarness(t, 80, 24)
	next, cmd := h.m.Update(changeMsg{})
	if !next.(*Model).fetching || cmd == nil {
		t.Fatal("a change signal does not start a fetch")
	}
}

// The detail of an interrupt that vanishes does not turn into another one's.
func TestDetailOfAVanishedInterrupt(t *testing.T) {
	h := newHarness(t, 80, 24,
		fixture(t, "middleware-js-email", idEmail, time.Minute),
		fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "r")
	h.typeText("half done")
	h.keys("esc")
	h.wantScreen("Review tool call send_email")
	h.b.Set(h.b.Items()[1:]...)
	h.run(h.m.fetch(false))
	h.wantScreen("aaaa1111 is gone: the server no longer knows it", "▸   bbbb2222")
	if len(h.m.stack) != 0 {
		t.Fatal("still on a detail screen")
	}
	// It comes back (a glitch): the typed reason is still there.
	h.b.Set(append([]client.Interrupt{fixture(t, "middleware-js-email", idEmail, time.Minute)}, h.b.Items()...)...)
	h.run(h.m.fetch(false))
	h.keys("k")
	h.now = h.now.Add(time.Second)
	h.keys("enter", "r")
	h.wantScreen("half done")
}

func TestHelpFitsAt80Columns(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.keys("?")
	h.wantScreen("resume JSON", "unified/side-by-side", "ctrl+c quit now")
	for _, line := range strings.Split(h.screen(), "\n") {
		if strings.Contains(line, "…") {
			t.Fatalf("a help line is cut: %q", line)
		}
	}
}

// Golden screens of every screen but the inbox and detail (TestGolden): the
// confirm screen with a diff, the editor with questions, help, history, and
// the server-down state, at 80x24 and 140x40. The "ansi" set keeps the
// colours, so that a colour regression shows in review.
func TestGoldenScreens(t *testing.T) {
	screens := []struct {
		name string
		keep bool // keep ANSI
		make func(t *testing.T, w, h int) *harness
	}{
		{"confirm", false, func(t *testing.T, w, h int) *harness {
			hs := newHarness(t, w, h, fixture(t, "middleware-js-email", idEmail, time.Minute))
			hs.open()
			hs.keys("e")
			hs.msg(externalEditMsg{text: `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi Jane", "cc": []}`})
			hs.keys("ctrl+s")
			return hs
		}},
		{"confirm-ansi", true, func(t *testing.T, w, h int) *harness {
			hs := newHarness(t, w, h, fixture(t, "middleware-js-ops", idOps, time.Minute))
			hs.open()
			hs.keys("r")
			hs.typeText("not on a Friday")
			hs.keys("ctrl+s", "a", "v")
			return hs
		}},
		{"editor", false, func(t *testing.T, w, h int) *harness {
			hs := newHarness(t, w, h, fixture(t, "questions", idQ, time.Minute))
			hs.open()
			hs.keys("f")
			hs.typeText("React, with tests")
			hs.keys("tab")
			hs.typeText("React")
			return hs
		}},
		{"editor-error", false, func(t *testing.T, w, h int) *harness {
			hs := newHarness(t, w, h, fixture(t, "middleware-js-email", idEmail, time.Minute))
			hs.open()
			hs.keys("e")
			hs.msg(externalEditMsg{text: `{"to": "jane@example.com",`})
			hs.keys("ctrl+s")
			return hs
		}},
		{"help", false, func(t *testing.T, w, h int) *harness {
			hs := newHarness(t, w, h)
			hs.keys("?")
			return hs
		}},
		{"history", false, func(t *testing.T, w, h int) *harness {
			hs := newHarness(t, w, h)
			for i, e := range []journal.Entry{
				{DecisionID: "d1", Time: t0.Add(-2 * time.Hour), Reviewer: "alice", InterruptID: idEmail, Title: "Review tool call send_email",
					Schema: client.SchemaMiddleware, Decisions: []client.Decision{{Type: client.Reject, Message: "wrong customer"}}, Outcome: journal.Finished},
				{DecisionID: "d2", Time: t0.Add(-time.Hour), Reviewer: "bob", InterruptID: idOps, Title: "Review 2 tool calls: delete_records, notify",
					Schema: client.SchemaMiddleware, Decisions: []client.Decision{{Type: client.Approve}, {Type: client.Edit}}, Outcome: journal.HandledElsewhere},
			} {
				if err := hs.j.Record(e); err != nil {
					t.Fatal(i, err)
				}
			}
			hs.keys("H")
			return hs
		}},
		{"server-down", false, func(t *testing.T, w, h int) *harness {
			// Down from the start: the error owns the body.
			b := fake.New()
			b.SetListErr(errors.New("list interrupted threads: the server at http://fake refused the connection: is `langgraph dev` running there? (set --url or HITL_URL)"))
			hs := newHarnessOn(t, w, h, nil, b)
			hs.b = b
			return hs
		}},
		{"server-lost", false, func(t *testing.T, w, h int) *harness {
			// Down after a listing: the error heads what was listed.
			hs := newHarness(t, w, h, fixture(t, "middleware-js-email", idEmail, time.Minute))
			hs.b.SetListErr(errors.New("list interrupted threads: the server at http://fake did not answer in time: is it overloaded or unreachable?"))
			hs.run(hs.m.fetch(false))
			return hs
		}},
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		for _, s := range screens {
			t.Run(s.name+"-"+strconv.Itoa(size.w)+"x"+strconv.Itoa(size.h), func(t *testing.T) {
				h := s.make(t, size.w, size.h)
				out := h.screen()
				if s.keep {
					out = h.m.render()
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// open shows the selected interrupt where decisions are made: its own
// screen below 100 columns, beside the inbox from there.
func (h *harness) open() {
	h.t.Helper()
	if !h.m.lay.wide {
		h.keys("enter")
	}
}

// After a send the cursor stays at the same row of the inbox (on the next
// item), not back at the top of a long list.
func TestCursorStaysInPlaceAfterASend(t *testing.T) {
	var its []client.Interrupt
	for i, id := range []string{"a1110000", "b2220000", "c3330000", "d4440000", "e5550000"} {
		its = append(its, fixture(t, "middleware-js-email", id, time.Duration(i+1)*time.Minute))
	}
	h := newHarness(t, 80, 24, its...)
	h.keys("j", "j")
	if c := h.m.items.current(); c == nil || c.ID != "c3330000" {
		t.Fatalf("cursor on %v", c)
	}
	h.keys("enter", "a", "y")
	h.wantScreen("Sent approve for c3330000")
	if h.sent("c3330000") == "" {
		t.Fatal("nothing sent")
	}
	if c := h.m.items.current(); c == nil || c.ID != "d4440000" {
		t.Fatalf("after the send the cursor is on %+v, want the next item d4440000", c)
	}
	h.wantScreen("3/4")
}

// An interrupt answered by someone else while this reviewer has it open
// says who answered it and how, in the editor and after leaving a detail.
func TestVanishedInterruptSaysWhoAnswered(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "r")
	h.typeText("not this one")
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
	h.run(h.m.fetch(false))
	h.wantScreen("aaaa1111 was answered elsewhere (by bob", `{"decisions":[{"type":"approve"}]})`, "Your text is kept")
	if h.b.Resumes != 0 {
		t.Fatal("sent")
	}
	h.keys("esc")
	h.wantScreen("aaaa1111 was answered elsewhere (by bob", "What you typed is kept in drafts.json")

	h.now = h.now.Add(GracePeriod * 2) // enter waits while the cursor has just fallen on ops
	h.keys("enter")
	h.b.AnswerElsewhere(idOps, "carol", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"reject"},{"type":"reject"}]}`)})
	h.run(h.m.fetch(false))
	h.wantScreen("bbbb2222 was answered elsewhere (by carol")
}

// A fan-out branch answered (here or elsewhere) moves its thread up the
// list: the cursor follows to the next branch of that thread, not to
// whatever now sits at the old row.
func TestCursorFollowsTheThreadAfterABranchIsAnswered(t *testing.T) {
	var its []client.Interrupt
	for i, id := range []string{"a1110000", "b2220000", "c3330000"} {
		its = append(its, fixture(t, "middleware-js-email", id, time.Duration(i+1)*time.Minute))
	}
	x1 := fixture(t, "prompt-parallel", "f1110000", 10*time.Minute)
	x2 := fixture(t, "prompt-parallel", "f2220000", 10*time.Minute)
	x2.ThreadID = x1.ThreadID
	h := newHarness(t, 100, 30, append(its, x1, x2)...)
	h.keys("j", "j", "j")
	if c := h.m.items.current(); c == nil || c.ID != x1.ID {
		t.Fatalf("cursor on %+v", c)
	}
	// The server answered x1; the thread's update time moves x2 to the top.
	x2.UpdatedAt = t0
	h.b.Set(append(its, x2)...)
	h.run(h.m.fetch(false))
	if c := h.m.items.current(); c == nil || c.ID != x2.ID {
		t.Fatalf("the cursor went to %+v, want the other branch %s", c, x2.ID)
	}
}

// onTop reports whether the screen in front is a T.
func onTop[T screen](m *Model) bool {
	_, ok := m.top().(T)
	return ok
}

// The help's keys and descriptions are drawn in the terminal's own colour
// (keys bold), not in the help bubble's default dark greys, which barely
// read on a dark background.
func TestHelpReadsOnADarkBackground(t *testing.T) {
	h := newHarness(t, 200, 50)
	text := helpText(h.m.help, h.m.helpGroups(), 200)
	if strings.Contains(text, "\x1b[38;") {
		t.Fatalf("the help sets a foreground colour: %q", text[:min(len(text), 300)])
	}
	if !strings.Contains(text, "\x1b[1m") {
		t.Fatalf("the help's keys are not bold: %q", text[:min(len(text), 300)])
	}
}

// Help's "Keys here" breaks its lines between keys, never between a key
// and what it does, at any width.
func TestHelpKeysHereKeepKeyAndText(t *testing.T) {
	for w := 30; w <= 120; w++ {
		h := newHarness(t, w, 60, fixture(t, "middleware-js-email", idEmail, time.Minute))
		h.keys("?")
		screen := h.screen()
		_, here, _ := strings.Cut(screen, "Keys here")
		here, _, ok := strings.Cut(here, "Every key") // the table below lists them too
		if !ok {
			t.Fatalf("at %d columns, no \"Keys here\" then \"Every key\":\n%s", w, screen)
		}
		for _, part := range []string{"/ filter", "H history", "c conversation", "q quit"} {
			if !strings.Contains(here, part) {
				t.Fatalf("at %d columns, help's keys here do not show %q on one line:\n%s", w, part, here)
			}
		}
	}
}

// A send that finds its interrupt answered elsewhere says the typed work
// is kept only when something was typed: a plain approve typed nothing.
func TestLostRaceSaysKeptOnlyForTypedWork(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "a")
	h.wantScreen("Send this?")
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"approve"}]}`)})
	h.keys("y")
	h.wantScreen("aaaa1111", "by bob")
	if s := h.screen(); strings.Contains(s, "What you typed is kept") || h.b.Resumes != 0 {
		t.Fatalf("a plain approve lost to bob (%d resumes sent):\n%s", h.b.Resumes, s)
	}
}
