package review

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Set is one key of an edit's arguments set to a value (hitl edit --set
// KEY=VALUE), the other keys kept.
type Set struct {
	Key   string
	Value json.RawMessage
}

// ParseSets reads KEY=VALUE settings (--set flags): VALUE as JSON when it
// is JSON, else as text.
func ParseSets(flags []string) ([]Set, error) {
	var out []Set
	for _, fl := range flags {
		k, v, ok := strings.Cut(fl, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, Usagef("--set %q: give KEY=VALUE (hitl show ID lists the arguments)", fl)
		}
		val := json.RawMessage(strings.TrimSpace(v))
		if !json.Valid(val) || strings.TrimSpace(v) == "" {
			b, _ := json.Marshal(v)
			val = b
		}
		out = append(out, Set{Key: k, Value: val})
	}
	return out, nil
}

// SetKeys sets each key of sets in the arguments object args, keeping the
// other keys and their order.
func SetKeys(args json.RawMessage, sets []Set) (json.RawMessage, error) {
	var keys []string
	vals := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, Usagef("--set changes keys of an arguments object; these arguments are not one")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, Usagef("the arguments cannot be read: %v", err)
		}
		k := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, Usagef("the arguments cannot be read: %v", err)
		}
		if _, seen := vals[k]; !seen {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	for _, s := range sets {
		if _, seen := vals[s.Key]; !seen {
			keys = append(keys, s.Key)
		}
		vals[s.Key] = s.Value
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
