package demo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// hub is a Server-Sent Events fan-out with replay: every event gets a
// growing id, and a reader that reconnects with Last-Event-ID gets what it
// missed.
type hub struct {
	mu   sync.Mutex
	log  []sseEvent
	subs map[chan sseEvent]bool
}

type sseEvent struct {
	ID   int
	Type string
	Data []byte
}

// publish appends an event and fans it out.
func (h *hub) publish(typ string, v any) {
	b, _ := json.Marshal(v)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[chan sseEvent]bool{}
	}
	ev := sseEvent{ID: len(h.log) + 1, Type: typ, Data: b}
	h.log = append(h.log, ev)
	for ch := range h.subs {
		select {
		case ch <- ev:
		default: // a stalled reader reconnects and replays from its last id
		}
	}
}

// closeAll ends every stream.
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		close(ch)
		delete(h.subs, ch)
	}
}

// serve streams events to one reader until it goes.
func (h *hub) serve(w http.ResponseWriter, req *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, 500, "streaming unsupported")
		return
	}
	last, _ := strconv.Atoi(req.Header.Get("Last-Event-ID"))
	ch := make(chan sseEvent, 64)
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan sseEvent]bool{}
	}
	replay := append([]sseEvent{}, h.log[min(max(last, 0), len(h.log)):]...)
	h.subs[ch] = true
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	write := func(ev sseEvent) {
		fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Type, ev.Data)
		fl.Flush()
	}
	fmt.Fprint(w, "retry: 1000\n\n")
	fl.Flush()
	for _, ev := range replay {
		write(ev)
	}
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-req.Context().Done():
			return
		case ev, open := <-ch:
			if !open {
				return
			}
			write(ev)
		case <-keepalive.C:
			fmt.Fprint(w, ": keepalive\n\n")
			fl.Flush()
		}
	}
}
