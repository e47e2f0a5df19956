package tui

// Issue 22's leftovers, each at 80x24, 60x20 and 200x50. The screens are
// read without colour (ansi.Strip): the styles wrap text already laid
// out, so the same cells hold the same words with colour.

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// sizes are the window sizes every point must hold at.
var sizes = [][2]int{{80, 24}, {60, 20}, {200, 50}}

// History's columns line up whatever was decided, and each row's tools
// are there in full or end with the mark of a cut.
func TestHistoryColumnsLineUpAtEverySize(t *testing.T) {
	entries := []journal.Entry{
		{DecisionID: "1", Time: t0.Add(-4 * time.Minute), InterruptID: "aaaa1111", Title: "Review tool call send_email",
			Decisions: []client.Decision{{Type: client.Reject, Stop: true, Message: "no"}}, Outcome: journal.Finished},
		{DecisionID: "2", Time: t0.Add(-3 * time.Minute), InterruptID: "bbbb2222", Title: "Review tool call issue_refund",
			Decisions: []client.Decision{{Type: client.Dismiss}}, Outcome: journal.Finished},
		{DecisionID: "3", Time: t0.Add(-2 * time.Minute), InterruptID: "cccc3333", Title: "Review 2 tool calls: delete_records, notify",
			Decisions: []client.Decision{{Type: client.Approve}, {Type: client.Edit, Args: []byte(`{}`)}}, Outcome: journal.HandledElsewhere},
		{DecisionID: "4", Time: t0.Add(-time.Minute), InterruptID: "dddd4444", Title: "Review tool call notify",
			Decisions: []client.Decision{{Type: client.Reject}}, Outcome: journal.Interrupted},
	}
	tools := map[string]string{"rejected and stopped": "send_email", "dismissed": "issue_refund", "approve, edit": "delete_records, notify", "reject ": "notify"}
	for _, sz := range sizes {
		h := newHarness(t, sz[0], sz[1])
		for _, e := range entries {
			h.j.Record(e)
		}
		h.keys("H")
		col := -1
		for decided, tool := range tools {
			var row string
			for _, l := range strings.Split(h.screen(), "\n") {
				if strings.Contains(l, decided) {
					row = l
				}
			}
			if row == "" {
				t.Fatalf("%dx%d: no row says %q:\n%s", sz[0], sz[1], decided, h.screen())
			}
			outcome := strings.Index(row, "finished")
			for _, o := range []string{"already handled", "paused"} {
				if i := strings.Index(row, o); i >= 0 {
					outcome = i
				}
			}
			outcome = ansi.StringWidth(row[:outcome]) // in cells: the selected row starts with ▸
			if col >= 0 && outcome != col {
				t.Fatalf("%dx%d: the outcome column moves (%d, then %d at %q):\n%s", sz[0], sz[1], col, outcome, decided, h.screen())
			}
			col = outcome
			if !strings.Contains(row, tool) && !strings.HasSuffix(strings.TrimRight(row, " "), "…") {
				t.Fatalf("%dx%d: %s cut without a mark: %q", sz[0], sz[1], tool, row)
			}
		}
	}
}

// At 60 columns, "rejected and stopped" beside plain outcomes leaves the
// tool's name whole: the outcome column is no wider than its words.
func TestHistoryKeepsTheToolAt60WithAStop(t *testing.T) {
	h := newHarness(t, 60, 20)
	h.j.Record(journal.Entry{DecisionID: "1", Time: t0, InterruptID: "aaaa1111", Title: "Review tool call send_email",
		Decisions: []client.Decision{{Type: client.Reject, Stop: true, Message: "no"}}, Outcome: journal.Finished})
	h.keys("H")
	h.wantScreen("rejected and stopped  finished  send_email")
}

// a on a row of two tool calls, from the list: the first is approved and
// the second, the one to decide next, is on screen (the list alone shows
// neither); a again approves it and the confirm screen lists both.
func TestApproveOnARowOfTwoCallsShowsTheNext(t *testing.T) {
	for _, sz := range sizes {
		h := newHarness(t, sz[0], sz[1], fixture(t, "middleware-js-ops", idOps, time.Minute))
		h.now = h.now.Add(GracePeriod * 2)
		h.keys("a")
		h.wantScreen("decision: approve", "▸ Action 2/2  notify", "Now action 2 of 2")
		h.keys("a")
		h.wantScreen("Send this?", "Action 1/2 delete_records: approve", "Action 2/2 notify: approve")
		h.keys("y")
		if got := h.sent(idOps); got != `{"decisions":[{"type":"approve"},{"type":"approve"}]}` {
			t.Fatalf("%dx%d: sent %s", sz[0], sz[1], got)
		}
	}
}

// esc in a form's JSON view (ctrl+j) goes back one step, to the form, on
// what was typed in either; esc there leaves.
func TestEscFromAFormsJSONGoesBackToTheForm(t *testing.T) {
	for _, sz := range sizes {
		h := newHarness(t, sz[0], sz[1], fixture(t, "middleware-js-refund", idEmail, time.Minute))
		h.keys("e", "tab", "ctrl+u")
		h.typeText("42")
		h.keys("ctrl+j")
		h.wantScreen("Arguments of issue_refund (JSON)", `"amount": 42`, "esc back to the form")
		h.msg(externalEditMsg{text: `{"order_id": "A-1001", "amount": 43, "currency": "USD"}`})
		h.keys("esc")
		if _, ok := h.m.top().(*formScreen); !ok {
			t.Fatalf("%dx%d: esc left the JSON view for:\n%s", sz[0], sz[1], h.screen())
		}
		h.wantScreen("│ 43", "│ USD")
		if f := h.m.top().(*formScreen); f.fields[f.focused].f.Name != "amount" {
			t.Fatalf("%dx%d: back on %s, not amount", sz[0], sz[1], f.fields[f.focused].f.Name)
		}
		h.keys("esc")
		if _, ok := h.m.top().(decisionStep); ok {
			t.Fatalf("%dx%d: esc on the form did not leave it", sz[0], sz[1])
		}
		h.keys("e")
		h.wantScreen("│ 43", "│ USD")

		// An answer's form, the same.
		h = newHarness(t, sz[0], sz[1], schemaFixture(t, "form-zod", idForm, time.Minute))
		h.open()
		h.keys("f", "tab", "tab")
		h.typeText("7")
		h.keys("ctrl+j")
		h.wantScreen("Your answer, as JSON", `"budget": 7`)
		h.keys("esc")
		if _, ok := h.m.top().(*formScreen); !ok {
			t.Fatalf("%dx%d: esc left an answer's JSON view for:\n%s", sz[0], sz[1], h.screen())
		}
		h.wantScreen("budget *", "│ 7")
	}
}

// The demo's issue_refund: its args_schema describes amount and requires
// order_id and currency without describing them; its call carries a
// reason the schema does not name. The form shows every argument, and
// what is typed in any of them reaches the tool.
func TestArgsFormShowsEveryArgument(t *testing.T) {
	for _, sz := range sizes {
		h, srv, it := demoHarness(t, "support", "refund")
		h.msg(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		h.open()
		h.keys("e")
		h.wantScreen("Arguments of issue_refund", "order_id *  text", "│ A-1001", "amount *  number", "│ 12.50", "currency *  text", "│ EUR", "reason  text", "│ damaged in transit")
		for range 3 {
			h.keys("tab")
		}
		h.keys("ctrl+u")
		h.typeText("broken on arrival")
		h.keys("ctrl+s")
		h.wantScreen("Send this?", "Changed: $.reason", `+   "reason": "[broken on arrival]"`)
		h.keys("y")
		h.wantScreen("Sent edit for " + it.ID[:8])
		resp, err := http.Get(srv.URL() + "/threads/" + it.ThreadID + "/state")
		if err != nil {
			t.Fatal(err)
		}
		state, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(state), `ran issue_refund {\"order_id\":\"A-1001\",\"amount\":12.50,\"currency\":\"EUR\",\"reason\":\"broken on arrival\"}`) {
			t.Fatalf("%dx%d: the tool did not run with the form's arguments:\n%s", sz[0], sz[1], state)
		}
	}
}

// A coding agent's request (hitl hook): its conversation is the agent's,
// so c is not offered and says why when pressed; the assistant it has
// none of is not named.
func TestHookRequestOffersNoConversation(t *testing.T) {
	for _, sz := range sizes {
		it := toolCall(idEmail, "sess-bash", "Bash", `{"command":"npm ci"}`)
		it.GraphID, it.AssistantID = "claude", ""
		it.Origin = &client.Origin{Agent: "claude", Host: "build-7", Cwd: "/src/app", SessionID: "sess-bash"}
		h := newHarness(t, sz[0], sz[1], it)
		h.open()
		h.m.detail.vp.GotoBottom()
		s := h.screen()
		if strings.Contains(s, "shows the conversation") || strings.Contains(s, "assistant") || !strings.Contains(s, "graph claude") {
			t.Fatalf("%dx%d: the detail offers the conversation or names no assistant:\n%s", sz[0], sz[1], s)
		}
		h.keys("c")
		h.wantScreen("No conversation here: a coding agent's request")
	}
}

// A status that wraps and the connection line each have their own rows:
// every word of the message is on screen, and the connection is a line of
// its own, not the end of the message's last one.
func TestLongStatusAndConnectionLineEachHaveTheirRows(t *testing.T) {
	for _, sz := range sizes {
		h := newHarness(t, sz[0], sz[1], fixture(t, "middleware-js-ops", idOps, time.Minute))
		var words []string
		for i := 0; len(strings.Join(words, " ")) < sz[0]*2; i++ {
			words = append(words, "word"+string(rune('a'+i%26)))
		}
		msg := strings.Join(words, " ")
		h.m.setStatus(msg, false)
		h.msg(nil)
		rows := strings.Split(h.screen(), "\n")
		if len(rows) != sz[1] {
			t.Fatalf("%dx%d: %d rows", sz[0], sz[1], len(rows))
		}
		conn := -1
		for i, r := range rows {
			if strings.HasPrefix(r, "● http://fake · updated") {
				conn = i
			}
		}
		if conn < 0 {
			t.Fatalf("%dx%d: the connection is not a line of its own:\n%s", sz[0], sz[1], h.screen())
		}
		shown := strings.Join(strings.Fields(strings.Join(rows[conn-3:conn], " ")), " ")
		if !strings.Contains(shown, msg) {
			t.Fatalf("%dx%d: the message lost words:\n%s", sz[0], sz[1], h.screen())
		}
		// A short one shares its row with the connection, where it fits.
		h.m.setStatus("Recorded.", true)
		h.msg(nil)
		h.wantScreen("Recorded.  ● http://fake · updated")
	}
}

// Nothing is cut without a mark: the conversation of an old history row
// that cannot be read says why in full (wrapped at 80 columns), and the
// exact resume JSON breaks a long string with ↩ where it goes on, every
// character kept.
func TestNothingCutWithoutAMark(t *testing.T) {
	h := newHarness(t, 80, 24)
	const thread = "7b0bf873-0c88-4d92-9a61-17e806d9e2ff"
	h.j.Record(journal.Entry{DecisionID: "1", Time: t0, InterruptID: "aaaa1111", ThreadID: thread, Title: "Review tool call send_email",
		Decisions: []client.Decision{{Type: client.Approve}}, Outcome: journal.Finished})
	h.keys("H", "enter")
	why := "read the conversation of thread " + thread + ": HTTP 404: the server no longer knows this thread (it was deleted, or the server restarted)"
	h.msg(conversationMsg{thread: thread, err: errors.New(why)})
	if got := strings.Join(strings.Fields(h.screen()), ""); !strings.Contains(got, strings.Join(strings.Fields("Conversation: "+why), "")) {
		t.Fatalf("the error is not said in full:\n%s", h.screen())
	}

	h = newHarness(t, 80, 24, fixture(t, "middleware-js-email", idEmail, time.Minute))
	body := "Hi Jane, this is a long body that goes past the edge of the window, " + strings.Repeat("thequickbrownfox", 6) + " end"
	h.keys("enter", "e")
	h.msg(externalEditMsg{text: `{"to": "jane@example.com", "subject": "Your refund", "body": "` + body + `", "cc": []}`})
	h.keys("ctrl+s", "v")
	var joined strings.Builder
	for _, l := range strings.Split(h.screen(), "\n") {
		l = strings.TrimRight(l, " ")
		if r, ok := strings.CutSuffix(l, "↩"); ok {
			joined.WriteString(r)
			continue
		}
		joined.WriteString(l + "\n")
	}
	if !strings.Contains(joined.String(), `"body": "`+body+`"`) {
		t.Fatalf("the resume JSON does not read back as sent once its ↩ rows are joined:\n%s", h.screen())
	}
}
