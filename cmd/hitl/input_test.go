package main

// The edges of what a reviewer types: input past the limit is refused with
// the limit named, answers that outnumber the questions are refused, and
// nothing is sent in either case.

import (
	"github.com/hitl-sh/hitl/cli/decisions"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/demo"
)

func TestInputEdges(t *testing.T) {
	t.Parallel()
	isolate(t)
	_, s := embedded(t, map[string]string{"email": "support", "questions": "planner"})

	email := s.onlyPending(s.agent("email"))
	// 16 MiB and one byte on standard input, and in a file: refused, the
	// limit named, exit 2, nothing sent.
	big := `{"to":"` + strings.Repeat("x", decisions.MaxInput) + `"}`
	r := s.hitl(big, "edit", email.ID, "--args", "-")
	must(t, r, 2, "standard input is larger than 16 MiB")
	file := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(file, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, s.hitl("", "edit", email.ID, "--args", file), 2, file+" is larger than 16 MiB")
	must(t, s.hitl(big, "decide", email.ID, "--decisions", "-"), 2, "larger than 16 MiB")
	if s.runs(email.ThreadID) != 1 {
		t.Fatal("something was sent")
	}

	// Three answers for two questions: refused, exit 2, nothing sent.
	q := s.onlyPending(s.start("questions", map[string]any{"topic": "tests"}))
	r = s.hitl("", "respond", q.ID, "-m", "ok", "--answer", "a", "--answer", "b", "--answer", "c")
	must(t, r, 2, "3 answers for 2 questions")
	if s.runs(q.ThreadID) != 1 {
		t.Fatal("something was sent")
	}
	// Both stay answerable.
	must(t, s.hitl("", "approve", email.ID), 0, "Sent")
	must(t, s.hitl("", "respond", q.ID, "-m", "ok", "--answer", "a", "--answer", "b"), 0, "Sent")
}

// A mistyped command is named, with the command it most likely meant.
func TestUnknownCommandIsNamed(t *testing.T) {
	t.Parallel()
	must(t, hitl(t, "", "lst"), 2, `hitl: unknown command "lst"; did you mean list? (hitl --help lists the commands)`)
	r := hitl(t, "", "frob")
	must(t, r, 2, `unknown command "frob" (hitl --help lists the commands)`)
	if strings.Count(r.stderr, "hitl") != 2 {
		t.Fatalf("hitl is doubled: %s", r.stderr)
	}
}

// A file that is not there is named, without Go's "open NAME:".
func TestMissingArgsFileIsSaidPlainly(t *testing.T) {
	t.Parallel()
	r := hitl(t, "", "--url", "http://127.0.0.1:1", "edit", "x", "--args", "/no/such/args.json")
	must(t, r, 2, "hitl: cannot read /no/such/args.json: no such file or directory")
	if strings.Contains(r.stderr, "open ") {
		t.Fatalf("Go's words leak: %s", r.stderr)
	}
}

// A URL with credentials: show's answer line repeats the URL without them,
// and says where to put them back (a pasted [redacted] is no URL).
func TestShowHintWithCredentialsInTheURL(t *testing.T) {
	t.Parallel()
	isolate(t)
	_, s := embedded(t, map[string]string{"email": "support"})
	email := s.onlyPending(s.agent("email"))
	u := strings.Replace(s.url, "http://", "http://ann:s3cret@", 1)
	r := hitl(t, "", "--url", u, "show", email.ID)
	must(t, r, 0, "put yours back where it says [redacted]")
	if strings.Contains(r.stdout+r.stderr, "s3cret") {
		t.Fatalf("show printed the URL's password:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "\n  hitl --url 'http://[redacted]@") {
		t.Fatalf("the answer line does not repeat the URL:\n%s", r.stdout)
	}
}

// embedded starts the embedded demo server for one test, its agents named
// by graphs (as a real server's target names them).
func embedded(t *testing.T, graphs map[string]string) (*demo.Server, *server) {
	t.Helper()
	srv := demo.New()
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, &server{t: t, target: target{name: "embedded", url: srv.URL(), record: (*server).runResumes, graphs: graphs}}
}

// An edit's diff on standard error compares the arguments key by key: a
// key the edit kept, written in another place by --args (or in an order
// of an A2A agent's own), is not shown as removed and added again.
func TestEditDiffIgnoresKeyOrder(t *testing.T) {
	t.Parallel()
	isolate(t)
	_, s := embedded(t, map[string]string{"email": "support"})
	email := s.onlyPending(s.agent("email"))
	r := s.hitl(`{"cc":["billing@example.com"],"body":"Hi Dana","subject":"Your refund for order A-1001","to":"dana@customer.example"}`,
		"edit", email.ID, "--args", "-", "--dry-run")
	must(t, r, 0, "your arguments (- proposed, + yours)")
	var changed []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "+ ") {
			changed = append(changed, l)
		}
	}
	if len(changed) != 2 || !strings.HasPrefix(changed[0], `-   "body": "Hi Dana,\n`) || changed[1] != `+   "body": "Hi Dana",` {
		t.Fatalf("the diff shows as changed:\n%s\nwant only the body:\n%s", strings.Join(changed, "\n"), r.stderr)
	}
	if s.runs(email.ThreadID) != 1 {
		t.Fatal("a dry run sent something")
	}
}
