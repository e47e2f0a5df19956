package decisions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/review"
)

// toolCall is an interrupt of the HITL middleware calling tools, each
// allowing decisions.
func toolCall(id string, tools ...string) client.Interrupt {
	raw := `{"action_requests":[`
	configs := `"review_configs":[`
	for i, tool := range tools {
		if i > 0 {
			raw += ","
			configs += ","
		}
		raw += `{"name":"` + tool + `","args":{"path":"/tmp/` + id + `"}}`
		configs += `{"action_name":"` + tool + `","allowed_decisions":["approve","reject"]}`
	}
	return client.Interrupt{ID: id, ThreadID: "t-" + id, Payload: client.Parse([]byte(raw + "]," + configs + "]}"))}
}

// options runs a command on b, its output in buffers: gh's shape, a
// command without a terminal or a server.
func options(t *testing.T, b *fake.Backend) (*Options, *strings.Builder, *strings.Builder) {
	t.Helper()
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	o := &Options{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Again: "hitl", Wait: time.Second,
		Open: func(time.Duration) (*review.Session, error) {
			return &review.Session{Backend: b, Features: b.Features(), Journal: j, Reviewer: "alice", Warnings: &errOut}, nil
		}}
	return o, &out, &errOut
}

// approve --all --tool approves what calls only that tool, names what it
// leaves and why, and exits 4 (something was not approved) with its
// message printed already; --dry-run sends nothing.
func TestApproveAllSendsOnlyTheToolsCalls(t *testing.T) {
	b := fake.New(toolCall("aaaa1111", "bash"), toolCall("bbbb2222", "bash", "delete"), toolCall("cccc3333", "write"))
	o, out, errOut := options(t, b)
	o.DryRun = true
	if err := Approve(context.Background(), &ApproveOptions{Options: o, All: true, Tool: "bash"}); err != nil {
		t.Fatalf("--dry-run: %v\n%s", err, errOut)
	}
	if b.Resumes != 0 || !strings.Contains(out.String(), "Would approve 1 interrupt of bash:") || !strings.Contains(out.String(), "--dry-run: nothing sent.") {
		t.Fatalf("--dry-run sent %d, printed:\n%s", b.Resumes, out)
	}

	o, out, errOut = options(t, b)
	err := Approve(context.Background(), &ApproveOptions{Options: o, All: true, Tool: "bash"})
	var re *review.Error
	if !errors.As(err, &re) || re.Kind != review.Refused || !errors.Is(err, ErrPrinted) {
		t.Fatalf("one left out: want Refused, already printed; got %v", err)
	}
	if _, ok := b.Sent["aaaa1111"]; !ok || len(b.Sent) != 1 {
		t.Fatalf("sent: %v", b.Sent)
	}
	if !strings.Contains(out.String(), "Approving 1 interrupt of bash:") || !strings.Contains(out.String(), "Sent approve") {
		t.Fatalf("stdout:\n%s", out)
	}
	if !strings.Contains(errOut.String(), "Not approved: 1 interrupt:") || !strings.Contains(errOut.String(), "it also calls delete") {
		t.Fatalf("stderr:\n%s", errOut)
	}
}

// A command named no interrupt: a usage error, before any session is
// opened.
func TestNoIDIsAUsageErrorBeforeOpening(t *testing.T) {
	o, _, _ := options(t, fake.New())
	o.Open = func(time.Duration) (*review.Session, error) { t.Fatal("opened"); return nil, nil }
	err := Reject(context.Background(), o, false)
	var re *review.Error
	if !errors.As(err, &re) || re.Kind != review.Usage || !strings.Contains(err.Error(), "give an interrupt id") {
		t.Fatalf("no id: %v", err)
	}
}

// Through a hub's door, alice's first approval of a Bash call is an edit:
// approve --all --tool Bash never replaces it with the call as listed (it
// is left out, saying why and how to confirm it); a plain approve of
// alice's is confirmed and sent; a call with no approval yet may be
// recorded: each row says what sending does, and the total says it.
func TestApproveAllLeavesOutAnEditedFirstApproval(t *testing.T) {
	edited := toolCall("aaaa1111", "Bash")
	edited.Approval = &client.Approval{Approvers: []string{"alice"}, Needed: 2, Tools: []string{"Bash"},
		Decisions: []client.Decision{{Type: client.Edit, Args: []byte(`{"path":"/tmp/dry-run"}`)}}}
	plain := toolCall("bbbb2222", "Bash")
	plain.Approval = &client.Approval{Approvers: []string{"alice"}, Needed: 2, Tools: []string{"Bash"}, Decisions: []client.Decision{{Type: client.Approve}}}
	fresh := toolCall("cccc3333", "Bash")
	b := fake.New(edited, plain, fresh)
	o, out, errOut := options(t, b)
	open := o.Open
	o.Open = func(d time.Duration) (*review.Session, error) {
		s, err := open(d)
		s.Ruled = true // --backend events: a hub's door
		return s, err
	}
	err := Approve(context.Background(), &ApproveOptions{Options: o, All: true, Tool: "Bash"})
	var re *review.Error
	if !errors.As(err, &re) || re.Kind != review.Refused {
		t.Fatalf("one left out: want Refused; got %v", err)
	}
	if _, ok := b.Sent["aaaa1111"]; ok || len(b.Sent) != 2 {
		t.Fatalf("sent: %v", b.Sent)
	}
	for _, want := range []string{"Approving 2 interrupts of Bash:", "bbbb2222", "    confirms alice's approval (sends)",
		"cccc3333", "    sends, or records your approval if a team rule asks for another approver"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("stdout has no %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut.String(), "aaaa1111") || !strings.Contains(errOut.String(), "not approved: alice's approval is an edit (edit Bash): a bulk approve of what is shown would replace it; hitl show aaaa1111 shows it") {
		t.Fatalf("stderr:\n%s", errOut)
	}
}
