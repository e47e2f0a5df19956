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
	want := map[string]string{"$.budget": "maximum: got 150, want 100", "$.framework": "required", "$.owner.name": "required",
		"$.extra": "not a field of this schema", "$.owner.email": "'nope' is not valid email: missing @"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if !strings.Contains(se.Error(), "at $.budget: maximum: got 150, want 100") {
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
