package tui

// The reviewer's day: what the issue "nothing cut, nothing stale, text as
// a person reads it" asked for, each at the size where it broke.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
)

// toolCall is a JS-middleware interrupt of one tool with these args.
func toolCall(id, thread, tool, args string) client.Interrupt {
	raw := json.RawMessage(`{"actionRequests":[{"name":"` + tool + `","args":` + args + `,"description":"Tool execution pending approval"}],"reviewConfigs":[{"actionName":"` + tool + `","allowedDecisions":["approve","edit","reject"]}]}`)
	return client.Interrupt{ID: id, ThreadID: thread, GraphID: "agent", CreatedAt: t0.Add(-time.Minute), UpdatedAt: t0.Add(-time.Minute),
		Payload: client.Parse(raw), Raw: raw}
}

func TestConversationKeepsEveryWordAndIsPerThread(t *testing.T) {
	a := toolCall(idEmail, "thread-a", "notify", `{"channel":"#ops"}`)
	b := toolCall(idOps, "thread-b", "notify", `{"channel":"#dev"}`)
	h := newHarness(t, 80, 24, a, b)
	h.b.Messages = map[string][]client.Message{"thread-a": {{Role: "tool notify", Content: `ran notify {"channel":"#ops","text":"[edited] Pruned sessions older than 90 days"}`}}}
	h.keys("enter", "c")
	h.m.detail.vp.GotoBottom()
	s := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(s, `"text":"[edited] Pruned sessions older than 90 days"}`) {
		t.Fatalf("words lost:\n%s", h.screen())
	}
	// Another thread's item is not "Loading the conversation…" for ever.
	h.keys("esc", "j", "enter")
	h.m.detail.vp.GotoBottom()
	if strings.Contains(h.screen(), "Loading the conversation") || !strings.Contains(h.screen(), "c shows the conversation") {
		t.Fatalf("the other thread:\n%s", h.screen())
	}
}

func TestJSONReadsAsAPersonReadsIt(t *testing.T) {
	it := toolCall(idEmail, "thread-a", "send_email", `{"to":"ren\u00e9@exemple.fr","where":"last_seen \u003c now()","subject":"Caf\u00e9 \u00e0 10h \u2014 r\u00e9union","cmd":"\u001b[2J"}`)
	h := newHarness(t, 100, 30, it)
	h.wantScreen(`"rené@exemple.fr"`, `"last_seen < now()"`, `"Café à 10h — réunion"`, `"\u001b[2J"`)
	h.keys("e")
	h.wantScreen(`"to": "rené@exemple.fr"`, `"where": "last_seen < now()"`, `"cmd": "\u001b[2J"`)
	// The buffer is still the same JSON: unchanged, it is an approve.
	h.keys("ctrl+s")
	h.wantScreen("The arguments are unchanged: recorded as approve.")
}

func TestNothingCutAt100x30(t *testing.T) {
	thread := "0b8f0c5e-3a1d-4b7e-9c2f-6d8e1a2b3c4d"
	it := toolCall(idEmail, thread, "send_email", `{"to":"a@example.com","subject":"s","body":"`+strings.Repeat("word ", 30)+`end of the body"}`)
	it.GraphID = "parallel"
	h := newHarness(t, 100, 30, it)
	if !strings.Contains(strings.ReplaceAll(h.screen(), "\n", ""), thread[:20]) || !strings.Contains(h.screen(), thread[len(thread)-12:]) {
		t.Fatalf("the thread id is cut:\n%s", h.screen())
	}
	h.keys("r")
	h.typeText("not this one:\nthe customer asked us to wait\nuntil Monday")
	h.keys("ctrl+s")
	h.wantScreen("graph parallel", "not this one:", "the customer asked us to wait", "until Monday")
	// Side by side, the changed value is read whole.
	h.keys("esc", "e")
	h.msg(externalEditMsg{text: `{"to":"a@example.com","subject":"s","body":"` + strings.Repeat("other ", 30) + `end of the new body"}`})
	h.keys("ctrl+s", "t")
	flat := strings.Join(strings.Fields(strings.ReplaceAll(h.screen(), "│", " ")), " ")
	if !strings.Contains(flat, "end of the new") || !strings.Contains(flat, "end of the") || strings.Contains(flat, "…") {
		t.Fatalf("the side-by-side diff cuts the changed value:\n%s", h.screen())
	}
}

func TestStatusWrapsInsteadOfCutting(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.b.Outcome = client.Outcome{Status: client.Finished, Reply: "I sent the email to customer@example.com with the subject Your refund; the customer will get it within a minute, and I will follow up tomorrow morning."}
	h.keys("a", "y")
	flat := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(flat, "and I will follow up tomorrow morning.") {
		t.Fatalf("the status is cut:\n%s", h.screen())
	}
}

func TestPagingPositionAndDecisionsAtEveryWidth(t *testing.T) {
	var its []client.Interrupt
	for i := range 50 {
		id := fmt.Sprintf("%08d%024d", i, 0)
		it := toolCall(id, "thread-"+id[:8], "notify", `{"n":`+fmt.Sprint(i)+`}`)
		it.UpdatedAt = t0.Add(-time.Duration(i) * time.Minute)
		its = append(its, it)
	}
	h := newHarness(t, 80, 24, its...)
	h.wantScreen("hitl · 50 pending · 1/50")
	h.keys("pgdown")
	if !strings.Contains(h.screen(), "· 22/50") {
		t.Fatalf("pgdn does not move a page:\n%s", h.screen())
	}
	h.keys("G")
	h.wantScreen("· 50/50", "▸   00000049")
	h.keys("g")
	h.wantScreen("· 1/50")
	// Below 100 columns, a decision key acts on the selected interrupt.
	h.keys("a")
	h.wantScreen("Send this?", "Action 1/1 notify: approve")
}

func TestSplitFollowsTheContentAndAdjusts(t *testing.T) {
	it := toolCall(idEmail, "thread-a", "send_email", `{"to":"a-long-address-for-cust@example.com"}`)
	h := newHarness(t, 160, 40, it)
	if h.m.lay.list.w <= 64 || !strings.Contains(h.screen(), `send_email(to="a-long-address-for-cust@example.com")`) {
		t.Fatalf("list %d wide:\n%s", h.m.lay.list.w, h.screen())
	}
	w := h.m.lay.list.w
	h.keys("<")
	if h.m.lay.list.w != w-5 {
		t.Fatalf("< made the list %d wide (was %d)", h.m.lay.list.w, w)
	}
}

func TestThreadsAreGrouped(t *testing.T) {
	a1 := toolCall("a1"+strings.Repeat("0", 30), "thread-a", "notify", `{"n":1}`)
	b1 := toolCall("b1"+strings.Repeat("0", 30), "thread-b", "notify", `{"n":2}`)
	a2 := toolCall("a2"+strings.Repeat("0", 30), "thread-a", "notify", `{"n":3}`)
	a1.UpdatedAt, b1.UpdatedAt, a2.UpdatedAt = t0, t0.Add(-time.Minute), t0.Add(-2*time.Minute)
	h := newHarness(t, 80, 24, a1, b1, a2)
	s := h.screen()
	if ia, ib, ia2 := strings.Index(s, "┬a1"), strings.Index(s, "b1000000"), strings.Index(s, "└a2"); ia < 0 || ia2 < 0 || ib < ia2 {
		t.Fatalf("thread a is not together:\n%s", s)
	}
}

// The item being edited is handled elsewhere: the editor says so and keeps
// the text; esc lands on the inbox with a word, not on another item.
func TestEscAfterTheItemWasHandledElsewhere(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "r")
	h.typeText("half a thought")
	h.b.Set(h.b.Items()[1:]...)
	h.run(h.m.fetch(false))
	// The server was asked what became of it.
	h.wantScreen("✗ Gone from the server; nothing of yours was sent. Your text is kept; esc", "aaaa1111 is gone: the server no longer knows it (deleted?).", "half a thought")
	if strings.Contains(h.screen(), "ctrl+s accept") {
		t.Fatal("the key bar offers to accept a decision for an interrupt that is gone")
	}
	h.keys("esc")
	if len(h.m.stack) != 0 {
		t.Fatalf("esc went to %T", h.m.top())
	}
	h.wantScreen("aaaa1111 is gone: the server no longer knows it (deleted?). What you typed is")
}

// Until the server says what became of it, the editor says only what is
// known.
func TestGoneWhileTheServerCannotSayWhy(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "r")
	h.typeText("half a thought")
	h.b.Set(h.b.Items()[1:]...)
	next, cmd := h.m.Update(pendingMsg{items: h.b.Items()}) // the lookup it starts is not run
	h.m = next.(*Model)
	if cmd == nil {
		t.Fatal("no lookup started")
	}
	h.wantScreen("This interrupt is no longer pending (handled elsewhere?). Your text is kept", "half a thought")
}

func TestStatusDoesNotLingerOnTheNextScreen(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-ops", idOps, time.Minute))
	h.keys("enter", "e")
	h.wantScreen("edit is not allowed for action 1")
	h.keys("esc", "H")
	if strings.Contains(h.screen(), "edit is not allowed") {
		t.Fatalf("a status of the detail lingers on the history:\n%s", h.screen())
	}
}

func TestHistorySaysWhatWasDecidedAboutWhichTool(t *testing.T) {
	for _, w := range []int{80, 60} {
		h := newHarness(t, w, 24)
		h.j.Record(journal.Entry{DecisionID: "d", Time: t0, InterruptID: idEmail, Title: "Review tool call send_email",
			Decisions: []client.Decision{{Type: client.Reject}}, Outcome: journal.Finished})
		h.keys("H")
		h.wantScreen("reject", "finished", "send_email")
	}
}

func TestDisallowedKeysAreSaidInWords(t *testing.T) {
	h := newHarness(t, 140, 40, fixture(t, "middleware-js-ops", idOps, time.Minute))
	h.wantScreen("not allowed: e f i")
}

func TestThemeFollowsTheBackground(t *testing.T) {
	h := newHarness(t, 140, 40, fixture(t, "inbox-list", idEmail, time.Minute))
	dark := h.m.render()
	h.msg(tea.BackgroundColorMsg{Color: whiteColor{}})
	if h.m.theme != "light" || h.m.render() == dark {
		t.Fatal("a light background did not change the markdown style")
	}
}

type whiteColor struct{}

func (whiteColor) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

func TestCtrlZSuspends(t *testing.T) {
	h := newHarness(t, 80, 24)
	_, cmd := h.m.Update(keyMsg("ctrl+z"))
	if cmd == nil {
		t.Fatal("ctrl+z does nothing")
	}
	if _, ok := cmd().(tea.SuspendMsg); !ok {
		t.Fatal("ctrl+z does not suspend")
	}
}

// A 1 MB payload's detail renders off the update path: the key that opens
// it returns at once, the pane says what it is doing, then shows it.
func TestLargeDetailRendersOffTheUpdatePath(t *testing.T) {
	big := hugeInterrupt(1 << 20)
	small := toolCall(idEmail, "t", "send_email", `{"to":"a@example.com"}`)
	small.UpdatedAt = big.UpdatedAt.Add(time.Second)
	h := newHarness(t, 140, 40, small, big)
	_, cmd := h.m.Update(keyMsg("j"))
	h.wantScreen("Rendering the detail of ffffffff (1.1 MB of payload)…")
	h.run(cmd)
	h.wantScreen("Review tool call bulk_update")
}

// slowLister lists one page, then waits to be let go before the rest.
type slowLister struct {
	*fake.Backend
	gate chan struct{}
}

func (s slowLister) Features() client.Features {
	f := s.Backend.Features()
	f.Progressive = s
	return f
}

func (s slowLister) PendingProgress(_ context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	all := s.Items()
	report(client.Progress{Items: all[:1], Threads: 1, Total: len(all)})
	<-s.gate
	return all, nil
}

// A long listing shows what has arrived while the rest loads, and says so.
func TestALongListingShowsWhatHasArrived(t *testing.T) {
	b := slowLister{Backend: fake.New(toolCall(idEmail, "t1", "send_email", `{}`), toolCall(idOps, "t2", "notify", `{}`)), gate: make(chan struct{})}
	m, err := New(Options{Backend: b, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	first := m.fetch(false)()
	_, next := m.Update(first)
	s := ansi.Strip(m.render())
	if !strings.Contains(s, "loading: 1 of 2 threads read") || !strings.Contains(s, "aaaa1111") || strings.Contains(s, "bbbb2222") {
		t.Fatalf("while loading:\n%s", s)
	}
	close(b.gate)
	m.Update(next())
	if s := ansi.Strip(m.render()); strings.Contains(s, "loading") || !strings.Contains(s, "bbbb2222") {
		t.Fatalf("after loading:\n%s", s)
	}
}

// A change signalled while a listing is under way is not lost: the app
// lists again as soon as that listing ends.
func TestAChangeDuringAListingIsNotLost(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.m.fetching = true
	h.m.Update(changeMsg{})
	h.b.Add(toolCall(idEmail, "t1", "send_email", `{}`))
	_, cmd := h.m.Update(pendingMsg{})
	h.run(cmd)
	h.wantScreen("aaaa1111")
}

// A message that fills its lines does not push out where hitl stands with
// the server: "cannot list interrupts" is still on screen.
func TestLongStatusKeepsTheConnectionLine(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.b.SetListErr(errors.New("the server at http://fake refused the connection"))
	h.run(h.m.fetch(false))
	h.m.setStatus("Sent approve for aaaa1111 (thread thread-a): the run finished. Agent: "+strings.Repeat("done and dusted ", 5), true)
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.wantScreen("the run finished. Agent: done and", "✗ cannot list interrupts")
	if n := strings.Count(h.screen(), "\n"); n != 23 {
		t.Fatalf("the screen is %d lines high:\n%s", n+1, h.screen())
	}
	// Six full lines of message (a quarter of 24), marked as cut, then the
	// connection: still 24 lines.
	h.m.setStatus(strings.Repeat("a long agent reply ", 40), true)
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.wantScreen("agent reply a long …", "✗ cannot list interrupts")
	if n := strings.Count(h.screen(), "\n"); n != 23 {
		t.Fatalf("the screen is %d lines high:\n%s", n+1, h.screen())
	}
}

// At 200 columns the list beside the detail has room for the graph
// column; at 120 it does not, and the summary has the room.
func TestGraphColumnWhereThereIsRoom(t *testing.T) {
	row := func(h *harness) string {
		for _, l := range strings.Split(h.screen(), "\n") {
			if strings.HasPrefix(l, "▸ ") {
				return l
			}
		}
		return ""
	}
	h := newHarness(t, 200, 50, fixture(t, "middleware-js-email", idEmail, time.Minute))
	if r := row(h); !strings.Contains(r, "middleware") || !strings.Contains(r, `send_email(to="customer@example.com")`) {
		t.Fatalf("at 200 columns the row is %q", r)
	}
	// One long summary does not take the column from every row.
	long := toolCall("b2220000b2220000b2220000b2220000", "thread-b", "post_tweet", `{"text":"`+strings.Repeat("shipped ", 30)+`"}`)
	long.GraphID = "inbox"
	long.UpdatedAt = t0.Add(-time.Hour)
	h.b.Set(fixture(t, "middleware-js-email", idEmail, time.Minute), long)
	h.run(h.m.fetch(false))
	if r := row(h); !strings.Contains(r, "middleware") {
		t.Fatalf("with a long summary in the list, at 200 columns the row is %q", r)
	}
	h.b.Set(fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.run(h.m.fetch(false))
	h.msg(tea.WindowSizeMsg{Width: 120, Height: 30})
	if r := row(h); strings.Contains(r, "middleware") || !strings.Contains(r, `send_email(to="customer@`) {
		t.Fatalf("at 120 columns the row is %q", r)
	}
}

// On the confirm screen of an interrupt answered elsewhere, the whole
// message is there (wrapped, not cut) and the key bar offers only a way back.
func TestConfirmOfAnInterruptAnsweredElsewhere(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "a")
	h.wantScreen("Send this?")
	h.b.AnswerElsewhere(idEmail, "alice", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"reject","message":"` + strings.Repeat("no ", 20) + `"}]}`)})
	// The listing first (drawn), then the server's word on it: the body
	// follows, it is not left at the first guess.
	next, lookUp := h.m.Update(pendingMsg{items: h.b.Items()})
	h.m = next.(*Model)
	h.wantScreen("aaaa1111 is no longer pending (handled elsewhere?)")
	h.run(lookUp)
	h.wantScreen("aaaa1111 was answered elsewhere (by alice", "esc goes back; nothing was sent.")
	s := h.screen()
	if !strings.Contains(s, `no "}]}).`) || strings.Count(s, "was answered elsewhere") != 1 || strings.Contains(s, "y/enter send") {
		t.Fatalf("the message is cut or the bar offers to send:\n%s", s)
	}
	h.keys("y")
	if h.b.Resumes != 0 {
		t.Fatal("sent")
	}
}

// At 60x20 the help is taller than the screen: it says so and scrolls.
func TestHelpScrollsWhereItDoesNotFit(t *testing.T) {
	h := newHarness(t, 60, 20, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("?")
	h.wantScreen("more lines (↓/j, pgdn)")
	if strings.Contains(h.screen(), "ctrl+j as JSON") {
		t.Fatal("the last row shows before scrolling: the test does not test")
	}
	h.keys("G")
	h.wantScreen("ctrl+j as JSON", "more lines (↑/k, pgup)")
}

// A prompt at 80 columns is wrapped, not cut, and its key bar says how to
// say no.
func TestPromptIsWrappedAndSaysHowToSayNo(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "r")
	h.typeText("not now")
	h.keys("esc", "D")
	h.wantScreen("Discard your draft for aaaa1111", "and decided is lost.", "y discards it", "esc (any other key) stays")
	h.keys("esc")
	if d := h.m.drafts[idEmail]; d == nil || !d.touched() {
		t.Fatal("esc discarded the draft")
	}
}

// A list longer than the screen says how many rows are above and below,
// and the selected row is always one of those shown.
func TestListSaysWhatIsOutOfView(t *testing.T) {
	var its []client.Interrupt
	for i := range 60 {
		id := fmt.Sprintf("%08d%024d", i, 0)
		it := toolCall(id, "thread-"+id[:8], "notify", `{"n":`+fmt.Sprint(i)+`}`)
		it.UpdatedAt = t0.Add(-time.Duration(i) * time.Minute)
		its = append(its, it)
	}
	h := newHarness(t, 80, 24, its...)
	h.wantScreen("↓ 40 more (↓/j, pgdn)")
	for n := range 59 {
		if s := h.screen(); !strings.Contains(s, "▸   "+fmt.Sprintf("%08d", n)) {
			t.Fatalf("row %d selected but not shown:\n%s", n, s)
		}
		h.keys("j")
	}
	h.wantScreen("↑ 40 more (↑/k, pgup)", "▸   00000059")
	if strings.Contains(h.screen(), "↓ ") {
		t.Fatalf("a marker below the last row:\n%s", h.screen())
	}
	h.keys("g", "pgdown")
	h.wantScreen("↑ ", "↓ ")
}

// t lays a diff out; where nothing was edited it is not offered, and
// pressing it says why nothing happens.
func TestDiffLayoutOnlyWhereThereIsADiff(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "a")
	h.wantScreen("Send this?")
	if strings.Contains(h.screen(), "t side by side") {
		t.Fatalf("t is offered on an approve:\n%s", h.screen())
	}
	h.keys("t")
	h.wantScreen("Nothing was edited: there is no diff to lay out.")
	h.keys("esc", "e")
	h.msg(externalEditMsg{text: `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi", "cc": []}`})
	h.keys("ctrl+s")
	h.wantScreen("Send this?", "t side by side") // what pressing it does now
}

// The diff's layout key says which layout pressing it gives, and is
// offered only where the window has room for both sides.
func TestDiffLayoutKeySaysWhatItDoes(t *testing.T) {
	h := newHarness(t, 140, 40, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "e")
	h.msg(externalEditMsg{text: `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi", "cc": []}`})
	h.keys("ctrl+s")
	h.wantScreen("Send this?", "t side by side")
	h.keys("t")
	h.wantScreen("t unified diff")
	h.keys("t")
	h.wantScreen("t side by side")

	h = newHarness(t, 60, 20, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "e")
	h.msg(externalEditMsg{text: `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi", "cc": []}`})
	h.keys("ctrl+s")
	if strings.Contains(h.screen(), "t side by side") || strings.Contains(h.screen(), "t unified") {
		t.Fatalf("t offered where side by side cannot be:\n%s", h.screen())
	}
}

// Too narrow for side by side: t says so rather than doing nothing.
func TestSideBySideTooNarrowSaysSo(t *testing.T) {
	h := newHarness(t, 60, 20, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "e")
	h.msg(externalEditMsg{text: `{"to": "jane@example.com", "subject": "Your refund", "body": "Hi", "cc": []}`})
	h.keys("ctrl+s", "t")
	h.wantScreen("Side by side needs a wider window")
}

// The response editor of a prompt keeps the question in view.
func TestResponseEditorShowsTheQuestion(t *testing.T) {
	it := fixture(t, "prompt-string", "abcd0000abcd0000abcd0000abcd0000", time.Minute)
	h := newHarness(t, 80, 24, it)
	h.keys("enter", "f")
	h.wantScreen(ansi.Truncate(it.Title, 60, ""), "Your response")
	if n := strings.Count(h.screen(), "\n"); n != 23 {
		t.Fatalf("the screen is %d lines high:\n%s", n+1, h.screen())
	}
}

// Two escs that arrive together (read as alt+esc) are two steps back:
// from the confirm screen to the inbox, not nothing.
func TestDoubleEscIsTwoStepsBack(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	h.keys("enter", "a")
	h.wantScreen("Send this?")
	h.msg(tea.KeyPressMsg{Code: tea.KeyEscape, Mod: tea.ModAlt})
	if len(h.m.stack) != 0 {
		t.Fatalf("alt+esc on confirm left %T on top", h.m.top())
	}
	h.keys("enter", "enter")
	if h.b.Resumes != 0 {
		t.Fatal("enter after a double esc sent the decision")
	}
}

// A branch of no known shape is named by its gist in the editor and on
// the confirm screen: three similar branches are told apart.
func TestRawBranchIsNamedByItsGist(t *testing.T) {
	it := fixture(t, "raw", "abcd0000abcd0000abcd0000abcd0000", time.Minute)
	gist := present.Summary(it)
	h := newHarness(t, 80, 24, it)
	h.keys("enter", "f")
	h.wantScreen(ansi.Truncate(gist, 60, ""), "Your response")
	h.typeText(`{"ok": true}`)
	h.keys("ctrl+s")
	h.wantScreen("Send this? " + ansi.Truncate(gist, 60, ""))
}

// A detail opened on a screen of its own in a narrow window gives way to
// the split when the window widens: the list is beside it again and j moves
// through the list, as when the detail was opened wide.
func TestDetailOpenedNarrowJoinsTheListWhenWidened(t *testing.T) {
	h := newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter")
	if _, ok := h.m.top().(*detailScreen); !ok {
		t.Fatalf("enter at 80 columns did not open the detail's screen:\n%s", h.screen())
	}
	h.msg(tea.WindowSizeMsg{Width: 160, Height: 40})
	if _, ok := h.m.top().(*inboxScreen); !ok {
		t.Fatalf("widened to 160 columns, %T is in front:\n%s", h.m.top(), h.screen())
	}
	h.wantScreen("▸ ", idEmail[:8], idOps[:8])
	h.keys("j")
	if c := h.m.items.current(); c == nil || c.ID != idOps {
		t.Fatalf("j beside the detail did not move to the next row:\n%s", h.screen())
	}
	// Narrow again (a tmux pane zoomed out): the detail that gave way is
	// open again, on the row the cursor is on.
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	if _, ok := h.m.top().(*detailScreen); !ok {
		t.Fatalf("narrowed to 80 columns, %T is in front:\n%s", h.m.top(), h.screen())
	}
	h.wantScreen(idOps[:8])
	// Once: esc goes back to the list, and another resize leaves it there.
	h.keys("esc")
	h.msg(tea.WindowSizeMsg{Width: 160, Height: 40})
	h.msg(tea.WindowSizeMsg{Width: 80, Height: 24})
	if _, ok := h.m.top().(*inboxScreen); !ok {
		t.Fatalf("a list left with esc, widened and narrowed: %T is in front", h.m.top())
	}
}

// In a narrow window the list has no detail beside it: c opens the detail
// with the thread's conversation, rather than changing what cannot be seen
// (and the next c hides it, as in the detail).
func TestConversationKeyInTheNarrowListOpensIt(t *testing.T) {
	a := toolCall(idEmail, "thread-a", "notify", `{"channel":"#ops"}`)
	h := newHarness(t, 80, 24, a)
	h.b.Messages = map[string][]client.Message{"thread-a": {{Role: "user", Content: "prune the old sessions please"}}}
	h.keys("c")
	if _, ok := h.m.top().(*detailScreen); !ok {
		t.Fatalf("c in the narrow list: %T in front:\n%s", h.m.top(), h.screen())
	}
	h.m.detail.vp.GotoBottom()
	h.wantScreen("prune the old sessions please")
	h.keys("c")
	h.m.detail.vp.GotoBottom()
	if strings.Contains(h.screen(), "prune the old sessions please") {
		t.Fatalf("a second c left the conversation on screen:\n%s", h.screen())
	}
}

// c on a detail longer than the window brings the conversation into view
// (it is at the foot of the detail), and the key then says it hides it.
func TestConversationKeyBringsItIntoView(t *testing.T) {
	ops := fixture(t, "middleware-js-ops", idOps, time.Minute)
	h := newHarness(t, 80, 24, ops)
	h.b.Messages = map[string][]client.Message{ops.ThreadID: {
		{Role: "user", Content: "prune the old sessions please"},
		{Role: "ai", Content: "I will delete the sessions and tell the team."}}}
	h.keys("enter")
	if strings.Contains(h.screen(), "c hide conversation") {
		t.Fatalf("the key offers to hide what is not shown:\n%s", h.screen())
	}
	h.keys("c")
	h.wantScreen("Conversation (last 2 of 2)", "prune the old sessions please", "I will delete the sessions")
	h.keys("?")
	if s := h.screen(); !strings.Contains(s, "c hide conversation") {
		t.Fatalf("the open conversation's key does not say it hides it:\n%s", s)
	}
	h.keys("esc", "c")
	if strings.Contains(h.screen(), "prune the old sessions please") {
		t.Fatalf("a second c left the conversation on screen:\n%s", h.screen())
	}
}
