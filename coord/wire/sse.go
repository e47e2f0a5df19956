package wire

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/tmaxmax/go-sse"
)

// Event is one event of a stream: a growing id, its type, its data (JSON).
type Event struct {
	ID   int64
	Type string
	Data []byte
}

// Log is where a stream reads its events: the coordinator's store (every
// hub on it sees the same ids), or a Hub in memory.
type Log interface {
	// Newest is the id of the newest event: where a reader that names no
	// event starts.
	Newest(ctx context.Context) (int64, error)
	// Since is up to n events after id last, oldest first.
	Since(ctx context.Context, last int64, n int) ([]Event, error)
	// Changed is closed at the next event (asked before Since, so that
	// nothing falls between the two).
	Changed() <-chan struct{}
}

// Stream is how Serve speaks to a reader.
type Stream struct {
	// Done ends every stream (the server closing).
	Done <-chan struct{}
	// FromStart: a reader that names no event (no Last-Event-ID) gets
	// every event the log keeps; otherwise it starts after the newest.
	FromStart bool
	// Bare: events go as their data alone, with no id nor type, and a
	// reader starts after the newest whatever it names (opencode's bus).
	Bare bool
	// Hello is the first message (default: retry after 1 s).
	Hello *sse.Message
	// Keepalive is sent every KeepaliveEvery while nothing happens
	// (default: the comment "keepalive" every 15 s).
	Keepalive      *sse.Message
	KeepaliveEvery time.Duration
}

// page is how many events a stream reads at once.
const page = 256

// Serve streams log's events to one reader until it goes, Done closes or
// the log cannot be read (the reader reconnects with its last id and gets
// what it missed). An error of Newest is the answer (503: its words).
func Serve(w http.ResponseWriter, r *http.Request, log Log, o Stream) {
	sess, err := sse.Upgrade(w, r)
	if err != nil {
		WriteError(w, 500, "streaming unsupported")
		return
	}
	ctx := r.Context()
	last, err := strconv.ParseInt(sess.LastEventID.String(), 10, 64)
	switch {
	case o.Bare || (err != nil && !o.FromStart):
		if last, err = log.Newest(ctx); err != nil {
			WriteError(w, 503, err.Error())
			return
		}
	case err != nil:
		last = 0
	}
	hello, keepalive, every := o.Hello, o.Keepalive, o.KeepaliveEvery
	if hello == nil {
		hello = &sse.Message{Retry: time.Second}
	}
	if keepalive == nil {
		keepalive = &sse.Message{}
		keepalive.AppendComment("keepalive")
	}
	if every <= 0 {
		every = 15 * time.Second
	}
	w.Header().Set("Cache-Control", "no-cache")
	if sess.Send(hello) != nil || sess.Flush() != nil {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		changed := log.Changed()
		evs, err := log.Since(ctx, last, page)
		if err != nil {
			return
		}
		for _, ev := range evs {
			m := &sse.Message{}
			if !o.Bare {
				m.ID, m.Type = sse.ID(strconv.FormatInt(ev.ID, 10)), sse.Type(ev.Type)
			}
			m.AppendData(string(ev.Data))
			if sess.Send(m) != nil {
				return
			}
			last = ev.ID
		}
		if len(evs) > 0 && sess.Flush() != nil {
			return
		}
		if len(evs) == page {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-o.Done:
			return
		case <-changed:
		case <-tick.C:
			if sess.Send(keepalive) != nil || sess.Flush() != nil {
				return
			}
		}
	}
}

// Hub is a Log in memory with a stream of its own: each event published
// gets a growing id, and a reader that reconnects with Last-Event-ID gets
// what it missed (of the last Keep events). Its zero value is ready.
type Hub struct {
	// Stream is how its readers are spoken to (Done is the Hub's own).
	Stream Stream
	// Keep is how many events it keeps (default 10000).
	Keep int

	mu      sync.Mutex
	log     []Event // oldest first, ids consecutive
	next    int64
	changed chan struct{}
	done    chan struct{}
	closed  bool
}

func (h *Hub) init() {
	if h.changed == nil {
		h.changed, h.done = make(chan struct{}), make(chan struct{})
	}
}

// Publish appends an event of type typ with v as its data (JSON) and
// wakes every reader.
func (h *Hub) Publish(typ string, v any) {
	data, _ := json.Marshal(v) // the protocol's types and plain values
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	h.next++
	h.log = append(h.log, Event{ID: h.next, Type: typ, Data: data})
	if keep := h.keep(); len(h.log) > keep {
		h.log = append(h.log[:0:0], h.log[len(h.log)-keep:]...)
	}
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *Hub) keep() int {
	if h.Keep > 0 {
		return h.Keep
	}
	return 10000
}

// Close ends every stream.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

// Newest is the id of the newest event.
func (h *Hub) Newest(context.Context) (int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next, nil
}

// Since is up to n events after id last.
func (h *Hub) Since(_ context.Context, last int64, n int) ([]Event, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.log) == 0 {
		return nil, nil
	}
	i := int(min(max(last-h.log[0].ID+1, 0), int64(len(h.log))))
	return append([]Event(nil), h.log[i:min(i+n, len(h.log))]...), nil
}

// Changed is closed at the next event.
func (h *Hub) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	return h.changed
}

// ServeHTTP streams the hub's events to one reader.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.init()
	o := h.Stream
	o.Done = h.done
	h.mu.Unlock()
	Serve(w, r, h, o)
}
