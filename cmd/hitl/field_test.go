package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/demo"
)

// --field names every argument of the demo's issue_refund, those its
// args_schema does not describe too (the TUI's form shows the same).
func TestFieldNamesEveryArgument(t *testing.T) {
	isolate(t)
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.Seed(0)
	r := hitl(t, "", "--url", srv.URL(), "list", "--graph", "support", "--json")
	var its []struct {
		ID      string `json:"id"`
		Actions []struct {
			Name string `json:"name"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &its); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	id := ""
	for _, it := range its {
		if len(it.Actions) == 1 && it.Actions[0].Name == "issue_refund" {
			id = it.ID
		}
	}
	if id == "" {
		t.Fatalf("no issue_refund among:\n%s", r.stdout)
	}
	r = hitl(t, "", "--url", srv.URL(), "edit", id, "--field", "reason=broken on arrival", "--field", "currency=USD", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stderr, `+   "reason": "broken on arrival"`) || !strings.Contains(r.stderr, `+   "currency": "USD"`) {
		t.Fatalf("--field (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
}
