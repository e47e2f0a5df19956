package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

func TestHandledSurvivesRestartAndIsShared(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir) // a second process on the same machine
	if err != nil {
		t.Fatal(err)
	}
	if err := a.MarkHandled("id-1"); err != nil {
		t.Fatal(err)
	}
	if !b.IsHandled("id-1") {
		t.Fatal("the other process does not see the handled id")
	}
	c, _ := Open(dir) // after a restart
	if !c.IsHandled("id-1") || c.IsHandled("id-2") {
		t.Fatalf("handled after restart: %v", c.Handled())
	}
}

func TestAuditNewestFirstSkipsTornLines(t *testing.T) {
	dir := t.TempDir()
	j, _ := Open(dir)
	for _, id := range []string{"first", "second"} {
		if err := j.Record(Entry{InterruptID: id, Schema: client.SchemaMiddleware, Decisions: []client.Decision{{Type: client.Approve}},
			Resume: json.RawMessage(`{"decisions":[{"type":"approve"}]}`), Outcome: "finished"}); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(filepath.Join(dir, auditFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"interrupt_id":"torn`)
	f.Close()
	h, err := j.History()
	if err != nil || len(h) != 2 || h[0].InterruptID != "second" || string(h[0].Resume) != `{"decisions":[{"type":"approve"}]}` {
		t.Fatalf("history %+v %v", h, err)
	}
	if e, ok := j.Last("first"); !ok || e.Outcome != "finished" {
		t.Fatalf("last: %+v", e)
	}
}
