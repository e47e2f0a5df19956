package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// RunState is the part of a REST HITL run's state (GET
// /api/hitl/run/{run_id}/state, seed 004) that a checkpoint shows.
type RunState struct {
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

// CheckpointPayload builds the payload of one pending approval at a REST
// HITL checkpoint: information_review, payload_review or response_review.
// Each is one action whose args the reviewer may edit; the decision goes
// back as {approval_id, action, edits, reason, approved_by}.
func CheckpointPayload(approvalID, checkpoint string, st RunState, allowed []string) Payload {
	p := Payload{wire: wire{approval: approvalID}}
	if allowed == nil {
		allowed = []string{"approve", "edit", "reject"}
	}
	var types []DecisionType
	for _, a := range allowed {
		switch DecisionType(a) {
		case Approve, Edit, Reject:
			types = append(types, DecisionType(a))
		}
	}
	var md strings.Builder
	switch checkpoint {
	case "information_review":
		p.Schema = SchemaInformationReview
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
			p.Context = nullToNil(ir.RecommendedModelSettings)
		}
		p.Actions = []Action{{Name: "run_input", Args: mustOrdered(args, "prompt", "model"),
			Description: "Approve, or edit the prompt or the model before the run starts.", Allowed: types}}
	case "payload_review":
		p.Schema = SchemaPayloadReview
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
		p.Actions = []Action{{Name: "payload", Args: orEmptyObject(st.SuggestedPayload), Example: nullToNil(st.ExampleInput),
			Description: "Approve the payload, edit its fields, or reject it.", Allowed: types}}
	case "response_review":
		p.Schema = SchemaResponseReview
		p.Title = "Response review: raw output against the cleaned text"
		p.Compare = &Comparison{LeftLabel: "raw output", Left: st.APIResponse, RightLabel: "cleaned text", Right: st.FinalResult}
		text, _ := marshal(map[string]string{"text": st.FinalResult})
		p.Actions = []Action{{Name: "response", Args: text, Description: "Accept the cleaned text, edit it, or reject it.", Allowed: types}}
	default:
		return rawPayload()
	}
	step := map[string]int{"information_review": 1, "payload_review": 2, "response_review": 3}[checkpoint]
	fmt.Fprintf(&md, "\n_Run %s: %s, checkpoint %d of 3._", st.RunID, orDash(st.Status), step)
	p.Description = strings.TrimSpace(md.String())
	return normalized(p)
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
		kb, _ := marshal(k)
		vb, _ := marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
		n++
	}
	b.WriteByte('}')
	return b.Bytes()
}

type checkpointDecision struct {
	ApprovalID string          `json:"approval_id"`
	Action     DecisionType    `json:"action"`
	Edits      json.RawMessage `json:"edits,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	ApprovedBy string          `json:"approved_by"`
}

// encodeCheckpoint answers a checkpoint. Edits carry only the top-level
// fields that changed (null for a removed one), as the seed's
// {"edits": {"prompt": "…"}} does.
func encodeCheckpoint(p *Payload, d Decision, reviewer string) any {
	out := checkpointDecision{ApprovalID: p.wire.approval, Action: d.Type, ApprovedBy: reviewer}
	switch d.Type {
	case Edit:
		out.Edits = changedFields(p.Actions[0].Args, d.Args)
	case Reject:
		out.Reason = d.Message
	}
	return out
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
		kb, _ := marshal(k)
		buf.Write(kb)
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
