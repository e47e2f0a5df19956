package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hub"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/review"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
)

// liveTeam is the team in force, read on every call: a SIGHUP that reloads
// the team reaches the HTTP door too.
type liveTeam func() *team.Config

func (l liveTeam) ByToken(token string) (team.Principal, bool) { return l().ByToken(token) }
func (l liveTeam) RuleFor(tool string) (team.Rule, bool)       { return l().RuleFor(tool) }
func (l liveTeam) MayDecide(reviewer string) bool              { return l().MayDecide(reviewer) }

// storeSpec is the hub's store as the command gives it: --store, else the
// variable hub.store_env names, else hub.store; "" is SQLite in the state
// directory.
func (o *Options) storeSpec(f *config.File) (spec string, retention time.Duration, err error) {
	flag := o.Store
	h := f.Hub
	if h == nil {
		h = &config.Hub{}
	}
	retention = time.Duration(h.Retention)
	switch {
	case flag != "":
		return flag, retention, nil
	case h.StoreEnv != "":
		if v := o.Getenv(h.StoreEnv); v != "" {
			return v, retention, nil
		}
		return "", 0, fmt.Errorf("hub.store_env names %s, which is not set: set it to the store's URL (postgres://USER@HOST/DB), or remove store_env for SQLite in the state directory", inert.Line(h.StoreEnv))
	}
	return h.Store, retention, nil
}

// checkStore is serve --check's look at the store: one line on stdout,
// OK or what is wrong and what to do (then an error, exit 1).
func (o *Options) checkStore(ctx context.Context, f *config.File) error {
	spec, _, err := o.storeSpec(f)
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		var r store.Report
		if r, err = store.Check(ctx, spec, filepath.Join(config.StateDir(o.Getenv), "hub")); err == nil {
			fmt.Fprintln(o.Stdout, inert.Line(r.String()))
			return nil
		}
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "store") {
		msg = "store: " + msg
	}
	fmt.Fprintln(o.Stdout, inert.Line(msg))
	return &review.Error{Kind: review.Failed, Err: errors.New("the hub's store is not usable: the store line above says why and what to do")}
}

// openStore opens the hub's store, saying which.
func (o *Options) openStore(ctx context.Context, spec string, logger *hub.Logger) (*store.Store, error) {
	st, err := store.Open(ctx, spec, filepath.Join(config.StateDir(o.Getenv), "hub"))
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

// httpOnly is `hitl serve --http ADDR` alone: no LangGraph server, the
// coordinator for the team's reviewers and publishers. SIGHUP reloads the
// team as with --ssh.
func (o *Options) httpOnly(ctx context.Context, t *team.Config, p plan) error {
	addr := p.http
	o.Hide(&config.Settings{}, append(t.Secrets(), store.Secrets(p.store)...)...)
	logger := hub.NewLogger(o.Stderr)
	st, err := o.openStore(ctx, p.store, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	var current atomic.Pointer[team.Config]
	current.Store(t)
	c := coord.New(coord.Options{Team: liveTeam(current.Load), Store: st, Retention: p.retention, Log: logger})
	defer c.Close()
	reload := func() {
		nt := o.reloadTeam(logger)
		if nt == nil {
			return
		}
		current.Store(nt)
		o.Hide(&config.Settings{}, append(nt.Secrets(), store.Secrets(p.store)...)...)
		logger.Info("team reloaded", "reviewers", len(nt.Reviewers), "rules", len(nt.Rules))
		if n := c.Prune(); n > 0 { // a reviewer taken out loses their pending approvals
			logger.Info("approvals dropped at reload", "requests", n)
		}
	}
	o.Hangup(&reload)
	defer o.Hangup(nil)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: cannot listen on %s for http: %v (is another server there? pick another port)", inert.Line(addr), err)
	}
	scheme := "http"
	if p.tls != nil {
		scheme = "https"
	}
	logger.Info(fmt.Sprintf("the coordinator listens on %s://%s (hitl --backend events --url %s://%s)", scheme, ln.Addr(), scheme, ln.Addr()), "door", "http", "addr", ln.Addr().String(), "tls", p.tls != nil)
	if w := plainDoorWarning(addr, p.tls != nil); w != "" {
		logger.Warn("warning: " + w)
	}
	return serveCoord(ctx, ln, c, p.tls)
}

// reloadTeam reads the team from the config file again (SIGHUP); nil,
// logged, when it cannot be read or has problems: the team in force stays.
func (o *Options) reloadTeam(logger *slog.Logger) *team.Config {
	f, err := config.Load(config.Path(o.Getenv))
	if err != nil {
		logger.Error("team not reloaded", "error", err)
		return nil
	}
	nt := teamOf(f, o.Getenv)
	if problems := nt.Check(); len(problems) > 0 {
		logger.Error("team not reloaded: the config has problems; the team in force stays", "problems", errors.Join(problems...).Error())
		return nil
	}
	return nt
}
