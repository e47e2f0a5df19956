package client

import (
	"bytes"
	"encoding/json"
)

// Skeleton is a value of the schema's shape to start a JSON answer from:
// each field with its default, its first choice, or an empty value of its
// type; the first alternative of a oneOf or anyOf; null where hitl cannot
// tell (a $ref).
func Skeleton(schema json.RawMessage) json.RawMessage {
	b, err := marshal(skeleton(schema, 0))
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

func skeleton(raw json.RawMessage, depth int) any {
	var n schemaNode
	if depth > 8 || json.Unmarshal(raw, &n) != nil {
		return nil
	}
	switch {
	case n.Default != nil:
		return n.Default
	case n.Const != nil:
		return n.Const
	case len(n.Enum) > 0:
		return n.Enum[0]
	}
	for _, alts := range []json.RawMessage{n.OneOf, n.AnyOf} {
		var list []json.RawMessage
		if json.Unmarshal(alts, &list) == nil && len(list) > 0 {
			return skeleton(list[0], depth+1)
		}
	}
	var all []json.RawMessage
	if json.Unmarshal(n.AllOf, &all) == nil && len(all) > 0 {
		return skeleton(all[0], depth+1)
	}
	types, nullable := n.types()
	t := ""
	if len(types) > 0 {
		t = types[0]
	} else if n.Properties != nil {
		t = "object"
	}
	switch t {
	case "object":
		props, _ := orderedProperties(n.Properties)
		obj := make(orderedObject, 0, len(props))
		for _, p := range props {
			obj = append(obj, keyValue{p.name, skeleton(p.schema, depth+1)})
		}
		return obj
	case "array":
		return []any{}
	case "string":
		return ""
	case "number", "integer":
		return 0
	case "boolean":
		return false
	}
	if nullable {
		return nil
	}
	return nil
}

// orderedObject is a JSON object that keeps its key order.
type orderedObject []keyValue

type keyValue struct {
	key   string
	value any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(kv.key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(kv.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
