package client

import (
	"encoding/json"
	"strings"
	"testing"
)

// A form for arguments holds every argument a field can: the properties,
// the required keys no property describes, and the keys the schema does
// not name, typed by their values, in the arguments' order; what no field
// holds (an object, null, a mixed list) is left to the value.
func TestFormForShowsEveryArgument(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["order_id","amount","currency","meta"],"properties":{"amount":{"type":"number","maximum":100}}}`)
	args := json.RawMessage(`{"order_id":"A-1001","amount":12.5,"currency":"EUR","reason":"damaged\nin transit","count":3,"urgent":true,"tags":["a","b"],"meta":{"x":1},"gone":null,"mixed":[1,"a"]}`)
	f, err := FormFor(schema, args)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range f.Fields {
		s := x.Name + ":" + string(x.Kind)
		if x.Item != "" {
			s += "/" + string(x.Item)
		}
		if x.Required {
			s += "*"
		}
		if x.Long {
			s += "(long)"
		}
		got = append(got, s)
	}
	want := "order_id:string* amount:number* currency:string* reason:string(long) count:number urgent:boolean tags:array/string"
	if strings.Join(got, " ") != want {
		t.Fatalf("fields\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	// Without the arguments (an answer's form), a required key with no
	// property is a text.
	f, err = FormOf(schema)
	if err != nil || len(f.Fields) != 4 || f.Field("order_id") == nil || f.Field("order_id").Kind != FieldText || !f.Field("meta").Required {
		t.Fatalf("FormOf: %+v %v", f, err)
	}
}
