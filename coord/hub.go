package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/coord/wire"
	"github.com/hitl-sh/hitl/store"
)

// serveEvents is the event stream (Server-Sent Events, wire.Serve), read
// from the store's event log: every event has a growing id, and a reader
// that reconnects with Last-Event-ID gets what it missed, across a restart
// of the hub and from any hub on the same PostgreSQL store (within the
// retention period). A reader without Last-Event-ID starts at the newest.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	wire.Serve(w, r, eventLog{s}, wire.Stream{Done: s.closed})
}

// eventLog is the store's event log as a stream reads it (wire.Log).
type eventLog struct{ s *Server }

func (l eventLog) Newest(ctx context.Context) (int64, error) {
	last, err := l.s.st.LastEvent(ctx)
	if err != nil {
		return 0, fmt.Errorf("the hub cannot read its event log: %w", err)
	}
	return last, nil
}

func (l eventLog) Since(ctx context.Context, last int64, n int) ([]wire.Event, error) {
	evs, err := l.s.st.Events(ctx, last, l.s.opts.Hub, n)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Event, len(evs))
	for i, ev := range evs {
		out[i] = wire.Event{ID: ev.ID, Type: ev.Type, Data: l.s.eventData(ctx, ev)}
	}
	return out, nil
}

func (l eventLog) Changed() <-chan struct{} { return l.s.st.Changed() }

// eventData is what an event carries: its own data, or (hitl_asked of a
// request) the request as it stands while it is pending, and its id and
// status once it is not.
func (s *Server) eventData(ctx context.Context, ev store.Event) []byte {
	if ev.Data != nil {
		return ev.Data
	}
	rq, ok, err := s.st.Get(ctx, ev.RequestID)
	if err != nil || !ok || rq.Status != store.Pending {
		status := "gone"
		if ok {
			status = rq.Status
		}
		return mustJSON(wire.Change{RequestID: ev.RequestID, Status: status})
	}
	b, err := json.Marshal(requestOf(rq).listed())
	if err != nil {
		return mustJSON(wire.Change{RequestID: ev.RequestID})
	}
	return b
}

// history serves the team's audit log, newest first, as JSON lines: one
// entry a line, its value (the exact value sent) as JSON.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.Filter{Reviewer: q.Get("reviewer"), Source: q.Get("source"), Outcome: q.Get("outcome"), RequestID: q.Get("request_id"), Tool: q.Get("tool")}
	if f.Outcome != "" {
		if _, ok := store.OutcomeOf(f.Outcome); !ok {
			writeError(w, 422, fmt.Sprintf("no outcome %q: give one of %s", f.Outcome, strings.Join(store.Outcomes, ", ")))
			return
		}
	}
	if f.RequestID != "" {
		// The short id the screens show finds its request, if only one.
		ids, err := s.st.AuditedRequests(r.Context(), f.RequestID, 10)
		if err != nil {
			writeError(w, 503, "the hub cannot read its audit log: "+err.Error())
			return
		}
		switch {
		case slices.Contains(ids, f.RequestID):
		case len(ids) == 1:
			f.RequestID = ids[0]
		case len(ids) > 1:
			writeError(w, 422, fmt.Sprintf("request %q is ambiguous: it begins %s: give more of it", f.RequestID, strings.Join(ids, ", ")))
			return
		}
	}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			writeError(w, 422, "since must be a time like 2026-01-02T15:04:05Z")
			return
		}
		f.Since = t
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			writeError(w, 422, "limit must be a positive number")
			return
		}
		f.Limit = min(n, 10000)
	}
	entries, err := s.st.History(r.Context(), f)
	if err != nil {
		writeError(w, 503, "the hub cannot read its audit log: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(200)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		_ = enc.Encode(AuditLine{Entry: e, Value: rawOrNull(e.Value)})
	}
}

// AuditLine is one line of GET /hitl/history: an audit entry and the
// exact value sent.
type AuditLine struct {
	store.Entry
	Value json.RawMessage `json:"value,omitempty"`
}

func rawOrNull(b []byte) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return b
}
