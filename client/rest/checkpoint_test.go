package rest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// A run's state with characters that HTML-escaping JSON encoders change
// (<, >, &), so that the exact bytes are pinned.
const checkpointState = `{
  "run_id": "run-1", "status": "awaiting_human", "current_step": "information_review",
  "original_input": {"prompt": "A fox & a <hen>"},
  "information_result": {"model": "black-forest-labs/flux-schnell", "tool": "REPLICATETOOL",
    "summary": "Text-to-image.", "confidence": 0.62, "reasons": ["no size"], "safety_flags": ["pii"],
    "recommended_model_settings": {"num_outputs": 1}},
  "suggested_payload": {"prompt": "A fox", "num_outputs": 4, "image_file": null},
  "example_input": {"prompt": "an astronaut", "num_outputs": 1},
  "validation": [{"field": "image_file", "message": "null is not a valid image", "suggested_fix": "remove it"}],
  "api_response": "{\"status\":\"succeeded\"}", "final_result": "One <b>fox</b>."
}`

func checkpoint(t *testing.T, name string) client.Payload {
	t.Helper()
	var st runState
	if err := json.Unmarshal([]byte(checkpointState), &st); err != nil {
		t.Fatal(err)
	}
	return checkpointPayload("apr-1", name, st, nil)
}

// TestCheckpointPayloads pins what each checkpoint shows and its args' bytes.
func TestCheckpointPayloads(t *testing.T) {
	tests := []struct {
		checkpoint, schema, title, args, description string
	}{
		{"information_review", "information-review", "Information review: black-forest-labs/flux-schnell",
			`{"prompt":"A fox & a <hen>","model":"black-forest-labs/flux-schnell"}`,
			"Text-to-image.\n\n**Tool**: REPLICATETOOL\n**Confidence**: 0.62\n**Safety flags**: pii\n\n**Reasons**\n- no size\n\n_Run run-1: awaiting_human, checkpoint 1 of 3._"},
		{"payload_review", "payload-review", "Payload review: the payload about to be sent",
			`{"prompt": "A fox", "num_outputs": 4, "image_file": null}`,
			"**Validation**\n- `image_file`: null is not a valid image (suggested fix: remove it)\n\n_Run run-1: awaiting_human, checkpoint 2 of 3._"},
		{"response_review", "response-review", "Response review: raw output against the cleaned text",
			`{"text":"One <b>fox</b>."}`,
			"_Run run-1: awaiting_human, checkpoint 3 of 3._"},
	}
	for _, tt := range tests {
		t.Run(tt.checkpoint, func(t *testing.T) {
			p := checkpoint(t, tt.checkpoint)
			if string(p.Schema) != tt.schema || p.Title != tt.title || p.Description != tt.description {
				t.Fatalf("got %s %q\n%q", p.Schema, p.Title, p.Description)
			}
			if len(p.Actions) != 1 || string(p.Actions[0].Args) != tt.args || !slices.Equal(p.Actions[0].Allowed, []client.DecisionType{client.Approve, client.Edit, client.Reject}) {
				t.Fatalf("actions %+v", p.Actions)
			}
		})
	}
	if p := checkpoint(t, "information_review"); string(p.Context) != `{"num_outputs": 1}` {
		t.Errorf("context %s", p.Context)
	}
	if p := checkpoint(t, "payload_review"); string(p.Actions[0].Example) != `{"prompt": "an astronaut", "num_outputs": 1}` {
		t.Errorf("example %s", p.Actions[0].Example)
	}
	if p := checkpoint(t, "response_review"); p.Compare == nil || p.Compare.Left != `{"status":"succeeded"}` || p.Compare.Right != "One <b>fox</b>." {
		t.Errorf("compare %+v", p.Compare)
	}
	if p := checkpoint(t, "no_such_review"); p.Schema != client.SchemaRaw {
		t.Errorf("an unknown checkpoint is %s", p.Schema)
	}
}

// TestEncodeCheckpoint asserts the exact bytes a checkpoint's decision sends,
// through client.Encode, as the decision pipeline calls it.
func TestEncodeCheckpoint(t *testing.T) {
	tests := []struct {
		name, checkpoint string
		decision         client.Decision
		want             string
	}{
		{"approve", "information_review", client.Decision{Type: client.Approve},
			`{"approval_id":"apr-1","action":"approve","approved_by":"alice"}`},
		{"edit sends what changed", "information_review", client.Decision{Type: client.Edit, Args: json.RawMessage(`{"prompt": "A fox & a <cat>", "model": "black-forest-labs/flux-schnell"}`)},
			`{"approval_id":"apr-1","action":"edit","edits":{"prompt":"A fox & a <cat>"},"approved_by":"alice"}`},
		{"a removed field is null", "payload_review", client.Decision{Type: client.Edit, Args: json.RawMessage(`{"num_outputs": 1, "prompt": "A fox", "seed": [1, 2]}`)},
			`{"approval_id":"apr-1","action":"edit","edits":{"num_outputs":1,"seed":[1,2],"image_file":null},"approved_by":"alice"}`},
		{"edited text", "response_review", client.Decision{Type: client.Edit, Args: json.RawMessage(`{"text":"One fox."}`)},
			`{"approval_id":"apr-1","action":"edit","edits":{"text":"One fox."},"approved_by":"alice"}`},
		{"reject carries the reason", "payload_review", client.Decision{Type: client.Reject, Message: "wrong <model>"},
			`{"approval_id":"apr-1","action":"reject","reason":"wrong <model>","approved_by":"alice"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := checkpoint(t, tt.checkpoint)
			r, err := client.Encode(&p, []client.Decision{tt.decision}, client.EncodeOptions{Reviewer: "alice"})
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Value) != tt.want {
				t.Fatalf("resume = %s\nwant     %s", r.Value, tt.want)
			}
		})
	}
}
