package main

// The CLI against a server built to attack it (internal/hostile): whatever
// the server sends, no byte of it drives the terminal, no credential leaves
// for another host or reaches an output or a file, and one poisoned
// interrupt does not hide the others.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/internal/hostile"
)

const hostileKey = "sk-hostile-key-7f3a9c"

// hostileServer starts the hostile server with the CLI configured for it
// (the API key in HITL_API_KEY), in a state directory of its own.
func hostileServer(t *testing.T, opts hostile.Options) *hostile.Server {
	t.Helper()
	isolate(t)
	opts.Key = hostileKey
	srv := hostile.New(opts)
	t.Cleanup(srv.Close)
	setenv(t, "HITL_API_KEY", hostileKey)
	setenv(t, "HITL_URL", srv.URL)
	return srv
}

// assertInert fails the test if r's output carries anything of the server that a
// terminal would act on, or the key.
func assertInert(t *testing.T, what string, r result) {
	t.Helper()
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if where, bad := hostile.Dangerous([]byte(out)); bad {
			t.Errorf("%s: %s carries %s", what, name, where)
		}
		if strings.Contains(out, hostileKey) {
			t.Errorf("%s: %s shows the API key:\n%s", what, name, out)
		}
	}
}

// noSecretInFiles fails the test if any file of the state directory holds
// the key.
func noSecretInFiles(t *testing.T) {
	t.Helper()
	dir := envOf(t).getenv("XDG_STATE_HOME")
	n := 0
	_ = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		n++
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, []byte(hostileKey)) {
			t.Errorf("%s holds the API key", path)
		}
		return nil
	})
	if n == 0 {
		t.Error("no state file was written")
	}
}

// Errors, whatever their source, reach stderr inertly and without the key.
func TestHostileErrors(t *testing.T) {
	t.Parallel()
	srv := hostileServer(t, hostile.Options{})
	thread, err := srv.Agent()
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, it := range listJSON(t) {
		if it.ThreadID == thread {
			id = it.ID
		}
	}

	srv.SetMode(hostile.Errors)
	for _, args := range [][]string{{"list"}, {"list", "--json"}, {"show", "abcd"}, {"approve", id}, {"conversation", thread}, {"config", "show"}} {
		r := hitl(t, "", args...)
		assertInert(t, strings.Join(args, " "), r)
	}
	r := hitl(t, "", "list")
	must(t, r, 1, "HTTP 500")
	if !strings.Contains(r.stderr, `\u001b]0;pwned title\u0007`) || !strings.Contains(r.stderr, "[redacted]") {
		t.Errorf("the error does not show the server's words inertly, key hidden:\n%s", r.stderr)
	}

	srv.SetMode(hostile.NotJSON)
	r = hitl(t, "", "list")
	assertInert(t, "list (not JSON)", r)
	must(t, r, 1, "not the expected JSON")

	// A run that fails with the server's words: shown inertly, key hidden,
	// and the audit log does not keep the key either.
	srv.SetMode(hostile.Normal)
	srv.FailRuns(true)
	r = hitl(t, "", "approve", id)
	assertInert(t, "approve (run fails)", r)
	must(t, r, 1, "the run failed")
	if !strings.Contains(r.stderr, `HostileError`) && !strings.Contains(r.stderr, `Hostile\u001b[31mError`) {
		t.Errorf("the run's error is not shown:\n%s", r.stderr)
	}
	r = hitl(t, "", "history", "--json")
	assertInert(t, "history --json", r)
	noSecretInFiles(t)
}

// Credentials go to the configured origin only: a redirect elsewhere is
// refused, for reads and for decisions, with the API key, a bearer token
// or a custom header, and nothing reaches the other host.
func TestHostileRedirects(t *testing.T) {
	t.Parallel()
	for _, auth := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"api key", nil, nil},
		{"bearer", map[string]string{"HITL_API_KEY": "", "HITL_BEARER_TOKEN": hostileKey}, nil},
		{"header", map[string]string{"HITL_API_KEY": ""}, []string{"--header", "X-Custom-Auth: " + hostileKey}},
	} {
		t.Run(auth.name, func(t *testing.T) {
			t.Parallel()
			srv := hostileServer(t, hostile.Options{})
			for k, v := range auth.env {
				setenv(t, k, v)
			}
			thread, err := srv.Agent()
			if err != nil {
				t.Fatal(err)
			}
			var id string
			for _, it := range listJSON(t, auth.args...) {
				if it.ThreadID == thread {
					id = it.ID
				}
			}
			sent := 0
			for _, r := range srv.Seen() {
				if strings.Contains(strings.Join(append(r.Header.Values("X-Api-Key"), r.Header.Values("Authorization")...), " ")+
					r.Header.Get("X-Custom-Auth"), hostileKey) {
					sent++
				}
			}
			if sent == 0 {
				t.Fatal("the credential never reached the configured server")
			}

			srv.SetMode(hostile.RedirectWrites)
			r := hitl(t, "", append(auth.args, "approve", id)...)
			assertInert(t, "approve (redirected)", r)
			if r.code == 0 || !strings.Contains(r.stderr, "not the configured server") {
				t.Errorf("a redirected decision: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			srv.SetMode(hostile.Redirect)
			r = hitl(t, "", append(auth.args, "list")...)
			assertInert(t, "list (redirected)", r)
			must(t, r, 1, "not the configured server")
			if got := srv.Reached(); len(got) > 0 {
				t.Errorf("%d requests reached the other host, the first: %+v", len(got), got[0])
			}
			noSecretInFiles(t)
		})
	}
}

// A 9,000-deep payload is shown in time and space linear in its size.
func TestDeepPayloadShowsInLinearTime(t *testing.T) {
	t.Parallel()
	hostileServer(t, hostile.Options{Deep: 9_000})
	start := time.Now()
	r := hitl(t, "", "show", "dee9")
	took := time.Since(start)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(r.stdout) > 40*9_000 || took > 5*time.Second {
		t.Errorf("show of a 9,000-deep payload: %d bytes in %s", len(r.stdout), took)
	}
	t.Logf("show of a 9,000-deep payload: %d bytes in %s", len(r.stdout), took)
}
func TestHostileServerCLI(t *testing.T) {
	t.Parallel()
	srv := hostileServer(t, hostile.Options{Deep: 100_000, Broken: true})
	thread, err := srv.Agent()
	if err != nil {
		t.Fatal(err)
	}

	r := hitl(t, "", "list")
	assertInert(t, "list", r)
	for _, want := range []string{"e5c4", "dee90000", "send_email", "thread-b", `\u001b`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list does not show %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	if r.code != 0 {
		t.Fatalf("list: exit %d: %s", r.code, r.stderr)
	}

	r = hitl(t, "", "list", "--json")
	assertInert(t, "list --json", r)
	var listed []struct {
		ID       string `json:"id"`
		ThreadID string `json:"thread_id"`
		Schema   string `json:"schema"`
		Problem  string `json:"problem"`
		Title    string `json:"title"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil {
		t.Fatalf("list --json is not JSON: %v\n%s", err, r.stdout)
	}
	var normal string
	byID := map[string]string{}
	for _, it := range listed {
		byID[it.ID] = it.Problem
		if it.ThreadID == thread {
			normal = it.ID
		}
	}
	if normal == "" || len(listed) != 5 {
		t.Fatalf("list --json: the agent's interrupt beside 4 poisoned ones, got %d: %+v", len(listed), listed)
	}
	if _, ok := byID[hostile.IDHostile]; !ok {
		t.Errorf("the hostile id did not come back exactly: %+v", listed)
	}
	if p := byID[hostile.IDDeep]; !strings.Contains(p, "100,000 levels") {
		t.Errorf("the deep interrupt's problem: %q", p)
	}

	for _, args := range [][]string{
		{"show", "e5c4"},     // ambiguous: the candidates are listed
		{"show", "e5c4\x1b"}, // the typed id is the reviewer's, echoed inertly
		{"show", "dee9"},     // the deep one: says what is wrong with it
		{"show", "dee9", "--json"},
		{"show", normal[:8]},
		{"conversation", hostile.ThreadHostile},
		{"approve", "dee9"},
		{"history"},
	} {
		r := hitl(t, "", args...)
		assertInert(t, strings.Join(args, " "), r)
	}
	r = hitl(t, "", "show", "e5c4")
	must(t, r, 2, "matches 2 interrupts")
	if !strings.Contains(r.stderr, `e5c4\u001b]0;pwned\u0007<U+202E><U+200B>\u009b31m-hostile`) {
		t.Errorf("the candidates are not listed inertly:\n%s", r.stderr)
	}
	must(t, hitl(t, "", "show", "dee9"), 0, "nested 100,000 levels deep")
	must(t, hitl(t, "", "show", "dee9"), 0, "hitl show dee90000 --raw")
	must(t, hitl(t, "", "approve", "dee9"), 4, "not allowed")

	// The hostile interrupt in full, by a prefix of its own.
	for _, id := range []string{hostile.IDHostile[:8], hostile.IDHostile2[:9]} {
		r = hitl(t, "", "show", id)
		assertInert(t, "show "+id, r)
		must(t, r, 0, `\u001b`)
	}

	// The others stay answerable: approve the agent's interrupt.
	r = hitl(t, "", "approve", normal)
	assertInert(t, "approve", r)
	must(t, r, 0, "Sent")
	noSecretInFiles(t)
}

// --raw prints the bytes the server sent: exactly into a pipe or a file,
// inertly to a terminal.
func TestShowRaw(t *testing.T) {
	t.Parallel()
	hostileServer(t, hostile.Options{Deep: 100_000})
	r := hitl(t, "", "show", "dee9", "--raw")
	if r.code != 0 || r.stdout != strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)+"\n" {
		t.Fatalf("show --raw into a pipe: exit %d, %d bytes: %.100s %s", r.code, len(r.stdout), r.stdout, r.stderr)
	}
	r = hitl(t, "", "show", hostile.IDHostile[:8], "--raw")
	if !strings.Contains(r.stdout, "\u202e") || !json.Valid([]byte(r.stdout)) {
		t.Errorf("show --raw into a pipe is not the exact JSON:\n%s", r.stdout)
	}
	// On a terminal: the same JSON, its dangerous characters escaped.
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"show", hostile.IDHostile[:8], "--raw"}, strings.NewReader(""), ttyBuffer{&out}, &errb, envOf(t).getenv)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if where, bad := hostile.Dangerous(out.Bytes()); bad {
		t.Errorf("show --raw on a terminal carries %s", where)
	}
	if !json.Valid(out.Bytes()) || !strings.Contains(out.String(), `\u202e`) {
		t.Errorf("show --raw on a terminal is not JSON with escapes:\n%s", out.String())
	}
}
