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
//     dropped.
func Decision(it *client.Interrupt, i int, in Input) (client.Decision, error) {
	slot := i
	if len(it.Actions) == 0 {
		slot = -1
	}
	refuse := func(format string, a ...any) error {
		return &client.RefusedError{Slot: slot, Reason: fmt.Sprintf(format, a...)}
	}
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
