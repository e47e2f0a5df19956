package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hub"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
	"github.com/hitl-sh/hitl/tui"
)

// listener is one of the hub's front doors: SSH today; an HTTP endpoint
// joins this list (see serve). All are started together and stopped
// together, on one context.
type listener struct {
	name, addr string
	serve      func(ctx context.Context, ln net.Listener) error
}

// serveHub serves the SSH server and, with p.http, the HTTP door, over the
// sources p names (or the backend the command names) and the door's
// requests, until ctx ends.
func (o *Options) serveHub(ctx context.Context, t *team.Config, p plan) error {
	settings, backend, err := o.Open()
	if err != nil {
		return err
	}
	// Whatever the hub logs hides the team's tokens and the store's
	// password too (every source's credentials once they are read).
	o.Hide(settings, append(t.Secrets(), store.Secrets(p.store)...)...)
	// The hub's log goes through stderr's writer, which makes every byte inert.
	logger := hub.NewLogger(o.Stderr)
	st, err := o.openStore(ctx, p.store, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	var srcs []hub.Source
	var srcSecrets []string
	if !p.hooksOnly {
		if srcs, srcSecrets, err = o.hubSources(settings, backend, p.sources); err != nil {
			return err
		}
	}
	// Whatever the hub logs hides the team's tokens, the store's password
	// and every source's credentials too.
	srcSecrets = append(srcSecrets, store.Secrets(p.store)...)
	o.Hide(settings, append(slices.Clone(srcSecrets), t.Secrets()...)...)
	if p.defaultServer && len(p.sources) == 0 {
		logger.Warn("no LangGraph server named (--url, HITL_URL or a profile's url): the hub reads the default one; without a server there, the sessions show that source as down and serve the agents' requests alone",
			"server", srcs[0].Backend.Server())
	}

	var current atomic.Pointer[team.Config]
	current.Store(t)
	// pruned drops the approvals of reviewers the reload took out (set
	// once the hub's parts are built).
	var pruned atomic.Pointer[func()]
	reload := func() {
		nt := o.reloadTeam(logger)
		if nt == nil {
			return
		}
		current.Store(nt)
		o.Hide(settings, append(slices.Clone(srcSecrets), nt.Secrets()...)...)
		logger.Info("team reloaded", "reviewers", len(nt.Reviewers), "rules", len(nt.Rules))
		if f := pruned.Load(); f != nil {
			(*f)()
		}
	}
	o.Hangup(&reload)
	defer o.Hangup(nil)

	if st.Kind() == store.Postgres {
		// Hubs on one store: one of them watches each LangGraph server for
		// all (its own lock: the sources in the same order on every hub).
		for i, s := range srcs {
			if lg, ok := s.Backend.(hub.Upstream); ok && s.Kind == "langgraph" {
				srcs[i].Backend = &electedWatch{Upstream: lg, st: st, log: logger, lock: watcherLock + int64(i)}
			}
		}
	}
	var merged *hub.Merged
	var up hub.Upstream
	if p.http == "" {
		if u, ok := srcs[0].Backend.(hub.Upstream); ok && len(srcs) == 1 {
			up = u // one LangGraph server, served as it is
		} else {
			merged = hub.NewMerged(srcs...)
			merged.Store = st // the approvals of sources that keep none
			up = merged
		}
	}
	var c *coord.Server
	var door *hub.Door
	if p.http != "" {
		// The HTTP door's requests (coding agents' hooks) are in every
		// session's inbox, beside the server's interrupts; and the
		// server's interrupts are on the HTTP door, beside its requests
		// (door), decided by the path a session's decision takes.
		door = &hub.Door{Encoding: client.EncodeOptions{Dialect: client.EditDialect(settings.EditDialect)}, Log: logger}
		c = coord.New(coord.Options{Team: liveTeam(current.Load), Inbox: door, Store: st, Retention: p.retention, Log: logger})
		defer c.Close()
		// The door's requests first, then every source's interrupts.
		merged = hub.NewMerged(append([]hub.Source{(&doorRequests{c: c}).source()}, srcs...)...)
		merged.Store = st // the approvals of sources that keep none
		up = merged
		door.Skip = func(id string) bool { _, ok := c.Lookup(id); return ok }
	}
	shared := hub.NewShared(up)
	shared.Team = current.Load
	shared.Log = logger
	// Every decision, whatever the door and the source, in the team's
	// audit log (the store).
	shared.Audit = func(ctx context.Context, en store.Entry) {
		if en.Source == "" && merged != nil {
			en.Source = merged.KindOf(en.RequestID) // "" for the door's own requests
		}
		if c != nil {
			c.Audit(ctx, en) // names the source: a hook's, a publisher's or the server's
			return
		}
		if en.Source == "" {
			en.Source = "langgraph"
		}
		if _, err := st.Audit(ctx, en); err != nil {
			logger.Error("the audit log did not take a decision", "reviewer", en.Reviewer, "request", en.RequestID, "error", err)
		}
	}
	stateDir := filepath.Join(config.StateDir(o.Getenv), "hub")
	if p.hostKey == "" {
		p.hostKey = filepath.Join(stateDir, "host_ed25519")
	}
	srv, err := hub.NewSSH(hub.Options{
		HostKey: p.hostKey, Idle: p.idle, Team: current.Load, Backend: shared, StateDir: stateDir,
		Redact: redactOf(up), Log: logger,
		TUI: tui.Options{PollInterval: settings.PollInterval, EditDialect: client.EditDialect(settings.EditDialect),
			Notify: settings.Notify, Theme: settings.Theme, Keys: settings.Keys},
	})
	if err != nil {
		return err
	}
	if door != nil {
		door.Shared, door.Journal = shared, srv.JournalOf
	}
	prune := func() {
		// Every open session reads its reviewer's role again at once.
		srv.TeamChanged()
		// A reviewer the reload removed (or made a viewer) loses their
		// pending approvals: the rows say whose were dropped.
		pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
		defer pcancel()
		n := shared.PruneApprovals(pctx)
		if c != nil {
			n += c.Prune()
		}
		if n > 0 {
			logger.Info("approvals dropped at reload", "interrupts", n)
		}
	}
	pruned.Store(&prune)
	// The hub's front doors: SSH unless only --http was asked for.
	var doors []listener
	if p.ssh != "" {
		doors = append(doors, listener{name: "ssh", addr: p.ssh, serve: srv.Serve})
	}
	if p.http != "" {
		doors = append(doors, listener{name: "http", addr: p.http, serve: func(ctx context.Context, ln net.Listener) error {
			return serveCoord(ctx, ln, c, p.tls)
		}})
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var lns []net.Listener
	for _, d := range doors {
		ln, err := net.Listen("tcp", d.addr)
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return fmt.Errorf("serve: cannot listen on %s for %s: %w", d.addr, d.name, err)
		}
		lns = append(lns, ln)
		if d.name == "http" && p.tls != nil {
			logger.Info("listening", "door", d.name, "addr", ln.Addr().String(), "tls", true, "server", servedBy(srcs))
		} else {
			logger.Info("listening", "door", d.name, "addr", ln.Addr().String(), "server", servedBy(srcs))
		}
		if d.name == "http" {
			if w := plainDoorWarning(d.addr, p.tls != nil); w != "" {
				logger.Warn("plain HTTP door", "warning", w)
			}
		}
	}
	go shared.Watch(ctx, settings.PollInterval)
	if door != nil {
		go door.Watch(ctx, c.Announce)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(doors))
	for i, d := range doors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.serve(ctx, lns[i])
			cancel() // one door down: close them all
		}()
	}
	wg.Wait()
	logger.Info("stopped")
	return errors.Join(errs...)
}
