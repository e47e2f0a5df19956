package coord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// stream is a Server-Sent Events fan-out with replay: every event gets a
// growing id, and a reader that reconnects with Last-Event-ID gets what it
// missed (of the last maxLog events).
type stream struct {
	mu    sync.Mutex
	log   []sseEvent
	first int // id of log[0]
	next  int
	subs  map[chan sseEvent]bool
}

const maxLog = 4096

type sseEvent struct {
	ID   int
	Type string
	Data []byte
}

func (h *stream) publish(typ string, v any) {
	b, _ := json.Marshal(v)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[chan sseEvent]bool{}
	}
	if h.next == 0 {
		h.next, h.first = 1, 1
	}
	ev := sseEvent{ID: h.next, Type: typ, Data: b}
	h.next++
	h.log = append(h.log, ev)
	if len(h.log) > maxLog {
		drop := len(h.log) - maxLog
		h.log = append([]sseEvent(nil), h.log[drop:]...)
		h.first += drop
	}
	for ch := range h.subs {
		select {
		case ch <- ev:
		default: // a stalled reader reconnects and replays from its last id
		}
	}
}

func (h *stream) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		close(ch)
		delete(h.subs, ch)
	}
}

func (h *stream) serve(w http.ResponseWriter, req *http.Request) {
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
	var replay []sseEvent
	for _, ev := range h.log {
		if ev.ID > last {
			replay = append(replay, ev)
		}
	}
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
