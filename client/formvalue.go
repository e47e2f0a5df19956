package client

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// FormFor is the form of schema for editing value (a tool call's
// arguments): FormOf's fields, and one for each key of value the schema
// does not describe (no property names it), typed by its value, so that a
// form shows every argument it can rather than only those the schema
// names. A key whose value no field can hold (an object, null, a list of
// objects) is not shown and keeps its value. Fields follow value's order.
func FormFor(schema, value json.RawMessage) (*Form, error) {
	f, err := FormOf(schema)
	if err != nil || f.Root {
		return f, err
	}
	keys, vals := topLevel(value)
	if len(keys) == 0 {
		return f, nil
	}
	described := map[string]bool{}
	if n, err := readNode(schema); err == nil {
		props, _ := orderedProperties(n.Properties)
		for _, p := range props {
			described[p.name] = true
		}
	}
	var fields []Field
	for _, x := range f.Fields {
		if len(x.Path) != 1 || described[x.Name] {
			fields = append(fields, x)
			continue
		}
		// A required key with no property: typed by its value, or left
		// to the value when no field holds it.
		v, ok := vals[x.Name]
		if !ok {
			fields = append(fields, x)
		} else if typed, ok := fieldOfValue(x.Name, v); ok {
			typed.Required = true
			fields = append(fields, typed)
		}
	}
	for _, k := range keys {
		if described[k] || strings.Contains(k, ".") || slices.ContainsFunc(fields, func(x Field) bool { return x.Name == k }) {
			continue
		}
		if x, ok := fieldOfValue(k, vals[k]); ok {
			fields = append(fields, x)
		}
	}
	at := func(x Field) int {
		if i := slices.Index(keys, x.Path[0]); i >= 0 {
			return i
		}
		return len(keys)
	}
	slices.SortStableFunc(fields, func(a, b Field) int { return at(a) - at(b) })
	f.Fields = fields
	return f, nil
}

// topLevel reads an object's keys in order, and their values.
func topLevel(value json.RawMessage) ([]string, map[string]json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(value))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, nil
		}
		if _, seen := vals[k]; !seen {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	return keys, vals
}

// fieldOfValue is a field that holds v, a value no schema describes: a
// text, a number, a flag, or a list of one of those.
func fieldOfValue(name string, v json.RawMessage) (Field, bool) {
	f := Field{Name: name, Path: []string{name}}
	kind := func(v json.RawMessage) FieldKind {
		v = bytes.TrimSpace(v)
		switch {
		case len(v) == 0:
			return ""
		case v[0] == '"':
			return FieldText
		case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
			return FieldNumber
		case string(v) == "true" || string(v) == "false":
			return FieldBoolean
		}
		return ""
	}
	if k := kind(v); k != "" {
		f.Kind = k
		if k == FieldText {
			var s string
			_ = json.Unmarshal(v, &s)
			f.Long = strings.Contains(s, "\n") || longText(f, "")
		}
		return f, true
	}
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil || len(items) == 0 {
		return f, false
	}
	f.Kind, f.Item = FieldList, kind(items[0])
	for _, it := range items {
		if kind(it) != f.Item || f.Item == "" {
			return f, false
		}
	}
	return f, true
}
