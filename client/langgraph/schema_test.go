package langgraph

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// The server lists response_schema next to the value; the model keeps it.
func TestResponseSchemaIsRead(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		fixture string
		schema  client.Schema
	}{{"form-zod", client.SchemaForm}, {"percall-js", client.SchemaMiddleware}} {
		one, err := os.ReadFile("../testdata/" + tt.fixture + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var w map[string]json.RawMessage
		json.Unmarshal(one, &w)
		w["id"] = json.RawMessage(`"d15104e7410d02d6b50eb3e2c48312ef"`)
		item, _ := json.Marshal(w)
		var th thread
		if err := json.Unmarshal([]byte(`{"thread_id":"t","status":"interrupted","interrupts":{"task":[`+string(item)+`]}}`), &th); err != nil {
			t.Fatal(err)
		}
		its := th.interrupts("s", nil)
		if len(its) != 1 || its[0].Schema != tt.schema || string(its[0].ResponseSchema) != string(w["response_schema"]) || string(its[0].Raw) != string(w["value"]) {
			t.Fatalf("%s: %+v", tt.fixture, its)
		}
	}
}
