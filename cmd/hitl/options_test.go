package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/decide"
	"github.com/hitl-sh/hitl/review"
)

// fakeIO is a command's I/O in buffers, and an open that gives a session
// on b with a journal of the test's own: a command's run function tested
// without a terminal, a config file or a server (gh's shape).
func fakeIO(t *testing.T, b *fake.Backend) (e *env, stdout, stderr *bytes.Buffer, open func() (*app, error)) {
	t.Helper()
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	e = &env{stdin: strings.NewReader(""), stdout: newTermOut(stdout), stderr: newTermOut(stderr),
		getenv: func(string) string { return "" }, environ: func() []string { return nil }}
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &app{settings: &config.Settings{Reviewer: "alice"}, Session: &review.Session{Backend: b, Features: b.Features(),
		Journal: j, Reviewer: "alice", Warnings: e.stderr}}
	return e, stdout, stderr, func() (*app, error) { return a, nil }
}

func toolCall(id string) client.Interrupt {
	raw := `{"action_requests":[{"name":"send_email","args":{"to":"bob"}}],"review_configs":[{"action_name":"send_email","allowed_decisions":["approve","reject"]}]}`
	return client.Interrupt{ID: id, ThreadID: "thread-" + id, GraphID: "mail", Raw: json.RawMessage(raw), Payload: client.Parse([]byte(raw))}
}

// list, show, check and forget run on their options with fake I/O: what
// a reviewer reads is on stdout, the id a prefix named is shown, a decision
// made here leaves the list until forget brings it back.
func TestCommandsRunOnTheirOptions(t *testing.T) {
	ctx := context.Background()
	b := fake.New(toolCall("abcd1111"), toolCall("efgh2222"))
	e, stdout, stderr, open := fakeIO(t, b)

	if err := runList(ctx, &listOptions{io: e, open: open}); err != nil {
		t.Fatal(err)
	}
	if out := stdout.String(); !strings.Contains(out, "abcd1111") || !strings.Contains(out, "efgh2222") || !strings.HasPrefix(out, "ID ") {
		t.Fatalf("list:\n%s", out)
	}
	stdout.Reset()
	if err := runShow(ctx, &showOptions{io: e, open: open, id: "EFGH"}); err != nil {
		t.Fatal(err)
	}
	if out := stdout.String(); !strings.Contains(out, "Interrupt  efgh2222") || !strings.Contains(out, "hitl approve efgh2222") {
		t.Fatalf("show:\n%s", out)
	}
	stdout.Reset()
	if err := runShow(ctx, &showOptions{io: e, open: open, id: "abc"}); exitKind(err) != review.Usage {
		t.Fatalf("a short id: %v", err)
	}

	a, _ := open()
	p := a.Pipeline()
	subs, err := p.Prepare([]decide.Draft{{Interrupt: toolCall("abcd1111"), Decisions: []client.Decision{{Type: client.Approve}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Send(ctx, subs[0]); r.Kind != decide.Sent {
		t.Fatal(r.Text())
	}
	b.Set(toolCall("abcd1111"), toolCall("efgh2222")) // the server still lists it
	if err := runList(ctx, &listOptions{io: e, open: open, json: true}); err != nil {
		t.Fatal(err)
	}
	var listed []client.Interrupt
	if err := json.Unmarshal(stdout.Bytes(), &listed); err != nil || len(listed) != 1 || listed[0].ID != "efgh2222" {
		t.Fatalf("list --json after a decision here: %v\n%s", err, stdout.String())
	}
	stdout.Reset()
	if err := runCheck(ctx, &checkOptions{io: e, open: open}); err != nil || stdout.String() != "No decision of unknown outcome.\n" {
		t.Fatalf("check: %v %q", err, stdout.String())
	}
	stdout.Reset()
	if err := runForget(&forgetOptions{io: e, open: open, id: "abcd"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "abcd1111 is pending again on this machine") {
		t.Fatalf("forget: %q", stdout.String())
	}
	if err := runForget(&forgetOptions{io: e, open: open, id: "abcd"}); exitKind(err) != review.Refused {
		t.Fatalf("forget twice: %v", err)
	}
	if stderr.Len() != 0 {
		t.Fatalf("stderr: %s", stderr.String())
	}
}

// A decision command runs whole (flags, rules, printing, exit status) on
// the fake backend: approve --all --tool approves what calls only the tool,
// names what it leaves out and why, and exits 4 for those.
func TestApproveAllRunsOnAFakeBackend(t *testing.T) {
	other := func(id string) client.Interrupt {
		raw := `{"action_requests":[{"name":"send_email","args":{}},{"name":"delete_file","args":{}}],"review_configs":[` +
			`{"action_name":"send_email","allowed_decisions":["approve"]},{"action_name":"delete_file","allowed_decisions":["approve"]}]}`
		return client.Interrupt{ID: id, ThreadID: "thread-" + id, Raw: json.RawMessage(raw), Payload: client.Parse([]byte(raw))}
	}
	b := fake.New(toolCall("abcd1111"), other("efgh2222"))
	e, stdout, stderr, open := fakeIO(t, b)
	e.session = func(time.Duration) (*app, error) { return open() }
	code := runEnv(context.Background(), e, []string{"approve", "--all", "--tool", "send_email"})
	if code != exitRefused {
		t.Fatalf("exit %d, want %d (one left out)\nstdout:\n%s\nstderr:\n%s", code, exitRefused, stdout, stderr)
	}
	if out := stdout.String(); !strings.Contains(out, "Approving 1 interrupt of send_email:") || !strings.Contains(out, "abcd1111") ||
		!strings.Contains(out, "Sent approve for abcd1111") {
		t.Fatalf("stdout:\n%s", out)
	}
	if out := stderr.String(); !strings.Contains(out, "Not approved: 1 interrupt:") || !strings.Contains(out, "efgh2222") ||
		!strings.Contains(out, "not approved: it also calls delete_file (approve it by id after reading it)") {
		t.Fatalf("stderr:\n%s", out)
	}
	if _, ok := b.SentValue("abcd1111"); !ok {
		t.Fatal("abcd1111 was not sent")
	}
	if _, ok := b.SentValue("efgh2222"); ok {
		t.Fatal("efgh2222, which also calls another tool, was sent")
	}
}
