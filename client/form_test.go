package client

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// interruptFixture reads an interrupt as the real server lists it: its
// value and its response_schema (form-* and percall-* were captured from
// langgraphjs dev running testserver/graphs/form.js and percall.js).
func interruptFixture(t *testing.T, name string) Payload {
	t.Helper()
	var w struct {
		Value          json.RawMessage `json:"value"`
		ResponseSchema json.RawMessage `json:"response_schema"`
	}
	if err := json.Unmarshal(fixture(t, name), &w); err != nil {
		t.Fatal(err)
	}
	return ParseWithSchema(w.Value, w.ResponseSchema)
}

func TestParseWithResponseSchema(t *testing.T) {
	p := interruptFixture(t, "form-zod")
	if p.Schema != SchemaForm || p.Title != "Pick a framework" || !equalTypes(p.Allowed, []DecisionType{Respond}) || len(p.ResponseSchema) == 0 {
		t.Fatalf("form: %+v", p)
	}
	for _, tt := range []struct {
		name, casing, edit string
		address            string // how the args schema checks an address
	}{{"percall-js", "camel", `"editedAction"`, `"format":"email"`}, {"percall-py", "snake", `"edited_action"`, `"format":"email"`},
		// As the Python server sends it (langchain 1.4.7 per_call, Pydantic):
		// each decision by $ref into $defs, the tool's args likewise; a
		// tool's Field(pattern=...) is kept, its json_schema_extra is not.
		{"percall-py-server", "snake", `"edited_action"`, `"pattern":`}} {
		p := interruptFixture(t, tt.name)
		if p.Schema != SchemaMiddleware || p.Title != "Review tool call send_email" || len(p.Actions) != 1 {
			t.Fatalf("%s: %+v", tt.name, p)
		}
		a := p.Actions[0]
		if !equalTypes(a.Allowed, []DecisionType{Approve, Edit, Reject, Respond}) || !strings.Contains(string(a.ArgsSchema), tt.address) ||
			!strings.HasPrefix(a.Description, "Tool execution requires approval") {
			t.Fatalf("%s: action %+v", tt.name, a)
		}
		r, err := Encode(&p, []Decision{{Type: Edit, Args: json.RawMessage(`{"to":"jane@example.com","subject":"Hi","body":"b"}`)}}, EncodeOptions{})
		want := `{"type":"edit",` + tt.edit + `:{"name":"send_email","args":{"to":"jane@example.com","subject":"Hi","body":"b"}}}`
		if err != nil || string(r.Value) != want {
			t.Fatalf("%s: edit %s, %v\nwant %s", tt.name, r.Value, err, want)
		}
		if r, err := Encode(&p, []Decision{{Type: Approve}}, EncodeOptions{}); err != nil || string(r.Value) != `{"type":"approve"}` {
			t.Fatalf("%s: approve %s %v", tt.name, r.Value, err)
		}
		// What the graph's schema refuses is refused before sending: an
		// address that is not one, a respond without its message.
		if _, err := Encode(&p, []Decision{{Type: Edit, Args: json.RawMessage(`{"to":"jane","subject":"Hi","body":"b"}`)}}, EncodeOptions{}); err == nil ||
			!strings.Contains(err.Error(), "match the ") || !strings.Contains(err.Error(), "$.to") && !strings.Contains(err.Error(), "email") {
			t.Fatalf("%s: bad address: %v", tt.name, err)
		}
		if _, err := Encode(&p, []Decision{{Type: Respond}}, EncodeOptions{}); err == nil {
			t.Fatalf("%s: a respond without a message was encoded", tt.name)
		}
		if r, err := Encode(&p, []Decision{{Type: Reject, Message: "no"}}, EncodeOptions{}); err != nil || string(r.Value) != `{"type":"reject","message":"no"}` {
			t.Fatalf("%s: reject %s %v", tt.name, r.Value, err)
		}
	}
	// Only the decisions the schema lists are allowed.
	two := ParseWithSchema(json.RawMessage(`{"type":"tool_approval","tool_call_id":"c1","name":"delete_records","args":{"table":"t"}}`),
		json.RawMessage(`{"anyOf":[{"type":"object","properties":{"type":{"const":"approve"}}},{"type":"object","properties":{"type":{"enum":["reject"]},"message":{"type":"string"}}}]}`))
	if !equalTypes(two.Actions[0].Allowed, []DecisionType{Approve, Reject}) {
		t.Fatalf("allowed %v", two.Actions[0].Allowed)
	}
	if _, err := Encode(&two, []Decision{{Type: Edit, Args: json.RawMessage(`{}`)}}, EncodeOptions{}); !errors.As(err, new(*NotAllowedError)) {
		t.Fatalf("edit: %v", err)
	}
}

func TestAnswersAreCheckedAgainstTheResponseSchema(t *testing.T) {
	p := interruptFixture(t, "form-zod")
	if _, err := Encode(&p, []Decision{{Type: Respond, Value: json.RawMessage(`{"framework":"react","tests":true,"budget":150}`)}}, EncodeOptions{}); err == nil ||
		!strings.Contains(err.Error(), "at $.budget: must be at most 100 (got 150)") {
		t.Fatalf("err = %v", err)
	}
	r, err := Encode(&p, []Decision{{Type: Respond, Value: json.RawMessage(`{"framework":"react","tests":true,"budget":50}`)}}, EncodeOptions{})
	if err != nil || string(r.Value) != `{"framework":"react","tests":true,"budget":50}` {
		t.Fatalf("%s %v", r.Value, err)
	}
	// A known shape keeps its rendering; its answer is checked all the same.
	q := ParseWithSchema(fixture(t, "questions"), json.RawMessage(`{"type":"object","properties":{"answers":{"type":"array","maxItems":1}}}`))
	if q.Schema != SchemaQuestions {
		t.Fatalf("questions became %s", q.Schema)
	}
	if _, err := Encode(&q, []Decision{{Type: Respond, Message: "f", Answers: []string{"a", "b"}}}, EncodeOptions{}); err == nil || !strings.Contains(err.Error(), "$.answers") {
		t.Fatalf("err = %v", err)
	}
	// A prompt asked with a text schema is still a prompt; with another
	// schema it is a form.
	if p := ParseWithSchema(json.RawMessage(`"Which region?"`), json.RawMessage(`{"type":"string"}`)); p.Schema != SchemaPrompt {
		t.Fatalf("text prompt: %s", p.Schema)
	}
	if p := ParseWithSchema(json.RawMessage(`"Which region?"`), json.RawMessage(`{"type":"string","enum":["eu","us"]}`)); p.Schema != SchemaForm || p.Title != "Which region?" {
		t.Fatalf("choice prompt: %s %q", p.Schema, p.Title)
	}
	// null is no schema.
	if p := ParseWithSchema(fixture(t, "raw"), json.RawMessage(`null`)); p.Schema != SchemaRaw || p.ResponseSchema != nil {
		t.Fatalf("null schema: %+v", p)
	}
}

func TestFormOf(t *testing.T) {
	var w struct {
		ResponseSchema json.RawMessage `json:"response_schema"`
	}
	json.Unmarshal(fixture(t, "form-nested"), &w)
	f, err := FormOf(w.ResponseSchema)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range f.Fields {
		got = append(got, x.Name+":"+string(x.Kind)+map[bool]string{true: "*"}[x.Required]+x.Group)
	}
	if strings.Join(got, " ") != "title:string* owner.name:string*owner owner.email:stringowner labels:array priority:integer" {
		t.Fatalf("fields: %v", got)
	}
	if len(f.Groups) != 1 || f.Groups[0].Name != "owner" || !f.Groups[0].Required {
		t.Fatalf("groups: %+v", f.Groups)
	}
	pr := f.Fields[4]
	if string(pr.Default) != "3" || pr.Min.Value != "1" || pr.Max.Value != "5" || f.Fields[3].Item != FieldText {
		t.Fatalf("priority %+v", pr)
	}
	json.Unmarshal(fixture(t, "form-zod"), &w)
	f, _ = FormOf(w.ResponseSchema)
	if f.Fields[0].Kind != FieldChoice || len(f.Fields[0].Choices) != 3 || !f.Fields[3].Long || f.Fields[3].Required {
		t.Fatalf("zod form: %+v", f.Fields)
	}
	for _, tt := range []struct{ schema, why string }{
		{`{"anyOf":[{"type":"string"},{"type":"number"}]}`, "alternatives"},
		{`{"$ref":"#/definitions/x","definitions":{"x":{"type":"string"}}}`, "$ref"},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"string"}}}}}}}`, "more than one level"},
		{`{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}}}}`, "list of objects"},
		{`{"type":"object"}`, "names no fields"},
	} {
		if _, err := FormOf(json.RawMessage(tt.schema)); err == nil || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("%s: %v", tt.schema, err)
		}
	}
	if f, err := FormOf(json.RawMessage(`{"type":"string","enum":["eu","us"]}`)); err != nil || !f.Root || f.Fields[0].Name != RootField {
		t.Fatalf("root: %+v %v", f, err)
	}
}

// A Pydantic model's optional field is a value or null (anyOf with
// {"type": "null"}), as the Python server sends it (testserver/python/
// graphs/form.py): one optional field, not alternatives.
func TestFormOfPydanticOptional(t *testing.T) {
	schema := `{"properties":{"framework":{"description":"The UI framework to build with","enum":["react","vue","svelte"],"title":"Framework","type":"string"},` +
		`"notes":{"anyOf":[{"maxLength":2000,"type":"string"},{"type":"null"}],"default":null,"description":"Anything the agent should know","title":"Notes"}},` +
		`"required":["framework"],"title":"Choice","type":"object"}`
	f, err := FormOf(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	notes := f.Fields[1]
	if notes.Name != "notes" || notes.Kind != FieldText || notes.Required || !notes.Long || notes.Title != "Notes" || notes.Description != "Anything the agent should know" {
		t.Fatalf("notes: %+v", notes)
	}
	for _, alt := range []string{`{"anyOf":[{"type":"string"},{"type":"null"},{"type":"number"}]}`, `{"anyOf":[{"type":"string"},{"type":"number"}]}`,
		`{"anyOf":[{"anyOf":[{"type":"string"},{"type":"number"}]},{"type":"null"}]}`} {
		if _, err := FormOf(json.RawMessage(alt)); err == nil || !strings.Contains(err.Error(), "alternatives") {
			t.Errorf("%s: %v", alt, err)
		}
	}
}

func TestSkeleton(t *testing.T) {
	for _, tt := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"b":{"type":"boolean"},"a":{"type":"string","default":"x"},"n":{"type":"integer"},"l":{"type":"array"},"e":{"enum":["p","q"]},"o":{"type":"object","properties":{"z":{"type":"number"}}}}}`,
			`{"b":false,"a":"x","n":0,"l":[],"e":"p","o":{"z":0}}`},
		{`{"anyOf":[{"type":"object","properties":{"type":{"const":"approve"}}},{"type":"string"}]}`, `{"type":"approve"}`},
		{`{"$ref":"#/x"}`, `null`},
	} {
		if got := string(Skeleton(json.RawMessage(tt.schema))); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.schema, got, tt.want)
		}
	}
}

// An A2A agent served by a2a-sdk keeps a data part as a protobuf Struct:
// every number of a response_schema arrives as a double (5 as 5.0). The
// form is the same as with the integers written, its words too.
func TestFormOfNumbersAsDoubles(t *testing.T) {
	schema := `{"type":"object","required":["name"],"properties":{"name":{"type":"string","minLength":1.0,"maxLength":40.0},` +
		`"tags":{"type":"array","items":{"type":"string"},"maxItems":3.0},"replicas":{"type":"integer","minimum":1.0,"maximum":5.0}}}`
	f, err := FormOf(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("no form: %v", err)
	}
	name, tags := f.Field("name"), f.Field("tags")
	if name == nil || name.MinLength == nil || *name.MinLength != 1 || name.MaxLength == nil || *name.MaxLength != 40 ||
		tags == nil || tags.MaxItems == nil || *tags.MaxItems != 3 {
		t.Fatalf("fields: %+v", f.Fields)
	}
	if err := CheckValue(json.RawMessage(`{"name":"ada","tags":["a"],"replicas":3}`), json.RawMessage(schema)); err != nil {
		t.Fatalf("a good answer refused: %v", err)
	}
	if err := CheckValue(json.RawMessage(`{"name":"ada","replicas":7}`), json.RawMessage(schema)); err == nil || !strings.Contains(err.Error(), "must be at most 5 (got 7)") {
		t.Fatalf("replicas 7: %v", err)
	}
	if _, err := FormOf(json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","maxLength":2.5}}}`)); err == nil {
		t.Fatal("a maxLength of 2.5 was taken")
	}
}
