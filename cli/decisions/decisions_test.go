package decisions

import (
	"errors"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/review"
)

// An edit of an interrupt of several actions, none of which allows one, is
// refused (4) before --action and --others are asked for; where one does,
// the usage error names it.
func TestEditWithoutActionSaysWhichAllowIt(t *testing.T) {
	mk := func(second string) *client.Interrupt {
		raw := `{"action_requests":[{"name":"delete_records","args":{}},{"name":"notify","args":{}}],` +
			`"review_configs":[{"action_name":"delete_records","allowed_decisions":["approve","reject"]},` +
			`{"action_name":"notify","allowed_decisions":` + second + `}]}`
		return &client.Interrupt{ID: "abcd1234ef", Payload: client.Parse([]byte(raw))}
	}
	err := whichAction(mk(`["approve","reject"]`), client.Edit, "hitl")
	var ee *review.Error
	if !errors.As(err, &ee) || ee.Kind != review.Refused || err.Error() != `refused, nothing sent: "edit" is not allowed for any of this interrupt's 2 actions (hitl show abcd1234 says how to answer it)` {
		t.Fatalf("no action allows an edit: %v", err)
	}
	err = whichAction(mk(`["approve","edit","reject"]`), client.Edit, "hitl")
	if !errors.As(err, &ee) || ee.Kind != review.Usage || !strings.Contains(err.Error(), "say which one with --action N (edit is allowed for action 2)") {
		t.Fatalf("action 2 allows an edit: %v", err)
	}
}

// --dry-run of an ending says what it does: there is no resume value to
// print (it printed null).
func TestDryRunOfAnEndingSaysWhatItDoes(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	e := &Options{Stdout: &out, Stderr: &strings.Builder{}}
	one := []*client.Submission{{ThreadID: "t1", Items: []client.Item{{Resume: client.Resume{End: &client.Ending{Kind: client.EndDismiss, Reason: "handled by phone"}}}}}}
	if err := printDryRun(e, one); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, "null") || !strings.Contains(got, `(dismissed: no resume value`) || !strings.Contains(got, `"handled by phone"`) {
		t.Fatalf("--dry-run printed %q", got)
	}
	out.Reset()
	two := []*client.Submission{{ThreadID: "t1", Items: []client.Item{
		{Interrupt: client.Interrupt{ID: "aaaa"}, Resume: client.Resume{End: &client.Ending{Kind: client.EndStop, Reason: "no"}}},
		{Interrupt: client.Interrupt{ID: "bbbb"}, Resume: client.Resume{End: &client.Ending{Kind: client.EndStop, Reason: "no"}}}}}}
	if err := printDryRun(e, two); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, "null") || !strings.Contains(got, "rejected and stopped: no resume value") {
		t.Fatalf("--dry-run printed %q", got)
	}
}
