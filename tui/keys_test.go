package tui

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
)

// TestDocsNameEveryKeyAction keeps docs/config.md's list of rebindable key
// actions the one the config file takes: a name missing there cannot be
// found, and a name listed that is not an action is refused at start.
func TestDocsNameEveryKeyAction(t *testing.T) {
	doc, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("Names: `([^`]*)`").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/config.md has no `Names: ...` list of key actions")
	}
	got := strings.Join(strings.Fields(string(m[1])), " ")
	want := strings.Join(KeyNames(), " ")
	if got != want {
		t.Fatalf("docs/config.md lists key actions\n  %s\nthe config takes\n  %s", got, want)
	}
}

// Every binding of the key map is one action of the table, named once: a
// field added without its row could not be rebound (next_field could not
// be, while prev_field could).
func TestEveryKeyIsAnActionOnce(t *testing.T) {
	var k keyMap
	fields := map[*key.Binding]string{}
	v := reflect.ValueOf(&k).Elem()
	for i := range v.NumField() {
		fields[v.Field(i).Addr().Interface().(*key.Binding)] = v.Type().Field(i).Name
	}
	seen := map[string]bool{}
	for _, a := range actions {
		f := a.of(&k)
		if _, ok := fields[f]; !ok || seen[a.name] {
			t.Errorf("action %q: not a field of keyMap, or named twice", a.name)
		}
		seen[a.name] = true
		delete(fields, f)
	}
	for _, name := range fields {
		t.Errorf("keyMap.%s is not in the actions table: it cannot be rebound", name)
	}
}

// A form's next field and the force quit are rebound like the rest.
func TestFormAndQuitKeysRebind(t *testing.T) {
	h := newHarnessKeys(t, 80, 24, map[string][]string{"next_field": {"ctrl+n"}, "force_quit": {"ctrl+q"}},
		schemaFixture(t, "form-zod", idForm, time.Minute))
	h.keys("enter", "f")
	h.wantScreen("▸ framework *")
	h.keys("tab")
	h.wantScreen("▸ framework *")
	h.keys("ctrl+n")
	h.wantScreen("▸ tests *")
	if got := name(h.m.keys.ForceQuit); got != "ctrl+q" {
		t.Fatalf("force quit is %s", got)
	}
}
