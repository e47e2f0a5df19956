package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

func TestAuditLogIsRedacted(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Before any redactor is set, URL credentials are hidden already.
	if err := j.Record(Entry{InterruptID: "a", Server: "https://bob:pw-123456@h.example", Error: `Get "https://h.example/x?token=t0k3n-1"`}); err != nil {
		t.Fatal(err)
	}
	// The caller forgot to redact its error; the journal does not.
	j.SetRedactor(func(s string) string { return strings.ReplaceAll(s, "sk-secret-key", "[redacted]") })
	resume := json.RawMessage(`{"decisions":[{"type":"approve"}]}`)
	if err := j.Record(Entry{InterruptID: "b", Resume: resume, Outcome: "error",
		Error: "the server at https://h.example answered HTTP 500: bad key sk-secret-key (see https://u:pw-654321@h.example)"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, auditFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"pw-123456", "t0k3n-1", "sk-secret-key", "pw-654321"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("the audit log holds %q:\n%s", leak, b)
		}
	}
	if !strings.Contains(string(b), `"resume":{"decisions":[{"type":"approve"}]}`) {
		t.Errorf("the resume value was not kept as sent:\n%s", b)
	}
	// Lines written before redaction existed are hidden when read.
	old := `{"interrupt_id":"c","error":"bad key sk-secret-key"}` + "\n"
	f, _ := os.OpenFile(filepath.Join(dir, auditFile), os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(old)
	f.Close()
	h, err := j.History()
	if err != nil || len(h) != 3 {
		t.Fatalf("history: %v %v", h, err)
	}
	if h[0].Error != "bad key [redacted]" {
		t.Errorf("an old line read back: %q", h[0].Error)
	}
}

// An id is the server's: one holding a newline, a leading "-" or odd bytes
// is kept as one id, and cannot mark (or forget) another.
func TestHostileIDsStayOneLine(t *testing.T) {
	dir := t.TempDir()
	j, _ := Open(dir)
	if err := j.MarkHandled("victim"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"x\nother", "-victim", "y\n-victim", "50%\x1b]0;t\a", " spaced ", "é\u202e"} {
		if err := j.MarkHandled(id); err != nil {
			t.Fatal(err)
		}
	}
	again, _ := Open(dir)
	h := again.Handled()
	for _, id := range []string{"victim", "x\nother", "-victim", "y\n-victim", "50%\x1b]0;t\a", " spaced ", "é\u202e"} {
		if !h[id] {
			t.Errorf("%q is not handled after a restart: %v", id, h)
		}
	}
	if h["other"] || len(h) != 7 {
		t.Errorf("a hostile id marked another: %v", h)
	}
	if err := again.Forget("y\n-victim"); err != nil {
		t.Fatal(err)
	}
	if h := (func() map[string]bool { k, _ := Open(dir); return k.Handled() })(); !h["victim"] || h["y\n-victim"] {
		t.Errorf("forget: %v", h)
	}
	b, _ := os.ReadFile(filepath.Join(dir, handledFile))
	if strings.Count(string(b), "\n") != 8 {
		t.Errorf("the handled file is not one line per id:\n%s", b)
	}
}

// Sightings keep the server's text short and without the configured
// secrets; an overlong line (older versions) does not end the file.
func TestSightingsAreShortAndRedacted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, seenFile), []byte(`{"id":"old","title":"`+strings.Repeat("x", 2<<20)+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	j, _ := Open(dir)
	j.SetRedactor(func(s string) string { return strings.ReplaceAll(s, "sk-secret-1", "[redacted]") })
	it := client.Interrupt{ID: "abcd1234", ThreadID: "t1", GraphID: "g sk-secret-1"}
	it.Title = "key sk-secret-1 " + strings.Repeat("long ", 1<<20)
	if err := j.Saw([]client.Interrupt{it}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, seenFile))
	if strings.Contains(string(b), "sk-secret-1") {
		t.Error("a secret reached seen.jsonl")
	}
	if len(b) > 2<<20+1024 {
		t.Errorf("the title was kept whole: %d bytes", len(b))
	}
	s := j.Sightings("abcd")
	if len(s) != 1 || !strings.HasPrefix(s[0].Title, "key [redacted] long") || !strings.HasSuffix(s[0].Title, "…") {
		t.Fatalf("sightings: %+v", s)
	}
}

// A line torn by a crash (no newline at the end of the file) is repaired by
// the next append: it does not swallow the next record, in the handled file
// or the audit log.
func TestTornLastLineIsRepairedByTheNextAppend(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, handledFile), []byte("id-a\nid-b-to"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, auditFile), []byte(`{"interrupt_id":"x","outcome":"finished"}`+"\n"+`{"interrupt_id":"to`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !j.IsHandled("id-a") || j.IsHandled("id-b-to") {
		t.Fatalf("handled: %v", j.Handled())
	}
	if err := j.MarkHandled("id-c"); err != nil {
		t.Fatal(err)
	}
	if err := j.Record(Entry{InterruptID: "y", Outcome: Finished}); err != nil {
		t.Fatal(err)
	}
	again, _ := Open(dir)
	if !again.IsHandled("id-a") || !again.IsHandled("id-c") {
		t.Fatalf("the record after a torn line was lost: %v", again.Handled())
	}
	h, err := again.History()
	if err != nil || len(h) != 2 || h[0].InterruptID != "y" || h[1].InterruptID != "x" {
		t.Fatalf("history after a torn line: %+v %v", h, err)
	}
}

// History is kept while the audit log is unchanged, and read again when
// another process (another Journal on the same directory) appends to it,
// or when the redactor changes.
func TestHistorySeesOtherProcesses(t *testing.T) {
	dir := t.TempDir()
	j, _ := Open(dir)
	other, _ := Open(dir)
	rec := func(j *Journal, id, errText string) {
		t.Helper()
		if err := j.Record(Entry{InterruptID: id, Outcome: "error", Error: errText}); err != nil {
			t.Fatal(err)
		}
	}
	rec(j, "first", "key k-1")
	if h, _ := j.History(); len(h) != 1 {
		t.Fatalf("history %+v", h)
	}
	rec(other, "second", "key k-2")
	h, _ := j.History()
	if len(h) != 2 || h[0].InterruptID != "second" {
		t.Fatalf("history after another process wrote: %+v", h)
	}
	h[0].InterruptID = "changed by a caller"
	if h, _ := j.History(); h[0].InterruptID != "second" {
		t.Fatalf("a caller changed the kept history: %+v", h)
	}
	j.SetRedactor(func(s string) string { return strings.ReplaceAll(s, "k-2", "[redacted]") })
	if h, _ := j.History(); h[0].Error != "key [redacted]" {
		t.Fatalf("history after a new redactor: %+v", h[0])
	}
}
