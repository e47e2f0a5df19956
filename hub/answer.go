package hub

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
)

// An answer that comes through the HTTP door (Door) is a resume value; the
// rules look at decisions. decisionsOf reads one into the other, for the
// payload shapes whose decisions name tools.

// decisionsOf reads the decisions a resume value encodes, and checks that
// they encode it exactly (client.Encode gives the same value back): what
// the rules look at is what is sent.
func decisionsOf(p *client.Payload, value json.RawMessage, opts client.EncodeOptions) ([]client.Decision, error) {
	var cands [][]client.Decision
	switch p.Schema {
	case client.SchemaMiddleware:
		cands = middlewareDecisions(value)
	case client.SchemaAgentInbox:
		cands = inboxDecisions(value)
	case client.SchemaQuestions:
		cands = questionsDecisions(value)
	case client.SchemaPrompt:
		var s string
		if json.Unmarshal(value, &s) == nil {
			cands = [][]client.Decision{{{Type: client.Respond, Message: s}}}
		}
	}
	var last error
	for _, ds := range cands {
		for _, dialect := range []client.EditDialect{opts.Dialect, client.DialectEditedAction, client.DialectEditedArgs} {
			o := opts
			o.Dialect = dialect
			try := slices.Clone(ds)
			r, err := client.Encode(p, try, o)
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
	if err := client.CheckAnswer(p, value); err != nil {
		return nil, err
	}
	t := client.Respond
	if len(p.Allowed) > 0 && !slices.Contains(p.Allowed, t) {
		t = p.Allowed[0]
	}
	return []client.Decision{{Type: t, Value: value}}, nil
}

type wireEdit struct {
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Arguments json.RawMessage `json:"arguments"`
}

type wireDecision struct {
	Type          client.DecisionType `json:"type"`
	EditedAction  *wireEdit           `json:"edited_action"`
	EditedActionJ *wireEdit           `json:"editedAction"`
	EditedArgs    json.RawMessage     `json:"edited_args"`
	Message       string              `json:"message"`
}

func middlewareDecisions(value json.RawMessage) [][]client.Decision {
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
	ds := make([]client.Decision, len(wire))
	for i, w := range wire {
		d := client.Decision{Type: w.Type, Message: w.Message}
		if w.Type == client.Edit {
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
	return [][]client.Decision{plain, ds}
}

func inboxDecisions(value json.RawMessage) [][]client.Decision {
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
	ds := make([]client.Decision, len(list))
	for i, w := range list {
		switch w.Type {
		case "accept":
			ds[i] = client.Decision{Type: client.Approve}
		case "ignore":
			ds[i] = client.Decision{Type: client.Ignore}
		case "response":
			var s string
			_ = json.Unmarshal(w.Args, &s)
			ds[i] = client.Decision{Type: client.Respond, Message: s}
		case "edit":
			var a struct {
				Action string          `json:"action"`
				Args   json.RawMessage `json:"args"`
			}
			_ = json.Unmarshal(w.Args, &a)
			ds[i] = client.Decision{Type: client.Edit, Name: a.Action, Args: a.Args}
		default:
			return nil
		}
	}
	return [][]client.Decision{ds}
}

func questionsDecisions(value json.RawMessage) [][]client.Decision {
	var r struct {
		Decision string   `json:"decision"`
		Feedback string   `json:"feedback"`
		Reason   string   `json:"reason"`
		Answers  []string `json:"answers"`
	}
	if json.Unmarshal(value, &r) != nil {
		return nil
	}
	d := client.Decision{Answers: r.Answers, Message: r.Feedback}
	switch r.Decision {
	case "approve":
		d.Type = client.Approve
	case "edit":
		d.Type = client.Respond
	case "reject":
		d.Type, d.Message = client.Reject, r.Reason
	default:
		return nil
	}
	return [][]client.Decision{{d}}
}
