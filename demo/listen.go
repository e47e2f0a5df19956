package demo

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// listener is the HTTP side every demo server shares.
type listener struct {
	srv *http.Server
	url string
}

// listen serves h on addr ("127.0.0.1:0": a free port) in the background.
func (l *listener) listen(addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w (pass another --listen address)", addr, err)
	}
	l.url = "http://" + ln.Addr().String()
	l.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go l.srv.Serve(ln) //nolint:errcheck // ended by close
	return nil
}

// URL is the server's base URL once started.
func (l *listener) URL() string { return l.url }

// close stops serving; open streams end.
func (l *listener) close() error {
	if l.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil {
		return l.srv.Close()
	}
	return nil
}

// everyTick calls f every d until ctx ends (d <= 0: never).
func everyTick(ctx context.Context, d time.Duration, f func()) {
	if d <= 0 {
		return
	}
	tk := time.NewTicker(d)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			f()
		}
	}
}

// sumOf is the sum of f over the values of m.
func sumOf[K comparable, V any](m map[K]V, f func(V) int) int {
	n := 0
	for _, v := range m {
		n += f(v)
	}
	return n
}

// produce is every Fake's Produce: spawn every d while fewer than upTo
// wait (0: however many wait). A demo left open grows by one every few
// seconds, faster than anyone decides, and a list that moves under the
// cursor invites a decision on the wrong row; capped, new work arrives as
// the reviewer clears it.
func produce(ctx context.Context, d time.Duration, upTo int, waiting func() int, spawn func()) {
	everyTick(ctx, d, func() {
		if upTo <= 0 || waiting() < upTo {
			spawn()
		}
	})
}
