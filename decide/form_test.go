package decide_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/decide"
)

// withSchema is an interrupt as the real server lists one with a
// response_schema (client/testdata/form-*, percall-*).
func withSchema(t *testing.T, fixture, id string) client.Interrupt {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "client", "testdata", fixture+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Value          json.RawMessage `json:"value"`
		ResponseSchema json.RawMessage `json:"response_schema"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return client.Interrupt{ID: id, ThreadID: "thread-" + id, Payload: client.ParseWithSchema(w.Value, w.ResponseSchema), Raw: w.Value}
}

func fields(kv ...string) map[string][]string {
	out := map[string][]string{}
	for _, x := range kv {
		k, v, _ := strings.Cut(x, "=")
		out[k] = append(out[k], v)
	}
	return out
}

func TestFieldsAreTypedByTheSchema(t *testing.T) {
	it := withSchema(t, "form-zod", "f1")
	for _, tt := range []struct {
		name   string
		fields map[string][]string
		want   string // the answer, or the refusal
	}{
		{"typed", fields("framework=react", "tests=true", "budget=50"), `{"framework":"react","tests":true,"budget":50}`},
		{"schema order, numbers as typed, text trimmed", fields("notes= ship it <soon> ", "budget=12.50", "tests=FALSE", "framework=vue"),
			`{"framework":"vue","tests":false,"budget":12.50,"notes":"ship it <soon>"}`},
		{"a number read as JSON writes it", fields("framework=vue", "tests=true", "budget=.5"), `{"framework":"vue","tests":true,"budget":0.5}`},
		{"over the maximum", fields("framework=react", "tests=true", "budget=150"), "budget: must be at most 100 (got 150)"},
		{"not a choice", fields("framework=angular", "tests=true", "budget=1"), `framework: "angular" is not one of: react, vue, svelte`},
		{"not a boolean", fields("framework=react", "tests=maybe", "budget=1"), `tests: "maybe" is not true or false`},
		{"not a number", fields("framework=react", "tests=true", "budget=lots"), `budget: "lots" is not a number`},
		{"missing", fields("framework=react"), "tests: required; budget: required"},
		{"every problem at once", fields("framework=angular", "budget=150"),
			`framework: "angular" is not one of: react, vue, svelte; tests: required; budget: must be at most 100 (got 150)`},
		{"unknown", fields("framework=react", "colour=red"), "no field colour here; the fields are framework, tests, budget, notes"},
		{"twice", fields("framework=react", "framework=vue", "tests=true", "budget=1"), "framework: given 2 times; it takes one value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := decide.Decision(&it, 0, decide.Input{Type: client.Respond, Fields: tt.fields})
			got := string(d.Value)
			if err != nil {
				got = err.Error()
				var fe *decide.FieldErrors
				var refused *client.RefusedError
				if !errors.As(err, &fe) || !errors.As(err, &refused) {
					t.Fatalf("%T is not field errors and a refusal", err)
				}
			}
			if got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestNestedFormsAndDefaults(t *testing.T) {
	it := withSchema(t, "form-nested", "f2")
	d, err := decide.Decision(&it, 0, decide.Input{Type: client.Respond, Fields: fields("title=Broken login", "owner.name=Ana", "labels=auth", "labels=urgent")})
	if err != nil || string(d.Value) != `{"title":"Broken login","owner":{"name":"Ana"},"labels":["auth","urgent"],"priority":3}` {
		t.Fatalf("%s %v", d.Value, err)
	}
	_, err = decide.Decision(&it, 0, decide.Input{Type: client.Respond, Fields: fields("title=ok", "owner.email=nope", "priority=2.5")})
	var fe *decide.FieldErrors
	if !errors.As(err, &fe) || fe.Of("owner.name") != "required" || fe.Of("priority") != "2.5 is not a whole number" {
		t.Fatalf("err = %v", err)
	}
	if _, err := decide.Decision(&it, 0, decide.Input{Type: client.Respond, Fields: fields("title=ok", "owner.name=A", "owner.email=nope")}); err == nil || !strings.Contains(err.Error(), "owner.email: 'nope' is not valid email") {
		t.Fatalf("err = %v", err)
	}
	// A form opens on a value: FieldTexts is FormValue's inverse.
	form, _ := client.FormOf(it.ResponseSchema)
	texts := decide.FieldTexts(form, d.Value)
	again, err := decide.FormValue(form, nil, texts, -1)
	if err != nil || string(again) != string(d.Value) {
		t.Fatalf("round trip: %s %v (texts %v)", again, err, texts)
	}
}

// Text typed for a form-shaped interrupt is JSON when it reads as JSON.
func TestFormAnsweredWithText(t *testing.T) {
	it := withSchema(t, "form-zod", "f3")
	if _, err := decide.Decision(&it, 0, decide.Input{Type: client.Respond, Text: `{"framework":"react"}`}); err == nil || !strings.Contains(err.Error(), "missing properties 'tests', 'budget'") {
		t.Fatalf("err = %v", err)
	}
	d, err := decide.Decision(&it, 0, decide.Input{Type: client.Respond, Text: `{"framework":"react","tests":false,"budget":0}`})
	if err != nil || string(d.Value) != `{"framework":"react","tests":false,"budget":0}` {
		t.Fatalf("%s %v", d.Value, err)
	}
	choice := client.Interrupt{ID: "f4", Payload: client.ParseWithSchema(json.RawMessage(`"Which region?"`), json.RawMessage(`{"type":"string","enum":["eu","us"]}`))}
	if d, err := decide.Decision(&choice, 0, decide.Input{Type: client.Respond, Text: "eu"}); err != nil || string(d.Value) != "" || d.Message != "eu" {
		t.Fatalf("%+v %v", d, err)
	}
	if d, err := decide.Decision(&choice, 0, decide.Input{Type: client.Respond, Fields: fields("value=us")}); err != nil || string(d.Value) != `"us"` {
		t.Fatalf("%+v %v", d, err)
	}
	if _, err := decide.Decision(&choice, 0, decide.Input{Type: client.Respond, Text: "asia"}); err == nil || !strings.Contains(err.Error(), "response_schema") {
		t.Fatalf("err = %v", err)
	}
}

// An edit's fields are typed by the args_schema, over the current args.
func TestEditFields(t *testing.T) {
	it := withSchema(t, "percall-py", "p1")
	d, err := decide.Decision(&it, 0, decide.Input{Type: client.Edit, Fields: fields("to=jane@example.com")})
	if err != nil || d.Type != client.Edit || string(d.Args) != `{"to":"jane@example.com","subject":"Your refund","body":"Hello,\n\nYour refund is on its way."}` {
		t.Fatalf("%+v %v", d, err)
	}
	if _, err := decide.Decision(&it, 0, decide.Input{Type: client.Edit, Fields: fields("to=jane")}); err == nil || !strings.Contains(err.Error(), "to: 'jane' is not valid email") {
		t.Fatalf("err = %v", err)
	}
	if _, err := decide.Decision(&it, 0, decide.Input{Type: client.Edit, Fields: fields("subject=")}); err == nil || !strings.Contains(err.Error(), "subject: required") {
		t.Fatalf("clearing a required field: %v", err)
	}
	plain := interrupt(t, "middleware-js-email", "p2")
	if _, err := decide.Decision(&plain, 0, decide.Input{Type: client.Edit, Fields: fields("to=x")}); err == nil || !strings.Contains(err.Error(), "no args_schema") {
		t.Fatalf("err = %v", err)
	}
}
