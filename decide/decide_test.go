package decide_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
)

func interrupt(t *testing.T, fixture, id string) client.Interrupt {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "client", "testdata", fixture+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return client.Interrupt{ID: id, ThreadID: "thread-" + id, GraphID: "g", Payload: client.Parse(raw), Raw: raw}
}

func setup(t *testing.T, its ...client.Interrupt) (*fake.Backend, *decide.Pipeline) {
	t.Helper()
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := fake.New(its...)
	return b, &decide.Pipeline{Backend: b, Journal: j, Reviewer: "alice", Settle: 1}
}

func send(t *testing.T, p *decide.Pipeline, it client.Interrupt, ds ...client.Decision) *decide.Result {
	t.Helper()
	subs, err := p.Prepare([]decide.Draft{{Interrupt: it, Decisions: ds}})
	if err != nil {
		t.Fatal(err)
	}
	return p.Send(context.Background(), subs[0])
}

func TestSentIsVerifiedAndRecorded(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.Sent || res.Err() != nil || !strings.HasPrefix(res.Text(), "Sent approve for aaaa1111") {
		t.Fatalf("%s: %s", res.Kind, res.Text())
	}
	if r, _ := b.SentValue(it.ID); string(r.Value) != `{"decisions":[{"type":"approve"}]}` {
		t.Fatalf("sent %s", r.Value)
	}
	h, _ := p.Journal.History()
	if len(h) != 1 || h[0].Outcome != journal.Finished || h[0].DecisionID != res.Submission.DecisionID || string(h[0].Resume) != `{"decisions":[{"type":"approve"}]}` {
		t.Fatalf("history: %+v", h)
	}
	if !p.Journal.IsHandled(it.ID) {
		t.Fatal("not handled")
	}
}

// The intent is on disk before the resume leaves.
type spy struct {
	*fake.Backend
	j      *journal.Journal
	intent bool
}

func (s *spy) Resume(ctx context.Context, sub *client.Submission) (client.Receipt, error) {
	h, _ := s.j.History()
	s.intent = len(h) == 1 && h[0].DecisionID == sub.DecisionID && h[0].Outcome == "" && len(h[0].Resume) > 0
	return s.Backend.Resume(ctx, sub)
}

func TestIntentIsWrittenBeforeSending(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	s := &spy{Backend: b, j: p.Journal}
	p.Backend = s
	if res := send(t, p, it, client.Decision{Type: client.Approve}); res.Kind != decide.Sent {
		t.Fatal(res.Text())
	}
	if !s.intent {
		t.Fatal("the resume left before its intent was in the audit log")
	}
}

func TestAnsweredBeforeSendingSendsNothing(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	b.AnswerElsewhere(it.ID, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"reject"}]}`)})
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.HandledElsewhere || !errors.Is(res.Err(), client.ErrAlreadyHandled) || b.Resumes != 0 {
		t.Fatalf("%s after %d resumes", res.Text(), b.Resumes)
	}
	if !strings.Contains(res.Text(), "already handled elsewhere; nothing sent (by bob") || !strings.Contains(res.Text(), `"reject"`) {
		t.Fatalf("the winner is not said: %s", res.Text())
	}
	if !p.Journal.IsElsewhere(it.ID) || p.Journal.IsHandled(it.ID) {
		t.Fatal("an interrupt answered by another decision is not recorded as answered elsewhere (and only that)")
	}
}

func TestBusyIsNotHandled(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	b.SetBusy(it.ThreadID, true)
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.Busy || !errors.Is(res.Err(), client.ErrBusy) || b.Resumes != 0 {
		t.Fatalf("%s", res.Text())
	}
	if !strings.Contains(res.Text(), "another run is in progress on this thread; nothing sent") {
		t.Fatal(res.Text())
	}
	if p.Journal.IsHandled(it.ID) {
		t.Fatal("a busy thread's interrupt was recorded as handled")
	}
}

func TestCertainFailureIsNotSentAndKeepsTheInterrupt(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	b.SetSendErr(&client.SendError{Err: errors.New("the server at http://fake refused the connection")})
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.NotSent || !errors.Is(res.Err(), decide.ErrNotSent) || p.Journal.IsHandled(it.ID) {
		t.Fatalf("%s", res.Text())
	}
	if e, _ := p.Journal.Last(it.ID); e.Outcome != journal.NotSent {
		t.Fatalf("audit: %+v", e)
	}
}

// A decision a team rule holds as a first approval reads as such in the
// history: recorded, not sent, not a failure.
func TestApprovalRecordedInTheHistory(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	b.SetSendErr(fmt.Errorf("1 of 2 approvals (alice) recorded: %w", client.ErrAwaitingApproval))
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.ApprovalRecorded || !errors.Is(res.Err(), client.ErrAwaitingApproval) || p.Journal.IsHandled(it.ID) {
		t.Fatalf("%s", res.Text())
	}
	if e, _ := p.Journal.Last(it.ID); e.Outcome != journal.ApprovalRecorded || !strings.Contains(e.Error, "1 of 2 approvals (alice) recorded") {
		t.Fatalf("audit: %+v", e)
	}
}

// An answer lost after the server acted: hitl finds the decision and says
// sent; it never sends again.
func TestLostAnswerIsFound(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	b.LoseAnswer = true
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.Sent || b.Resumes != 1 {
		t.Fatalf("%s after %d resumes", res.Text(), b.Resumes)
	}
}

// An answer lost before the server got it: nothing found, not sent.
func TestLostRequestIsNotSent(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	b.SetSendErr(&client.SendError{Err: errors.New("connection reset"), MaybeSent: true})
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.NotSent || !strings.Contains(res.Text(), "no trace of it") || p.Journal.IsHandled(it.ID) {
		t.Fatalf("%s", res.Text())
	}
}

// A server that cannot be read after an ambiguous failure: unknown, not
// hidden, and resolved later.
type blind struct{ *fake.Backend }

func (blind) Verify(context.Context, *client.Submission, client.Receipt) ([]client.Verdict, error) {
	return nil, errors.New("the server at http://fake did not answer in time")
}

func TestUnknownStaysVisibleUntilReconciled(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	b.LoseAnswer = true
	p.Backend = blind{b}
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.Unknown || !errors.Is(res.Err(), client.ErrMaybeSent) || !strings.Contains(res.Text(), "hitl check aaaa1111") {
		t.Fatalf("%s", res.Text())
	}
	if p.Journal.IsHandled(it.ID) {
		t.Fatal("a guess hid the interrupt")
	}
	open, _ := p.Journal.Unresolved(b.Server())
	if len(open) != 1 || open[0].InterruptID != it.ID {
		t.Fatalf("unresolved: %+v", open)
	}
	// The server can be read again: the next start resolves it.
	p.Backend = b
	results, err := p.Reconcile(context.Background(), nil)
	if err != nil || len(results) != 1 || results[0].Kind != decide.Sent {
		t.Fatalf("%v %v", results, err)
	}
	if open, _ := p.Journal.Unresolved(b.Server()); len(open) != 0 || !p.Journal.IsHandled(it.ID) {
		t.Fatalf("still unresolved: %+v", open)
	}
}

// An intent without an outcome (killed mid-send) is reconciled at the next
// start.
func TestIntentWithoutOutcomeIsReconciled(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	b, p := setup(t, it)
	subs, _ := p.Prepare([]decide.Draft{{Interrupt: it, Decisions: []client.Decision{{Type: client.Approve}}}})
	s := subs[0]
	p.Journal.Intend([]journal.Entry{{DecisionID: s.DecisionID, Server: b.Server(), ThreadID: s.ThreadID, InterruptID: it.ID, Resume: s.Items[0].Resume.Value}})
	b.Resume(context.Background(), s) // it reached the server; then kill -9
	results, err := p.Reconcile(context.Background(), nil)
	if err != nil || len(results) != 1 || results[0].Kind != decide.Sent {
		t.Fatalf("%v %v", results, err)
	}
	// And one that never reached it.
	it2 := interrupt(t, "middleware-js-email", "bbbb2222")
	b.Add(it2)
	subs, _ = p.Prepare([]decide.Draft{{Interrupt: it2, Decisions: []client.Decision{{Type: client.Approve}}}})
	p.Journal.Intend([]journal.Entry{{DecisionID: subs[0].DecisionID, Server: b.Server(), ThreadID: it2.ThreadID, InterruptID: it2.ID}})
	results, _ = p.Reconcile(context.Background(), nil)
	if len(results) != 1 || results[0].Kind != decide.NotSent || p.Journal.IsHandled(it2.ID) {
		t.Fatalf("%+v", results)
	}
}

func TestBatchAnswersAThreadInOneResume(t *testing.T) {
	a, c := interrupt(t, "middleware-js-email", "aaaa1111"), interrupt(t, "middleware-js-email", "cccc3333")
	c.ThreadID = a.ThreadID
	b, p := setup(t, a, c)
	subs, err := p.Prepare([]decide.Draft{{Interrupt: a, Decisions: []client.Decision{{Type: client.Approve}}}, {Interrupt: c, Decisions: []client.Decision{{Type: client.Reject}}}})
	if err != nil || len(subs) != 1 || len(subs[0].Items) != 2 {
		t.Fatalf("%v %v", subs, err)
	}
	res := p.Send(context.Background(), subs[0])
	if res.Kind != decide.Sent || b.Resumes != 1 || !strings.Contains(res.Text(), "Sent approve, reject for aaaa1111, cccc3333") {
		t.Fatalf("%s after %d resumes", res.Text(), b.Resumes)
	}
}

// The rules the CLI and the TUI share.
func TestDecisionRules(t *testing.T) {
	raw := interrupt(t, "raw", "rrrr0000")
	email := interrupt(t, "middleware-js-email", "aaaa1111")
	questions := interrupt(t, "questions", "qqqq0000")
	for _, tt := range []struct {
		name string
		it   client.Interrupt
		in   decide.Input
		want string // the decision as JSON, or "error: ..." substring
	}{
		{"unchanged edit is an approve", email, decide.Input{Type: client.Edit, Args: string(email.Actions[0].Args)}, `{"type":"approve"}`},
		{"reindented edit is an approve", email, decide.Input{Type: client.Edit, Args: "{\n \"to\": \"customer@example.com\", \"subject\": \"Your refund\",\n\"body\": \"Hello,\\n\\nYour refund of $12.50 is on its way.\\n\", \"cc\": [\"support@example.com\"]}"}, `{"type":"approve"}`},
		{"edit keeps its key order", email, decide.Input{Type: client.Edit, Args: `{"to":"jane@example.com","subject":"s","body":"b"}`}, `{"type":"edit","args":{"to":"jane@example.com","subject":"s","body":"b"}}`},
		{"edit must be an object", email, decide.Input{Type: client.Edit, Args: `[1]`}, "error: must be a JSON object"},
		{"text is trimmed", email, decide.Input{Type: client.Reject, Text: "  not now \n"}, `{"type":"reject","message":"not now"}`},
		{"JSON for a raw payload is JSON", raw, decide.Input{Type: client.Respond, Text: `{"approved": true}`}, `{"type":"respond","message":"{\"approved\": true}","value":{"approved":true}}`},
		{"broken JSON for a raw payload", raw, decide.Input{Type: client.Respond, Text: `{"approved": }`}, "error: looks like JSON but does not parse"},
		{"text for a raw payload", raw, decide.Input{Type: client.Respond, Text: `approved`}, `{"type":"respond","message":"approved"}`},
		{"answers", questions, decide.Input{Type: client.Respond, Text: "ok", Answers: []string{" React ", "yes", "", ""}}, `{"type":"respond","message":"ok","answers":["React","yes"]}`},
		{"too many answers", questions, decide.Input{Type: client.Respond, Text: "ok", Answers: []string{"a", "b", "c"}}, "error: 3 answers for 2 questions"},
		{"answers without questions", email, decide.Input{Type: client.Reject, Answers: []string{"a"}}, "error: asks no questions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := decide.Decision(&tt.it, 0, tt.in)
			if strings.HasPrefix(tt.want, "error: ") {
				if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(tt.want, "error: ")) {
					t.Fatalf("err %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(d)
			if string(b) != tt.want {
				t.Fatalf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

// A long winning answer is shortened in the message, and the message says
// by how much rather than pointing at a history this machine may not have.
func TestLongWinnerIsFoldedVisibly(t *testing.T) {
	long := `{"decisions":[{"type":"reject","message":"` + strings.Repeat("x", 300) + `"}]}`
	got := decide.WinnerText(&client.Winner{Reviewer: "bob", Value: json.RawMessage(long)})
	want := fmt.Sprintf("… (%d more characters)", len([]rune(long))-117)
	if !strings.HasPrefix(got, " (by bob, answer ") || !strings.Contains(got, want) || strings.Contains(got, "history") {
		t.Fatalf("got %q, want it to end with %q", got, want)
	}
}

// After a run pauses, an interrupt that was waiting before the send is not
// announced as the place the run paused again.
func TestPausedAgainTellsNewFromStillWaiting(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "aaaa1111")
	sibling := interrupt(t, "middleware-js-email", "bbbb2222")
	sibling.ThreadID = it.ThreadID
	b, p := setup(t, it, sibling)
	if err := p.Journal.Saw([]client.Interrupt{it, sibling}); err != nil {
		t.Fatal(err)
	}
	b.Outcome = client.Outcome{Status: client.PausedAgain, Pending: []string{"cccc3333", sibling.ID}}
	got := send(t, p, it, client.Decision{Type: client.Approve}).Text()
	if !strings.Contains(got, "the run paused again at cccc3333 (see hitl show); bbbb2222 still waits as before.") {
		t.Fatalf("got %q", got)
	}
	b.Outcome = client.Outcome{Status: client.PausedAgain, Pending: []string{sibling.ID}}
	it2 := interrupt(t, "middleware-js-email", "dddd4444")
	b.Add(it2)
	if err := p.Journal.Saw([]client.Interrupt{it2}); err != nil {
		t.Fatal(err)
	}
	if got := send(t, p, it2, client.Decision{Type: client.Approve}).Text(); !strings.Contains(got, "nothing new to decide; bbbb2222 still waits as before") || strings.Contains(got, "paused again at") {
		t.Fatalf("got %q", got)
	}
}

// The server takes a decision (a run), follows it as still running, then
// restarts and loses the run: the interrupt waits again. The next
// reconcile (at start, hitl check, the TUI) finds the run lost, records
// it, and makes the interrupt pending again; nothing stays hidden on the
// strength of "running".
func TestRunTheServerLostIsPendingAgain(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "cccc3333")
	b, p := setup(t, it)
	b.Outcome = client.Outcome{Status: client.Running, Error: "follow run: connection refused"}
	res := send(t, p, it, client.Decision{Type: client.Approve})
	if res.Kind != decide.Sent || !strings.Contains(res.Text(), "still going") {
		t.Fatalf("%s: %s", res.Kind, res.Text())
	}
	if !p.Journal.IsHandled(it.ID) {
		t.Fatal("a running decision's interrupt is not handled")
	}
	b.Restart()

	// Not "unknown": hitl list does not call a running decision unknown.
	if open, _ := p.Journal.Unresolved(b.Server()); len(open) != 0 {
		t.Fatalf("unresolved: %+v", open)
	}
	results, err := p.Reconcile(context.Background(), nil)
	if err != nil || len(results) != 1 {
		t.Fatalf("reconcile: %v %d", err, len(results))
	}
	r := results[0]
	want := "cccc3333: the server lost the run that carried this decision (run run-"
	if r.Kind != decide.Lost || !strings.HasPrefix(r.Text(), want) || !strings.Contains(r.Text(), "waits again") {
		t.Fatalf("%s: %s", r.Kind, r.Text())
	}
	if !errors.Is(r.Err(), decide.ErrNotSent) {
		t.Fatalf("a lost run is not 'not sent': %v", r.Err())
	}
	if p.Journal.IsHandled(it.ID) {
		t.Fatal("the interrupt the server lost the run of is still hidden")
	}
	h, _ := p.Journal.History()
	if len(h) != 1 || h[0].Outcome != journal.Lost || h[0].Outcome.Took() {
		t.Fatalf("history: %+v", h)
	}
	// Settled: the next start has nothing to look up.
	if again, _ := p.Reconcile(context.Background(), nil); len(again) != 0 {
		t.Fatalf("reconciled again: %+v", again[0].Text())
	}
	// And it can be decided again.
	b.Outcome = client.Outcome{}
	if res := send(t, p, it, client.Decision{Type: client.Reject, Message: "no"}); res.Kind != decide.Sent {
		t.Fatalf("again: %s: %s", res.Kind, res.Text())
	}
}

// A decision recorded as running whose run has finished since is
// settled by the next reconcile: finished, still handled.
func TestRunningDecisionIsSettledWhenItsRunEnds(t *testing.T) {
	it := interrupt(t, "middleware-js-email", "dddd4444")
	b, p := setup(t, it)
	b.Outcome = client.Outcome{Status: client.Running}
	send(t, p, it, client.Decision{Type: client.Approve})
	b.Outcome = client.Outcome{Status: client.Finished}
	results, err := p.Reconcile(context.Background(), nil)
	if err != nil || len(results) != 1 || results[0].Kind != decide.Sent || !strings.Contains(results[0].Text(), "the run finished") {
		t.Fatalf("reconcile: %v %+v", err, results)
	}
	h, _ := p.Journal.History()
	if h[0].Outcome != journal.Finished || !p.Journal.IsHandled(it.ID) {
		t.Fatalf("history: %+v", h)
	}
}

// The winner's answer is shown on one line, as compact JSON, however the
// server kept it (the JS server keeps a run's resume indented).
func TestWinnerAnswerIsCompact(t *testing.T) {
	w := &client.Winner{Reviewer: "bob", Value: json.RawMessage("{\n  \"type\": \"reject\",\n  \"message\": \"no\"\n}")}
	if got := decide.WinnerText(w); got != ` (by bob, answer {"type":"reject","message":"no"})` {
		t.Fatalf("%q", got)
	}
}

// hub is a server that names the reviewer itself, as a hitl hub does with
// a token (client.ReviewerNamer): it answers as "alice (hub)" whatever
// name the pipeline holds, or with err (an approval recorded) and that
// name. It notes what the audit log said before it answered.
type hub struct {
	*fake.Backend
	j         *journal.Journal
	err       error
	beforeWho []string
}

func (h *hub) Features() client.Features {
	f := h.Backend.Features()
	f.ReviewerNamer = h
	return f
}

func (h *hub) NamesReviewer() bool { return true }

func (h *hub) Resume(ctx context.Context, sub *client.Submission) (client.Receipt, error) {
	hist, _ := h.j.History()
	for _, e := range hist {
		h.beforeWho = append(h.beforeWho, e.Reviewer)
	}
	if h.err != nil {
		return client.Receipt{Reviewer: "alice (hub)"}, h.err
	}
	rc, err := h.Backend.Resume(ctx, sub)
	rc.Reviewer = "alice (hub)"
	return rc, err
}

// Where the server names the reviewer, the audit log names the one its
// answer says, not the pipeline's (a local user name), and none before
// it answered: the intent claims no name hitl does not know.
func TestTheServersReviewerIsTheOneRecorded(t *testing.T) {
	for _, tt := range []struct {
		name    string
		err     error
		kind    decide.Kind
		outcome journal.Outcome
	}{
		{"sent", nil, decide.Sent, journal.Finished},
		{"approval recorded", fmt.Errorf("1 of 2 approvals (alice (hub)) recorded: %w", client.ErrAwaitingApproval), decide.ApprovalRecorded, journal.ApprovalRecorded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			it := interrupt(t, "middleware-js-email", "aaaa1111")
			b, p := setup(t, it)
			p.Reviewer = "root"
			h := &hub{Backend: b, j: p.Journal, err: tt.err}
			p.Backend = h
			res := send(t, p, it, client.Decision{Type: client.Approve})
			if res.Kind != tt.kind || res.Reviewer != "alice (hub)" {
				t.Fatalf("%s by %q: %s", res.Kind, res.Reviewer, res.Text())
			}
			if len(h.beforeWho) != 1 || h.beforeWho[0] != "" {
				t.Fatalf("the intent, before the server answered, named %q", h.beforeWho)
			}
			if e, _ := p.Journal.Last(it.ID); e.Reviewer != "alice (hub)" || e.Outcome != tt.outcome {
				t.Fatalf("audit: %q, %s", e.Reviewer, e.Outcome)
			}
		})
	}
	// Refused before anything left (answered already): no name is claimed.
	it := interrupt(t, "middleware-js-email", "bbbb2222")
	b, p := setup(t, it)
	p.Reviewer = "root"
	p.Backend = &hub{Backend: b, j: p.Journal}
	b.AnswerElsewhere(it.ID, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"reject"}]}`)})
	if res := send(t, p, it, client.Decision{Type: client.Approve}); res.Kind != decide.HandledElsewhere || res.Reviewer != "" {
		t.Fatalf("%s by %q", res.Kind, res.Reviewer)
	}
	if e, _ := p.Journal.Last(it.ID); e.Reviewer != "" {
		t.Fatalf("audit of a decision the server never answered names %q", e.Reviewer)
	}
}
