package serve

// Which sources a hub serves: the LangGraph server the command names, or
// the profiles of hub.sources / --source, each a backend of its own.

import (
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/hub"
	"github.com/hitl-sh/hitl/review"
)

// backendGiven says whether the command names a LangGraph server (--url,
// HITL_URL, or the url of the profile in force), rather than falling back
// to the default address: only then does hitl serve --http alone serve a
// backend's interrupts beside the hooks' requests.
func (o *Options) backendGiven(f *config.File) bool {
	if o.Flags.URL != "" || o.Getenv("HITL_URL") != "" {
		return true
	}
	s, err := config.Resolve(f, o.Flags, o.Getenv)
	if err != nil {
		return true // serve opens the backend and says what is wrong
	}
	p, ok := f.Profiles[s.ProfileName]
	return ok && p.URL != ""
}

// hubSources are the sources the hub serves: the profiles named (--source,
// hub.sources), or the backend the command names. Each profile is read on
// its own: HITL_URL, HITL_BACKEND and the credentials' variables, which
// name the one server of a command, do not override a source's profile.
// secrets are every source's credentials, for the hub's log to hide.
func (o *Options) hubSources(settings *config.Settings, backend client.Backend, profiles []string) (srcs []hub.Source, secrets []string, err error) {
	if len(profiles) == 0 {
		s, err := sourceOf(settings, backend)
		if err != nil {
			return nil, nil, err
		}
		return []hub.Source{s}, settings.Credentials(), nil
	}
	f, err := config.Load(config.Path(o.Getenv))
	if err != nil {
		return nil, nil, err
	}
	own := func(k string) string {
		switch k {
		case "HITL_PROFILE", "HITL_BACKEND", "HITL_URL", "HITL_GRAPH", "HITL_ASSISTANT", "HITL_API_KEY", "HITL_BEARER_TOKEN", "HITL_LANGGRAPH_URL":
			return ""
		}
		return o.Getenv(k)
	}
	seen := map[string]bool{}
	for _, name := range profiles {
		if seen[name] {
			return nil, nil, review.Usagef("serve: source %q is named twice", name)
		}
		seen[name] = true
		if _, ok := f.Profiles[name]; !ok {
			return nil, nil, review.Usagef("serve: source %q is no profile of %s: add it under profiles: (backend and url), or name another", name, config.Path(o.Getenv))
		}
		s, err := config.Resolve(f, config.Overrides{Profile: name}, own)
		if err != nil {
			return nil, nil, review.Usagef("serve: source %s: %v", name, err)
		}
		b, err := o.NewBackend(s)
		if err != nil {
			return nil, nil, review.Usagef("serve: source %s: %v", name, err)
		}
		src, err := sourceOf(s, b)
		if err != nil {
			return nil, nil, err
		}
		srcs = append(srcs, src)
		secrets = append(secrets, s.Credentials()...)
	}
	return srcs, secrets, nil
}

// sourceOf names a backend as a source of the hub's inbox: a LangGraph
// server, an A2A agent or an opencode server. A hub's inbox through
// another hub (events) or a REST backend is not served.
func sourceOf(s *config.Settings, b client.Backend) (hub.Source, error) {
	var what string
	switch s.Backend {
	case "langgraph":
		what = "the LangGraph server at "
	case "a2a":
		what = "the A2A agent at "
	case "opencode":
		what = "the opencode server at "
	default:
		return hub.Source{}, review.Usagef("serve: the hub serves LangGraph servers, A2A agents and opencode servers (backend langgraph, a2a or opencode); %s is not served", s.Backend)
	}
	return hub.Source{Name: what + b.Server(), Kind: s.Backend, Backend: b}, nil
}

// servedBy names the sources for the log.
func servedBy(srcs []hub.Source) string {
	if len(srcs) == 0 {
		return "none (--hooks-only: the door's requests)"
	}
	var out []string
	for _, s := range srcs {
		out = append(out, s.Backend.Server())
	}
	return strings.Join(out, ", ")
}

// redactOf is what hides the sources' credentials in the sessions'
// journals.
func redactOf(b client.Backend) func(string) string {
	if r := b.Features().Redactor; r != nil {
		return r.Redact
	}
	return func(s string) string { return s }
}
