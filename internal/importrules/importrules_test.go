package importrules

import (
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/hitl-sh/hitl"

// notBackends are the packages under client/ that are not a backend: the
// model's helpers, shared by the backends or by the tests.
var notBackends = []string{"client/transport", "client/journal", "client/fake", "client/backendtest"}

// isBackend reports whether p (relative to the module) is a backend: a
// package under client/ that is none of notBackends. A backend added later
// is covered by the backends' rule without a word here.
func isBackend(p string) bool {
	return strings.HasPrefix(p, "client/") && !slices.Contains(notBackends, p)
}

// mayImport is ARCHITECTURE.md's "Imports point down only", package by
// package: everything of the project each one may import. A package in this
// list importing anything else of the project breaks the rule.
var mayImport = map[string][]string{
	"client":           {"diff"},
	"client/transport": {"redact", "inert"},
	"client/journal":   {"client", "redact"},
	"client/fake":      {"client"},
	"diff":             {},
	"inert":            {},
	"redact":           {},
	"team":             {},
	"store":            {"redact"},
	"hookclient":       {"coord/wire"},
	"agenthook":        {"hookclient", "inert"},
	"coord/wire":       {"client"},
	"rules":            {"client", "team"},
	"demo":             {"coord/wire"},
	"config":           {"redact", "team"},
	"present":          {"client", "client/journal", "diff", "inert"},
	"decide":           {"client", "client/journal", "diff", "present", "inert"},
	"review":           {"decide", "present", "inert", "client", "client/journal"},
	"watchexec":        {"present", "inert", "client"},
	"tui":              {"review", "decide", "present", "inert", "client", "client/journal", "diff"},
	// The CLI's decision commands: the rules of review, the pipeline of
	// decide, the words of present; never a backend nor the terminal's TUI.
	"cli/decisions": {"review", "decide", "present", "inert", "client"},
	// hitl history --team: a hub's audit log over HTTP (coord's lines, the
	// store's outcomes), printed by present's and inert's rules.
	"cli/teamhistory": {"config", "coord", "store", "present", "inert", "redact", "review"},
	// hitl serve's wiring: the hub's parts put together (its sessions' TUI
	// options among them), the coordinator, the store, the team; review for
	// its errors' kinds (exit statuses). Never a backend: cmd/hitl opens them.
	"hub/serve": {"hub", "coord", "coord/wire", "store", "team", "config", "client", "inert", "review", "tui"},
}

// backendMayImport is what every backend may import of the project.
var backendMayImport = []string{"client", "client/transport", "inert"}

// backendAlso is what one backend may import besides: the events backend
// speaks the coordinator protocol, written once in coord/wire.
var backendAlso = map[string][]string{"client/events": {"coord/wire"}}

// testOnly are the packages that serve tests; the binary never holds them.
var testOnly = []string{"internal/faultproxy", "internal/hostile", "internal/realserver", "internal/pgtest", "internal/testrun", "internal/bench", "client/fake", "client/backendtest"}

// imports lists, with go list, every package of the module and what it
// imports of the module (tests left out), relative to the module.
func imports(t *testing.T, args ...string) map[string][]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go list needs the go command on PATH: %v", err)
	}
	cmd := exec.Command(goBin, append([]string{"list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], module) {
			continue
		}
		var own []string
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				own = append(own, rel)
			}
		}
		got[strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")] = own
	}
	return got
}

func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	all := imports(t, module+"/...")
	for _, p := range []string{"client", "tui", "decide", "demo", "client/langgraph"} {
		if _, ok := all[p]; !ok {
			t.Fatalf("go list does not list %s: %v", p, all)
		}
	}
	var pkgs []string
	for p := range all {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		allowed, ok := mayImport[p]
		rule := "its line in ARCHITECTURE.md"
		if isBackend(p) {
			allowed, ok, rule = append(slices.Clone(backendMayImport), backendAlso[p]...), true, "the backends' line in ARCHITECTURE.md"
		}
		for _, imp := range all[p] {
			if ok && !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s: %s allows only %v", p, imp, rule, allowed)
			}
			// Above the backends: only the binary picks one.
			if isBackend(imp) && p != "cmd/hitl" && p != "internal/bench" {
				t.Errorf("%s imports the backend %s: only cmd/hitl chooses a backend (front ends and the hub see client.Backend)", p, imp)
			}
			if imp == "tui" && p != "cmd/hitl" && p != "hub" && p != "hub/serve" {
				t.Errorf("%s imports tui: only cmd/hitl and hub (hub/serve, which builds it) run the TUI", p)
			}
		}
	}
}

// The binary holds no package made for tests.
func TestBinaryHoldsNoTestHelper(t *testing.T) {
	t.Parallel()
	deps := imports(t, "-deps", module+"/cmd/hitl")
	for _, p := range testOnly {
		if _, ok := deps[p]; ok {
			t.Errorf("cmd/hitl depends on %s, a package for tests", p)
		}
	}
	if _, ok := deps["tui"]; !ok {
		t.Fatalf("go list -deps cmd/hitl lists no tui: %v", deps)
	}
}
