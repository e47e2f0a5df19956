package tui

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMENamesEveryKeyAction keeps the README's list of rebindable key
// actions the one the config file takes: a name missing there cannot be
// found, and a name listed that is not an action is refused at start.
func TestREADMENamesEveryKeyAction(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("Names: `([^`]*)`").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no `Names: ...` list of key actions")
	}
	got := strings.Join(strings.Fields(string(m[1])), " ")
	want := strings.Join(KeyNames(), " ")
	if got != want {
		t.Fatalf("README lists key actions\n  %s\nthe config takes\n  %s", got, want)
	}
}
