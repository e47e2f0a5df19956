package client

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValueProblem(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tt := range []struct{ value, want string }{
		{`{"a":[1,2,{"b":"c"}]}`, ""},
		{`"a string with \" and \\ inside"`, ""},
		{deep(MaxDepth), ""},
		{deep(MaxDepth + 1), "nested 9,001 levels deep, deeper than the 9,000 hitl shows"},
		{deep(100_000), "nested 100,000 levels deep"},
		{`"` + strings.Repeat("x", MaxValueSize) + `"`, "of 16.0 MiB, larger than the 16.0 MiB hitl shows"},
		{`{"a":tru}`, "that is not JSON: invalid character"},
		{`{"a":1`, "that is not JSON"},
		{`[1,2]]`, "that is not JSON"},
		{`"unterminated`, "that is not JSON: a string is not closed"},
		{"[\"\x1b\"]", "that is not JSON: invalid character '\\x1b'"},
	} {
		got := ValueProblem([]byte(tt.value))
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("ValueProblem(%.40q) = %q, want %q", tt.value, got, tt.want)
		}
	}
}

func TestElementsAndMembersAtAnyDepth(t *testing.T) {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	doc := `[ {"id":"a","v":` + deep + `} , "s,]}\"" ,{"id":"b"}, 42 ]`
	elems, err := Elements([]byte(doc))
	if err != nil || len(elems) != 4 {
		t.Fatalf("Elements: %d, %v", len(elems), err)
	}
	if string(elems[1]) != `"s,]}\""` || string(elems[2]) != `{"id":"b"}` || string(elems[3]) != "42" {
		t.Fatalf("elements: %q %q %q", elems[1], elems[2], elems[3])
	}
	ms, err := Members(elems[0])
	if err != nil || len(ms) != 2 || ms[0].Key != "id" || string(ms[1].Value) != deep {
		t.Fatalf("Members: %v", err)
	}
	if e, err := Elements([]byte(" [ ] ")); err != nil || len(e) != 0 {
		t.Errorf("empty array: %v %v", e, err)
	}
	for _, bad := range []string{``, `{}`, `[1 2]`, `[1,`, `[{"a":1]]`, `[1] x`, `["a]`} {
		if _, err := Elements([]byte(bad)); err == nil {
			t.Errorf("Elements(%q): no error", bad)
		}
	}
	for _, bad := range []string{`[]`, `{"a"}`, `{"a":1,}`, `{1:2}`, `{"a":1 "b":2}`} {
		if _, err := Members([]byte(bad)); err == nil {
			t.Errorf("Members(%q): no error", bad)
		}
	}
}

func TestUnreadableIsNotAnswerable(t *testing.T) {
	p := Parse(json.RawMessage(strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)))
	if p.Schema != SchemaUnreadable || !strings.Contains(p.Title, "20,000 levels deep") || len(p.Allowed) != 0 {
		t.Fatalf("payload: %+v", p)
	}
	if _, err := Encode(&p, []Decision{{Type: Respond, Message: "x"}}, EncodeOptions{}); err == nil {
		t.Fatal("an unreadable payload was answered")
	}
	// A schema of the answer that cannot be read makes the interrupt unreadable too.
	p = ParseWithSchema(json.RawMessage(`"ok?"`), json.RawMessage(strings.Repeat("[", 10_000)+strings.Repeat("]", 10_000)))
	if p.Schema != SchemaUnreadable || !strings.Contains(p.Problem, "answer schema nested") || p.ResponseSchema != nil {
		t.Fatalf("payload with a deep schema: %+v", p)
	}
	var it Interrupt
	it.Payload = p
	it.WithValue([]byte(`not json`))
	if string(it.Raw) != "null" || string(it.Bytes) != "not json" {
		t.Fatalf("raw %q bytes %q", it.Raw, it.Bytes)
	}
}

func FuzzElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"a",{"b":[null]}]`, `[[[[`, `["\"",{}]`, `{"a":1}`, "[\"\xff\"]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		elems, err := Elements(b)
		if err != nil {
			return
		}
		// Every element of a valid array is found, whole.
		if json.Valid(b) {
			var want []json.RawMessage
			if json.Unmarshal(b, &want) == nil && len(want) != len(elems) {
				t.Fatalf("%d elements, encoding/json finds %d", len(elems), len(want))
			}
		}
		for _, e := range elems {
			_ = ValueProblem(e)
			_, _ = Members(e)
		}
	})
}
