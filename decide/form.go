package decide

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// The typing rules of a form (client.Form): what a reviewer types for a
// field, in the TUI's form or as `--field name=value`, becomes JSON by the
// field's schema. They live here, once, so that the CLI and the TUI send
// the same bytes for the same typed values.

// FieldError is what is wrong with one field's value.
type FieldError struct {
	// Field is the field's name ("budget", "owner.email"), or "" for the
	// answer as a whole.
	Field   string
	Message string
}

// FieldErrors are the problems of the values typed for a form, in the
// form's order. It is a refusal (errors.As finds the client.RefusedError).
type FieldErrors struct {
	client.RefusedError
	Fields []FieldError
}

func (e *FieldErrors) Unwrap() error { return &e.RefusedError }

// Of is the problem of field name, or "".
func (e *FieldErrors) Of(name string) string {
	for _, f := range e.Fields {
		if f.Field == name {
			return f.Message
		}
	}
	return ""
}

func fieldErrors(slot int, errs []FieldError) *FieldErrors {
	parts := make([]string, len(errs))
	for i, e := range errs {
		if e.Field == "" {
			parts[i] = e.Message
		} else {
			parts[i] = e.Field + ": " + e.Message
		}
	}
	return &FieldErrors{RefusedError: client.RefusedError{Slot: slot, Reason: strings.Join(parts, "; ")}, Fields: errs}
}

// FormValue turns the text typed per field into the JSON value the form's
// schema describes, and checks it against that schema. Rules:
//   - text is trimmed; a field with no text is left out, or takes the
//     schema's default, or, when required, is an error;
//   - a string is the text; a number must read as one (kept as typed:
//     12.50 stays 12.50), an integer as a whole one; a boolean is true or
//     false; a choice must be one of its values, written as listed; "null"
//     is null where the schema allows it;
//   - a list takes one text per item (several --field of one name, or a
//     line each in the TUI), or one text holding a JSON array;
//   - the answer's keys follow the schema's order; a nested object is
//     there when one of its fields is given, or when it is required.
//
// base, for an edit, is the arguments being edited: a field not named in
// fields keeps its value there (one named with no text is cleared), and
// keys the form does not know stay as they were, in their place.
// Problems come back as *FieldErrors, slot as in client.RefusedError.
func FormValue(form *client.Form, base json.RawMessage, fields map[string][]string, slot int) (json.RawMessage, error) {
	var errs []FieldError
	var unknown []string
	for name := range fields {
		if form.Field(name) == nil {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		names := make([]string, len(form.Fields))
		for i, f := range form.Fields {
			names[i] = f.Name
		}
		return nil, fieldErrors(slot, []FieldError{{Message: fmt.Sprintf("no field %s here; the fields are %s", strings.Join(unknown, ", "), strings.Join(names, ", "))}})
	}
	if form.Root {
		f := form.Fields[0]
		v, given, err := typed(f, fields[f.Name])
		switch {
		case err != nil:
			return nil, fieldErrors(slot, []FieldError{{Field: f.Name, Message: err.Error()}})
		case !given && f.Default != nil:
			v = f.Default
		case !given:
			return nil, fieldErrors(slot, []FieldError{{Field: f.Name, Message: "required"}})
		}
		return checked(form, v, slot)
	}
	root := &object{}
	if len(bytes.TrimSpace(base)) > 0 {
		if err := root.read(base); err != nil {
			return nil, fieldErrors(slot, []FieldError{{Message: "the value being edited is not a JSON object"}})
		}
	}
	groups := map[string]client.Group{}
	present := map[string]bool{}
	for _, g := range form.Groups {
		groups[g.Name] = g
		present[g.Name] = g.Required || root.get(g.Name) != nil
	}
	for _, f := range form.Fields {
		if f.Group != "" && hasText(fields[f.Name]) {
			present[f.Group] = true
		}
	}
	for _, f := range form.Fields {
		if f.Group != "" && !present[f.Group] {
			continue
		}
		texts, named := fields[f.Name]
		v, given, err := typed(f, texts)
		if err != nil {
			errs = append(errs, FieldError{Field: f.Name, Message: err.Error()})
			continue
		}
		if !given {
			if named {
				root.remove(f.Path) // named with no text: cleared
			} else if root.at(f.Path) != nil {
				continue // not named: the edited value keeps what it had
			}
			if f.Default == nil {
				if f.Required {
					errs = append(errs, FieldError{Field: f.Name, Message: "required"})
				}
				continue
			}
			v = f.Default
		}
		root.set(f.Path, v)
	}
	for _, g := range form.Groups {
		if present[g.Name] && root.get(g.Name) == nil {
			root.set([]string{g.Name}, json.RawMessage("{}"))
		}
	}
	if len(errs) > 0 {
		return nil, fieldErrors(slot, withSchemaErrors(form, root, slot, errs))
	}
	v, err := root.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return checked(form, v, slot)
}

// withSchemaErrors adds to errs (fields missing or mistyped) what the
// schema says of the fields that were given, so that one attempt names
// every problem: "budget: required" and "tests: maximum" together.
func withSchemaErrors(form *client.Form, root *object, slot int, errs []FieldError) []FieldError {
	named := map[string]bool{}
	for _, e := range errs {
		named[e.Field] = true
	}
	v, err := root.MarshalJSON()
	if err != nil {
		return errs
	}
	_, cerr := checked(form, v, slot)
	if fe, ok := cerr.(*FieldErrors); ok {
		for _, e := range fe.Fields {
			// The answer as a whole ("missing properties") is what errs
			// already says field by field.
			if e.Field != "" && !named[e.Field] {
				errs = append(errs, e)
			}
		}
	}
	sort.SliceStable(errs, func(i, j int) bool { return fieldIndex(form, errs[i].Field) < fieldIndex(form, errs[j].Field) })
	return errs
}

// checked is v when it matches the form's schema, else the problems by
// field.
func checked(form *client.Form, v json.RawMessage, slot int) (json.RawMessage, error) {
	err := client.CheckValue(v, form.Schema)
	var mismatch *client.SchemaError
	if !asSchemaError(err, &mismatch) {
		return v, nil // a schema hitl cannot read refuses nothing
	}
	var errs []FieldError
	for _, p := range mismatch.Problems {
		name := strings.Join(p.Path, ".")
		if form.Root {
			name = client.RootField
		}
		if form.Field(name) == nil {
			if name == "" {
				errs = append(errs, FieldError{Message: p.Message})
			} else {
				errs = append(errs, FieldError{Message: p.At() + ": " + p.Message})
			}
			continue
		}
		errs = append(errs, FieldError{Field: name, Message: p.Message})
	}
	// In the form's order, each field once.
	sort.SliceStable(errs, func(i, j int) bool { return fieldIndex(form, errs[i].Field) < fieldIndex(form, errs[j].Field) })
	return nil, fieldErrors(slot, dedupe(errs))
}

func asSchemaError(err error, target **client.SchemaError) bool {
	se, ok := err.(*client.SchemaError)
	if ok {
		*target = se
	}
	return ok
}

func fieldIndex(form *client.Form, name string) int {
	for i, f := range form.Fields {
		if f.Name == name {
			return i
		}
	}
	return len(form.Fields)
}

func dedupe(errs []FieldError) []FieldError {
	var out []FieldError
	seen := map[string]bool{}
	for _, e := range errs {
		if e.Field != "" && seen[e.Field] {
			continue
		}
		seen[e.Field] = true
		out = append(out, e)
	}
	return out
}

func hasText(texts []string) bool {
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			return true
		}
	}
	return false
}

// typed is the JSON of what was typed for f, and whether anything was.
func typed(f client.Field, texts []string) (json.RawMessage, bool, error) {
	var items []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			items = append(items, t)
		}
	}
	if len(items) == 0 {
		return nil, false, nil
	}
	if f.Kind != client.FieldList {
		if len(items) > 1 {
			return nil, true, fmt.Errorf("given %d times; it takes one value", len(items))
		}
		v, err := Scalar(f.Kind, f.Choices, f.Nullable, items[0])
		return v, true, err
	}
	if len(items) == 1 && strings.HasPrefix(items[0], "[") {
		if !json.Valid([]byte(items[0])) {
			return nil, true, fmt.Errorf("%s looks like a JSON list but does not parse", items[0])
		}
		return json.RawMessage(items[0]), true, nil
	}
	if len(items) == 1 && f.Nullable && items[0] == "null" {
		return json.RawMessage("null"), true, nil
	}
	out := make([]json.RawMessage, 0, len(items))
	for _, it := range items {
		v, err := Scalar(f.Item, f.Choices, false, it)
		if err != nil {
			return nil, true, err
		}
		out = append(out, v)
	}
	b, _ := json.Marshal(out)
	return b, true, nil
}

// Scalar is the JSON of text typed for one value of kind k (trimmed, not
// empty): see FormValue. choices are a choice's values.
func Scalar(k client.FieldKind, choices []json.RawMessage, nullable bool, text string) (json.RawMessage, error) {
	if nullable && text == "null" {
		return json.RawMessage("null"), nil
	}
	switch k {
	case client.FieldNumber:
		return number(text, false)
	case client.FieldInteger:
		return number(text, true)
	case client.FieldBoolean:
		switch strings.ToLower(text) {
		case "true":
			return json.RawMessage("true"), nil
		case "false":
			return json.RawMessage("false"), nil
		}
		return nil, fmt.Errorf("%q is not true or false", text)
	case client.FieldChoice:
		for _, c := range choices {
			if client.ChoiceText(c) == text || sameJSON(c, text) {
				return c, nil
			}
		}
		names := make([]string, len(choices))
		for i, c := range choices {
			names[i] = client.ChoiceText(c)
		}
		return nil, fmt.Errorf("%q is not one of: %s", text, strings.Join(names, ", "))
	}
	b, err := marshalText(text)
	return b, err
}

// number reads a number as typed: JSON's own spelling is kept (12.50 stays
// 12.50); others that read as one (.5, +3, 5.) are written as JSON does.
func number(text string, whole bool) (json.RawMessage, error) {
	f, err := strconv.ParseFloat(text, 64)
	lower := strings.ToLower(text)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.Contains(lower, "x") || strings.Contains(lower, "_") || strings.Contains(lower, "n") {
		if whole {
			return nil, fmt.Errorf("%q is not a whole number", text)
		}
		return nil, fmt.Errorf("%q is not a number", text)
	}
	if whole && f != math.Trunc(f) {
		return nil, fmt.Errorf("%s is not a whole number", text)
	}
	var n json.Number
	if json.Unmarshal([]byte(text), &n) == nil && (!whole || !strings.ContainsAny(text, ".eE")) {
		return json.RawMessage(text), nil
	}
	if whole {
		return json.RawMessage(strconv.FormatFloat(f, 'f', 0, 64)), nil
	}
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// sameJSON reports whether text, read as JSON, is the value v.
func sameJSON(v json.RawMessage, text string) bool {
	if !json.Valid([]byte(text)) {
		return false
	}
	var a, b any
	if json.Unmarshal(v, &a) != nil || json.Unmarshal([]byte(text), &b) != nil {
		return false
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b)
}

// marshalText is text as a JSON string, <, > and & as they are.
func marshalText(text string) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(text); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// object is a JSON object being built, its keys in order; values are
// JSON, or objects one level down (what a form has).
type object struct {
	keys []string
	vals map[string]any // json.RawMessage or *object
}

// read takes a JSON object, keeping its key order.
func (o *object) read(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("not a JSON object")
	}
	o.vals = map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		k := fmt.Sprint(tok)
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	return nil
}

func (o *object) get(key string) any {
	if o.vals == nil {
		return nil
	}
	return o.vals[key]
}

// at is the JSON at path (one or two keys), or nil.
func (o *object) at(path []string) json.RawMessage {
	v := o.get(path[0])
	if len(path) == 1 {
		switch x := v.(type) {
		case json.RawMessage:
			return x
		case *object:
			b, _ := x.MarshalJSON()
			return b
		}
		return nil
	}
	switch x := v.(type) {
	case *object:
		return x.at(path[1:])
	case json.RawMessage:
		inner := &object{}
		if inner.read(x) != nil {
			return nil
		}
		return inner.at(path[1:])
	}
	return nil
}

// set puts v at path, making the object on the way.
func (o *object) set(path []string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	k := path[0]
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	if len(path) == 1 {
		o.vals[k] = v
		return
	}
	inner, ok := o.vals[k].(*object)
	if !ok {
		inner = &object{}
		if raw, isRaw := o.vals[k].(json.RawMessage); isRaw {
			if inner.read(raw) != nil {
				inner = &object{}
			}
		}
		o.vals[k] = inner
	}
	inner.set(path[1:], v)
}

// remove takes the key at path out.
func (o *object) remove(path []string) {
	v, ok := o.vals[path[0]]
	if !ok {
		return
	}
	if len(path) > 1 {
		if inner, isObj := v.(*object); isObj {
			inner.remove(path[1:])
		} else if raw, isRaw := v.(json.RawMessage); isRaw {
			inner := &object{}
			if inner.read(raw) == nil {
				inner.remove(path[1:])
				o.vals[path[0]] = inner
			}
		}
		return
	}
	delete(o.vals, path[0])
	for i, k := range o.keys {
		if k == path[0] {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := marshalText(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		switch x := o.vals[k].(type) {
		case *object:
			vb, err := x.MarshalJSON()
			if err != nil {
				return nil, err
			}
			b.Write(vb)
		case json.RawMessage:
			var c bytes.Buffer
			if err := json.Compact(&c, x); err != nil {
				return nil, err
			}
			b.Write(c.Bytes())
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// FieldTexts are a JSON value's fields as a form shows them to edit: the
// text of each field the value has (a list, one per item). It is the
// inverse of FormValue, for a form opened on a value (a draft, the
// arguments being edited). A value that does not fit a field (an object
// where a number goes) is left out.
func FieldTexts(form *client.Form, value json.RawMessage) map[string][]string {
	out := map[string][]string{}
	value = bytes.TrimSpace(value)
	if len(value) == 0 {
		return out
	}
	if form.Root {
		if t, ok := textOf(form.Fields[0], value); ok {
			out[form.Fields[0].Name] = t
		}
		return out
	}
	root := &object{}
	if root.read(value) != nil {
		return out
	}
	for _, f := range form.Fields {
		if v := root.at(f.Path); v != nil {
			if t, ok := textOf(f, v); ok {
				out[f.Name] = t
			}
		}
	}
	return out
}

func textOf(f client.Field, v json.RawMessage) ([]string, bool) {
	v = bytes.TrimSpace(v)
	if f.Kind == client.FieldList {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return nil, false
		}
		out := make([]string, 0, len(items))
		for _, it := range items {
			if !scalarJSON(it) {
				return []string{string(v)}, true
			}
			out = append(out, client.ChoiceText(it))
		}
		return out, true
	}
	if !scalarJSON(v) {
		return nil, false
	}
	return []string{client.ChoiceText(v)}, true
}

func scalarJSON(v json.RawMessage) bool {
	return len(v) > 0 && v[0] != '{' && v[0] != '['
}

// FormDraft is what was typed in a form, as JSON to keep as a draft (and
// to open the JSON editor on): like FormValue, but a value that does not
// type is kept as its text, and nothing is checked or required.
func FormDraft(form *client.Form, base json.RawMessage, fields map[string][]string) json.RawMessage {
	value := func(f client.Field) (json.RawMessage, bool) {
		texts := fields[f.Name]
		v, given, err := typed(f, texts)
		if !given {
			return nil, false
		}
		if err != nil {
			if f.Kind == client.FieldList {
				items := make([]json.RawMessage, 0, len(texts))
				for _, t := range texts {
					if t = strings.TrimSpace(t); t != "" {
						b, _ := marshalText(t)
						items = append(items, b)
					}
				}
				b, _ := json.Marshal(items)
				return b, true
			}
			b, _ := marshalText(strings.TrimSpace(strings.Join(texts, "\n")))
			return b, true
		}
		return v, true
	}
	if form.Root {
		if v, ok := value(form.Fields[0]); ok {
			return v
		}
		return nil
	}
	root := &object{}
	if len(bytes.TrimSpace(base)) > 0 && root.read(base) != nil {
		root = &object{}
	}
	for _, f := range form.Fields {
		if v, ok := value(f); ok {
			root.set(f.Path, v)
		} else if _, named := fields[f.Name]; named {
			root.remove(f.Path)
		}
	}
	b, err := root.MarshalJSON()
	if err != nil {
		return nil
	}
	return b
}
