package coord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hitl-sh/hitl/store"
)

// serveEvents is the event stream (Server-Sent Events), read from the
// store's event log: every event has a growing id, and a reader that
// reconnects with Last-Event-ID gets what it missed, across a restart of
// the hub and from any hub on the same PostgreSQL store (within the
// retention period). A reader without Last-Event-ID starts at the newest.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, 500, "streaming unsupported")
		return
	}
	ctx := r.Context()
	last, err := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64)
	if err != nil {
		if last, err = s.st.LastEvent(ctx); err != nil {
			writeError(w, 503, "the hub cannot read its event log: "+err.Error())
			return
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	fmt.Fprint(w, "retry: 1000\n\n")
	fl.Flush()
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	const page = 256
	for {
		changed := s.st.Changed()
		evs, err := s.st.Events(ctx, last, s.opts.Hub, page)
		if err != nil {
			return // the reader reconnects with its last id
		}
		for _, ev := range evs {
			fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Type, s.eventData(r, ev))
			last = ev.ID
		}
		if len(evs) > 0 {
			fl.Flush()
		}
		if len(evs) == page {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-s.closed:
			return
		case <-changed:
		case <-keepalive.C:
			fmt.Fprint(w, ": keepalive\n\n")
			fl.Flush()
		}
	}
}

// eventData is what an event carries: its own data, or (hitl_asked of a
// request) the request as it stands while it is pending, and its id and
// status once it is not.
func (s *Server) eventData(r *http.Request, ev store.Event) []byte {
	if ev.Data != nil {
		return ev.Data
	}
	rq, ok, err := s.st.Get(r.Context(), ev.RequestID)
	if err != nil || !ok || rq.Status != store.Pending {
		status := "gone"
		if ok {
			status = rq.Status
		}
		return mustJSON(map[string]any{"request_id": ev.RequestID, "status": status})
	}
	b, err := json.Marshal(requestOf(rq))
	if err != nil {
		return mustJSON(map[string]any{"request_id": ev.RequestID})
	}
	return b
}

// history serves the team's audit log, newest first, as JSON lines: one
// entry a line, its value (the exact value sent) as JSON.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.Filter{Reviewer: q.Get("reviewer"), Source: q.Get("source"), Outcome: q.Get("outcome"), RequestID: q.Get("request_id"), Tool: q.Get("tool")}
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
