package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/config"
)

func TestConfigShowHidesSecrets(t *testing.T) {
	t.Parallel()
	isolate(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, `default_profile: prod
profiles:
  prod:
    url: https://alice:pa55-word-1@prod.example/base?token=t0k3n-2&tenant=acme
    api_key: sk-key-3
    headers: {Authorization: Bearer b3arer-4, X-Team: payments}
`)
	if err := os.Chmod(cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	setenv(t, "HITL_CONFIG", cfg)
	r := hitl(t, "", "config", "show")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, leak := range []string{"pa55-word-1", "t0k3n-2", "sk-key-3", "b3arer-4"} {
		if strings.Contains(r.stdout+r.stderr, leak) {
			t.Errorf("config show prints %q:\n%s%s", leak, r.stdout, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, `"url": "https://[redacted]@prod.example/base?token=[redacted]&tenant=acme"`) {
		t.Errorf("the URL is not shown redacted:\n%s", r.stdout)
	}
	if strings.Count(r.stderr, "chmod 600 "+cfg) != 1 {
		t.Errorf("no single warning about the file's mode:\n%s", r.stderr)
	}
	// Once private, no warning.
	if err := os.Chmod(cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := hitl(t, "", "config", "show"); r.code != 0 || r.stderr != "" {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// Every backend can hand its redactor to the journal (see env.open).
func TestBackendsRedactForTheJournal(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"langgraph", "rest", "events"} {
		b, err := newBackend(&config.Settings{Backend: kind, URL: "http://127.0.0.1:1", APIKey: "sk-key-5", Timeout: time.Second}, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := b.(interface{ Redact(string) string })
		if !ok {
			t.Fatalf("%s: no Redact", kind)
		}
		if got := r.Redact("key sk-key-5"); got != "key [redacted]" {
			t.Errorf("%s: %q", kind, got)
		}
	}
}
