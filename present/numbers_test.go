package present

import (
	"encoding/json"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// A schema's bounds as an A2A agent served by a2a-sdk gives them (every
// number a double: 5 as 5.0) read as the integers written would.
func TestFieldKindNumbersAsDoubles(t *testing.T) {
	f, err := client.FormOf(json.RawMessage(`{"type":"object","properties":{"replicas":{"type":"integer","minimum":1.0,"maximum":5.0},` +
		`"ratio":{"type":"number","exclusiveMaximum":0.5,"multipleOf":0.25},"n":{"type":"integer","maximum":100.0,"multipleOf":2.0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"replicas": "whole number from 1 to 5",
		"ratio":    "number less than 0.5, in steps of 0.25",
		"n":        "whole number at most 100, in steps of 2",
	} {
		if got := FieldKind(*f.Field(name)); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
