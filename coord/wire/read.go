package wire

import (
	"bytes"
	"encoding/json"

	"github.com/hitl-sh/hitl/client"
)

// Listed is a request as a listing carried it, read tolerantly: Problem
// says why it cannot be read (Data then holds its bytes, and RequestID is
// its own or client.UnreadableID's).
type Listed struct {
	Request
	Problem string
}

// ReadList reads what GET /hitl/pending answers one request at a time: a
// request that cannot be read (a field of the wrong type, data nested too
// deep for encoding/json, no request_id) is one unreadable item, and the
// others are listed as usual.
func ReadList(b []byte) ([]Listed, error) {
	return client.List(b, func(e json.RawMessage) (Listed, bool) { return ReadRequest(e), true })
}

// ReadRequest reads one request, as a listing or hitl_asked carries it
// (its JSON), with client's tolerant decoder.
func ReadRequest(b []byte) Listed {
	var r Request
	problems := client.Fields(b, func(key string, v json.RawMessage) error {
		switch key {
		case "request_id":
			return client.Into(v, &r.RequestID)
		case "agent":
			return client.Into(v, &r.Agent)
		case "session_id":
			return client.Into(v, &r.SessionID)
		case "created_at":
			return client.Into(v, &r.CreatedAt)
		case "data":
			r.Data = bytes.Clone(v) // client.Parse finds data too deep or too large
		case "claims":
			_ = json.Unmarshal(v, &r.Claims) // advice: unreadable, none
		case "response_schema":
			r.ResponseSchema = bytes.Clone(v) // client.ParseWithSchema checks it
		case "breakpoint":
			var bp Breakpoint
			if err := client.Into(v, &bp); err != nil {
				return err
			}
			if string(bytes.TrimSpace(v)) != "null" {
				r.Breakpoint = &bp
			}
		case "ends":
			_ = json.Unmarshal(v, &r.Ends) // unreadable: it cannot
		case "conversation":
			_ = json.Unmarshal(v, &r.Conversation)
		case "approval":
			var a client.Approval
			if json.Unmarshal(v, &a) == nil && (len(a.Approvers) > 0 || len(a.Dropped) > 0) {
				r.Approval = &a
			}
		}
		return nil
	})
	if r.RequestID == "" && len(problems) == 0 {
		problems = append(problems, "no request_id")
	}
	l := Listed{Request: r}
	if len(problems) > 0 {
		if l.RequestID == "" {
			l.RequestID = client.UnreadableID(b)
		}
		l.Data = bytes.Clone(b)
		l.Problem = client.CannotRead("a request", problems)
	}
	return l
}

// Interrupt is the request as the interrupt a reviewer sees; server is
// where it came from.
func (r Request) Interrupt(server string) client.Interrupt {
	return Listed{Request: r}.Interrupt(server)
}

// Interrupt is the listed request as the interrupt a reviewer sees
// (unreadable, saying why, where it could not be read); server is where
// it came from.
func (l Listed) Interrupt(server string) client.Interrupt {
	it := client.Interrupt{ID: l.RequestID, ThreadID: l.SessionID, GraphID: l.Agent, CreatedAt: l.CreatedAt, UpdatedAt: l.CreatedAt,
		Server: server}
	switch {
	case l.Problem != "":
		it.Payload = client.Unreadable(l.Problem)
	case l.Breakpoint != nil:
		it.Payload = client.Breakpoint(l.Breakpoint.Next)
	default:
		it.Payload = client.ParseWithSchema(l.Data, l.ResponseSchema)
	}
	it.WithValue(l.Data)
	it.Approval, it.Claims = l.Approval, l.Claims
	approvedDecisions(&it)
	return it
}

// approvedDecisions fills the decisions of the interrupt's pending
// approval from its value, never taken from the coordinator's word: what
// every client shows as approved (and its diff), and what a second
// approver confirms, encodes that very value (client.DecisionsOf checks it
// does). A value hitl cannot read into the interrupt's decisions leaves
// none: it is shown as it is, and cannot be confirmed with one key.
func approvedDecisions(it *client.Interrupt) {
	a := it.Approval
	if a == nil {
		return
	}
	v := *a
	v.Decisions = nil
	if ds, err := client.DecisionsOf(&it.Payload, v.Value, client.EncodeOptions{}); err == nil && len(ds) == len(it.Actions) && len(ds) > 0 {
		v.Decisions = ds
	}
	it.Approval = &v
}
