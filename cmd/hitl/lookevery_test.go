package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/config"
)

// look_every (or HITL_LOOK_EVERY) is how often the watcher of every
// command looks (langgraph Options.Live: the TUI, watch, serve's shared
// watcher, the demo all open their backend through newBackend); a value
// that is not a duration, or one under the floor, is a usage error
// (exit 2) that says what to write, before anything is asked of a server.
func TestLookEveryReachesTheWatcher(t *testing.T) {
	t.Parallel()
	isolate(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, "profiles:\n  slow:\n    url: http://127.0.0.1:9\n    look_every: 1s\n")
	setenv(t, "HITL_CONFIG", cfg)
	live := func() time.Duration {
		t.Helper()
		e := &env{stdin: strings.NewReader(""), stdout: newTermOut(io.Discard), stderr: newTermOut(io.Discard), getenv: envOf(t).getenv}
		a, err := e.open(0)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := a.Backend.(*langgraph.Backend)
		if !ok {
			t.Fatalf("backend %T", a.Backend)
		}
		return b.Live()
	}
	if got := live(); got != time.Second {
		t.Fatalf("the profile's look_every 1s: the watcher looks every %v", got)
	}
	setenv(t, "HITL_LOOK_EVERY", "350ms")
	if got := live(); got != 350*time.Millisecond {
		t.Fatalf("HITL_LOOK_EVERY=350ms: the watcher looks every %v", got)
	}
	must(t, hitl(t, "", "config", "show"), 0, `"look_every": "350ms"`)
	setenv(t, "HITL_LOOK_EVERY", "10ms")
	for _, args := range [][]string{{"watch", "--json"}, {"list"}} {
		must(t, hitl(t, "", args...), exitUsage, "HITL_LOOK_EVERY 10ms is too short: looks at the server come at most every 50ms")
	}
	setenv(t, "HITL_LOOK_EVERY", "fast")
	must(t, hitl(t, "", "watch"), exitUsage, `HITL_LOOK_EVERY "fast" is not a duration`)

	// Unset, the backend's own default, which the docs give as the setting's.
	writeFile(t, cfg, "profiles:\n  plain:\n    url: http://127.0.0.1:9\n")
	setenv(t, "HITL_LOOK_EVERY", "")
	if got := live(); got != config.DefaultLookEvery {
		t.Fatalf("no look_every: the watcher looks every %v, want %v", got, config.DefaultLookEvery)
	}
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: "http://127.0.0.1:9"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Live() != config.DefaultLookEvery {
		t.Fatalf("langgraph's default look is every %v, config's %v", b.Live(), config.DefaultLookEvery)
	}
}
