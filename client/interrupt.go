// Package client holds the reviewer's model of a human-in-the-loop interrupt,
// whatever backend or payload shape it came from, and turns a reviewer's
// decisions back into the exact resume value the graph expects.
//
// It knows nothing of terminals or of HTTP: backends live in sub-packages.
package client

import (
	"encoding/json"
	"time"
)

// Schema names the payload shape an interrupt was recognized as. The values
// are part of the stable `--json` output.
type Schema string

const (
	// SchemaMiddleware is LangChain v1's HumanInTheLoopMiddleware, in Python
	// (snake_case) or JavaScript (camelCase) casing.
	SchemaMiddleware Schema = "hitl-middleware"
	// SchemaAgentInbox is the Agent Inbox HumanInterrupt of langgraph.prebuilt.
	SchemaAgentInbox Schema = "agent-inbox"
	// SchemaQuestions is a structured-decision interrupt: questions plus
	// approve / edit / reject, answered with a decision and feedback.
	SchemaQuestions Schema = "questions"
	// SchemaPrompt is a natural-language prompt answered with free text.
	SchemaPrompt Schema = "prompt"
	// SchemaBreakpoint is a thread stopped at a static breakpoint: no value,
	// the only decision is to continue.
	SchemaBreakpoint Schema = "breakpoint"
	// SchemaRaw is any other value, shown as it is and answered with text or JSON.
	SchemaRaw Schema = "raw"
	// SchemaForm is a value of no known shape (or a plain prompt) whose
	// interrupt says, in a response schema, what answer it expects: answered
	// with a value of that schema, filled in as a form.
	SchemaForm Schema = "form"

	// The three checkpoints of the provider-agnostic REST HITL API (seed 004).

	// SchemaInformationReview: model and tool choice, confidence, reasons,
	// safety flags, before the run.
	SchemaInformationReview Schema = "information-review"
	// SchemaPayloadReview: the payload about to be sent, against its example.
	SchemaPayloadReview Schema = "payload-review"
	// SchemaResponseReview: the raw output against the cleaned text.
	SchemaResponseReview Schema = "response-review"
)

// DecisionType is what a reviewer decides about one action, in the
// reviewer's words. Encode translates it into each payload's own vocabulary
// (Agent Inbox's "accept", the questions node's "edit" with feedback, …).
type DecisionType string

const (
	Approve DecisionType = "approve"
	Edit    DecisionType = "edit"
	Reject  DecisionType = "reject"
	Respond DecisionType = "respond"
	Ignore  DecisionType = "ignore"
)

// Interrupt is one pending request for a human decision.
type Interrupt struct {
	// ID is the backend's interrupt id (LangGraph: 32 hex characters), or a
	// stable id derived from where the interrupt sits when the backend sent none.
	ID          string    `json:"id"`
	ThreadID    string    `json:"thread_id"`
	GraphID     string    `json:"graph_id"`
	AssistantID string    `json:"assistant_id"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Payload
	// Raw is the interrupt's value exactly as the backend sent it (null for a
	// breakpoint).
	Raw json.RawMessage `json:"raw"`
	// Server is where the interrupt came from (for the audit log).
	Server string `json:"server,omitempty"`
	// Busy: its thread is running another task right now (another branch
	// is being answered); a decision sent now would be refused.
	Busy bool `json:"busy,omitempty"`
	// Checkpoint is the server's checkpoint the interrupt sits at, where the
	// backend needs it to verify a decision (a LangGraph breakpoint).
	Checkpoint string `json:"-"`
	// Bytes are the value's bytes as the server sent them, when they cannot
	// be kept in Raw (Problem is set; Raw is then null): `hitl show ID
	// --raw` prints them.
	Bytes []byte `json:"-"`
	// Claims are the reviewers who said they hold a draft for it (see
	// Claimer), as the server keeps them: expired ones and the reader's
	// own included (Others leaves them out).
	Claims []Claim `json:"claims,omitempty"`
	// Retry: the interrupt is held by a thread whose last run failed (see
	// Failure); a decision on it answers it again.
	Retry bool `json:"retry,omitempty"`
	// KeptAnswer (with Retry): the task that failed is this interrupt's
	// own, and it has no answer schema to have refused the answer with: it
	// failed after the graph took its answer. Both LangGraph dev servers
	// then keep that first answer: a new one is not used, and answering
	// again only runs the task again with the answer kept (a retry). Set
	// only where the server shows answer schemas (docs/servers.md).
	KeptAnswer bool `json:"kept_answer,omitempty"`
	// MayKeepAnswer (with Retry): the task that failed is this interrupt's
	// own, and the server shows no answer schema (langhost): if a schema
	// refused the answer, a new one is taken; if the task failed after
	// taking it, the graph keeps the first and a new one is not used. The
	// server does not say which.
	MayKeepAnswer bool `json:"may_keep_answer,omitempty"`
	// CannotAnswerAgain (with Retry): the server resumes no thread whose
	// last run failed (aegra resumes only an interrupted thread): a
	// decision on it is refused, and only the agent's application can
	// start the thread again.
	CannotAnswerAgain bool `json:"cannot_answer_again,omitempty"`
	// Approval is a decision approved by fewer approvers than a team's
	// rule needs (hitl serve), as the server records it.
	Approval *Approval `json:"approval,omitempty"`
}

// Payload is what an interrupt's value says, normalized.
type Payload struct {
	Schema      Schema   `json:"schema"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Questions   []string `json:"questions"`
	Actions     []Action `json:"actions"`
	// Allowed holds the decisions of a payload without actions (questions,
	// prompt, breakpoint, raw): such an interrupt takes exactly one decision.
	Allowed []DecisionType  `json:"allowed_decisions,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`
	// Compare holds two texts to read side by side (a response review's raw
	// output and cleaned text).
	Compare *Comparison `json:"compare,omitempty"`
	// ResponseSchema is the JSON Schema the interrupt gives for its answer
	// (LangGraph's interrupt(value, {responseSchema})), as the server sent
	// it. Every resume value is checked against it before it is sent.
	ResponseSchema json.RawMessage `json:"response_schema,omitempty"`
	// ExpiresAt is when the agent stops waiting (the value's `expires_at`),
	// and Default what it then does (its `default` decision); zero and ""
	// when it gives none.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	Default   string    `json:"default_decision,omitempty"`
	// Origin is where a coding agent's permission request comes from (a
	// request put up by `hitl hook`): the agent, its host, its working
	// directory. nil for every other interrupt. The publisher's words.
	Origin *Origin `json:"origin,omitempty"`
	// Always are what an approve "always" allows for good, as the agent
	// words it (opencode's always patterns, such as "git push *"); empty
	// when the interrupt offers no such approval. The agent's words.
	Always []string `json:"always,omitempty"`
	// Problem says why the value cannot be shown (SchemaUnreadable): too
	// deep, too large, not JSON, not an interrupt. "" for every other.
	Problem string `json:"problem,omitempty"`
	// Next are the nodes a thread paused at a breakpoint runs next
	// (SchemaBreakpoint; Title names them too).
	Next []string `json:"-"`
	// Encoder, when set, spells the answer: a backend that builds payloads
	// of its own shape (the REST API's checkpoints) sets it. Payloads that
	// Parse recognized leave it nil, and Encode spells them by Schema.
	Encoder Encoder `json:"-"`

	wire wire
}

// Shaper is an Encoder that names the shape its producer writes, for
// show's Shape line: a Strands interrupt, an opencode permission request
// (their payloads are read into Schema's normalized form, which is not what
// the producer sent).
type Shaper interface {
	Shape() string
}

// ShapeOf names the shape of the value as its producer wrote it: the
// Encoder's own where it names one (Shaper), Schema otherwise.
func ShapeOf(p *Payload) string {
	if s, ok := p.Encoder.(Shaper); ok {
		return s.Shape()
	}
	return string(p.Schema)
}

// Origin is the coding agent behind a permission request (the
// "agent_hook" member of a HITL-middleware value, which `hitl hook` writes).
type Origin struct {
	Agent     string `json:"agent"`
	Host      string `json:"host,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Model     string `json:"model,omitempty"`
	// PermissionMode is the agent's mode when it asked (default, plan, …).
	PermissionMode string `json:"permission_mode,omitempty"`
}

// Comparison is two texts a reviewer reads side by side.
type Comparison struct {
	LeftLabel  string `json:"left_label"`
	Left       string `json:"left"`
	RightLabel string `json:"right_label"`
	Right      string `json:"right"`
}

// Action is one thing the agent wants to do, such as a tool call.
type Action struct {
	Name string `json:"name"`
	// Args are the bytes the backend sent: key order, number precision and
	// types are kept, never re-encoded through a map.
	Args        json.RawMessage `json:"args"`
	Description string          `json:"description"`
	Allowed     []DecisionType  `json:"allowed_decisions"`
	ArgsSchema  json.RawMessage `json:"args_schema,omitempty"`
	// Example is what the args are expected to look like (a payload
	// review's example_input): the proposal is shown as a diff against it.
	Example json.RawMessage `json:"example,omitempty"`
}

// wire remembers how a parsed value spelled things, so that the answer comes
// back in the same dialect.
type wire struct {
	casing    casing // hitl-middleware
	argsKey   string // "args", or "arguments" in pre-release middleware
	inboxList bool   // agent-inbox: the value was a list, so the answer is one
	// single: the middleware's per-call mode, one tool call per interrupt,
	// answered with one decision object rather than {"decisions": [...]}.
	single bool
}

type casing int

const (
	snakeCase casing = iota
	camelCase
)

// Slots is the number of decisions the interrupt takes: one per action, or
// one for an interrupt without actions.
func (p *Payload) Slots() int {
	if len(p.Actions) > 0 {
		return len(p.Actions)
	}
	return 1
}

// AllowedAt lists the decisions slot i accepts.
func (p *Payload) AllowedAt(i int) []DecisionType {
	if len(p.Actions) > 0 {
		return p.Actions[i].Allowed
	}
	return p.Allowed
}

// Allows reports whether slot i accepts decision t.
func (p *Payload) Allows(i int, t DecisionType) bool {
	for _, a := range p.AllowedAt(i) {
		if a == t {
			return true
		}
	}
	return false
}

// RequiresMessage reports whether decision t needs a non-empty message on
// this payload: the structured-decision node reads feedback for edit and
// reject and has nothing to go on without it.
func (p *Payload) RequiresMessage(t DecisionType) bool {
	switch p.Schema {
	case SchemaQuestions:
		return t == Respond || t == Reject
	case SchemaPrompt, SchemaAgentInbox:
		return t == Respond
	case SchemaMiddleware:
		// The per-call middleware's response schema requires the message
		// of a respond: it is the tool's result.
		return p.wire.single && t == Respond
	}
	return false
}
