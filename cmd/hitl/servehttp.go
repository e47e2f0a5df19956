package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hub"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
)

// liveTeam is the team in force, read on every call: a SIGHUP that reloads
// the team reaches the HTTP door too.
type liveTeam func() *team.Config

func (l liveTeam) ByToken(token string) (team.Principal, bool) { return l().ByToken(token) }
func (l liveTeam) RuleFor(tool string) (team.Rule, bool)       { return l().RuleFor(tool) }
func (l liveTeam) MayDecide(reviewer string) bool              { return l().MayDecide(reviewer) }

// coordinator is the hub's HTTP door: the coordinator protocol for the team,
// its state in st. inbox, when not nil, is the rest of the hub's inbox
// (hub.Door).
func (e *env) coordinator(t coord.Team, inbox coord.Inbox, st *store.Store, retention time.Duration, logger *hub.Logger) *coord.Server {
	return coord.New(coord.Options{Team: t, Inbox: inbox, Store: st, Retention: retention, Log: logger})
}

// storeSpec is the hub's store as the command gives it: --store, else the
// variable hub.store_env names, else hub.store; "" is SQLite in the state
// directory.
func (e *env) storeSpec(f *config.File, flag string) (spec string, retention time.Duration, err error) {
	h := f.Hub
	if h == nil {
		h = &config.Hub{}
	}
	retention = time.Duration(h.Retention)
	switch {
	case flag != "":
		return flag, retention, nil
	case h.StoreEnv != "":
		if v := e.getenv(h.StoreEnv); v != "" {
			return v, retention, nil
		}
		return "", 0, fmt.Errorf("hub.store_env names %s, which is not set: set it to the store's URL (postgres://USER@HOST/DB), or remove store_env for SQLite in the state directory", safe(h.StoreEnv))
	}
	return h.Store, retention, nil
}

// checkStore is serve --check's look at the store: one line on stdout,
// OK or what is wrong and what to do (then an error, exit 1).
func (e *env) checkStore(ctx context.Context, f *config.File, flag string) error {
	spec, _, err := e.storeSpec(f, flag)
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		var r store.Report
		if r, err = store.Check(ctx, spec, filepath.Join(config.StateDir(e.getenv), "hub")); err == nil {
			fmt.Fprintln(e.stdout, safe(r.String()))
			return nil
		}
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "store") {
		msg = "store: " + msg
	}
	fmt.Fprintln(e.stdout, safe(msg))
	return &exitErr{exitError, errors.New("the hub's store is not usable: the store line above says why and what to do")}
}

// openStore opens the hub's store, saying which.
func (e *env) openStore(ctx context.Context, spec string, logger *hub.Logger) (*store.Store, error) {
	st, err := store.Open(ctx, spec, filepath.Join(config.StateDir(e.getenv), "hub"))
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	logger.Info("store open", "kind", st.Kind(), "where", st.Where(), "schema", store.SchemaVersion())
	return st, nil
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
	e.hideSecrets(&config.Settings{}, append(t.Secrets(), store.Secrets(o.store)...)...)
	logger := hub.NewLogger(e.stderr)
	st, err := e.openStore(ctx, o.store, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	var current atomic.Pointer[team.Config]
	current.Store(t)
	c := e.coordinator(liveTeam(current.Load), nil, st, o.retention, logger)
	defer c.Close()
	reload := func() {
		f, err := config.Load(config.Path(e.getenv))
		if err != nil {
			logger.Error("team not reloaded", "error", err)
			return
		}
		nt := teamOf(f, e.getenv)
		if problems := nt.Check(); len(problems) > 0 {
			logger.Error("team not reloaded: the config has problems; the team in force stays", "problems", errors.Join(problems...).Error())
			return
		}
		current.Store(nt)
		e.hideSecrets(&config.Settings{}, append(nt.Secrets(), store.Secrets(o.store)...)...)
		logger.Info("team reloaded", "reviewers", len(nt.Reviewers), "rules", len(nt.Rules))
		if n := c.Prune(); n > 0 { // a reviewer taken out loses their pending approvals
			logger.Info("approvals dropped at reload", "requests", n)
		}
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
	logger.Info(fmt.Sprintf("the coordinator listens on %s://%s (hitl --backend events --url %s://%s)", scheme, ln.Addr(), scheme, ln.Addr()), "door", "http", "addr", ln.Addr().String(), "tls", o.tls != nil)
	if w := plainDoorWarning(addr, o.tls != nil); w != "" {
		logger.Warn("warning: " + w)
	}
	return serveCoord(ctx, ln, c, o.tls)
}
