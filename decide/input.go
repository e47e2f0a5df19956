// Package decide is the one path by which hitl sends a decision, for the
// CLI and the TUI alike: typed input becomes decisions by one set of rules
// (Decisions), decisions become exact resume values (Prepare), and a
// Pipeline checks the interrupt still waits, writes the intent to the audit
// log (synced) before anything leaves, sends once, reads back from the
// server which decision took effect, follows the run, and records the
// outcome. What it reports is a Result of one Kind with one wording.
package decide

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/diff"
)

// Input is what a reviewer typed for one slot of an interrupt (one action,
// or the interrupt itself when it has no actions).
type Input struct {
	Type client.DecisionType
	// Args are the edited arguments as typed (JSON text), for an edit.
	Args string
	// Name renames the tool call, for an edit (empty: keep it).
	Name string
	// Text is the reject message, the response or the feedback.
	Text string
	// Answers answer the payload's questions, in order.
	Answers []string
	// Value is an exact JSON answer; it wins over Text.
	Value json.RawMessage
	// Fields are texts typed for the fields of a form, by field name
	// ("budget", "owner.email"; several for a list): the interrupt's
	// answer schema for a respond, the action's args_schema for an edit.
	// See FormValue.
	Fields map[string][]string
	// Stop, on a reject, ends the thread's work there (client.Ending).
	Stop bool
	// Always, on an approve, approves for good what the interrupt's
	// Payload.Always names (opencode); the reviewer asks for it by name.
	Always bool
}

// Decisions turns one Input per slot into decisions (see Decision).
func Decisions(it *client.Interrupt, in []Input) ([]client.Decision, error) {
	if len(in) != it.Slots() {
		return nil, &client.RefusedError{Slot: -1, Reason: fmt.Sprintf(
			"this interrupt takes %d decision(s), one per action in order; got %d", it.Slots(), len(in))}
	}
	out := make([]client.Decision, len(in))
	for i := range in {
		d, err := Decision(it, i, in[i])
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// Decision turns what was typed for slot i into a decision, by the rules
// the CLI and the TUI share:
//   - an edit's arguments must be a JSON object (matching the action's
//     args_schema when it has one); arguments that do not change anything
//     (same JSON value, same tool name) are an approve;
//   - text is trimmed; on a payload of no known shape, text that starts
//     like a JSON object or array is sent as that JSON (it must parse),
//     anything else as a string;
//   - answers must not outnumber the questions; trailing empty answers are
//     dropped;
//   - fields typed for a form become JSON by FormValue: the answer of a
//     respond (the interrupt's response schema), or the arguments of an
//     edit (the action's args_schema, over its current arguments);
//   - on a form-shaped interrupt, text is read as JSON when it is JSON
//     (50, true, {…}), else as a string;
//   - an interrupt with a response schema refuses an answer that does not
//     match it.
func Decision(it *client.Interrupt, i int, in Input) (client.Decision, error) {
	slot := i
	if len(it.Actions) == 0 {
		slot = -1
	}
	refuse := func(format string, a ...any) error {
		return &client.RefusedError{Slot: slot, Reason: fmt.Sprintf(format, a...)}
	}
	if (in.Type == client.Dismiss || in.Stop) && it.Payload.Origin != nil {
		// A coding agent's permission request has no thread on a server
		// for an ending to stand in: its agent waits for an answer.
		return client.Decision{Type: in.Type}, refuse("a coding agent's request cannot be dismissed or stopped: its agent waits for an answer; reject it instead")
	}
	if in.Type == client.Dismiss {
		// Not an answer: the thread's work ends; any interrupt but a
		// breakpoint may be dismissed (the backend says whether it can).
		// A breakpoint holds no interrupt in the thread's state for an
		// ending to stand in for: the server refuses it after the intent
		// is written, so it is refused here, before anything is.
		if it.Payload.Schema == client.SchemaBreakpoint {
			return client.Decision{Type: client.Dismiss}, refuse("a thread paused at a breakpoint cannot be dismissed: it holds no interrupt to end at (continue it with approve, or cancel its run on the server)")
		}
		return client.Decision{Type: client.Dismiss, Message: strings.TrimSpace(in.Text)}, nil
	}
	if in.Stop && in.Type != client.Reject {
		return client.Decision{Type: in.Type}, refuse("stop goes with reject only")
	}
	if len(in.Fields) > 0 {
		var err error
		if in, err = fieldsInput(it, i, slot, in); err != nil {
			return client.Decision{Type: in.Type}, err
		}
	}
	if in.Always && in.Type != client.Approve {
		return client.Decision{Type: in.Type}, refuse("always goes with approve only")
	}
	if in.Always && len(it.Always) == 0 {
		return client.Decision{Type: in.Type}, refuse("this interrupt has nothing to approve for good (always): approve it once")
	}
	d, err := decision(it, i, slot, in, refuse)
	d.Stop, d.Always = in.Stop, in.Always
	if err != nil || in.Stop || len(it.ResponseSchema) == 0 || it.Slots() != 1 {
		return d, err
	}
	// The answer as it will be sent, checked now: the reviewer hears of a
	// mismatch where the answer is typed, not at the confirm step.
	if _, err := client.Encode(&it.Payload, []client.Decision{d}, client.EncodeOptions{}); err != nil {
		var refused *client.RefusedError
		if errors.As(err, &refused) && refused.Slot < 0 {
			refused.Slot = slot
		}
		return d, err
	}
	return d, nil
}

// fieldsInput turns the fields of in into its Value (respond) or Args
// (edit).
func fieldsInput(it *client.Interrupt, i, slot int, in Input) (Input, error) {
	refuse := func(format string, a ...any) error {
		return &client.RefusedError{Slot: slot, Reason: fmt.Sprintf(format, a...)}
	}
	var schema, base json.RawMessage
	switch in.Type {
	case client.Respond:
		if len(it.ResponseSchema) == 0 {
			return in, refuse("this interrupt gives no schema for its answer, so it has no fields; answer with text (-m) or JSON (--value)")
		}
		if it.Schema != client.SchemaForm {
			return in, refuse("this interrupt is answered as %s, not with fields", it.Schema)
		}
		schema = it.ResponseSchema
	case client.Edit:
		if len(it.Actions) == 0 || len(it.Actions[i].ArgsSchema) == 0 {
			return in, refuse("this action gives no args_schema, so its arguments have no fields; edit them as JSON (--args)")
		}
		schema, base = it.Actions[i].ArgsSchema, it.Actions[i].Args
		if strings.TrimSpace(in.Args) != "" {
			base = json.RawMessage(in.Args)
		}
	default:
		return in, refuse("fields are for respond (an answer schema) or edit (an args_schema), not %s", in.Type)
	}
	form, err := client.FormFor(schema, base) // an edit's fields: the TUI's form's (tui/formopen.go)
	if err != nil {
		return in, refuse("%v: give the whole value as JSON", err)
	}
	v, err := FormValue(form, base, in.Fields, slot)
	if err != nil {
		return in, err
	}
	if in.Type == client.Edit {
		in.Args = string(v)
	} else {
		in.Value = v
	}
	return in, nil
}

func decision(it *client.Interrupt, i, slot int, in Input, refuse func(string, ...any) error) (client.Decision, error) {
	d := client.Decision{Type: in.Type, Message: strings.TrimSpace(in.Text), Name: in.Name}
	if in.Value != nil {
		if !json.Valid(in.Value) {
			return d, refuse("the value is not valid JSON")
		}
		d.Value = in.Value
	}
	switch in.Type {
	case client.Edit:
		if len(it.Actions) == 0 {
			return d, refuse("there are no arguments to edit here; respond instead")
		}
		a := it.Actions[i]
		args, err := client.CheckArgs([]byte(in.Args), a.ArgsSchema)
		if err != nil {
			return d, refuse("%s", err.Error())
		}
		if diff.Equal(args, a.Args) && (in.Name == "" || in.Name == a.Name) {
			return client.Decision{Type: client.Approve}, nil
		}
		d.Args = args
		d.Message = ""
	case client.Respond, client.Reject:
		if d.Value == nil && it.Schema == client.SchemaForm && json.Valid([]byte(d.Message)) {
			d.Value = json.RawMessage(d.Message)
		}
		if d.Value == nil && it.Schema == client.SchemaRaw && (strings.HasPrefix(d.Message, "{") || strings.HasPrefix(d.Message, "[")) {
			if !json.Valid([]byte(d.Message)) {
				return d, refuse("this looks like JSON but does not parse; fix it, or start it with another character to send it as text")
			}
			d.Value = json.RawMessage(d.Message)
		}
	}
	answers := append([]string(nil), in.Answers...)
	for len(answers) > 0 && strings.TrimSpace(answers[len(answers)-1]) == "" {
		answers = answers[:len(answers)-1]
	}
	if len(answers) > 0 {
		if len(it.Questions) == 0 {
			return d, refuse("this interrupt asks no questions; give the answer as the message")
		}
		if len(answers) > len(it.Questions) {
			return d, refuse("%d answers for %d questions", len(answers), len(it.Questions))
		}
		for j := range answers {
			answers[j] = strings.TrimSpace(answers[j])
		}
		d.Answers = answers
	}
	return d, nil
}
