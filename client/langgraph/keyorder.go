package langgraph

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// How two JSON values compare (sameJSON).
type jsonSame int

const (
	differ    jsonSame = iota // different values
	sameValue                 // the same value, written differently (key order)
	sameBytes                 // the same bytes, once compacted
)

// sameJSON compares two JSON values: the same bytes (compacted), the same
// value in another key order, or different.
func sameJSON(a, b []byte) jsonSame {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes()) {
		return sameBytes
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil || !reflect.DeepEqual(va, vb) {
		return differ
	}
	return sameValue
}

// jsonbOrdered reports whether every object in the value has its keys in
// the order PostgreSQL's JSONB keeps them (shorter first, then by bytes):
// a value so ordered reads the same from a server that reorders keys, so
// it cannot tell whether this one does.
func jsonbOrdered(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	ordered := true
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return true
		}
		switch d {
		case '{':
			prev, first := "", true
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				key, _ := k.(string)
				if !first && (len(key) < len(prev) || (len(key) == len(prev) && key < prev)) {
					ordered = false
				}
				prev, first = key, false
				if !walk() {
					return false
				}
			}
		case '[':
			for dec.More() {
				if !walk() {
					return false
				}
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	if !walk() {
		return true // unreadable: it tells nothing
	}
	return ordered
}

// multiKey reports whether the value holds an object of two keys or more.
func multiKey(raw []byte) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			if len(x) > 1 {
				return true
			}
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
