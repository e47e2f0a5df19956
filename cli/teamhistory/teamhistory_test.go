package teamhistory

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/store"
)

// A row says its outcome in words, as the reviewer's own history does
// ("approval recorded"); --json keeps the code (approval-recorded).
func TestTeamRowSaysTheOutcomeInWords(t *testing.T) {
	for code, words := range map[string]string{store.OutcomeApproved: "approval recorded", store.OutcomeConflict: "handled elsewhere",
		store.OutcomeDropped: "approval dropped", store.OutcomeSent: "sent"} {
		got := Row(coord.AuditLine{Entry: store.Entry{ID: 3, At: time.Now(), Reviewer: "alice", Source: "hook", Door: "http",
			RequestID: "req-a810", Decision: "approve", Outcome: code}})
		if !strings.Contains(got, "(hook, http)  "+words) || (code != words && strings.Contains(got, code)) {
			t.Errorf("the row of %s: %s", code, got)
		}
	}
}

// A reject's row shows its reason, on its one line: a long one ends in a
// visible mark, never cut silently; a hostile one is inert.
func TestTeamRowShowsTheRejectsReason(t *testing.T) {
	row := func(reason string) string {
		v, _ := json.Marshal(map[string]any{"decisions": []any{map[string]string{"type": "reject", "message": reason}}})
		return Row(coord.AuditLine{Entry: store.Entry{ID: 7, At: time.Now(), Reviewer: "bob", Role: "approver", Source: "hook", Door: "ssh",
			RequestID: "req-a810", Tools: []string{"Bash"}, Decision: "reject", Outcome: store.OutcomeSent}, Value: v})
	}
	if got := row("not on prod"); !strings.Contains(got, `(hook, ssh)  sent  reason "not on prod"`) {
		t.Fatalf("row: %s", got)
	}
	long := strings.Repeat("word ", 40) + "END"
	got := row(long)
	if strings.Contains(got, "END") || !strings.Contains(got, `…"`) || strings.Contains(got, "\n") {
		t.Fatalf("a long reason: %s", got)
	}
	if got := row("ok\x1b]52;c;aGk=\x07"); strings.ContainsRune(got, 0x1b) || strings.ContainsRune(got, 7) {
		t.Fatalf("a hostile reason reached the terminal: %q", got)
	}
}

// A reject of two actions with one reason says it once; two reasons, both.
func TestTeamRowSaysOneReasonOnce(t *testing.T) {
	row := func(reasons ...string) string {
		var ds []any
		for _, r := range reasons {
			ds = append(ds, map[string]string{"type": "reject", "message": r})
		}
		v, _ := json.Marshal(map[string]any{"decisions": ds})
		return Row(coord.AuditLine{Entry: store.Entry{ID: 8, At: time.Now(), Reviewer: "bob", Role: "approver", Source: "hook", Door: "ssh",
			RequestID: "req-a811", Tools: []string{"Bash", "Edit"}, Decision: "reject,reject", Outcome: store.OutcomeSent}, Value: v})
	}
	if got := row("the table is still read", "the table is still read"); !strings.HasSuffix(got, `sent  reason "the table is still read"`) {
		t.Fatalf("one reason for both: %s", got)
	}
	if got := row("not prod", "not today"); !strings.HasSuffix(got, `sent  reason "not prod; not today"`) {
		t.Fatalf("two reasons: %s", got)
	}
}
