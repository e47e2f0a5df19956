package langgraph

import "testing"

// A langgraph-api version is compared part by part, as numbers: 0.16.7 and
// later show response schemas, 0.11.1 (langhost) does not; a version that
// does not read as numbers counts as one that does not.
func TestVersionBefore(t *testing.T) {
	for v, want := range map[string]bool{
		"0.16.7": false, "0.16.10": false, "0.17.0": false, "1.0": false, "0.16.7rc1": false,
		"0.11.1": true, "0.16.6": true, "0.9.99": true, "0.16": true, "": true, "hitl-demo": true,
	} {
		if got := versionBefore(v, showsSchemasSince); got != want {
			t.Errorf("versionBefore(%q) = %v, want %v", v, got, want)
		}
	}
}
