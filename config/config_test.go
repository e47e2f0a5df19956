package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

const sample = `default_profile: local
profiles:
  local:
    backend: langgraph
    url: http://127.0.0.1:2024/
    api_key_env: MY_KEY
    graph: agent
    poll_interval: 5s
    reviewer: alice
    headers:
      X-Team: payments
      Authorization: Bearer s3cret
  prod:
    url: https://prod.example
    edit_dialect: edited_args
`

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// The key from the variables LangGraph's SDKs read, in their order:
// LANGGRAPH_API_KEY, LANGSMITH_API_KEY, LANGCHAIN_API_KEY.
func TestAPIKeyFromTheSDKVariables(t *testing.T) {
	f, err := Parse("config.yaml", []byte("profiles:\n  local:\n    url: http://127.0.0.1:2024\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"LANGCHAIN_API_KEY": "c"}, "c"},
		{map[string]string{"LANGCHAIN_API_KEY": "c", "LANGSMITH_API_KEY": "s"}, "s"},
		{map[string]string{"LANGCHAIN_API_KEY": "c", "LANGSMITH_API_KEY": "s", "LANGGRAPH_API_KEY": "g"}, "g"},
		{map[string]string{"LANGCHAIN_API_KEY": "c", "HITL_API_KEY": "h"}, "h"},
	} {
		s, err := Resolve(f, Overrides{}, env(tt.env))
		if err != nil || s.APIKey != tt.want {
			t.Errorf("%v: key %q, want %q (%v)", tt.env, s.APIKey, tt.want, err)
		}
	}
}

func TestPrecedence(t *testing.T) {
	f, err := Parse("config.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	// File only.
	s, err := Resolve(f, Overrides{}, env(map[string]string{"MY_KEY": "k1", "LANGSMITH_API_KEY": "k2"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.ProfileName != "local" || s.URL != "http://127.0.0.1:2024" || s.Graph != "agent" || s.Reviewer != "alice" ||
		s.PollInterval != 5*time.Second || s.APIKey != "k1" || s.Headers["X-Team"] != "payments" {
		t.Fatalf("file settings: %+v", s)
	}
	// Environment beats file; flag beats environment.
	s, err = Resolve(f, Overrides{Graph: "flaggraph", Headers: []string{"X-Team: ops"}},
		env(map[string]string{"HITL_GRAPH": "envgraph", "HITL_URL": "http://env:1", "HITL_API_KEY": "k0", "MY_KEY": "k1"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Graph != "flaggraph" || s.URL != "http://env:1" || s.APIKey != "k0" || s.Headers["X-Team"] != "ops" {
		t.Fatalf("precedence: %+v", s)
	}
	// Another profile, by environment.
	s, err = Resolve(f, Overrides{}, env(map[string]string{"HITL_PROFILE": "prod"}))
	if err != nil || s.URL != "https://prod.example" || s.EditDialect != "edited_args" || s.PollInterval != DefaultPollInterval {
		t.Fatalf("prod: %+v %v", s, err)
	}
}

func TestDefaultsWithoutFile(t *testing.T) {
	s, err := Resolve(&File{}, Overrides{}, env(nil))
	if err != nil || s.URL != DefaultURL || s.Backend != "langgraph" || s.EditDialect != "edited_action" {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestErrorsSayWhere(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"profiles:\n  a:\n    urll: x\n", `line 3: unknown setting "urll" in a profile`},
		{"profiles:\n  a:\n    poll_interval: soon\n", `line 3: "soon" is not a duration`},
		{"profiles: [\n", "line 1"},
		{"default_profile: b\nprofiles:\n  a: {}\n", `default_profile "b" is not one of the profiles (a)`},
	} {
		_, err := Parse("c.yaml", []byte(tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.yaml, err, tt.want)
		}
	}
	f, _ := Parse("c.yaml", []byte(sample))
	if _, err := Resolve(f, Overrides{Profile: "nope"}, env(nil)); err == nil || !strings.Contains(err.Error(), "local, prod") {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestRedactedHidesSecrets(t *testing.T) {
	f, _ := Parse("c.yaml", []byte(sample))
	s, _ := Resolve(f, Overrides{}, env(map[string]string{"MY_KEY": "topsecret"}))
	out := strings.Join(strings.Fields(strings.ReplaceAll(toString(s.Redacted()), "\n", " ")), " ")
	if strings.Contains(out, "topsecret") || strings.Contains(out, "s3cret") || !strings.Contains(out, "payments") {
		t.Fatalf("redacted: %s", out)
	}
}

func toString(m map[string]any) string {
	var b strings.Builder
	for k, v := range m {
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(strings.TrimSpace(strings.ReplaceAll(fmtAny(v), "\n", " ")))
		b.WriteString(" ")
	}
	return b.String()
}

func fmtAny(v any) string { return fmt.Sprint(v) }

func TestSecretInReadableFileWarns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits")
	}
	const secret = "profiles:\n  prod:\n    url: https://prod.example\n    api_key: sk-1\n"
	for _, c := range []struct {
		name, body string
		perm       os.FileMode
		warn       string // "" for no warning
	}{
		{"world-readable key", secret, 0o644, "holds secrets (api_key (profile prod)) and is readable by every user of this machine (mode 0644): run chmod 600 "},
		{"group-readable token", "profiles:\n  p:\n    bearer_token: t\n", 0o640, "holds secrets (bearer_token (profile p)) and is readable by its group"},
		{"headers", "profiles:\n  p:\n    headers: {X-Auth: x}\n", 0o604, "headers (profile p)"},
		{"password in the url", "profiles:\n  p:\n    url: https://u:pw@h.example\n", 0o644, "url with credentials (profile p)"},
		{"password in hub.store", "hub:\n  store: postgres://hub:s3cr3t-pw@db.example/hitl\n", 0o644, "holds secrets (password (hub.store))"},
		{"password parameter in hub.store", "hub:\n  store: postgres://hub@db.example/hitl?password=s3cr3t-pw\n", 0o640, "password (hub.store)"},
		{"hub.store without a password", "hub:\n  store: postgres://hub@db.example/hitl?sslmode=require\n  store_env: X\n", 0o644, ""},
		{"private", secret, 0o600, ""},
		{"no secret", "profiles:\n  p:\n    url: http://127.0.0.1:2024\n    api_key_env: MY_KEY\n", 0o644, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, c.perm); err != nil { // the umask may narrow WriteFile's mode
				t.Fatal(err)
			}
			f, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.warn == "" {
				if len(f.Warnings) != 0 {
					t.Fatalf("unexpected warnings: %q", f.Warnings)
				}
				return
			}
			if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], c.warn) || !strings.Contains(f.Warnings[0], "chmod 600 "+path) {
				t.Fatalf("warnings %q, want one with %q and chmod 600 %s", f.Warnings, c.warn, path)
			}
			if strings.Contains(f.Warnings[0], "sk-1") || strings.Contains(f.Warnings[0], "pw") || strings.Contains(f.Warnings[0], "s3cr3t") {
				t.Fatalf("the warning shows the secret: %s", f.Warnings[0])
			}
		})
	}
}

func TestShowHidesURLCredentials(t *testing.T) {
	s, err := Resolve(&File{}, Overrides{URL: "https://alice:pa55@h.example/base?token=t0k&tenant=acme"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Redacted()["url"]; got != "https://[redacted]@h.example/base?token=[redacted]&tenant=acme" {
		t.Errorf("url shown as %v", got)
	}
}

func TestMalformedHeaderFlagHidesItsValue(t *testing.T) {
	_, err := Resolve(&File{}, Overrides{Headers: []string{"Authorization Bearer s3cret-tok"}}, env(nil))
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), `"Authorization …"`) {
		t.Fatalf("got %v", err)
	}
}

// The paths come from the environment given, never the process's: a test
// (or a developer's shell) cannot leak into another's.
func TestPathsReadTheGivenEnvironment(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("home is $HOME on unix only")
	}
	for _, c := range []struct {
		env         map[string]string
		path, state string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.config/hitl/config.yaml", "/h/.local/state/hitl"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s"}, "/c/hitl/config.yaml", "/s/hitl"},
		{map[string]string{"HOME": "/h", "HITL_CONFIG": "/x.yaml", "XDG_CONFIG_HOME": "/c"}, "/x.yaml", "/h/.local/state/hitl"},
	} {
		if got := Path(env(c.env)); got != c.path {
			t.Errorf("Path(%v) = %s, want %s", c.env, got, c.path)
		}
		if got := StateDir(env(c.env)); got != c.state {
			t.Errorf("StateDir(%v) = %s, want %s", c.env, got, c.state)
		}
	}
	s, err := Resolve(&File{}, Overrides{}, env(map[string]string{"HITL_CONFIG": "/x.yaml", "XDG_STATE_HOME": "/s"}))
	if err != nil || s.ConfigFile != "/x.yaml" || s.StateDir != "/s/hitl" {
		t.Fatalf("%+v %v", s, err)
	}
}

// config show prints the A2A backend's settings too: the tasks named
// besides those listed, and the LangGraph server behind an /a2a endpoint
// (its credentials hidden, as the url's).
func TestShowA2ASettings(t *testing.T) {
	f := &File{Profiles: map[string]*Profile{"agent": {Backend: "a2a", URL: "http://127.0.0.1:9999/", Tasks: []string{"task-1"},
		LangGraphURL: "https://bob:s3cret@lg.example"}}}
	s, err := Resolve(f, Overrides{Profile: "agent", Tasks: []string{"task-2"}}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Redacted()
	if got := fmt.Sprint(r["tasks"]); got != "[task-1 task-2]" {
		t.Errorf("tasks shown as %v", got)
	}
	if got := r["langgraph_url"]; got != "https://[redacted]@lg.example" {
		t.Errorf("langgraph_url shown as %v", got)
	}
}
