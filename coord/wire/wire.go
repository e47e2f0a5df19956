// Package wire is hitl's coordinator protocol, written once: the shapes
// its requests, answers and events take on the wire, how a listed request
// is read into the interrupt a reviewer sees (read.go), and its Server-Sent
// Events stream (sse.go). The coordinator (package coord), the hub's door
// (package hub), the events backend (client/events), the hook's client
// (package hookclient) and the demo's coordinator (package demo) all speak
// it through these types. docs/backends.md documents the protocol.
//
//	GET    /hitl/pending          -> [Request…], oldest first (SourceDownHeader: a source is down)
//	GET    /hitl/events           -> SSE: hitl_asked {Request} | hitl_answered {Change}
//	                                 (ids on every event; Last-Event-ID resumes after one)
//	POST   /hitl/respond          Response -> 200 Receipt; 202 Receipt (an approval recorded);
//	                                 403 Receipt (an approval given already); each names its reviewer;
//	                                 404 unknown; 409 answered or withdrawn (Problem)
//	GET    /hitl/requests/{id}    -> Standing (?wait=30s waits while it is pending)
//	POST   /hitl/requests         Publish -> 201 Standing
//	DELETE /hitl/requests/{id}    Withdrawal -> 200 Standing; 409 answered (with the answer)
//
// It imports only the interrupt model (package client), whose approvals,
// claims and outcomes a hub's coordinator lists.
package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// The event types of the stream.
const (
	// Asked: a request was put up (its data: the Request).
	Asked = "hitl_asked"
	// AnsweredEvent: a request was answered or withdrawn (its data: a
	// Change).
	AnsweredEvent = "hitl_answered"
)

// Where a request stands (Standing.Status, Change.Status).
const (
	Pending   = "pending"
	Answered  = "answered"
	Withdrawn = "withdrawn"
)

// Who withdrew a request (Standing.WithdrawnBy).
const (
	WithdrawnByHub       = "hub"
	WithdrawnByPublisher = "publisher"
)

// SourceDownHeader is the header of a GET /hitl/pending answer that lists a
// hub's inbox without one of its sources (its LangGraph server cannot be
// read): it says which, and why. client/events reads it into a
// client.SourceDown.
const SourceDownHeader = "Hitl-Source-Down"

// NobodyWaits is what a reviewer's answer to a request whose publisher is
// not waiting on it is told (the events client, and the hub's own inbox)
// when the hub does not say how long it keeps the answer (NobodyWaitsFor).
// The request stays answered: a hook that asks again gets the answer
// while the hub keeps it.
const NobodyWaits = "no hook is waiting on it right now (killed, or cut off from the hub): its agent gets the answer only if its hook asks for it again while the hub keeps it (hub.retention)"

// NobodyWaitsFor is NobodyWaits from a hub that keeps a finished request
// (and its answer) for retention.
func NobodyWaitsFor(retention time.Duration) string {
	return "no hook is waiting on it right now (killed, or cut off from the hub): its agent gets the answer only if its hook asks for it again (the hub keeps the answer for " + Span(retention) + ")"
}

// Span says a duration as a reviewer reads it: "7 days", "36h0m0s".
func Span(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == day:
		return "1 day"
	case d > 0 && d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	}
	return d.String()
}

// Request is one pending request, as GET /hitl/pending lists it and
// hitl_asked carries it.
type Request struct {
	RequestID string          `json:"request_id"`
	Agent     string          `json:"agent"`
	SessionID string          `json:"session_id"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
	// Publisher is who put it up (a hub's coordinator says so).
	Publisher string `json:"publisher,omitempty"`
	// Approval is where a team rule's approvals stand (a hub's
	// coordinator says so), nil when none is asked or given. Its
	// Decisions are listed for every client to show; hitl's read them
	// again from its Value (read.go).
	Approval *client.Approval `json:"approval,omitempty"`
	// Claims are the reviewers holding a draft of it (a hub lists them).
	Claims []client.Claim `json:"claims,omitempty"`
	// ResponseSchema is the JSON Schema of the answer (a LangGraph
	// interrupt's response_schema): a form, a per-call tool approval.
	ResponseSchema json.RawMessage `json:"response_schema,omitempty"`
	// Breakpoint: a thread paused at a static breakpoint (Data null),
	// continued with a null response.
	Breakpoint *Breakpoint `json:"breakpoint,omitempty"`
	// Ends: the coordinator can end the thread's work at it (dismiss,
	// reject --stop: "end" in place of "response").
	Ends bool `json:"ends,omitempty"`
	// Conversation: the coordinator keeps the session's conversation
	// (GET /hitl/sessions/{id}/conversation).
	Conversation bool `json:"conversation,omitempty"`
}

// Breakpoint is a request that stands for a thread paused at a static
// breakpoint: Next are the nodes it runs next.
type Breakpoint struct {
	Next []string `json:"next"`
}

// Response is the body of POST /hitl/respond: an answer to a request, or
// (End in place of Response) the ending of its thread's work, {"kind":
// "dismiss"|"stop", "reason"}.
type Response struct {
	RequestID string `json:"request_id"`
	// Response is the answer; a breakpoint's continue is null.
	Response json.RawMessage `json:"response,omitempty"`
	End      json.RawMessage `json:"end,omitempty"`
	// RespondedBy is the reviewer's name: a coordinator without tokens
	// takes it (a hub takes the token's reviewer, never this).
	RespondedBy string `json:"responded_by"`
	DecisionID  string `json:"decision_id"`
}

// Receipt is the answer to POST /hitl/respond: 200, taken ("resolved"),
// or 202, recorded as an approval while a team rule wants more approvers
// ("awaiting_approvals": nothing was sent); a hub's door says so too of a
// decision that failed on its way (Error: 409, 423, 424, 502).
type Receipt struct {
	RequestID string `json:"request_id"`
	Status    string `json:"status,omitempty"`
	Error     string `json:"error,omitempty"`
	// Reviewer is who this response is recorded as: a hub's, its token's
	// reviewer (never the responded_by a client sent), on every receipt
	// (an approval recorded or refused too). The client's audit log names
	// this reviewer, not a local user name.
	Reviewer    string `json:"reviewer,omitempty"`
	RespondedBy string `json:"responded_by,omitempty"`
	DecisionID  string `json:"decision_id,omitempty"`
	// Approvers are those whose approvals the decision sent (a team
	// rule's); Ended, the ending sent ("dismiss", "stop").
	Approvers []string `json:"approvers,omitempty"`
	Ended     string   `json:"ended,omitempty"`
	// PublisherWaiting: whether a publisher (a hook) waits on the request
	// as it is answered, where it leased it.
	PublisherWaiting *bool `json:"publisher_waiting,omitempty"`
	// RunID, ReasonInConversation and Outcome: the run a hub's door
	// started on its LangGraph server, and how it ended.
	RunID                string          `json:"run_id,omitempty"`
	ReasonInConversation bool            `json:"reason_in_conversation,omitempty"`
	Outcome              *client.Outcome `json:"outcome,omitempty"`
	// Approvals, Needed: where the approvals stand (202). Message says
	// so, or (200, publisher_waiting false) what becomes of the answer.
	Approvals []string `json:"approvals,omitempty"`
	Needed    int      `json:"needed,omitempty"`
	Message   string   `json:"message,omitempty"`
}

// Statuses of a Receipt.
const (
	Resolved          = "resolved"
	AwaitingApprovals = "awaiting_approvals"
)

// Standing is where one request stands: the answer to GET
// /hitl/requests/{id}, and to a publisher's POST and DELETE.
type Standing struct {
	RequestID string    `json:"request_id"`
	Status    string    `json:"status"` // Pending, Answered or Withdrawn
	Agent     string    `json:"agent,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	// Answered: the answer, by whom, with which decision id.
	Response    json.RawMessage `json:"response,omitempty"`
	RespondedBy string          `json:"responded_by,omitempty"`
	DecisionID  string          `json:"decision_id,omitempty"`
	// AnsweredAt is when it was answered or withdrawn.
	AnsweredAt time.Time `json:"answered_at,omitzero"`
	// Reason is why it was withdrawn.
	Reason string `json:"reason,omitempty"`
	// WithdrawnBy says who withdrew it: WithdrawnByHub (its lease ran out,
	// it expired) or WithdrawnByPublisher (a DELETE, whose publisher is then
	// RespondedBy).
	WithdrawnBy string `json:"withdrawn_by,omitempty"`
	// Pending: who approved it so far, and (a leased request) whether its
	// publisher waits on it.
	Approvals        []string `json:"approvals,omitempty"`
	PublisherWaiting *bool    `json:"publisher_waiting,omitempty"`
	// Message is an error's (Problem's) words, read with the same decode.
	Message string `json:"message,omitempty"`
}

// Publish is the body of POST /hitl/requests: what a publisher puts up.
type Publish struct {
	Agent     string          `json:"agent"`
	SessionID string          `json:"session_id"`
	Data      json.RawMessage `json:"data"`
	// ExpiresIn, seconds: the request is withdrawn then, should its
	// publisher vanish.
	ExpiresIn float64 `json:"expires_in,omitempty"`
	// LeaseSeconds ties the request to its publisher's waits: withdrawn
	// this long after none waits on it.
	LeaseSeconds float64 `json:"lease_seconds,omitempty"`
}

// Withdrawal is the body of DELETE /hitl/requests/{id}.
type Withdrawal struct {
	Reason string `json:"reason"`
}

// Change is the data of hitl_answered: a request left the pending list,
// answered (by whom, with what) or withdrawn (why), or gone.
type Change struct {
	RequestID   string          `json:"request_id"`
	Status      string          `json:"status,omitempty"`
	RespondedBy string          `json:"responded_by,omitempty"`
	Response    json.RawMessage `json:"response,omitempty"`
	Reason      string          `json:"reason,omitempty"`
}

// Problem is an error's answer: {"error", "message"}, with the request it
// concerns and where it stands when that is what refused it (409).
type Problem struct {
	Error       string `json:"error"`
	Message     string `json:"message"`
	RequestID   string `json:"request_id,omitempty"`
	Status      string `json:"status,omitempty"`
	Reason      string `json:"reason,omitempty"`
	RespondedBy string `json:"responded_by,omitempty"`
}

// ProblemOf is the answer of an error code with msg.
func ProblemOf(code int, msg string) Problem {
	return Problem{Error: http.StatusText(code), Message: msg}
}

// WriteJSON answers with code and v as JSON (HTML left unescaped).
func WriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// WriteError answers with an error code and its words.
func WriteError(w http.ResponseWriter, code int, msg string) {
	WriteJSON(w, code, ProblemOf(code, msg))
}
