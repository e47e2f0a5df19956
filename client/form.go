package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
)

// A Form is an answer schema seen as fields to fill in: what the TUI draws
// as a form, what `hitl show` lists and what `--field name=value` names.
// FormOf builds it from a JSON Schema of the common kinds (an object of
// scalars, lists of scalars and objects one level down, or one scalar);
// anything else (oneOf, anyOf, $ref, deeper nesting, lists of objects) is
// answered as JSON, from a skeleton (Skeleton).
type Form struct {
	Fields []Field
	// Groups are the nested objects, in order; their fields name them in
	// Field.Group.
	Groups []Group
	// Root: the answer is not an object but one value: the only field,
	// named "value".
	Root bool
	// Schema is the JSON Schema the form was read from.
	Schema json.RawMessage
}

// RootField is the name of the one field of a form whose answer is not an
// object.
const RootField = "value"

// FieldKind is what a field holds.
type FieldKind string

const (
	FieldText    FieldKind = "string"
	FieldNumber  FieldKind = "number"
	FieldInteger FieldKind = "integer"
	FieldBoolean FieldKind = "boolean"
	// FieldChoice is one of a fixed set of values (enum, const).
	FieldChoice FieldKind = "enum"
	// FieldList is a list of scalars (Item says of what).
	FieldList FieldKind = "array"
)

// Field is one value of a form.
type Field struct {
	// Name is the field's path joined with dots: "budget", "owner.email".
	Name string
	Path []string
	// Group is the nested object the field belongs to ("" at the top).
	Group       string
	Title       string
	Description string
	Kind        FieldKind
	// Item is the kind of a list's items.
	Item FieldKind
	// Choices are the allowed values of a choice (or of a list's items),
	// as JSON.
	Choices  []json.RawMessage
	Required bool
	// Nullable: the schema allows null.
	Nullable bool
	Default  json.RawMessage
	Format   string
	Pattern  string
	// Min and Max bound a number; MultipleOf is its step.
	Min, Max   *Bound
	MultipleOf json.Number
	// MinLength and MaxLength bound a text; MinItems and MaxItems a list.
	MinLength, MaxLength *int
	MinItems, MaxItems   *int
	// Long: a text written over several lines (a large maxLength, or a
	// format, name or description that says so).
	Long bool
	// Unread says why an outline (OutlineOf) does not read this field
	// ("it uses $ref"); a form (FormOf) has no such field.
	Unread string
}

// Bound is a number's limit, as the schema wrote it.
type Bound struct {
	Value     json.Number
	Exclusive bool
}

// Group is a nested object of a form.
type Group struct {
	Name        string
	Title       string
	Description string
	Required    bool
}

// Field is the field named name, or nil.
func (f *Form) Field(name string) *Field {
	for i := range f.Fields {
		if f.Fields[i].Name == name {
			return &f.Fields[i]
		}
	}
	return nil
}

// Label is the field's title, else its name.
func (f Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// NotAFormError says why a schema is answered as JSON rather than as a form.
type NotAFormError struct{ Reason string }

func (e *NotAFormError) Error() string { return "no form for this schema: " + e.Reason }

// schemaNode is the part of a JSON Schema a form reads.
type schemaNode struct {
	Type                 json.RawMessage   `json:"type"`
	Enum                 []json.RawMessage `json:"enum"`
	Const                json.RawMessage   `json:"const"`
	Title                string            `json:"title"`
	Description          string            `json:"description"`
	Default              json.RawMessage   `json:"default"`
	Format               string            `json:"format"`
	Pattern              string            `json:"pattern"`
	ContentMediaType     string            `json:"contentMediaType"`
	Minimum              *json.Number      `json:"minimum"`
	Maximum              *json.Number      `json:"maximum"`
	ExclusiveMinimum     json.RawMessage   `json:"exclusiveMinimum"`
	ExclusiveMaximum     json.RawMessage   `json:"exclusiveMaximum"`
	MultipleOf           json.Number       `json:"multipleOf"`
	MinLength            *count            `json:"minLength"`
	MaxLength            *count            `json:"maxLength"`
	MinItems             *count            `json:"minItems"`
	MaxItems             *count            `json:"maxItems"`
	Items                json.RawMessage   `json:"items"`
	Properties           json.RawMessage   `json:"properties"`
	Required             []string          `json:"required"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	PatternProperties    json.RawMessage   `json:"patternProperties"`
	AnyOf                json.RawMessage   `json:"anyOf"`
	OneOf                json.RawMessage   `json:"oneOf"`
	AllOf                json.RawMessage   `json:"allOf"`
	Not                  json.RawMessage   `json:"not"`
	If                   json.RawMessage   `json:"if"`
	Ref                  string            `json:"$ref"`
	DynamicRef           string            `json:"$dynamicRef"`
}

// count is a schema's length or number of items: a whole number, written
// as one or not (an A2A agent served by a2a-sdk keeps a data part as a
// protobuf Struct, where 5 arrives as 5.0).
type count int

func (c *count) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || !r.Num().IsInt64() || r.Num().Int64() < 0 || r.Num().Int64() > math.MaxInt32 {
		return fmt.Errorf("%s is not a count", n)
	}
	*c = count(r.Num().Int64())
	return nil
}

func (c *count) int() *int {
	if c == nil {
		return nil
	}
	n := int(*c)
	return &n
}

func readNode(raw json.RawMessage) (*schemaNode, error) {
	var n schemaNode
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, &NotAFormError{"the schema is not a JSON object"}
	}
	if m, ok := nullableOf(&n); ok {
		n = *m
	}
	switch {
	case n.Ref != "" || n.DynamicRef != "":
		return nil, &NotAFormError{"it uses $ref"}
	case n.AnyOf != nil, n.OneOf != nil:
		return nil, &NotAFormError{"it offers alternatives (anyOf/oneOf)"}
	case n.AllOf != nil, n.Not != nil, n.If != nil:
		return nil, &NotAFormError{"it combines schemas (allOf/not/if)"}
	}
	return &n, nil
}

// nullableOf reads the one alternative a form can show: a value or null,
// `{"anyOf": [{…}, {"type": "null"}]}`, which is how Pydantic writes an
// optional field (`notes: str | None`), as the node of that value with null
// among its types, under the outer node's title, description and default.
func nullableOf(n *schemaNode) (*schemaNode, bool) {
	alts := n.AnyOf
	if alts == nil {
		alts = n.OneOf
	}
	var members []json.RawMessage
	if alts == nil || (n.AnyOf != nil && n.OneOf != nil) || n.Type != nil || n.Ref != "" ||
		json.Unmarshal(alts, &members) != nil || len(members) != 2 {
		return nil, false
	}
	isNull := func(raw json.RawMessage) bool {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || len(m) != 1 {
			return false
		}
		var t string
		return json.Unmarshal(m["type"], &t) == nil && t == "null"
	}
	var value json.RawMessage
	switch {
	case isNull(members[1]):
		value = members[0]
	case isNull(members[0]):
		value = members[1]
	default:
		return nil, false
	}
	var v schemaNode
	if json.Unmarshal(value, &v) != nil || v.AnyOf != nil || v.OneOf != nil {
		return nil, false
	}
	var one string
	if json.Unmarshal(v.Type, &one) != nil || one == "" || one == "null" {
		return nil, false
	}
	v.Type = json.RawMessage(`["` + one + `","null"]`)
	if n.Title != "" {
		v.Title = n.Title
	}
	if n.Description != "" {
		v.Description = n.Description
	}
	if n.Default != nil {
		v.Default = n.Default
	}
	return &v, true
}

// types lists the node's types, and whether null is one of them.
func (n *schemaNode) types() (types []string, nullable bool) {
	var one string
	if json.Unmarshal(n.Type, &one) == nil {
		return []string{one}, one == "null"
	}
	var many []string
	_ = json.Unmarshal(n.Type, &many)
	for _, t := range many {
		if t == "null" {
			nullable = true
			continue
		}
		types = append(types, t)
	}
	return types, nullable
}

// FormOf reads a JSON Schema as a form, or says (*NotAFormError) why it
// is answered as JSON instead.
func FormOf(schema json.RawMessage) (*Form, error) {
	return formReader{depth: 1}.read(schema)
}

// formReader reads a schema's fields. depth is how deep objects may nest
// (a form's: one level); lenient: a field it cannot read is a field that
// says why (Field.Unread), where a form refuses the whole schema.
type formReader struct {
	depth   int
	lenient bool
}

func (r formReader) read(schema json.RawMessage) (*Form, error) {
	n, err := readNode(schema)
	if err != nil {
		return nil, err
	}
	types, _ := n.types()
	if len(types) == 1 && types[0] == "object" || len(types) == 0 && n.Properties != nil {
		f := &Form{Schema: schema}
		if err := r.addObject(f, n, nil, ""); err != nil {
			return nil, err
		}
		if len(f.Fields) == 0 {
			return nil, &NotAFormError{"the object names no fields"}
		}
		return f, nil
	}
	field, err := scalarField(n, []string{RootField}, true)
	if err != nil {
		return nil, err
	}
	return &Form{Fields: []Field{field}, Root: true, Schema: schema}, nil
}

// addObject adds the fields of an object at path (r.depth levels of
// nesting).
func (r formReader) addObject(f *Form, n *schemaNode, path []string, group string) error {
	if len(n.PatternProperties) > 0 {
		return &NotAFormError{"it has patternProperties"}
	}
	props, err := orderedProperties(n.Properties)
	if err != nil {
		return err
	}
	if len(props) == 0 {
		if len(path) > 0 {
			return &NotAFormError{fmt.Sprintf("%s is an object with no named fields", strings.Join(path, "."))}
		}
		return &NotAFormError{"the object names no fields"}
	}
	required := map[string]bool{}
	for _, r := range n.Required {
		required[r] = true
	}
	for _, p := range props {
		fieldPath := append(append([]string(nil), path...), p.name)
		// unread: a field the schema does not let a form read, which an
		// outline lists saying why.
		unread := func(err error) error {
			if !r.lenient {
				return err
			}
			why := err.Error()
			if nf, ok := err.(*NotAFormError); ok {
				why = nf.Reason
			}
			f.Fields = append(f.Fields, Field{Name: strings.Join(fieldPath, "."), Path: fieldPath, Group: group, Required: required[p.name], Unread: why})
			return nil
		}
		child, err := readNode(p.schema)
		if err != nil {
			if err := unread(err); err != nil {
				return err
			}
			continue
		}
		types, _ := child.types()
		if len(types) == 1 && types[0] == "object" || len(types) == 0 && child.Properties != nil {
			if len(path) >= r.depth {
				levels := "one level"
				if r.depth != 1 {
					levels = fmt.Sprintf("%d levels", r.depth)
				}
				if err := unread(&NotAFormError{fmt.Sprintf("%s nests objects more than %s deep", strings.Join(fieldPath, "."), levels)}); err != nil {
					return err
				}
				continue
			}
			name := strings.Join(fieldPath, ".")
			f.Groups = append(f.Groups, Group{Name: name, Title: child.Title, Description: child.Description, Required: required[p.name]})
			if err := r.addObject(f, child, fieldPath, name); err != nil {
				// Lenient, only the object itself is refused (before any
				// of its fields is read): it is one field that says why.
				f.Groups = f.Groups[:len(f.Groups)-1]
				if err := unread(err); err != nil {
					return err
				}
			}
			continue
		}
		field, err := scalarField(child, fieldPath, required[p.name])
		if err != nil {
			if err := unread(err); err != nil {
				return err
			}
			continue
		}
		field.Group = group
		f.Fields = append(f.Fields, field)
	}
	// A required key the properties do not describe is still asked for:
	// of any type, so written as text (FormFor types it by the value).
	for _, r := range n.Required {
		if !slices.ContainsFunc(props, func(p property) bool { return p.name == r }) && !strings.Contains(r, ".") {
			fieldPath := append(append([]string(nil), path...), r)
			f.Fields = append(f.Fields, Field{Name: strings.Join(fieldPath, "."), Path: fieldPath, Group: group, Kind: FieldText, Required: true})
		}
	}
	return nil
}

type property struct {
	name   string
	schema json.RawMessage
}

// orderedProperties reads "properties" in the order the schema lists them
// (the order the form shows and the answer's keys follow).
func orderedProperties(raw json.RawMessage) ([]property, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, &NotAFormError{"its properties are not an object"}
	}
	var out []property
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &NotAFormError{"its properties do not parse"}
		}
		var s json.RawMessage
		if err := dec.Decode(&s); err != nil {
			return nil, &NotAFormError{"its properties do not parse"}
		}
		out = append(out, property{name: fmt.Sprint(tok), schema: s})
	}
	return out, nil
}

// scalarField reads a field that is not an object: a scalar, a choice or a
// list of scalars.
func scalarField(n *schemaNode, path []string, required bool) (Field, error) {
	name := strings.Join(path, ".")
	f := Field{Name: name, Path: path, Title: n.Title, Description: n.Description, Required: required,
		Default: n.Default, Format: n.Format, Pattern: n.Pattern, MultipleOf: n.MultipleOf,
		MinLength: n.MinLength.int(), MaxLength: n.MaxLength.int(), MinItems: n.MinItems.int(), MaxItems: n.MaxItems.int()}
	types, nullable := n.types()
	f.Nullable = nullable
	f.Min, f.Max = bounds(n)
	switch {
	case n.Const != nil:
		f.Kind, f.Choices = FieldChoice, []json.RawMessage{n.Const}
		return f, nil
	case len(n.Enum) > 0:
		f.Kind = FieldChoice
		for _, c := range n.Enum {
			if bytes.Equal(bytes.TrimSpace(c), []byte("null")) {
				f.Nullable = true
				continue
			}
			if !scalarJSON(c) {
				return f, &NotAFormError{name + " offers choices that are not plain values"}
			}
			f.Choices = append(f.Choices, c)
		}
		if len(f.Choices) == 0 {
			return f, &NotAFormError{name + " offers no choice"}
		}
		return f, nil
	}
	if len(types) != 1 {
		if len(types) == 0 {
			return f, &NotAFormError{name + " does not say its type"}
		}
		return f, &NotAFormError{name + " may be of several types"}
	}
	switch types[0] {
	case "string":
		f.Kind = FieldText
		f.Long = longText(f, n.ContentMediaType)
	case "number":
		f.Kind = FieldNumber
	case "integer":
		f.Kind = FieldInteger
	case "boolean":
		f.Kind = FieldBoolean
	case "array":
		f.Kind = FieldList
		if len(n.Items) == 0 || bytes.Equal(bytes.TrimSpace(n.Items), []byte("true")) {
			return f, &NotAFormError{name + " is a list that does not say of what"}
		}
		item, err := readNode(n.Items)
		if err != nil {
			return f, err
		}
		itemField, err := scalarField(item, path, false)
		if err != nil || itemField.Kind == FieldList {
			return f, &NotAFormError{name + " is a list of objects or lists"}
		}
		f.Item, f.Choices = itemField.Kind, itemField.Choices
	case "null":
		return f, &NotAFormError{name + " can only be null"}
	default:
		return f, &NotAFormError{name + " is of type " + types[0]}
	}
	return f, nil
}

// bounds reads minimum/maximum, with exclusiveMinimum/Maximum written as
// numbers (draft 6 on) or as flags on minimum/maximum (draft 4).
func bounds(n *schemaNode) (lo, hi *Bound) {
	flag := func(raw json.RawMessage) (bool, *json.Number) {
		raw = bytes.TrimSpace(raw)
		switch string(raw) {
		case "", "null", "false":
			return false, nil
		case "true":
			return true, nil
		}
		var num json.Number
		if json.Unmarshal(raw, &num) == nil {
			return false, &num
		}
		return false, nil
	}
	if n.Minimum != nil {
		lo = &Bound{Value: *n.Minimum}
	}
	if n.Maximum != nil {
		hi = &Bound{Value: *n.Maximum}
	}
	if excl, num := flag(n.ExclusiveMinimum); num != nil {
		lo = &Bound{Value: *num, Exclusive: true}
	} else if excl && lo != nil {
		lo.Exclusive = true
	}
	if excl, num := flag(n.ExclusiveMaximum); num != nil {
		hi = &Bound{Value: *num, Exclusive: true}
	} else if excl && hi != nil {
		hi.Exclusive = true
	}
	return lo, hi
}

// longWords in a text field's name or description suggest several lines.
var longWords = []string{"body", "notes", "note", "details", "description", "comment", "message", "summary", "paragraph", "multi-line", "multiline", "explain"}

func longText(f Field, mediaType string) bool {
	if f.MaxLength != nil && *f.MaxLength >= 200 {
		return true
	}
	switch strings.ToLower(f.Format) {
	case "textarea", "markdown", "multiline", "multi-line", "text":
		return true
	}
	if strings.HasPrefix(mediaType, "text/") {
		return true
	}
	if f.MaxLength != nil && *f.MaxLength < 80 {
		return false
	}
	words := strings.ToLower(f.Path[len(f.Path)-1] + " " + f.Title + " " + f.Description)
	for _, w := range longWords {
		for _, x := range strings.FieldsFunc(words, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '-') }) {
			if x == w {
				return true
			}
		}
	}
	return false
}

func scalarJSON(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] != '{' && v[0] != '['
}

// ChoiceText is how a choice is written, to show it or to pick it: a
// string as itself, any other value as its JSON.
func ChoiceText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(v))
}

// An Outline is a JSON Schema read to be summarised (hitl show): its
// fields read as a form reads them (FormOf), with objects nested up to
// outlineDepth levels and a field no form reads listed saying why
// (Field.Unread); alternatives (anyOf, oneOf) each read the same way.
type Outline struct {
	Form *Form
	// Alternatives: the value is one of these (anyOf; OneOf: exactly one).
	Alternatives []*Outline
	OneOf        bool
	// Unread says why the schema is not read at all ("it uses $ref").
	Unread string
}

// outlineDepth is how deep an outline reads nested objects (a decision's
// schema puts a tool's arguments three levels down); alternatives are read
// outlineDepth levels deep too.
const outlineDepth = 6

// OutlineOf reads a JSON Schema to summarise it.
func OutlineOf(schema json.RawMessage) *Outline { return outlineOf(schema, 0) }

func outlineOf(schema json.RawMessage, level int) *Outline {
	var n schemaNode
	if json.Unmarshal(schema, &n) != nil {
		return &Outline{Unread: "the schema is not a JSON object"}
	}
	if _, nullable := nullableOf(&n); !nullable && level < outlineDepth && n.Type == nil && n.Properties == nil && n.Ref == "" {
		alts := n.AnyOf
		if alts == nil {
			alts = n.OneOf
		}
		var members []json.RawMessage
		if alts != nil && (n.AnyOf == nil || n.OneOf == nil) && json.Unmarshal(alts, &members) == nil && len(members) > 0 {
			o := &Outline{OneOf: n.OneOf != nil}
			for _, m := range members {
				o.Alternatives = append(o.Alternatives, outlineOf(m, level+1))
			}
			return o
		}
	}
	f, err := formReader{depth: outlineDepth, lenient: true}.read(schema)
	if err != nil {
		why := err.Error()
		if nf, ok := err.(*NotAFormError); ok {
			why = nf.Reason
		}
		return &Outline{Unread: why}
	}
	return &Outline{Form: f}
}
