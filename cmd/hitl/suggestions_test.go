package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hitl show of a coding agent's request, on the events backend: the
// commands it suggests work as printed (they name the backend and the
// URL it was called with), and what the request leaves empty is not
// printed as an empty field.
func TestShowOfAHookRequestSuggestsWhatWorks(t *testing.T) {
	h := startHub(t, teamYAML)
	p := h.hook("claude", claudeBash)
	id := h.waitRequest("sess-bash")
	code, out, errs := h.cli(aliceToken, "show", id)
	if code != 0 {
		t.Fatalf("show: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out, "assistant \n") || strings.Contains(out, "assistant  ") || strings.Contains(out, "assistant\n") {
		t.Fatalf("show prints an empty assistant:\n%s", out)
	}
	var approve string
	for _, c := range strings.Split(out, "\n") { // one suggestion a line
		if i := strings.Index(c, "hitl "); i >= 0 && strings.Contains(c, " approve ") {
			approve = strings.TrimSpace(c[i:])
		}
	}
	if !strings.HasPrefix(approve, "hitl --backend events --url "+h.url+" approve ") {
		t.Fatalf("the approve suggested does not name the backend and the URL: %q\n%s", approve, out)
	}
	// Run it as printed (the token, as ever, from the environment).
	dir := t.TempDir()
	cmd := exec.Command(builtBinary(t), strings.Fields(approve)[1:]...)
	cmd.Env = hermeticEnv("HITL_CONFIG="+filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME="+dir, "HITL_BEARER_TOKEN="+aliceToken)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s%s", approve, err, o.String(), e.String())
	}
	if code := p.finish(t, 20*time.Second); code != 0 || p.stdout.String() != allowJSON {
		t.Fatalf("hook: exit %d, stdout %q, stderr %q", code, p.stdout.String(), p.stderr.String())
	}
}

// A URL's userinfo is not repeated in a suggested command.
func TestAgainLeavesSecretsOut(t *testing.T) {
	e := &env{}
	e.flags.Backend, e.flags.URL, e.flags.Profile = "events", "http://bob:s3cret@hub.example:8700/x?a=1", "team one"
	got := e.again()
	if strings.Contains(got, "s3cret") || !strings.HasPrefix(got, "hitl --profile 'team one' --backend events --url ") {
		t.Fatalf("%q", got)
	}
	if (&env{}).again() != "hitl" {
		t.Fatal("flags nobody gave are named")
	}
}
