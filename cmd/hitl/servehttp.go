package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hub"
	"github.com/hitl-sh/hitl/team"
)

// liveTeam is the team in force, read on every call: a SIGHUP that reloads
// the team reaches the HTTP door too.
type liveTeam func() *team.Config

func (l liveTeam) ByToken(token string) (team.Principal, bool) { return l().ByToken(token) }
func (l liveTeam) RuleFor(tool string) (team.Rule, bool)       { return l().RuleFor(tool) }
func (l liveTeam) MayDecide(reviewer string) bool              { return l().MayDecide(reviewer) }

// coordinator is the hub's HTTP door: the coordinator protocol for the team.
// inbox, when not nil, is the rest of the hub's inbox (hub.Door).
func (e *env) coordinator(t coord.Team, inbox coord.Inbox) *coord.Server {
	return coord.New(coord.Options{Team: t, Inbox: inbox, Log: func(line string) { fmt.Fprintln(e.stderr, "hitl serve:", line) }})
}

// serveCoord serves the coordinator on ln until ctx ends; over TLS when
// tc is not nil.
func serveCoord(ctx context.Context, ln net.Listener, s *coord.Server, tc *tls.Config) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, TLSConfig: tc,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() {
		if tc != nil {
			done <- srv.ServeTLS(ln, "", "")
			return
		}
		done <- srv.Serve(ln)
	}()
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

// serveHTTPOnly is `hitl serve --http ADDR` alone: no LangGraph server, the
// coordinator for the team's reviewers and publishers. SIGHUP reloads the
// team as with --ssh.
func (e *env) serveHTTPOnly(ctx context.Context, t *team.Config, o serveOptions) error {
	addr := o.http
	e.hideSecrets(&config.Settings{}, t.Secrets()...)
	var current atomic.Pointer[team.Config]
	current.Store(t)
	c := e.coordinator(liveTeam(current.Load), nil)
	c.SetLogger(hub.NewLogger(e.stderr))
	reload := func() {
		f, err := config.Load(config.Path(e.getenv))
		if err != nil {
			fmt.Fprintln(e.stderr, "hitl serve: team not reloaded:", err)
			return
		}
		nt := teamOf(f, e.getenv)
		if problems := nt.Check(); len(problems) > 0 {
			fmt.Fprintln(e.stderr, "hitl serve: team not reloaded: the config has problems; the team in force stays:", errors.Join(problems...))
			return
		}
		current.Store(nt)
		e.hideSecrets(&config.Settings{}, nt.Secrets()...)
		fmt.Fprintln(e.stderr, "hitl serve: team reloaded")
		c.Prune() // a reviewer taken out loses their pending approvals
	}
	onHangup.Store(&reload)
	defer onHangup.Store(nil)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: cannot listen on %s for http: %v (is another server there? pick another port)", safe(addr), err)
	}
	scheme := "http"
	if o.tls != nil {
		scheme = "https"
	}
	fmt.Fprintf(e.stderr, "hitl serve: the coordinator listens on %s://%s (hitl --backend events --url %s://%s)\n", scheme, ln.Addr(), scheme, ln.Addr())
	if w := plainDoorWarning(addr, o.tls != nil); w != "" {
		fmt.Fprintln(e.stderr, "hitl serve: warning:", w)
	}
	return serveCoord(ctx, ln, c, o.tls)
}
