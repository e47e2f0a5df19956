package client

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A schema comes from a server: a reference to a local file is not read.
func TestSchemaLoadsNothingItRefersTo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(file, []byte(`{"type":"string","const":"the secret"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage(`{"$ref":"file://` + file + `"}`)
	err := CheckValue(json.RawMessage(`"x"`), schema)
	var unusable *SchemaUnusableError
	if !errors.As(err, &unusable) || strings.Contains(err.Error(), "the secret") {
		t.Fatalf("err = %v", err)
	}
	if _, err := CheckArgs(json.RawMessage(`{}`), json.RawMessage(`{"$ref":"file://`+file+`"}`)); err == nil || !strings.Contains(err.Error(), "cannot be used") {
		t.Fatalf("args: err = %v", err)
	}
}

func TestCheckValueSaysWhere(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"budget":{"type":"number","maximum":100},
		"owner":{"type":"object","properties":{"email":{"type":"string","format":"email"}},"required":["name"]}},
		"required":["framework"],"additionalProperties":false}`)
	err := CheckValue(json.RawMessage(`{"budget":150,"owner":{"email":"nope"},"extra":1}`), schema)
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	got := map[string]string{}
	for _, p := range se.Problems {
		got[p.At()] = p.Message
	}
	want := map[string]string{"$.budget": "must be at most 100 (got 150)", "$.framework": "required", "$.owner.name": "required",
		"$.extra": "not a field of this schema", "$.owner.email": "'nope' is not valid email: missing @"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if !strings.Contains(se.Error(), "at $.budget: must be at most 100 (got 150)") {
		t.Errorf("text: %s", se.Error())
	}
}

// Edited args that are not an object are refused in words, not in Go's
// type names.
func TestArgsThatAreNotAnObject(t *testing.T) {
	for in, kind := range map[string]string{`[1,2]`: "an array", `"x"`: "a string", `null`: "null", `42`: "a number", `true`: "a boolean"} {
		_, err := CheckArgs(json.RawMessage(in), nil)
		if err == nil || err.Error() != "edited args must be a JSON object {…}, not "+kind {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// JSON that ends early or goes on after the object is said in words.
func TestArgsSyntaxInWords(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":`:       `line 1, column 5: the text ends before the JSON does (a closing }, ] or " missing?)`,
		`{"a":1}{`:    `line 1, column 8: more text after the end of the JSON object (character '{')`,
		"{\n\"a\" 1}": `line 2, column 5: invalid character '1' after object key`,
	} {
		_, err := CheckArgs(json.RawMessage(in), nil)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v, want …%s", in, err, want)
		}
	}
}

// A schema's refusal says what the value must be, in words, with the
// schema's numbers as written.
func TestSchemaProblemsInWords(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"integer"},"rate":{"exclusiveMinimum":0.5},"step":{"multipleOf":0.25},
		"name":{"type":"string","minLength":3},"tags":{"type":"array","maxItems":1}}}`)
	err := CheckValue(json.RawMessage(`{"n":"x","rate":0.5,"step":0.3,"name":"ab","tags":[1,2]}`), schema)
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("got %v", err)
	}
	got := map[string]string{}
	for _, p := range se.Problems {
		got[p.At()] = p.Message
	}
	want := map[string]string{
		"$.n":    "must be an integer (got a string)",
		"$.rate": "must be more than 0.5 (got 0.5)",
		"$.step": "must be a multiple of 0.25 (got 0.3)",
		"$.name": "must be at least 3 characters long (got 2)",
		"$.tags": "takes at most 1 item (got 2)",
	}
	for at, w := range want {
		if got[at] != w {
			t.Errorf("%s: %q, want %q", at, got[at], w)
		}
	}
}
