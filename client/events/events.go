// Package events speaks hitl's small open protocol for event-based HITL
// coordinators (seed 001): agents publish hitl_asked / hitl_answered events
// carrying a request_id on a Server-Sent Events stream, list what is pending,
// and take a response for a request_id. The README documents it with
// examples; package demo serves it.
//
//	GET  /hitl/pending   -> [{"request_id","agent","session_id","created_at","data"}]
//	GET  /hitl/events    -> SSE: hitl_asked {request…} | hitl_answered {"request_id",…}
//	                        (ids on every event; Last-Event-ID resumes after one)
//	POST /hitl/respond   {"request_id","response","responded_by"}
//	                        -> 200; 404 unknown request; 409 already answered
package events

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// Options configure a Backend.
type Options struct {
	transport.Options
	// Reviewer is sent as responded_by.
	Reviewer string
}

// Backend is an event-stream HITL coordinator.
type Backend struct {
	opts Options
	*transport.Conn
}

// New returns a backend for the coordinator at opts.URL.
func New(opts Options) (*Backend, error) {
	if opts.Hint == "" {
		opts.Hint = "is the agent's HITL coordinator running there?"
	}
	c, err := transport.New(opts.Options)
	if err != nil {
		return nil, err
	}
	return &Backend{opts: opts, Conn: c}, nil
}

// Request is one pending request, as /hitl/pending and hitl_asked carry it.
type Request struct {
	RequestID string          `json:"request_id"`
	Agent     string          `json:"agent"`
	SessionID string          `json:"session_id"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

func (b *Backend) interrupt(r Request) client.Interrupt {
	raw := r.Data
	if raw == nil {
		raw = json.RawMessage("null")
	}
	return client.Interrupt{ID: r.RequestID, ThreadID: r.SessionID, GraphID: r.Agent, CreatedAt: r.CreatedAt, UpdatedAt: r.CreatedAt,
		Payload: client.Parse(r.Data), Raw: raw, Server: b.Server()}
}

// Pending lists what waits for a response, newest first.
func (b *Backend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	var list []Request
	resp, err := b.Reads.R().SetContext(ctx).Get("/hitl/pending")
	if err := b.Check(resp, err, "list pending requests", &list); err != nil {
		return nil, err
	}
	out := make([]client.Interrupt, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- { // the coordinator lists oldest first
		if list[i].RequestID == "" {
			continue
		}
		out = append(out, b.interrupt(list[i]))
	}
	return out, nil
}

// Send responds to one request, once, after checking it is still pending.
func (b *Backend) Send(ctx context.Context, it client.Interrupt, r client.Resume) (client.Outcome, error) {
	if r.Continue || r.Value == nil {
		return client.Outcome{}, errors.New("this backend takes a response, not a continue")
	}
	pending, err := b.Pending(ctx)
	if err != nil {
		return client.Outcome{}, err
	}
	found := false
	for _, p := range pending {
		found = found || p.ID == it.ID
	}
	if !found {
		return client.Outcome{}, client.ErrAlreadyHandled
	}
	body := map[string]any{"request_id": it.ID, "response": r.Value, "responded_by": b.opts.Reviewer}
	resp, err := b.Writes.R().SetContext(ctx).SetBody(body).Post("/hitl/respond")
	if resp != nil && (resp.StatusCode() == http.StatusConflict || resp.StatusCode() == http.StatusNotFound) {
		return client.Outcome{}, client.ErrAlreadyHandled
	}
	if cerr := b.Check(resp, err, "respond to request "+it.ID, nil); cerr != nil {
		return client.Outcome{}, &transport.SendError{Err: cerr, MaybeSent: err != nil && !transport.IsRefused(err)}
	}
	return client.Outcome{Status: client.Accepted}, nil
}

// Changes follows /hitl/events and signals every hitl_asked and
// hitl_answered, reconnecting with Last-Event-ID until ctx ends.
func (b *Backend) Changes(ctx context.Context) <-chan struct{} {
	return b.Watch(ctx, "/hitl/events", "hitl_asked", "hitl_answered")
}
