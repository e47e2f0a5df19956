package client

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/hitl-sh/hitl/diff"
)

// An answer that comes as a resume value (through a hub's HTTP door; a
// pending approval's value) is read back into decisions, which the rules
// and the reviewer look at. DecisionsOf reads one into the other, for the
// payload shapes whose decisions name tools.

// DecisionsOf reads the decisions a resume value encodes, and checks that
// they encode it exactly (Encode gives the same value back): what
// the rules look at is what is sent.
func DecisionsOf(p *Payload, value json.RawMessage, opts EncodeOptions) ([]Decision, error) {
	var cands [][]Decision
	switch p.Schema {
	case SchemaMiddleware:
		cands = middlewareDecisions(value)
	case SchemaAgentInbox:
		cands = inboxDecisions(value)
	case SchemaQuestions:
		cands = questionsDecisions(value)
	case SchemaPrompt:
		var s string
		if json.Unmarshal(value, &s) == nil {
			cands = [][]Decision{{{Type: Respond, Message: s}}}
		}
	}
	var last error
	for _, ds := range cands {
		for _, dialect := range []EditDialect{opts.Dialect, DialectEditedAction, DialectEditedArgs} {
			o := opts
			o.Dialect = dialect
			try := slices.Clone(ds)
			r, err := Encode(p, try, o)
			if err != nil {
				last = err
				continue
			}
			if diff.Equal(r.Value, value) {
				return try, nil
			}
		}
	}
	if last != nil {
		return nil, last
	}
	if len(p.Actions) > 0 || len(cands) > 0 {
		return nil, errors.New("the response is not an answer hitl would send to this interrupt (decisions it allows, one per action, spelled as its graph reads them)")
	}
	// A value of no shape hitl spells (raw, form): sent as it is, once
	// checked against the interrupt's response schema. No action: no rule
	// names it.
	if err := CheckAnswer(p, value); err != nil {
		return nil, err
	}
	t := Respond
	if len(p.Allowed) > 0 && !slices.Contains(p.Allowed, t) {
		t = p.Allowed[0]
	}
	return []Decision{{Type: t, Value: value}}, nil
}

type wireEdit struct {
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Arguments json.RawMessage `json:"arguments"`
}

type wireDecision struct {
	Type          DecisionType    `json:"type"`
	EditedAction  *wireEdit       `json:"edited_action"`
	EditedActionJ *wireEdit       `json:"editedAction"`
	EditedArgs    json.RawMessage `json:"edited_args"`
	Message       string          `json:"message"`
}

func middlewareDecisions(value json.RawMessage) [][]Decision {
	var list struct {
		Decisions []wireDecision `json:"decisions"`
	}
	var one wireDecision
	var wire []wireDecision
	switch {
	case json.Unmarshal(value, &list) == nil && list.Decisions != nil:
		wire = list.Decisions
	case json.Unmarshal(value, &one) == nil && one.Type != "":
		wire = []wireDecision{one} // per-call mode
	default:
		return nil
	}
	ds := make([]Decision, len(wire))
	for i, w := range wire {
		d := Decision{Type: w.Type, Message: w.Message}
		if w.Type == Edit {
			e := w.EditedAction
			if e == nil {
				e = w.EditedActionJ
			}
			switch {
			case e != nil && e.Args != nil:
				d.Name, d.Args = e.Name, e.Args
			case e != nil:
				d.Name, d.Args = e.Name, e.Arguments
			default:
				d.Args = w.EditedArgs
			}
		}
		ds[i] = d
	}
	// The name is the action's unless the edit renamed it: both spell the
	// same value, and a decision without one reads as the reviewer's.
	plain := slices.Clone(ds)
	for i := range plain {
		plain[i].Name = ""
	}
	return [][]Decision{plain, ds}
}

func inboxDecisions(value json.RawMessage) [][]Decision {
	type wire struct {
		Type string          `json:"type"`
		Args json.RawMessage `json:"args"`
	}
	var list []wire
	if json.Unmarshal(value, &list) != nil {
		var one wire
		if json.Unmarshal(value, &one) != nil || one.Type == "" {
			return nil
		}
		list = []wire{one}
	}
	ds := make([]Decision, len(list))
	for i, w := range list {
		switch w.Type {
		case "accept":
			ds[i] = Decision{Type: Approve}
		case "ignore":
			ds[i] = Decision{Type: Ignore}
		case "response":
			var s string
			_ = json.Unmarshal(w.Args, &s)
			ds[i] = Decision{Type: Respond, Message: s}
		case "edit":
			var a struct {
				Action string          `json:"action"`
				Args   json.RawMessage `json:"args"`
			}
			_ = json.Unmarshal(w.Args, &a)
			ds[i] = Decision{Type: Edit, Name: a.Action, Args: a.Args}
		default:
			return nil
		}
	}
	return [][]Decision{ds}
}

func questionsDecisions(value json.RawMessage) [][]Decision {
	var r struct {
		Decision string   `json:"decision"`
		Feedback string   `json:"feedback"`
		Reason   string   `json:"reason"`
		Answers  []string `json:"answers"`
	}
	if json.Unmarshal(value, &r) != nil {
		return nil
	}
	d := Decision{Answers: r.Answers, Message: r.Feedback}
	switch r.Decision {
	case "approve":
		d.Type = Approve
	case "edit":
		d.Type = Respond
	case "reject":
		d.Type, d.Message = Reject, r.Reason
	default:
		return nil
	}
	return [][]Decision{{d}}
}
