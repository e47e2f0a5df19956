package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/team"
)

// serveHTTP serves the coordinator protocol (package coord) on addr until
// ctx ends: review clients (hitl --backend events) and publishers (hitl
// hook) meet there. ready, when set, gets the address it listens on.
func (e *env) serveHTTP(ctx context.Context, addr string, t *team.Config, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve --http: cannot listen on %s: %v (is another server there? pick another port)", safe(addr), err)
	}
	s := coord.New(coord.Options{Team: t, Log: func(line string) { fmt.Fprintln(e.stderr, "hitl serve:", line) }})
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	fmt.Fprintf(e.stderr, "hitl serve: the coordinator listens on http://%s (hitl --backend events --url http://%s)\n", ln.Addr(), ln.Addr())
	if ready != nil {
		ready(ln.Addr())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		s.Close()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
