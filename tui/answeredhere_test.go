package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
)

// A command on this machine (same state folder) answers the interrupt
// whose reject reason is being typed: the editor says the text is kept,
// and it is, on disk, before and after the reviewer leaves; the status
// says where.
func TestTextTypedForAnInterruptHandledHereByACommandIsKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessJournal(t, 80, 24, j, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "r")
	h.typeText("reason x")
	// hitl approve ID from a shell: the server has the answer, the
	// journal marks it handled.
	answerHere(t, h, j, idEmail)
	h.run(h.m.fetch(false))
	h.tick(time.Second)
	// What the journal here knows of it is said: by whom, when, what.
	h.wantScreen("Your text is kept", "reason x", "aaaa1111 was answered by another hitl on this machine (by root", `{"decisions":[{"type":"approve"}]}`)
	onDisk := func(when string) {
		t.Helper()
		b, err := j.LoadDrafts()
		if err != nil || !strings.Contains(string(b), "reason x") {
			t.Fatalf("%s: drafts.json holds %s (%v), not the typed text", when, b, err)
		}
	}
	onDisk("with the editor open")
	h.keys("esc")
	h.tick(time.Second)
	h.wantScreen("What you typed is kept in", "drafts.json in the state folder.")
	onDisk("after esc")
	h.run(h.m.persistDrafts())
	onDisk("after a later save")
}

// answerHere does what hitl approve ID from a shell with the same state
// folder does: the server answers it (and no longer lists it), the journal
// records the decision and marks it handled.
func answerHere(t *testing.T, h *harness, j *journal.Journal, id string) {
	t.Helper()
	var rest []client.Interrupt
	for _, it := range h.b.Items() {
		if it.ID != id {
			rest = append(rest, it)
		}
	}
	h.b.Set(rest...)
	e := journal.Entry{DecisionID: "d-shell", Time: t0, Reviewer: "root", InterruptID: id,
		Resume: json.RawMessage(`{"decisions":[{"type":"approve"}]}`), Outcome: journal.Finished}
	if err := j.Record(e); err != nil {
		t.Fatal(err)
	}
	if err := j.MarkHandled(id); err != nil {
		t.Fatal(err)
	}
}

// On the confirm screen, an interrupt another hitl on this machine answered
// meanwhile: y says what became of it and that nothing was sent, not "key
// ignored, press it again".
func TestConfirmOnAnInterruptAnsweredHere(t *testing.T) {
	t.Parallel()
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessJournal(t, 80, 24, j, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "a")
	h.wantScreen("Send this?")
	answerHere(t, h, j, idEmail)
	h.run(h.m.fetch(false))
	h.wantScreen("answered by another hitl on this machine (by root")
	h.keys("y")
	h.wantScreen("aaaa1111 was answered by another hitl on this machine (by root", "Nothing was sent.")
	if strings.Contains(h.screen(), "Key ignored") || h.b.Resumes != 0 {
		t.Fatalf("resumes %d:\n%s", h.b.Resumes, h.screen())
	}
}

// The server stops listing it before the command marks it handled here
// (it does so once the server has the answer): the editor first says what
// the server told, then what the journal here knows.
func TestAnsweredHereAfterTheServerStoppedListingIt(t *testing.T) {
	t.Parallel()
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessJournal(t, 80, 24, j, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter", "r")
	h.typeText("reason x")
	h.b.AnswerElsewhere(idEmail, "", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"reject"}]}`)})
	h.run(h.m.fetch(false))
	h.wantScreen("Answered elsewhere (see below)")
	answerHere(t, h, j, idEmail)
	h.run(h.m.fetch(false))
	h.wantScreen("Answered by another hitl on this machine", "aaaa1111 was answered by another hitl on this machine (by root", "reason x")

	// hitl reject --stop: no resume value; the decisions say what was done.
	h.keys("esc")
	h.tick(time.Second) // past the grace period of the list that changed
	h.keys("enter", "r")
	h.typeText("reason y")
	h.wantScreen("reason y")
	var rest []client.Interrupt
	for _, it := range h.b.Items() {
		if it.ID != idOps {
			rest = append(rest, it)
		}
	}
	h.b.Set(rest...)
	stop := journal.Entry{DecisionID: "d-stop", Time: t0, Reviewer: "root", InterruptID: idOps,
		Decisions: []client.Decision{{Type: client.Reject, Stop: true}, {Type: client.Reject, Stop: true}}, Outcome: journal.Finished}
	if err := j.Record(stop); err != nil {
		t.Fatal(err)
	}
	if err := j.MarkHandled(idOps); err != nil {
		t.Fatal(err)
	}
	h.run(h.m.fetch(false))
	h.wantScreen("bbbb2222 was answered by another hitl on this machine (by root", `"type":"reject","stop":true`, "reason y")
}

// The JSON view of a fresh answer form holds no answer the reviewer did
// not choose, and sending it is refused while a required one is missing.
func TestFormJSONViewFillsInNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, schemaFixture(t, "form-zod", idForm, time.Minute))
	h.keys("enter", "f")
	h.wantScreen("[?] not chosen yet")
	h.keys("ctrl+j")
	for _, chosen := range []string{`"react"`, `"tests"`, `"budget"`, `"framework"`} {
		if strings.Contains(h.screen(), chosen) {
			t.Fatalf("the JSON view fills in %s, never chosen:\n%s", chosen, h.screen())
		}
	}
	h.keys("ctrl+s")
	if strings.Contains(h.screen(), "Send this?") {
		t.Fatalf("an answer with no required field goes to the confirm screen:\n%s", h.screen())
	}
	h.wantScreen("missing properties 'framework'")
	h.keys("esc")
	h.wantScreen("( ) 1 react", "[?] not chosen yet")
	h.keys("esc")
	if d := h.m.drafts[idForm]; d != nil && d.touched() {
		t.Fatalf("a look at the JSON view left a draft: %q", d.feedback)
	}
	if strings.Contains(h.screen(), "(•)") || strings.Contains(h.screen(), "[ ] false") {
		t.Fatalf("the form comes back with answers chosen:\n%s", h.screen())
	}
	if h.b.Resumes != 0 {
		t.Fatal("sent")
	}
}

// JSON the answer form cannot show (a choice its list does not hold, a key
// no field shows) stays in the JSON view, which says so; esc again leaves
// with it kept in the draft.
func TestFormJSONViewKeepsWhatTheFormCannotShow(t *testing.T) {
	t.Parallel()
	for _, extra := range []string{`"framework": "angular"`, `"zzz": [1,2]`} {
		h := newHarness(t, 100, 30, schemaFixture(t, "form-zod", idForm, time.Minute))
		h.keys("enter", "f", "ctrl+j")
		ed, ok := h.m.top().(*editorScreen)
		if !ok {
			t.Fatalf("ctrl+j opened %T", h.m.top())
		}
		ed.fields[0].SetValue(`{"tests": true, ` + extra + `}`)
		h.keys("esc")
		if !onTop[*editorScreen](h.m) {
			t.Fatalf("%s: esc went to the form, which drops it:\n%s", extra, h.screen())
		}
		h.wantScreen("the form cannot show this JSON", extra[:6])
		h.keys("esc")
		if d := h.m.drafts[idForm]; d == nil || !strings.Contains(d.feedback[0], extra[1:6]) {
			t.Fatalf("%s: not kept in the draft: %+v", extra, d)
		}
		// Opened again, it is the JSON editor, which says why.
		h.keys("f")
		h.wantScreen("the form cannot show what this draft holds", extra[:6])
	}
}

// hitl approve from a shell here while the reviewer reads the detail: the
// server stops listing the interrupt before that hitl marks it handled.
// The journal holds its decision (done, or still on its way), so the
// status says it as docs/tui.md does: "answered by another hitl on this
// machine", not "elsewhere".
func TestDetailOfAnInterruptAnsweredHereBeforeItIsMarked(t *testing.T) {
	for _, outcome := range []journal.Outcome{journal.Finished, ""} {
		t.Run(string(outcome)+"-", func(t *testing.T) {
			t.Parallel()
			j, err := journal.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			h := newHarnessJournal(t, 80, 24, j, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
			h.keys("enter")
			h.wantScreen("send_email")
			value := json.RawMessage(`{"decisions":[{"type":"approve"}]}`)
			h.b.AnswerElsewhere(idEmail, "root", client.Resume{Value: value})
			e := journal.Entry{DecisionID: "d-shell", Time: t0, Reviewer: "root", InterruptID: idEmail, Resume: value}
			if outcome == "" {
				err = j.Intend([]journal.Entry{e})
			} else {
				e.Outcome = outcome
				err = j.Record(e)
			}
			if err != nil {
				t.Fatal(err)
			}
			h.run(h.m.fetch(false))
			h.wantScreen("aaaa1111 was answered by another hitl on this machine (by root", `{"decisions":[{"type":"approve"}]}`)
		})
	}
}

// A decision of this machine that did not take effect (not sent, or
// another one first) is not the answer: the server's word stands.
func TestDetailOfAnInterruptAnsweredElsewhereAfterAFailedTryHere(t *testing.T) {
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessJournal(t, 80, 24, j, fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h.keys("enter")
	h.b.AnswerElsewhere(idEmail, "bob", client.Resume{Value: json.RawMessage(`{"decisions":[{"type":"reject"}]}`)})
	e := journal.Entry{DecisionID: "d-shell", Time: t0, Reviewer: "root", InterruptID: idEmail,
		Resume: json.RawMessage(`{"decisions":[{"type":"approve"}]}`), Outcome: journal.NotSent}
	if err := j.Record(e); err != nil {
		t.Fatal(err)
	}
	h.run(h.m.fetch(false))
	h.wantScreen("aaaa1111 was answered elsewhere (by bob")
}
