package config

import (
	"strings"
	"testing"
)

// Every wrong setting is named at once.
func TestResolveNamesEveryProblem(t *testing.T) {
	env := map[string]string{"HITL_THEME": "sepia", "HITL_NOTIFY": "pager"}
	_, err := Resolve(&File{}, Overrides{Backend: "grpc", Headers: []string{"nocolon"}}, func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"4 settings are wrong", `backend "grpc"`, `notify "pager"`, `theme "sepia"`, `--header "nocolon"`} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("the error does not say %q:\n%v", want, err)
		}
	}
}

// The starter file parses, and sets what the defaults are.
func TestStarterIsAValidConfig(t *testing.T) {
	f, err := Parse("starter", []byte(Starter))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(f, Overrides{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	r := s.Redacted()
	if s.ProfileName != "local" || s.URL != DefaultURL || r["notify"] != "desktop" || r["theme"] != "auto" {
		t.Fatalf("settings %+v", r)
	}
}
