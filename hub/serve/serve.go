package serve

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/review"
	"github.com/hitl-sh/hitl/store"
	"github.com/hitl-sh/hitl/team"
)

// Options are what hitl serve is asked (its flags) and what it works with.
type Options struct {
	SSH, HTTP       string // the doors' addresses (host:port; no host: loopback)
	HostKey         string // the SSH host key file; "": in the state directory
	TLSCert, TLSKey string // the HTTP door's certificate and key (PEM)
	Store           string // --store: the store's spec; "": hub.store, else SQLite
	Idle            time.Duration
	Check           bool     // --check: say what is wrong, and exit
	HooksOnly       bool     // no source: only the door's requests
	Sources         []string // --source: the profiles served

	// Stdout is where --check reports; Stderr takes the hub's log (both
	// cmd/hitl's inert writers).
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Flags are the command's global flags (--profile, --url, …): they
	// name the backend the hub serves when no source is named.
	Flags config.Overrides
	// Open opens the backend the command names, and NewBackend a source's
	// from its profile's settings: cmd/hitl alone picks a backend.
	Open       func() (*config.Settings, client.Backend, error)
	NewBackend func(*config.Settings) (client.Backend, error)
	// Hide hides, in everything printed from now on, the credentials s
	// holds and more.
	Hide func(s *config.Settings, more ...string)
	// Warn says the config file's warnings.
	Warn func(*config.File)
	// Hangup sets what SIGHUP does while the hub runs (reload the team);
	// nil: back to ending hitl.
	Hangup func(reload *func())
}

// plan is what Run made of the options: which doors, which sources.
type plan struct {
	ssh, http, hostKey string // ssh "": the HTTP door alone
	idle               time.Duration
	tls                *tls.Config   // the HTTP door's; nil: plain HTTP
	defaultServer      bool          // no LangGraph server named: the default URL is read
	store              string        // the store's spec (store.Open)
	retention          time.Duration // of finished requests; 0: coord's default
	sources            []string      // profiles served (hub.sources); none: the backend the command names
	hooksOnly          bool          // no source: only the door's requests (--hooks-only)
}

// Run is hitl serve: with Check, the team, the store and the door's TLS
// and address checked; else the hub served until ctx ends.
func Run(ctx context.Context, o *Options) error {
	f, err := config.Load(config.Path(o.Getenv))
	if err != nil {
		return err
	}
	o.Warn(f)
	t := teamOf(f, o.Getenv)
	problems := t.Check()
	tlsConf, tlsErr := doorTLS(o.TLSCert, o.TLSKey)
	if o.Check {
		if spec, _, err := o.storeSpec(f); err == nil {
			o.Hide(&config.Settings{}, append(t.Secrets(), store.Secrets(spec)...)...)
		}
		for _, p := range problems {
			fmt.Fprintln(o.Stdout, "team:", strings.TrimPrefix(p.Error(), "team "))
		}
		if tlsErr != nil {
			return tlsErr
		}
		if w := plainDoorWarning(loopbackIf(o.HTTP), tlsConf != nil); w != "" {
			fmt.Fprintln(o.Stdout, "door: warning:", w)
		}
		if len(problems) == 0 {
			fmt.Fprintln(o.Stdout, teamSummary(t))
		}
		// The store: reached, a schema this hitl knows, writable.
		// Nothing in it is changed.
		storeErr := o.checkStore(ctx, f)
		if len(problems) > 0 {
			return &review.Error{Kind: review.Failed, Err: fmt.Errorf("the team config in %s has %d problem(s)", config.Path(o.Getenv), len(problems))}
		}
		return storeErr
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(o.Stderr, "hitl: team:", strings.TrimPrefix(p.Error(), "team "))
		}
		return review.Usagef("fix the team config in %s first (hitl serve --check says the same)", config.Path(o.Getenv))
	}
	if tlsErr != nil {
		return tlsErr
	}
	spec, retention, err := o.storeSpec(f)
	if err != nil {
		return review.Usagef("serve: %v", err)
	}
	p := plan{hostKey: o.HostKey, idle: o.Idle, store: spec, retention: retention, tls: tlsConf, sources: o.Sources}
	if len(p.sources) == 0 && f.Hub != nil && !o.HooksOnly {
		p.sources = f.Hub.Sources
	}
	switch {
	case o.SSH == "" && o.HTTP == "":
		return review.Usagef("serve: give --ssh ADDR (--ssh :2222 listens on loopback port 2222), --http ADDR, or both")
	case o.HooksOnly && o.HTTP == "":
		return review.Usagef("serve: --hooks-only serves the requests put up on the HTTP door: give --http ADDR too")
	case o.HooksOnly && (len(o.Sources) > 0 || o.Flags.URL != ""):
		return review.Usagef("serve: --hooks-only names no server: drop --source and --url, or drop --hooks-only")
	case o.HooksOnly && o.SSH == "":
		p.http = loopback(o.HTTP)
		return o.httpOnly(ctx, t, p)
	case o.SSH == "" && len(p.sources) == 0 && !o.backendGiven(f):
		// No LangGraph server named: the door serves the hooks' requests.
		p.http = loopback(o.HTTP)
		return o.httpOnly(ctx, t, p)
	case o.SSH == "":
		// A server named (--url, HITL_URL, a profile's url): its
		// interrupts are in the door's inbox too.
		p.http = loopback(o.HTTP)
		return o.serveHub(ctx, t, p)
	}
	if o.HTTP != "" {
		p.http = loopback(o.HTTP)
	}
	p.ssh = loopback(o.SSH)
	p.hooksOnly = o.HooksOnly
	p.defaultServer = !o.HooksOnly && !o.backendGiven(f)
	return o.serveHub(ctx, t, p)
}

// teamOf is the file's team, reading token_env through getenv.
func teamOf(f *config.File, getenv func(string) string) *team.Config {
	t := f.Team
	if t == nil {
		t = &team.Config{}
	}
	t.Getenv = getenv
	return t
}

func teamSummary(t *team.Config) string {
	approvers := len(t.Approvers())
	s := fmt.Sprintf("team: OK: %d reviewer(s) (%d approver(s), %d viewer(s)), %d publisher(s), %d rule(s)",
		len(t.Reviewers), approvers, len(t.Reviewers)-approvers, len(t.Publishers), len(t.Rules))
	for _, r := range t.Rules {
		s += fmt.Sprintf("\n  %d approvals: %s", r.Approvals, strings.Join(r.Tools, ", "))
	}
	return s
}
