package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// A JSON Schema here always comes from a server (an action's args_schema,
// an interrupt's response_schema): it is read as data, and nothing it
// refers to outside itself is loaded, so that a schema cannot make hitl
// read a local file or fetch a URL. The JSON Schema meta-schemas are built
// into the validator and need no loading.

// noLoader refuses every reference to a document outside the schema.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the schema; hitl loads nothing a schema refers to", url)
}

// compileSchema compiles a schema sent by a server; formats says whether
// "format" (email, date, …) is checked too.
func compileSchema(schema json.RawMessage, formats bool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if formats {
		c.AssertFormat()
	}
	const name = "schema.json"
	if err := c.AddResource(name, doc); err != nil {
		return nil, err
	}
	return c.Compile(name)
}

// SchemaError is a value that does not match its schema.
type SchemaError struct {
	// Problems are where the value goes wrong, one per place (a missing
	// required property is a problem at that property).
	Problems []Problem
	text     string
}

// Problem is one place where a value does not match its schema.
type Problem struct {
	// Path is where, from the root of the value: ["owner", "email"];
	// empty for the value itself.
	Path []string
	// Message says what is wrong there: "must be at most 100 (got 150)".
	Message string
}

// At is the place as a JSON path: $.owner.email.
func (p Problem) At() string { return "$" + pathSuffix(p.Path) }

func pathSuffix(path []string) string {
	var b strings.Builder
	for _, t := range path {
		b.WriteString("." + t)
	}
	return b.String()
}

// Error lists every problem: "at $.amount: must be at most 100 (got 150)".
func (e *SchemaError) Error() string { return e.text }

// SchemaUnusableError is a schema hitl cannot check values against.
type SchemaUnusableError struct{ Err error }

func (e *SchemaUnusableError) Error() string { return "the schema cannot be used: " + e.Err.Error() }
func (e *SchemaUnusableError) Unwrap() error { return e.Err }

// CheckValue checks a JSON value against a JSON Schema: nil, a
// *SchemaError saying where the value goes wrong, or a
// *SchemaUnusableError when the schema cannot be read.
func CheckValue(value, schema json.RawMessage) error {
	return checkValue(value, schema, true)
}

func checkValue(value, schema json.RawMessage, formats bool) error {
	sch, err := compileSchema(schema, formats)
	if err != nil {
		return &SchemaUnusableError{err}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return fmt.Errorf("the value is not valid JSON: %v", err)
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &SchemaError{text: err.Error()}
	}
	return schemaError(ve)
}

// schemaError flattens a validation error into its leaves: "at $.amount:
// must be at most 100 (got 150); at $: missing property 'to'".
func schemaError(ve *jsonschema.ValidationError) *SchemaError {
	out := &SchemaError{}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := append([]string(nil), e.InstanceLocation...)
		msg := problemText(e.ErrorKind)
		msgs = append(msgs, fmt.Sprintf("at $%s: %s", pathSuffix(loc), msg))
		if req, ok := e.ErrorKind.(*kind.Required); ok {
			for _, name := range req.Missing {
				out.Problems = append(out.Problems, Problem{Path: append(append([]string(nil), loc...), name), Message: "required"})
			}
			return
		}
		if extra, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			for _, name := range extra.Properties {
				out.Problems = append(out.Problems, Problem{Path: append(append([]string(nil), loc...), name), Message: "not a field of this schema"})
			}
			return
		}
		out.Problems = append(out.Problems, Problem{Path: loc, Message: msg})
	}
	walk(ve)
	out.text = strings.Join(msgs, "; ")
	return out
}

// problemText says what a value must be, in words a reviewer reads at a
// glance ("must be at most 100 (got 150)"), where the library's own words
// are the keyword's ("maximum: got 150, want 100"); other kinds keep the
// library's.
func problemText(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Minimum:
		return fmt.Sprintf("must be at least %s (got %s)", ratText(k.Want), ratText(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be at most %s (got %s)", ratText(k.Want), ratText(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be more than %s (got %s)", ratText(k.Want), ratText(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be less than %s (got %s)", ratText(k.Want), ratText(k.Got))
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %s (got %s)", ratText(k.Want), ratText(k.Got))
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d %s long (got %d)", k.Want, plural(k.Want, "character", "characters"), k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d %s long (got %d)", k.Want, plural(k.Want, "character", "characters"), k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("needs at least %d %s (got %d)", k.Want, plural(k.Want, "item", "items"), k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("takes at most %d %s (got %d)", k.Want, plural(k.Want, "item", "items"), k.Got)
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = aType(w)
		}
		return fmt.Sprintf("must be %s (got %s)", strings.Join(want, " or "), aType(k.Got))
	}
	return k.LocalizedString(printer)
}

// ratText is a schema's number in decimals: 100, 0.5, 0.0000001.
func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// aType is a JSON type's name with its article: "an integer", "a string".
func aType(t string) string {
	switch t {
	case "null":
		return t
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
