package present

import (
	"encoding/json"
	"strings"
	"testing"
)

// A schema's summary: a line per field, nested objects under their
// heading (indented once per level), alternatives numbered, and what it
// does not read named with why: nothing left out without a word.
func TestSchemaTextSummarises(t *testing.T) {
	for _, c := range []struct{ name, schema, want string }{
		{"flat", `{"type":"object","properties":{"to":{"type":"string","format":"email"},"n":{"type":"integer","minimum":1,"maximum":5},"tags":{"type":"array","items":{"type":"string"},"maxItems":3}},"required":["to"]}`,
			"to *  text, format email\n" +
				"n     whole number from 1 to 5\n" +
				"tags  list of text, at most 3 items"},
		{"nested", `{"type":"object","properties":{"owner":{"type":"object","description":"who","properties":{"name":{"type":"string","maxLength":100},"address":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},"required":["name"]},"plan":{"enum":["a","b","c"]}},"required":["owner"]}`,
			"owner *  (an object)\n" +
				"    who\n" +
				"  name *  text, at most 100 characters\n" +
				"  address  (an object)\n" +
				"    city *  text\n" +
				"plan  one of: a, b, c"},
		{"alternatives", `{"oneOf":[{"type":"object","properties":{"type":{"const":"approve"}},"required":["type"]},{"type":"string"}]}`,
			"one of 2 shapes (oneOf):\n" +
				"1. type *  always approve\n" +
				"2. value *  text"},
		{"unread parts", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"type":["string","number"]},"c":{"type":"string"},"d":{"type":"object","patternProperties":{"x":{}}}},"required":["a","e"]}`,
			"a *  not summarised: it uses $ref\n" +
				"b    not summarised: b may be of several types\n" +
				"c    text\n" +
				"d    not summarised: it has patternProperties\n" +
				"e *  text"},
		{"none", `{"$ref":"#/x"}`, "not summarised: it uses $ref"},
	} {
		if got := SchemaText(json.RawMessage(c.schema)); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// Deeper than the outline reads, an object is one line that says so.
func TestSchemaTextSaysWhatIsTooDeep(t *testing.T) {
	schema := `{"type":"string"}`
	for range 8 {
		schema = `{"type":"object","properties":{"x":` + schema + `}}`
	}
	got := SchemaText(json.RawMessage(schema))
	if !strings.Contains(got, "x  not summarised: x.x.x.x.x.x.x nests objects more than 6 levels deep") {
		t.Fatalf("%s", got)
	}
}
