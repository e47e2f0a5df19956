package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// runState is the part of a run's state (GET /api/hitl/run/{run_id}/state,
// seed 004) that a checkpoint shows.
type runState struct {
	RunID         string `json:"run_id"`
	Status        string `json:"status"`
	CurrentStep   string `json:"current_step"`
	OriginalInput struct {
		Prompt string `json:"prompt"`
	} `json:"original_input"`
	InformationResult *struct {
		Model                    string          `json:"model"`
		Tool                     string          `json:"tool"`
		Summary                  string          `json:"summary"`
		Confidence               *float64        `json:"confidence"`
		Reasons                  []string        `json:"reasons"`
		SafetyFlags              []string        `json:"safety_flags"`
		RecommendedModelSettings json.RawMessage `json:"recommended_model_settings"`
	} `json:"information_result"`
	SuggestedPayload json.RawMessage `json:"suggested_payload"`
	ExampleInput     json.RawMessage `json:"example_input"`
	Validation       []struct {
		Field        string `json:"field"`
		Message      string `json:"message"`
		SuggestedFix string `json:"suggested_fix"`
	} `json:"validation"`
	APIResponse string `json:"api_response"`
	FinalResult string `json:"final_result"`
}

// checkpointPayload builds the payload of one pending approval at a
// checkpoint: information_review, payload_review or response_review. Each is
// one action whose args the reviewer may edit; the payload answers with its
// own encoder (approvalEncoder).
func checkpointPayload(approvalID, checkpoint string, st runState, allowed []string) client.Payload {
	p := client.Payload{Encoder: approvalEncoder{approvalID: approvalID}}
	if allowed == nil {
		allowed = []string{"approve", "edit", "reject"}
	}
	var types []client.DecisionType
	for _, a := range allowed {
		switch client.DecisionType(a) {
		case client.Approve, client.Edit, client.Reject:
			types = append(types, client.DecisionType(a))
		}
	}
	var md strings.Builder
	switch checkpoint {
	case "information_review":
		p.Schema = client.SchemaInformationReview
		ir := st.InformationResult
		args := map[string]any{"prompt": st.OriginalInput.Prompt}
		p.Title = "Information review"
		if ir != nil {
			p.Title += ": " + ir.Model
			args["model"] = ir.Model
			if ir.Summary != "" {
				fmt.Fprintf(&md, "%s\n\n", ir.Summary)
			}
			if ir.Tool != "" {
				fmt.Fprintf(&md, "**Tool**: %s\n", ir.Tool)
			}
			if ir.Confidence != nil {
				fmt.Fprintf(&md, "**Confidence**: %.2f\n", *ir.Confidence)
			}
			if len(ir.SafetyFlags) > 0 {
				fmt.Fprintf(&md, "**Safety flags**: %s\n", strings.Join(ir.SafetyFlags, ", "))
			}
			if len(ir.Reasons) > 0 {
				md.WriteString("\n**Reasons**\n")
				for _, r := range ir.Reasons {
					fmt.Fprintf(&md, "- %s\n", r)
				}
			}
			p.Context = client.NullToNil(ir.RecommendedModelSettings)
		}
		p.Actions = []client.Action{{Name: "run_input", Args: mustOrdered(args, "prompt", "model"),
			Description: "Approve, or edit the prompt or the model before the run starts.", Allowed: types}}
	case "payload_review":
		p.Schema = client.SchemaPayloadReview
		p.Title = "Payload review: the payload about to be sent"
		if len(st.Validation) > 0 {
			md.WriteString("**Validation**\n")
			for _, v := range st.Validation {
				fmt.Fprintf(&md, "- `%s`: %s", v.Field, v.Message)
				if v.SuggestedFix != "" {
					fmt.Fprintf(&md, " (suggested fix: %s)", v.SuggestedFix)
				}
				md.WriteString("\n")
			}
		}
		p.Actions = []client.Action{{Name: "payload", Args: client.OrEmptyObject(st.SuggestedPayload), Example: client.NullToNil(st.ExampleInput),
			Description: "Approve the payload, edit its fields, or reject it.", Allowed: types}}
	case "response_review":
		p.Schema = client.SchemaResponseReview
		p.Title = "Response review: raw output against the cleaned text"
		p.Compare = &client.Comparison{LeftLabel: "raw output", Left: st.APIResponse, RightLabel: "cleaned text", Right: st.FinalResult}
		p.Actions = []client.Action{{Name: "response", Args: marshal(map[string]string{"text": st.FinalResult}),
			Description: "Accept the cleaned text, edit it, or reject it.", Allowed: types}}
	default:
		return client.Parse(nil) // a checkpoint of no known kind: shown raw
	}
	step := map[string]int{"information_review": 1, "payload_review": 2, "response_review": 3}[checkpoint]
	fmt.Fprintf(&md, "\n_Run %s: %s, checkpoint %d of 3._", st.RunID, orDash(st.Status), step)
	p.Description = strings.TrimSpace(md.String())
	return client.Normalized(p)
}

// mustOrdered writes m with the given keys first, in that order.
func mustOrdered(m map[string]any, keys ...string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(k))
		b.WriteByte(':')
		b.Write(marshal(v))
		n++
	}
	b.WriteByte('}')
	return b.Bytes()
}

// approvalEncoder answers one approval at a checkpoint (POST
// /api/hitl/run/{run_id}/approve).
type approvalEncoder struct {
	approvalID string
}

type checkpointDecision struct {
	ApprovalID string              `json:"approval_id"`
	Action     client.DecisionType `json:"action"`
	Edits      json.RawMessage     `json:"edits,omitempty"`
	Reason     string              `json:"reason,omitempty"`
	ApprovedBy string              `json:"approved_by"`
}

// Encode spells the one decision of a checkpoint. Edits carry only the
// top-level fields that changed (null for a removed one), as the seed's
// {"edits": {"prompt": "…"}} does.
func (e approvalEncoder) Encode(p *client.Payload, ds []client.Decision, opts client.EncodeOptions) (any, error) {
	d := ds[0]
	out := checkpointDecision{ApprovalID: e.approvalID, Action: d.Type, ApprovedBy: opts.Reviewer}
	switch d.Type {
	case client.Edit:
		out.Edits = changedFields(p.Actions[0].Args, d.Args)
	case client.Reject:
		out.Reason = d.Message
	}
	return out, nil
}

func changedFields(before, after json.RawMessage) json.RawMessage {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(before, &a) != nil || json.Unmarshal(after, &b) != nil {
		return after
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	write := func(k string, v json.RawMessage) {
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.Write(marshal(k))
		buf.WriteByte(':')
		var c bytes.Buffer
		if json.Compact(&c, v) == nil {
			buf.Write(c.Bytes())
		} else {
			buf.Write(v)
		}
		n++
	}
	// In the order the reviewer's text has them.
	for _, k := range orderedKeys(after) {
		if old, ok := a[k]; !ok || !jsonEqual(old, b[k]) {
			write(k, b[k])
		}
	}
	for _, k := range orderedKeys(before) {
		if _, ok := b[k]; !ok {
			write(k, json.RawMessage("null"))
		}
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

func orderedKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, fmt.Sprint(k))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// marshal writes a string or a map of strings as JSON without escaping <, >
// and &: the reviewer reads, and the server gets back, the text as it was.
func marshal(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
