package main

// The CLI on the REST and event-stream backends, against their fakes: list,
// show, decide, run controls, and a second attempt that sends nothing.

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/demo"
)

func listJSON(t *testing.T, args ...string) []listed {
	t.Helper()
	r := hitl(t, "", append(args, "list", "--json")...)
	if r.code != 0 {
		t.Fatalf("list: %s", r.stderr)
	}
	var out []listed
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCLIOnRESTBackend(t *testing.T) {
	t.Parallel()
	isolate(t)
	fake := demo.NewREST()
	fake.StepDelay = 0
	ts := httptest.NewServer(fake.Handler())
	defer ts.Close()
	// A profile of kind rest, as a user would write it.
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, "default_profile: api\nprofiles:\n  api:\n    backend: rest\n    url: "+ts.URL+"\n    reviewer: alice\n")
	setenv(t, "HITL_CONFIG", cfg)
	run := fake.Spawn("")

	its := listJSON(t)
	if len(its) != 1 || its[0].Schema != "information-review" || its[0].ThreadID != run {
		t.Fatalf("list: %+v", its)
	}
	must(t, hitl(t, "", "show", its[0].ID), 0, "Confidence")
	must(t, hitl(t, "", "approve", its[0].ID), 0, "paused again")
	must(t, hitl(t, "", "approve", its[0].ID), 3, "already handled")

	payload := listJSON(t)[0]
	must(t, hitl(t, "", "show", payload.ID), 0, "against its example: $.aspect_ratio changed, $.image_file added")
	must(t, hitl(t, "", "run", "pause", payload.ID), 2, "add --yes")
	must(t, hitl(t, "", "run", "pause", payload.ID, "--yes"), 0, "status paused")
	must(t, hitl(t, "", "approve", payload.ID), 1, "the run is paused: resume it first")
	must(t, hitl(t, "", "run", "resume", payload.ID, "-y"), 0, "status awaiting_human")
	edited := `{"prompt":"A watercolor fox reading a newspaper in a cafe","num_outputs":1,"aspect_ratio":"16:9","output_format":"png"}`
	must(t, hitl(t, edited, "edit", payload.ID, "--args", "-"), 0, "paused again")

	resp := listJSON(t)[0]
	if resp.Schema != "response-review" {
		t.Fatalf("third checkpoint: %+v", resp)
	}
	must(t, hitl(t, "", "show", resp.ID), 0, "cleaned text")
	must(t, hitl(t, "", "reject", resp.ID, "-m", "the caption is wrong"), 0, "finished")
	h := hitl(t, "", "history", "--json")
	for _, want := range []string{`"approved_by":"alice"`, `"edits":{"num_outputs":1,"image_file":null}`, `"reason":"thecaptioniswrong"`} {
		if !strings.Contains(strings.Join(strings.Fields(h.stdout), ""), want) {
			t.Errorf("the audit log lacks %s:\n%s", want, h.stdout)
		}
	}
}

func TestCLIOnEventsBackend(t *testing.T) {
	t.Parallel()
	isolate(t)
	fake := demo.NewEvents()
	ts := httptest.NewServer(fake.Handler())
	defer func() { fake.Close(); ts.CloseClientConnections(); ts.Close() }()
	args := []string{"--backend", "events", "--url", ts.URL, "--reviewer", "bob"}
	fake.Seed(0)
	its := listJSON(t, args...)
	shapes := map[string]listed{}
	for _, it := range its {
		shapes[it.Schema] = it
	}
	if len(its) != 3 || shapes["questions"].ID == "" || shapes["hitl-middleware"].ID == "" || shapes["prompt"].ID == "" {
		t.Fatalf("list: %+v", its)
	}
	q := shapes["questions"]
	// The thread is named whole: "session-2" is not cut to "session-".
	must(t, hitl(t, "", append(args, "respond", q.ID, "-m", "ship it", "--answer", "yes", "--answer", "no")...), 0, "(thread "+q.ThreadID+")")
	if got := string(fake.Answers[q.ID]); got != `{"decision":"edit","feedback":"ship it","answers":["yes","no"]}` {
		t.Fatalf("the agent got %s", got)
	}
	must(t, hitl(t, "", append(args, "approve", q.ID)...), 3, "already handled")
	p := shapes["prompt"]
	must(t, hitl(t, "", append(args, "respond", p.ID, "-m", "trust the audited 4.1M")...), 0, "Sent respond")
	if got := string(fake.Answers[p.ID]); got != `"trust the audited 4.1M"` {
		t.Fatalf("the agent got %s", got)
	}
	must(t, hitl(t, "", append(args, "run", "pause", shapes["hitl-middleware"].ID, "--yes")...), 4, "has no run controls")
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
