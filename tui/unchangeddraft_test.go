package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/present"
)

// An editor opened on a tool call's arguments and left with nothing
// changed is no draft: no ✎ on the row, nothing in drafts.json, and the
// claim made while it was open is released once it closes. A change is
// kept as before.
func TestAnEditorLeftUnchangedLeavesNoDraft(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	h := reviewerOn(t, 80, 24, fb, "alice")
	h.keys("e")
	h.wantScreen("Arguments of send_email (JSON)")
	h.tick(time.Second)
	if len(fb.Claims(idEmail)) != 1 {
		t.Fatal("an open editor does not claim its interrupt")
	}
	h.keys("esc")
	h.tick(time.Second)
	if s := h.screen(); strings.Contains(s, "✎") {
		t.Fatalf("an editor left unchanged marks the row as a draft:\n%s", s)
	}
	if c := fb.Claims(idEmail); len(c) != 0 {
		t.Fatalf("still claimed after the editor closed with nothing changed: %+v", c)
	}
	if b, err := h.j.LoadDrafts(); err != nil || strings.Contains(string(b), idEmail) {
		t.Fatalf("drafts.json keeps an unchanged editor (err %v): %s", err, b)
	}

	// A real change is kept, marked and claimed.
	h.keys("e")
	h.msg(externalEditMsg{text: `{"to": "jane@example.com"}`})
	h.keys("esc")
	h.tick(time.Second)
	h.wantScreen("✎")
	if len(fb.Claims(idEmail)) != 1 {
		t.Fatal("a changed draft is not claimed")
	}
	if b, _ := h.j.LoadDrafts(); !strings.Contains(string(b), "jane@example.com") {
		t.Fatalf("the change is not in drafts.json: %s", b)
	}
}

// A drafts.json an earlier version wrote with the arguments of an editor
// left unchanged: once its interrupt is listed, it is no draft (no ✎, no
// claim) and drafts.json drops it; changed arguments stay.
func TestAnUnchangedDraftFromDiskIsDropped(t *testing.T) {
	fb := fake.New(fixture(t, "middleware-js-email", idEmail, time.Minute), fixture(t, "middleware-js-ops", idOps, 2*time.Minute))
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	email, ops := fb.Items()[0], fb.Items()[1]
	ds := drafts{}
	ds.of(&email).argsText[0] = present.EditableJSON(email.Actions[0].Args)
	ds.of(&ops).argsText[1] = `{"changed": true}`
	if err := j.SaveDrafts(ds.encode()); err != nil {
		t.Fatal(err)
	}
	h := newHarnessJournal(t, 80, 24, j)
	h.b.Set(email, ops)
	h.run(h.m.fetch(false))
	h.tick(time.Second)
	rows := strings.Split(h.screen(), "\n")
	if strings.Contains(rows[1], "✎") || !strings.Contains(rows[2], "✎") {
		t.Fatalf("want ✎ on ops only:\n%s", h.screen())
	}
	if c := h.b.Claims(idEmail); len(c) != 0 {
		t.Fatalf("claimed: %+v", c)
	}
	b, _ := j.LoadDrafts()
	if strings.Contains(string(b), idEmail) || !strings.Contains(string(b), "changed") {
		t.Fatalf("drafts.json: %s", b)
	}
}
