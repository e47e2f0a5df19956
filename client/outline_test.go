package client

import (
	"encoding/json"
	"testing"
)

// A form stays as strict as the TUI and --field need (one level of
// nesting, every field readable); an outline of the same schema reads
// deeper and lists what it cannot read, saying why.
func TestOutlineReadsWhatAFormRefuses(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"string"}}}}},"r":{"$ref":"#/x"}},"required":["a"]}`)
	_, err := FormOf(schema)
	if nf, ok := err.(*NotAFormError); !ok || nf.Reason != "a.b nests objects more than one level deep" {
		t.Fatalf("FormOf: %v", err)
	}
	o := OutlineOf(schema)
	if o.Form == nil {
		t.Fatalf("no outline: %+v", o)
	}
	var got []string
	for _, f := range o.Form.Fields {
		got = append(got, f.Name+"|"+string(f.Kind)+"|"+f.Unread)
	}
	want := []string{"a.b.c|string|", "r||it uses $ref"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("outline fields %q, want %q", got, want)
	}
	if len(o.Form.Groups) != 2 || o.Form.Groups[0].Name != "a" || !o.Form.Groups[0].Required || o.Form.Groups[1].Name != "a.b" {
		t.Fatalf("groups %+v", o.Form.Groups)
	}
	alt := OutlineOf(json.RawMessage(`{"anyOf":[{"type":"string"},{"type":"integer"}]}`))
	if len(alt.Alternatives) != 2 || alt.OneOf || alt.Alternatives[1].Form.Fields[0].Kind != FieldInteger {
		t.Fatalf("alternatives %+v", alt)
	}
	// A value or null is one field, as in a form.
	if n := OutlineOf(json.RawMessage(`{"anyOf":[{"type":"string"},{"type":"null"}]}`)); n.Form == nil || !n.Form.Fields[0].Nullable {
		t.Fatalf("nullable %+v", n)
	}
}
