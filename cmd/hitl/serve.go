package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hub"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
	"github.com/hitl-sh/hitl/tui"
)

func serveCmd(e *env) *cobra.Command {
	var sshAddr, httpAddr, hostKey, tlsCert, tlsKey, storeFlag string
	var idle time.Duration
	var check, hooksOnly bool
	var sources []string
	cmd := &cobra.Command{
		Use:   "serve --ssh ADDR | --http ADDR",
		Short: "Serve the team's inbox: reviewers ssh in and land in the reviewer",
		Long: `serve holds the backend settings and credentials in one process and serves the
reviewer to the team over SSH: a reviewer runs ssh -p PORT HOST and lands in
the inbox, with nothing installed. Who they are comes from their key (the
config file's team: section), and so does what they may do (role approver or
viewer); rules there ask for two approvers for the tools they name. Every
session shares one watcher of the server. SIGHUP reloads the team; SIGTERM
lets decisions being sent finish, then closes every session.

--http ADDR serves hitl's coordinator protocol to the same team: reviewers
open it with hitl --backend events --url http://ADDR (their token in
HITL_BEARER_TOKEN), coding agents' hooks (hitl hook claude|codex|gemini|cursor) put their
permission requests up with a publisher's token. With a LangGraph server named
(--url, HITL_URL or a profile's url), alone or beside --ssh, it serves that
server's interrupts too, decided under the same roles and rules. With none
named, --http alone serves the hooks' requests only; beside --ssh the hub
reads the default server (http://127.0.0.1:2024), and while none answers
there the sessions say that source is down and serve the hooks' requests.
--hooks-only (with --http) names no server at all: the hub, over SSH too,
serves the requests put up on its door (hooks, publishers) and nothing
else. See docs/hooks.md.

One hub serves several sources in one inbox: --source PROFILE (repeated) or
hub.sources in the config names the profiles (a LangGraph server, A2A
agents, opencode servers), each with its own backend, URL and credentials.
Each is independent: one that cannot be listed is said on the status line
and the others are served. Decisions reach the source of their interrupt,
under the same roles, rules and audit log.

The hub keeps its state (agents' requests, their approvals and answers, the
event log, the team's audit log) in SQLite in the state directory, or in
PostgreSQL with --store postgres://USER@HOST/DB (or hub.store in the config):
hubs on one database serve one team. Nothing is lost on a restart.

ADDR without a host listens on loopback (--ssh :2222); give the address of an
interface (or 0.0.0.0) to be reached from elsewhere. The HTTP door serves TLS
with --tls-cert and --tls-key; a plain-HTTP door off loopback is warned about
at start and by --check. See docs/team.md.`,
		Example: `  hitl serve --check
  hitl serve --ssh :2222
  ssh -p 2222 localhost
  hitl serve --http :8700
  hitl serve --http :8700 --url http://127.0.0.1:2024
  hitl serve --ssh :2222 --http :8700 --hooks-only
  hitl serve --ssh :2222 --source graphs --source support-agent --source opencode
  hitl serve --http 0.0.0.0:8700 --tls-cert door.crt --tls-key door.key`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := config.Load(config.Path(e.getenv))
			if err != nil {
				return err
			}
			e.warn(f)
			t := teamOf(f, e.getenv)
			problems := t.Check()
			tlsConf, tlsErr := doorTLS(tlsCert, tlsKey)
			if check {
				if spec, _, err := e.storeSpec(f, storeFlag); err == nil {
					e.hideSecrets(&config.Settings{}, append(t.Secrets(), store.Secrets(spec)...)...)
				}
				for _, p := range problems {
					fmt.Fprintln(e.stdout, "team:", strings.TrimPrefix(p.Error(), "team "))
				}
				if tlsErr != nil {
					return tlsErr
				}
				if w := plainDoorWarning(loopbackIf(httpAddr), tlsConf != nil); w != "" {
					fmt.Fprintln(e.stdout, "door: warning:", w)
				}
				if len(problems) == 0 {
					fmt.Fprintln(e.stdout, teamSummary(t))
				}
				// The store: reached, a schema this hitl knows, writable.
				// Nothing in it is changed.
				storeErr := e.checkStore(cmd.Context(), f, storeFlag)
				if len(problems) > 0 {
					return &exitErr{exitError, fmt.Errorf("the team config in %s has %d problem(s)", config.Path(e.getenv), len(problems))}
				}
				return storeErr
			}
			if len(problems) > 0 {
				for _, p := range problems {
					fmt.Fprintln(e.stderr, "hitl: team:", strings.TrimPrefix(p.Error(), "team "))
				}
				return &exitErr{exitUsage, fmt.Errorf("fix the team config in %s first (hitl serve --check says the same)", config.Path(e.getenv))}
			}
			if tlsErr != nil {
				return tlsErr
			}
			spec, retention, err := e.storeSpec(f, storeFlag)
			if err != nil {
				return usageErr("serve: %v", err)
			}
			o := serveOptions{hostKey: hostKey, idle: idle, store: spec, retention: retention, tls: tlsConf, sources: sources}
			if len(o.sources) == 0 && f.Hub != nil && !hooksOnly {
				o.sources = f.Hub.Sources
			}
			switch {
			case sshAddr == "" && httpAddr == "":
				return usageErr("serve: give --ssh ADDR (--ssh :2222 listens on loopback port 2222), --http ADDR, or both")
			case hooksOnly && httpAddr == "":
				return usageErr("serve: --hooks-only serves the requests put up on the HTTP door: give --http ADDR too")
			case hooksOnly && (len(sources) > 0 || e.flags.URL != ""):
				return usageErr("serve: --hooks-only names no server: drop --source and --url, or drop --hooks-only")
			case hooksOnly && sshAddr == "":
				o.http = loopback(httpAddr)
				return e.serveHTTPOnly(cmd.Context(), t, o)
			case sshAddr == "" && len(o.sources) == 0 && !e.backendGiven(f):
				// No LangGraph server named: the door serves the hooks' requests.
				o.http = loopback(httpAddr)
				return e.serveHTTPOnly(cmd.Context(), t, o)
			case sshAddr == "":
				// A server named (--url, HITL_URL, a profile's url): its
				// interrupts are in the door's inbox too.
				o.http = loopback(httpAddr)
				return e.serve(cmd.Context(), t, o)
			}
			if httpAddr != "" {
				o.http = loopback(httpAddr)
			}
			o.ssh = loopback(sshAddr)
			o.hooksOnly = hooksOnly
			o.defaultServer = !hooksOnly && !e.backendGiven(f)
			return e.serve(cmd.Context(), t, o)
		},
	}
	cmd.Flags().StringVar(&sshAddr, "ssh", "", "serve the reviewer over SSH on ADDR (host:port; no host: loopback)")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve the coordinator protocol (reviewers by token, agents' hooks) on ADDR (host:port; no host: loopback)")
	cmd.Flags().StringVar(&hostKey, "host-key", "", "the SSH host key file (default: created on first start in the state directory)")
	cmd.Flags().DurationVar(&idle, "idle", hub.DefaultIdle, "close a session after this long without a key")
	cmd.Flags().BoolVar(&check, "check", false, "check the team config, the store (reached, its schema, writable) and the door's TLS and address; say what is wrong, and exit")
	cmd.Flags().StringVar(&tlsCert, "tls-cert", "", "serve the HTTP door over TLS with this certificate (PEM; with --tls-key)")
	cmd.Flags().StringVar(&tlsKey, "tls-key", "", "the private key of --tls-cert (PEM)")
	cmd.Flags().BoolVar(&hooksOnly, "hooks-only", false, "serve no server's interrupts, only the requests put up on the HTTP door (coding agents' hooks, publishers); with --http")
	cmd.Flags().StringArrayVar(&sources, "source", nil, "serve this profile's server in the inbox (repeat for several: LangGraph, A2A, opencode; config: hub.sources)")
	cmd.Flags().StringVar(&storeFlag, "store", "", "the hub's store: postgres://USER@HOST/DB (hubs may share one), sqlite:PATH (default: SQLite in the state directory; config: hub.store)")
	return cmd
}

type serveOptions struct {
	ssh, http, hostKey string // ssh "": the HTTP door alone
	idle               time.Duration
	tls                *tls.Config   // the HTTP door's; nil: plain HTTP
	defaultServer      bool          // no LangGraph server named: the default URL is read
	store              string        // the store's spec (store.Open)
	retention          time.Duration // of finished requests; 0: coord's default
	sources            []string      // profiles served (hub.sources); none: the backend the command names
	hooksOnly          bool          // no source: only the door's requests (--hooks-only)
}

// listener is one of the hub's front doors: SSH today; an HTTP endpoint
// joins this list (see serve). All are started together and stopped
// together, on one context.
type listener struct {
	name, addr string
	serve      func(ctx context.Context, ln net.Listener) error
}

func (e *env) serve(ctx context.Context, t *team.Config, o serveOptions) error {
	a, err := e.open(0)
	if err != nil {
		return err
	}
	// Whatever the hub logs hides the team's tokens and the store's
	// password too (every source's credentials once they are read).
	e.hideSecrets(a.settings, append(t.Secrets(), store.Secrets(o.store)...)...)
	// The hub's log goes through stderr's writer, which makes every byte inert.
	logger := hub.NewLogger(e.stderr)
	st, err := e.openStore(ctx, o.store, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	var srcs []hub.Source
	var srcSecrets []string
	if !o.hooksOnly {
		if srcs, srcSecrets, err = e.hubSources(a, o.sources); err != nil {
			return err
		}
	}
	// Whatever the hub logs hides the team's tokens, the store's password
	// and every source's credentials too.
	srcSecrets = append(srcSecrets, store.Secrets(o.store)...)
	e.hideSecrets(a.settings, append(slices.Clone(srcSecrets), t.Secrets()...)...)
	if o.defaultServer && len(o.sources) == 0 {
		logger.Warn("no LangGraph server named (--url, HITL_URL or a profile's url): the hub reads the default one; without a server there, the sessions show that source as down and serve the agents' requests alone",
			"server", srcs[0].Backend.Server())
	}

	var current atomic.Pointer[team.Config]
	current.Store(t)
	// pruned drops the approvals of reviewers the reload took out (set
	// once the hub's parts are built).
	var pruned atomic.Pointer[func()]
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
		e.hideSecrets(a.settings, append(slices.Clone(srcSecrets), nt.Secrets()...)...)
		logger.Info("team reloaded", "reviewers", len(nt.Reviewers), "rules", len(nt.Rules))
		if f := pruned.Load(); f != nil {
			(*f)()
		}
	}
	onHangup.Store(&reload)
	defer onHangup.Store(nil)

	if st.Kind() == store.Postgres {
		// Hubs on one store: one of them watches each LangGraph server for
		// all (its own lock: the sources in the same order on every hub).
		for i, s := range srcs {
			if lg, ok := s.Backend.(*langgraph.Backend); ok {
				srcs[i].Backend = &electedWatch{Upstream: lg, st: st, log: logger, lock: watcherLock + int64(i)}
			}
		}
	}
	var merged *hub.Merged
	var up hub.Upstream
	if o.http == "" {
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
	if o.http != "" {
		// The HTTP door's requests (coding agents' hooks) are in every
		// session's inbox, beside the server's interrupts; and the
		// server's interrupts are on the HTTP door, beside its requests
		// (door), decided by the path a session's decision takes.
		door = &hub.Door{Encoding: client.EncodeOptions{Dialect: client.EditDialect(a.settings.EditDialect)}, Log: logger}
		c = e.coordinator(liveTeam(current.Load), door, st, o.retention, logger)
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
	stateDir := filepath.Join(config.StateDir(e.getenv), "hub")
	if o.hostKey == "" {
		o.hostKey = filepath.Join(stateDir, "host_ed25519")
	}
	srv, err := hub.NewSSH(hub.Options{
		HostKey: o.hostKey, Idle: o.idle, Team: current.Load, Backend: shared, StateDir: stateDir,
		Redact: redactOf(up), Log: logger,
		TUI: tui.Options{PollInterval: a.settings.PollInterval, EditDialect: client.EditDialect(a.settings.EditDialect),
			Notify: a.settings.Notify, Theme: a.settings.Theme, Keys: a.settings.Keys},
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
	if o.ssh != "" {
		doors = append(doors, listener{name: "ssh", addr: o.ssh, serve: srv.Serve})
	}
	if o.http != "" {
		doors = append(doors, listener{name: "http", addr: o.http, serve: func(ctx context.Context, ln net.Listener) error {
			return serveCoord(ctx, ln, c, o.tls)
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
		if d.name == "http" && o.tls != nil {
			logger.Info("listening", "door", d.name, "addr", ln.Addr().String(), "tls", true, "server", servedBy(srcs))
		} else {
			logger.Info("listening", "door", d.name, "addr", ln.Addr().String(), "server", servedBy(srcs))
		}
		if d.name == "http" {
			if w := plainDoorWarning(d.addr, o.tls != nil); w != "" {
				logger.Warn("plain HTTP door", "warning", w)
			}
		}
	}
	go shared.Watch(ctx, a.settings.PollInterval)
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
