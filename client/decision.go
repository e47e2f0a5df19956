package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Decision is the reviewer's answer for one action (or for an interrupt
// without actions).
type Decision struct {
	Type DecisionType `json:"type"`
	// Args replace the action's arguments (Edit).
	Args json.RawMessage `json:"args,omitempty"`
	// Name optionally replaces the tool name (Edit).
	Name string `json:"name,omitempty"`
	// Message is the reject reason, the response, or the feedback.
	Message string `json:"message,omitempty"`
	// Answers answer the payload's questions, in order.
	Answers []string `json:"answers,omitempty"`
	// Value, for a raw payload, is sent as it is instead of Message.
	Value json.RawMessage `json:"value,omitempty"`
	// Stop, on a reject, ends the thread's work there: the agent is not
	// run again on the rejection (see Ending).
	Stop bool `json:"stop,omitempty"`
	// Always, on an approve, approves for good what the interrupt's
	// Payload.Always names (opencode's "always": the agent stops asking
	// for those patterns). Only the reviewer's explicit ask sets it.
	Always bool `json:"always,omitempty"`
}

// EditDialect selects how an edit is spelled for the middleware shape.
type EditDialect string

const (
	// DialectEditedAction is the middleware's own: edited_action / editedAction.
	DialectEditedAction EditDialect = "edited_action"
	// DialectEditedArgs is {"type":"edit","edited_args":{…}}, expected by
	// some custom backends (seed 003).
	DialectEditedArgs EditDialect = "edited_args"
)

// EncodeOptions say how to spell decisions for a backend.
type EncodeOptions struct {
	Dialect EditDialect
	// Reviewer is sent where a backend's decision carries who made it
	// (approved_by in the REST HITL API).
	Reviewer string
}

// Resume is what to send to resume one interrupt.
type Resume struct {
	// Value is the resume value, exactly as it goes on the wire.
	Value json.RawMessage
	// Continue is set for a breakpoint: resume with no value at all.
	Continue bool
	// End, when set, ends the thread's work at the interrupt instead of
	// resuming it (Value is then nil).
	End *Ending
}

// RefusedError is a decision that the interrupt does not allow, or that is
// incomplete; nothing was sent.
type RefusedError struct {
	Slot   int // 0-based action index, or -1 for the whole interrupt
	Reason string
	// NoMessage: refused because the decision needs a message it lacks.
	NoMessage bool
}

func (e *RefusedError) Error() string {
	if e.Slot < 0 {
		return e.Reason
	}
	return fmt.Sprintf("action %d: %s", e.Slot+1, e.Reason)
}

// NotAllowedError is a decision type the interrupt does not allow.
type NotAllowedError struct{ RefusedError }

// An Encoder spells decisions in a backend's own vocabulary, for payloads
// the backend built itself rather than parsed from a shape Parse knows.
type Encoder interface {
	// Encode returns the resume value of decisions that client.Encode has
	// already checked against p; client.Encode writes it as JSON, without
	// escaping <, > and &.
	Encode(p *Payload, decisions []Decision, opts EncodeOptions) (any, error)
}

// Encode checks the decisions against what the interrupt allows and returns
// the exact resume value its graph expects. It refuses, sending nothing, when
// the count is wrong, a decision is not allowed, a required message is
// missing, or edited args are not JSON or do not match the action's schema.
// A payload with an Encoder is spelled by it; the others by their Schema.
func Encode(p *Payload, decisions []Decision, opts EncodeOptions) (Resume, error) {
	if len(decisions) != p.Slots() {
		return Resume{}, &RefusedError{Slot: -1, Reason: fmt.Sprintf(
			"this interrupt takes %d decision(s), one per action in order; got %d", p.Slots(), len(decisions))}
	}
	for i := range decisions {
		if err := check(p, i, &decisions[i]); err != nil {
			return Resume{}, err
		}
	}
	var v any
	switch {
	case p.Encoder != nil:
		var err error
		if v, err = p.Encoder.Encode(p, decisions, opts); err != nil {
			return Resume{}, err
		}
	case p.Schema == SchemaMiddleware:
		v = encodeMiddleware(p, decisions, opts.Dialect)
	case p.Schema == SchemaAgentInbox:
		v = encodeInbox(p, decisions)
	case p.Schema == SchemaQuestions:
		v = encodeQuestions(decisions[0])
	case p.Schema == SchemaPrompt:
		v = decisions[0].Message
	case p.Schema == SchemaBreakpoint:
		return Resume{Continue: true}, nil
	default:
		if decisions[0].Value != nil {
			v = decisions[0].Value
		} else {
			v = decisions[0].Message
		}
	}
	b, err := marshal(v)
	if err != nil {
		return Resume{}, err
	}
	if err := CheckAnswer(p, b); err != nil {
		return Resume{}, err
	}
	return Resume{Value: b}, nil
}

// CheckAnswer checks a resume value against the interrupt's response
// schema, when it has one: a value the graph would refuse (a Zod schema
// fails the run) is refused here, before anything is sent. A schema hitl
// cannot read refuses nothing: the graph has the last word.
func CheckAnswer(p *Payload, value json.RawMessage) error {
	if len(p.ResponseSchema) == 0 {
		return nil
	}
	err := CheckValue(value, p.ResponseSchema)
	var mismatch *SchemaError
	if errors.As(err, &mismatch) {
		return &RefusedError{Slot: -1, Reason: "the answer does not match the interrupt's response_schema: " + mismatch.Error()}
	}
	return nil
}

// CheckAllowed is nil when slot i accepts a decision of type t, else the
// *NotAllowedError that names what it accepts (as Encode refuses it).
func (p *Payload) CheckAllowed(i int, t DecisionType) error {
	if p.Allows(i, t) {
		return nil
	}
	slot := i
	if len(p.Actions) == 0 {
		slot = -1
	}
	allowed := p.AllowedAt(i)
	names := make([]string, len(allowed))
	for j, a := range allowed {
		names[j] = string(a)
	}
	reason := fmt.Sprintf("%q is not allowed here; allowed: %s", t, strings.Join(names, ", "))
	if len(names) == 0 {
		reason = fmt.Sprintf("%q is not allowed here; the interrupt allows no decision for this action", t)
	}
	return &NotAllowedError{RefusedError{Slot: slot, Reason: reason}}
}

func check(p *Payload, i int, d *Decision) error {
	slot := i
	if len(p.Actions) == 0 {
		slot = -1
	}
	if err := p.CheckAllowed(i, d.Type); err != nil {
		return err
	}
	if d.Always && d.Type != Approve {
		return &RefusedError{Slot: slot, Reason: "always goes with approve only"}
	}
	if d.Always && len(p.Always) == 0 {
		return &RefusedError{Slot: slot, Reason: "this interrupt has nothing to approve for good (always): approve it once"}
	}
	if p.RequiresMessage(d.Type) && strings.TrimSpace(d.Message) == "" && d.Value == nil {
		return &RefusedError{Slot: slot, Reason: fmt.Sprintf("%q needs a message (feedback) for this interrupt", d.Type), NoMessage: true}
	}
	if d.Value != nil && !json.Valid(d.Value) {
		return &RefusedError{Slot: slot, Reason: "the value is not valid JSON"}
	}
	if d.Type != Edit {
		return nil
	}
	a := p.Actions[i]
	args, err := CheckArgs(d.Args, a.ArgsSchema)
	if err != nil {
		return &RefusedError{Slot: slot, Reason: err.Error()}
	}
	d.Args = args
	return nil
}

// CheckArgs parses edited arguments, which must be a JSON object, and checks
// them against schema when there is one. It returns the args compacted, with
// their key order and numbers as written.
func CheckArgs(args json.RawMessage, schema json.RawMessage) (json.RawMessage, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		return nil, errors.New("edited args are empty: give a JSON object")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := position(args, syn.Offset)
			return nil, fmt.Errorf("edited args are not valid JSON at line %d, column %d: %s", line, col, syntaxText(syn))
		}
		return nil, fmt.Errorf("edited args must be a JSON object {…}, not %s", jsonKind(args))
	}
	if obj == nil { // null decodes into a map without error
		return nil, fmt.Errorf("edited args must be a JSON object {…}, not %s", jsonKind(args))
	}
	if len(schema) > 0 {
		if err := validate(args, schema); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, args); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func validate(args, schema json.RawMessage) error {
	err := checkValue(args, schema, false)
	var unusable *SchemaUnusableError
	var mismatch *SchemaError
	switch {
	case errors.As(err, &unusable):
		return fmt.Errorf("the action's args_schema cannot be used: %v", unusable.Err)
	case errors.As(err, &mismatch):
		return fmt.Errorf("edited args do not match the action's args_schema: %w", mismatch)
	}
	return err
}

var printer = message.NewPrinter(language.English)

func position(b []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := 0; i < int(offset)-1 && i < len(b); i++ {
		if b[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// Struct field order below is the order keys go on the wire.

type middlewareDecision struct {
	Type          DecisionType `json:"type"`
	EditedAction  any          `json:"edited_action,omitempty"`
	EditedActionJ any          `json:"editedAction,omitempty"`
	EditedArgs    any          `json:"edited_args,omitempty"`
	Message       string       `json:"message,omitempty"`
}

func encodeMiddleware(p *Payload, ds []Decision, dialect EditDialect) any {
	out := make([]middlewareDecision, len(ds))
	for i, d := range ds {
		md := middlewareDecision{Type: d.Type, Message: d.Message}
		if d.Type == Edit {
			name := d.Name
			if name == "" {
				name = p.Actions[i].Name
			}
			switch {
			case dialect == DialectEditedArgs:
				md.EditedArgs = d.Args
			case p.wire.casing == camelCase:
				md.EditedActionJ = editedAction{Name: name, Args: d.Args}
			case p.wire.argsKey == "arguments":
				md.EditedAction = editedActionPre{Name: name, Arguments: d.Args}
			default:
				md.EditedAction = editedAction{Name: name, Args: d.Args}
			}
			md.Message = ""
		}
		out[i] = md
	}
	if p.wire.single {
		// Per-call mode: the interrupt is one tool call, answered with
		// its decision alone.
		return out[0]
	}
	return map[string]any{"decisions": out}
}

type editedAction struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type editedActionPre struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type inboxResponse struct {
	Type string `json:"type"`
	Args any    `json:"args"`
}

func encodeInbox(p *Payload, ds []Decision) any {
	out := make([]inboxResponse, len(ds))
	for i, d := range ds {
		switch d.Type {
		case Approve:
			out[i] = inboxResponse{Type: "accept"}
		case Edit:
			name := d.Name
			if name == "" {
				name = p.Actions[i].Name
			}
			out[i] = inboxResponse{Type: "edit", Args: inboxAction{Action: name, Args: d.Args}}
		case Respond:
			out[i] = inboxResponse{Type: "response", Args: d.Message}
		case Ignore:
			out[i] = inboxResponse{Type: "ignore"}
		}
	}
	if !p.wire.inboxList {
		return out[0]
	}
	return out
}

type inboxAction struct {
	Action string          `json:"action"`
	Args   json.RawMessage `json:"args"`
}

type questionsResponse struct {
	Decision string   `json:"decision"`
	Feedback string   `json:"feedback,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Answers  []string `json:"answers,omitempty"`
}

func encodeQuestions(d Decision) any {
	r := questionsResponse{Answers: d.Answers, Feedback: d.Message}
	switch d.Type {
	case Approve:
		r.Decision = "approve"
	case Respond:
		r.Decision = "edit"
	case Reject:
		// The seed's node reads "reason", its frontend sends "feedback".
		r.Decision, r.Reason = "reject", d.Message
	}
	return r
}

// marshal encodes without escaping <, > and & (the graph gets the reviewer's
// text exactly as typed).
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Consequences lists what a reviewer may not expect from these decisions on
// this payload, as observed on real servers, for the confirm step to show.
func Consequences(p *Payload, ds []Decision) []string {
	var notes []string
	if p.Schema == SchemaMiddleware && p.wire.casing == camelCase && len(ds) > 1 {
		rejects, runs := 0, 0
		for _, d := range ds {
			switch d.Type {
			case Reject:
				rejects++
			case Approve, Edit:
				runs++
			}
		}
		if rejects > 0 && runs > 0 {
			notes = append(notes, "LangChain's JavaScript middleware does not run the approved or edited calls of an interrupt that has a reject among its decisions: the agent gets the rejection and is asked again")
		}
	}
	if note := EndingNote(p, ds); note != "" {
		notes = append(notes, note)
	}
	// The middleware's default reject message names the call, not a
	// reason: the agent cannot tell what to do differently.
	for i, d := range ds {
		if p.Schema == SchemaMiddleware && d.Type == Reject && !d.Stop && i < len(p.Actions) && strings.TrimSpace(d.Message) == "" {
			notes = append(notes, fmt.Sprintf("reject of %s without a message: the agent is told only that the call was rejected, not why", p.Actions[i].Name))
		}
	}
	// LangChain: "Do not use respond to deny side-effecting tools, because
	// its message is treated as a successful tool result."
	for i, d := range ds {
		if d.Type != Respond || i >= len(p.Actions) {
			continue
		}
		notes = append(notes, fmt.Sprintf("respond on the tool call %s: the agent takes your message as the tool's successful result, as if %s had run; to deny a tool with side effects, reject it instead",
			p.Actions[i].Name, p.Actions[i].Name))
	}
	return notes
}

// EndingNote is what ending the thread's work (dismiss, reject --stop)
// does, said before it is done; "" when the decisions end nothing.
func EndingNote(p *Payload, ds []Decision) string {
	end, _ := Ends(ds)
	if end == nil {
		return ""
	}
	what := "the interrupt is not answered"
	if end.Kind == EndStop {
		what = "every call is rejected"
		if len(p.Actions) == 0 {
			// A question: there is no call to reject.
			what = "it is rejected"
		}
	}
	where := "the reason is put in the conversation as each call's result"
	if strings.TrimSpace(end.Reason) == "" {
		where = "each call's result in the conversation says it was not run (no reason given)"
	}
	if p.Schema != SchemaMiddleware || len(p.Actions) == 0 {
		why := "no tool call waits in the conversation"
		if p.Schema == SchemaAgentInbox && len(p.Actions) > 0 {
			why = "the request's action is not a tool call waiting in the conversation"
		}
		where = why + ", so the reason stays in hitl's audit log only (`hitl history`)"
		if strings.TrimSpace(end.Reason) == "" {
			where = why + ", so nothing is written there (no reason given)"
		}
	}
	return fmt.Sprintf("%s: %s and the thread's work ends there: no tool runs, the agent is not asked again, the thread ends idle; %s", end.Words(), what, where)
}

// jsonKind names the kind of a JSON value by its first byte, for errors a
// person reads: "an array", "a string".
func jsonKind(v []byte) string {
	switch v[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object hitl cannot read"
	}
	return "a number"
}

// syntaxText says a JSON syntax error in a reviewer's words where
// encoding/json's are cryptic.
func syntaxText(e *json.SyntaxError) string {
	msg := e.Error()
	switch {
	case msg == "unexpected end of JSON input":
		return "the text ends before the JSON does (a closing }, ] or \" missing?)"
	case strings.HasSuffix(msg, "after top-level value"):
		return "more text after the end of the JSON object (" + strings.TrimSuffix(strings.TrimPrefix(msg, "invalid "), " after top-level value") + ")"
	}
	return msg
}
