package config

import "testing"

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
