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
