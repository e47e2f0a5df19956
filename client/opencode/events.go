package opencode

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tmaxmax/go-sse"

	"github.com/hitl-sh/hitl/client"
)

// events reads opencode's event stream once, calling fn for each event
// (its type and properties) and connected when the stream is open, until
// the stream or ctx ends. It returns false when the server has no such
// stream.
func (b *Backend) events(ctx context.Context, connected func(), fn func(typ string, props json.RawMessage)) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+"/event", http.NoBody)
	if err != nil {
		return false
	}
	b.Header(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := b.HTTPClient().Do(req)
	if err != nil {
		return true // try again later
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode >= 500
	}
	if connected != nil {
		connected()
	}
	for ev, err := range sse.Read(resp.Body, &sse.ReadConfig{MaxEventSize: 8 << 20}) {
		if err != nil {
			break
		}
		var e struct {
			Type       string          `json:"type"`
			Properties json.RawMessage `json:"properties"`
		}
		if json.Unmarshal([]byte(ev.Data), &e) == nil && e.Type != "" {
			fn(e.Type, e.Properties)
		}
	}
	return true
}

// replies follows the event stream for the reply opencode announces to one
// request, from before a decision on it is posted.
type replies struct {
	id, sent string
	cancel   context.CancelFunc
	open     chan struct{} // closed once the stream is open, or cannot be
	got      chan string   // the reply announced (once)
	once     sync.Once
}

// follow starts following the replies to request id, for a decision that
// sends the reply sent.
func (b *Backend) follow(id, sent string) *replies {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	w := &replies{id: id, sent: sent, cancel: cancel, open: make(chan struct{}), got: make(chan string, 1)}
	opened := sync.OnceFunc(func() { close(w.open) })
	go func() {
		defer opened()
		b.events(ctx, opened, func(typ string, props json.RawMessage) {
			if typ != "permission.replied" {
				return
			}
			var p struct {
				RequestID string `json:"requestID"`
				Reply     string `json:"reply"`
			}
			if json.Unmarshal(props, &p) == nil && p.RequestID == id {
				w.once.Do(func() { w.got <- p.Reply; cancel() })
			}
		})
	}()
	return w
}

// ready waits, briefly, for the stream to be open: a reply announced
// before it opened would be missed.
func (w *replies) ready() {
	select {
	case <-w.open:
	case <-time.After(2 * time.Second):
	}
}

// stop ends the following: the answer to the post said what happened.
func (w *replies) stop() { w.cancel() }

// replied is the reply opencode announced, waiting up to wait for it.
func (w *replies) replied(wait time.Duration) (string, bool) {
	select {
	case r := <-w.got:
		w.got <- r // kept for a later look (Verify runs again after Follow)
		return r, true
	default:
	}
	if wait <= 0 {
		return "", false
	}
	select {
	case r := <-w.got:
		w.got <- r
		return r, true
	case <-time.After(wait):
		return "", false
	}
}

// verdict is v given the reply opencode announced: the one this decision
// sent is taken as its own (another reviewer sending the very same reply
// at the same moment cannot be told apart, and did the same).
func (w *replies) verdict(v client.Verdict, reply string) client.Verdict {
	if reply == w.sent {
		return v
	}
	v.Took = client.Theirs
	value, _ := json.Marshal(map[string]string{"reply": reply})
	v.Winner = &client.Winner{Value: value}
	return v
}
