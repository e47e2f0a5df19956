// Package config finds the config file and the state directory, reads
// profiles, and resolves the settings in force: flag > environment > file >
// default.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hitl-sh/hitl/redact"
	"github.com/hitl-sh/hitl/team"
)

// DefaultURL is where `langgraph dev` listens by default.
const DefaultURL = "http://127.0.0.1:2024"

// DefaultPollInterval is how often the inbox and `watch` look for new work.
const DefaultPollInterval = 2 * time.Second

// DefaultLookEvery is how often a watched LangGraph backend looks at the
// server for changes (the backend's own default, client/langgraph): an
// interrupt's arrival p95 is about this plus two round trips, and an idle
// reviewer's CPU is nearly proportional to the looks a second.
const DefaultLookEvery = 200 * time.Millisecond

// MinLookEvery is the shortest look_every taken: a typo (5ms for 5s)
// cannot make a reviewer hammer a server.
const MinLookEvery = 50 * time.Millisecond

// File is the config file.
type File struct {
	DefaultProfile string              `yaml:"default_profile"`
	Profiles       map[string]*Profile `yaml:"profiles"`
	// Keys rebinds the reviewer's keys: action name -> keys (docs/config.md).
	Keys map[string][]string `yaml:"keys"`
	// Team is who may use the shared inbox (`hitl serve`) and how.
	Team *team.Config `yaml:"team"`
	// Hub is where `hitl serve` keeps its state (docs/team.md).
	Hub *Hub `yaml:"hub"`
	// Warnings are problems that do not stop hitl (a secret in a file others
	// can read), each saying how to fix it; the caller shows them once.
	Warnings []string `yaml:"-"`
}

// Profile is one backend a reviewer works against.
type Profile struct {
	Backend string `yaml:"backend"`
	URL     string `yaml:"url"`
	// APIKeyEnv names the environment variable holding the API key; APIKey
	// holds it directly (prefer the variable).
	APIKeyEnv      string            `yaml:"api_key_env"`
	APIKey         string            `yaml:"api_key"`
	BearerTokenEnv string            `yaml:"bearer_token_env"`
	BearerToken    string            `yaml:"bearer_token"`
	Headers        map[string]string `yaml:"headers"`
	Graph          string            `yaml:"graph"`
	Assistant      string            `yaml:"assistant"`
	Metadata       map[string]string `yaml:"metadata"`
	PollInterval   Duration          `yaml:"poll_interval"`
	// LookEvery is how often a watching reviewer looks at a LangGraph
	// server for changes (DefaultLookEvery).
	LookEvery Duration `yaml:"look_every"`
	Timeout   Duration `yaml:"timeout"`
	Reviewer  string   `yaml:"reviewer"`
	// EditDialect is "edited_action" (the middleware's own) or
	// "edited_args" (for backends whose frontends send edits that way).
	EditDialect        string `yaml:"edit_dialect"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`
	Bell               *bool  `yaml:"bell"`
	// Notify is how the reviewer hears of new interrupts while looking
	// elsewhere: off, bell, or desktop (a notification through the
	// terminal, over SSH too; the bell where the terminal shows none).
	Notify string `yaml:"notify"`
	// Theme is the reviewer's background: light, dark, or auto (asked of
	// the terminal).
	Theme string `yaml:"theme"`
	// UserID selects whose approvals a REST backend lists (user_id).
	UserID string `yaml:"user_id"`
	// Tasks are A2A task ids to review besides those the agent lists (an
	// agent of protocol 0.3 cannot list its tasks).
	Tasks []string `yaml:"tasks"`
	// LangGraphURL is the LangGraph server behind an A2A endpoint of
	// LangGraph (url: .../a2a/ASSISTANT): the question is read there.
	LangGraphURL string `yaml:"langgraph_url"`
}

// Duration reads "2s", "500ms", "1m".
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (write it like 2s or 500ms)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Path is the config file in force: $HITL_CONFIG, else
// $XDG_CONFIG_HOME/hitl/config.yaml, else ~/.config/hitl/config.yaml.
// getenv is the environment (os.Getenv in the binary; a test's own map in
// tests, so that the developer's shell changes nothing).
func Path(getenv func(string) string) string {
	if p := getenv("HITL_CONFIG"); p != "" {
		return p
	}
	base := getenv("XDG_CONFIG_HOME")
	if base == "" {
		base = filepath.Join(home(getenv), ".config")
	}
	return filepath.Join(base, "hitl", "config.yaml")
}

// StateDir is where handled ids and the audit log live:
// $XDG_STATE_HOME/hitl, else ~/.local/state/hitl.
func StateDir(getenv func(string) string) string {
	base := getenv("XDG_STATE_HOME")
	if base == "" {
		base = filepath.Join(home(getenv), ".local", "state")
	}
	return filepath.Join(base, "hitl")
}

// home is the user's home directory as os.UserHomeDir finds it, read from
// getenv.
func home(getenv func(string) string) string {
	switch runtime.GOOS {
	case "windows":
		return getenv("USERPROFILE")
	case "plan9":
		return getenv("home")
	}
	return getenv("HOME")
}

// Load reads the config file at path. A missing file is an empty config.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read config %s: %w", path, err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read config %s: %w", path, err)
	}
	b, err := io.ReadAll(fh)
	if err != nil {
		return nil, fmt.Errorf("cannot read config %s: %w", path, err)
	}
	f, err := Parse(path, b)
	if err != nil {
		return nil, err
	}
	if w := f.exposed(path, info.Mode().Perm()); w != "" {
		f.Warnings = append(f.Warnings, w)
	}
	return f, nil
}

// exposed warns when a file that other users can read holds a secret.
// Windows keeps no such bits: nothing to say there.
func (f *File) exposed(path string, perm fs.FileMode) string {
	if runtime.GOOS == "windows" || perm&0o044 == 0 {
		return ""
	}
	var held []string
	for _, name := range f.names() {
		p := f.Profiles[name]
		for _, x := range []struct {
			what string
			set  bool
		}{{"api_key", p.APIKey != ""}, {"bearer_token", p.BearerToken != ""}, {"headers", len(p.Headers) > 0},
			{"url with credentials", redact.URL(p.URL) != p.URL}} {
			if x.set {
				held = append(held, fmt.Sprintf("%s (profile %s)", x.what, name))
			}
		}
	}
	for _, t := range f.Team.InlineTokens() {
		held = append(held, "token ("+t+")")
	}
	if f.Hub != nil && storePassword(f.Hub.Store) {
		held = append(held, "password (hub.store)")
	}
	if len(held) == 0 {
		return ""
	}
	who := "its group"
	if perm&0o004 != 0 {
		who = "every user of this machine"
	}
	return fmt.Sprintf("config %s holds secrets (%s) and is readable by %s (mode %04o): run chmod 600 %s, or keep the secrets in environment variables (api_key_env, bearer_token_env, token_env, store_env)",
		path, strings.Join(held, ", "), who, perm, shellQuote(path))
}

// storePassword reports whether a hub.store URL holds a password: in its
// userinfo (postgres://USER:PASSWORD@HOST/DB) or a credential parameter
// (?password=…). A user name alone is no secret.
func storePassword(spec string) bool {
	u, err := url.Parse(spec)
	if err != nil {
		return redact.URL(spec) != spec
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			return true
		}
	}
	for k := range u.Query() {
		if redact.CredentialParam(k) {
			return true
		}
	}
	return false
}

// shellQuote makes path safe to paste into a shell.
func shellQuote(path string) string {
	if path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+~:@") == "" {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

// Parse reads a config file's bytes; path only names it in errors.
func Parse(path string, b []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("config %s: %s", path, yamlMessage(err))
	}
	for name, p := range f.Profiles {
		if p == nil {
			f.Profiles[name] = &Profile{}
		}
	}
	if f.DefaultProfile != "" && f.Profiles[f.DefaultProfile] == nil {
		return nil, fmt.Errorf("config %s: default_profile %q is not one of the profiles (%s)", path, f.DefaultProfile, strings.Join(f.names(), ", "))
	}
	return &f, nil
}

func (f *File) names() []string {
	var out []string
	for n := range f.Profiles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Hub is `hitl serve`'s own settings.
type Hub struct {
	// Store is the hub's store: empty for SQLite in the state directory,
	// postgres://USER@HOST/DB for PostgreSQL (several hubs may share it),
	// sqlite:PATH for another SQLite file. StoreEnv names a variable that
	// holds it instead (a URL with a password stays out of the file).
	Store    string `yaml:"store"`
	StoreEnv string `yaml:"store_env"`
	// Retention is how long a finished request stays readable (default
	// 7 days).
	Retention Duration `yaml:"retention"`
	// Sources are the profiles whose servers the hub serves in one inbox
	// (a LangGraph server, A2A agents, opencode servers), each on its own:
	// one down leaves the others served. Empty: the one server the
	// command names (--url, HITL_URL, --profile), as before.
	Sources []string `yaml:"sources"`
}

// Overrides are the settings given as flags; empty means not given.
type Overrides struct {
	Profile   string
	Backend   string
	URL       string
	Graph     string
	Assistant string
	Reviewer  string
	Headers   []string // "Name: value"
	// Tasks are A2A task ids given with --task.
	Tasks []string
}

// Settings are the resolved settings of one run of hitl.
type Settings struct {
	ProfileName        string
	Backend            string
	URL                string
	APIKey             string
	BearerToken        string
	Headers            map[string]string
	Graph              string
	Assistant          string
	Metadata           map[string]string
	PollInterval       time.Duration
	LookEvery          time.Duration
	Timeout            time.Duration
	Reviewer           string
	EditDialect        string
	InsecureSkipVerify bool
	Bell               bool
	Notify             string
	Theme              string
	Keys               map[string][]string
	UserID             string
	// Tasks and LangGraphURL are the A2A backend's (Profile).
	Tasks        []string
	LangGraphURL string
	// ConfigFile and StateDir are the paths in force (Path, StateDir).
	ConfigFile string
	StateDir   string
}

// Resolve applies flag > environment > file > default.
func Resolve(f *File, o Overrides, getenv func(string) string) (*Settings, error) {
	name := first(o.Profile, getenv("HITL_PROFILE"), f.DefaultProfile)
	p := &Profile{}
	if name != "" {
		var ok bool
		if p, ok = f.Profiles[name]; !ok {
			if len(f.Profiles) == 0 {
				return nil, fmt.Errorf("profile %q not found: the config file %s has no profiles", name, Path(getenv))
			}
			return nil, fmt.Errorf("profile %q not found; the config file has: %s", name, strings.Join(f.names(), ", "))
		}
	} else if len(f.Profiles) == 1 {
		for n, only := range f.Profiles {
			name, p = n, only
		}
	}
	s := &Settings{
		ProfileName:        name,
		Backend:            first(o.Backend, getenv("HITL_BACKEND"), p.Backend, "langgraph"),
		URL:                strings.TrimRight(first(o.URL, getenv("HITL_URL"), p.URL, DefaultURL), "/"),
		Graph:              first(o.Graph, getenv("HITL_GRAPH"), p.Graph),
		Assistant:          first(o.Assistant, getenv("HITL_ASSISTANT"), p.Assistant),
		Reviewer:           first(o.Reviewer, getenv("HITL_REVIEWER"), p.Reviewer, getenv("USER"), osUser(), "unknown"),
		EditDialect:        first(p.EditDialect, "edited_action"),
		Metadata:           p.Metadata,
		PollInterval:       time.Duration(p.PollInterval),
		Timeout:            time.Duration(p.Timeout),
		InsecureSkipVerify: p.InsecureSkipVerify,
		Bell:               p.Bell == nil || *p.Bell,
		Theme:              first(getenv("HITL_THEME"), p.Theme, "auto"),
		Notify:             first(getenv("HITL_NOTIFY"), p.Notify),
		Headers:            map[string]string{},
		Keys:               f.Keys,
		UserID:             p.UserID,
		Tasks:              append(append([]string{}, p.Tasks...), o.Tasks...),
		LangGraphURL:       strings.TrimRight(first(getenv("HITL_LANGGRAPH_URL"), p.LangGraphURL), "/"),
		ConfigFile:         Path(getenv),
		StateDir:           StateDir(getenv),
	}
	if s.PollInterval <= 0 {
		s.PollInterval = DefaultPollInterval
	}
	if s.Timeout <= 0 {
		s.Timeout = 30 * time.Second
	}
	// Every problem at once: fixing one to be told of the next wastes a
	// round per setting.
	var errs []error
	var err error
	if s.LookEvery, err = lookEvery(getenv("HITL_LOOK_EVERY"), time.Duration(p.LookEvery)); err != nil {
		errs = append(errs, err)
	}
	switch s.Backend {
	case "langgraph", "rest", "events", "a2a", "opencode":
	default:
		errs = append(errs, fmt.Errorf("backend %q is not known; use langgraph, rest, events, a2a or opencode", s.Backend))
	}
	if s.Notify == "" {
		s.Notify = "desktop"
		if !s.Bell {
			s.Notify = "off" // bell: false, from before notify: existed
		}
	}
	switch s.Notify {
	case "off", "bell", "desktop":
	default:
		errs = append(errs, fmt.Errorf("notify %q is not known; use off, bell or desktop", s.Notify))
	}
	switch s.Theme {
	case "auto", "light", "dark":
	default:
		errs = append(errs, fmt.Errorf("theme %q is not known; use auto, light or dark", s.Theme))
	}
	switch s.EditDialect {
	case "edited_action", "edited_args":
	default:
		errs = append(errs, fmt.Errorf("edit_dialect %q is not known; use edited_action or edited_args", s.EditDialect))
	}
	// The key: HITL_API_KEY, then the profile's own variable or key, then the
	// variables the official SDKs read, in the SDKs' order.
	s.APIKey = first(getenv("HITL_API_KEY"), envOf(getenv, p.APIKeyEnv), p.APIKey,
		getenv("LANGGRAPH_API_KEY"), getenv("LANGSMITH_API_KEY"), getenv("LANGCHAIN_API_KEY"))
	s.BearerToken = first(getenv("HITL_BEARER_TOKEN"), envOf(getenv, p.BearerTokenEnv), p.BearerToken)
	for k, v := range p.Headers {
		s.Headers[k] = v
	}
	for _, h := range o.Headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			// Without a colon, hitl cannot tell the name from the value: show
			// only the first word, the rest may be a credential.
			shown, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
			if rest != "" {
				shown += " …"
			}
			errs = append(errs, fmt.Errorf("--header %q: write it as \"Name: value\"", shown))
			continue
		}
		s.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if len(errs) == 1 {
		return nil, errs[0]
	}
	if len(errs) > 1 {
		lines := make([]string, len(errs))
		for i, e := range errs {
			lines[i] = "  - " + e.Error()
		}
		return nil, fmt.Errorf("%d settings are wrong:\n%s", len(errs), strings.Join(lines, "\n"))
	}
	return s, nil
}

// lookEvery is the look rate in force: $HITL_LOOK_EVERY, else the
// profile's look_every (0: not set), else DefaultLookEvery; below
// MinLookEvery is refused.
func lookEvery(env string, file time.Duration) (time.Duration, error) {
	d, from := file, "look_every"
	if env != "" {
		var err error
		if d, err = time.ParseDuration(env); err != nil {
			return 0, fmt.Errorf("HITL_LOOK_EVERY %q is not a duration (write it like 200ms or 1s)", env)
		}
		from = "HITL_LOOK_EVERY"
	} else if d == 0 {
		return DefaultLookEvery, nil
	}
	if d < MinLookEvery {
		return 0, fmt.Errorf("%s %s is too short: looks at the server come at most every %s (the default is %s)", from, d, MinLookEvery, DefaultLookEvery)
	}
	return d, nil
}

func envOf(getenv func(string) string, name string) string {
	if name == "" {
		return ""
	}
	return getenv(name)
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// Redacted describes s for `hitl config show`, with secrets hidden.
func (s *Settings) Redacted() map[string]any {
	headers := map[string]string{}
	for k, v := range s.Headers {
		headers[k] = redactHeader(k, v)
	}
	return map[string]any{
		"profile":       s.ProfileName,
		"backend":       s.Backend,
		"url":           redact.URL(s.URL),
		"api_key":       hidden(s.APIKey),
		"bearer_token":  hidden(s.BearerToken),
		"headers":       headers,
		"graph":         s.Graph,
		"assistant":     s.Assistant,
		"metadata":      s.Metadata,
		"poll_interval": s.PollInterval.String(),
		"look_every":    s.LookEvery.String(),
		"timeout":       s.Timeout.String(),
		"reviewer":      s.Reviewer,
		"edit_dialect":  s.EditDialect,
		"notify":        s.Notify,
		"theme":         s.Theme,
		"config_file":   s.ConfigFile,
		"state_dir":     s.StateDir,
		"tasks":         s.Tasks,
		"langgraph_url": redact.URL(s.LangGraphURL),
	}
}

func hidden(v string) string {
	if v == "" {
		return ""
	}
	return "(set, hidden)"
}

// Credentials are the values of the settings that are credentials: the API
// key, the bearer token, the values of headers named like credentials (and
// the credential of "Bearer xyz"), and a password, token or credential
// parameter in the URL. hitl hides them in everything it prints.
func (s *Settings) Credentials() []string {
	out := []string{s.APIKey, s.BearerToken}
	for k, v := range s.Headers {
		if credentialHeader(k) {
			out = append(out, v)
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				out = append(out, strings.TrimSpace(cred))
			}
		}
	}
	if u, err := url.Parse(s.URL); err == nil {
		if u.User != nil {
			if pw, ok := u.User.Password(); ok {
				out = append(out, pw)
			} else {
				out = append(out, u.User.Username()) // https://TOKEN@host
			}
		}
		for k, vs := range u.Query() {
			if redact.CredentialParam(k) {
				out = append(out, vs...)
			}
		}
	}
	return out
}

// credentialHeader reports whether a header's name says it holds a credential.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"auth", "key", "token", "secret", "cookie", "password"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// redactHeader hides header values that look like credentials.
func redactHeader(name, v string) string {
	if credentialHeader(name) {
		return hidden(v)
	}
	return v
}

// osUser is the login name, for a reviewer name when nothing else gives one.
func osUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

var notFound = regexp.MustCompile(`field (\S+) not found in type (?:config|team)\.(\w+)`)

// yamlMessage says a YAML error in the config's words, not Go's.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	msg = notFound.ReplaceAllStringFunc(msg, func(m string) string {
		sub := notFound.FindStringSubmatch(m)
		where := "at the top level"
		switch sub[2] {
		case "Profile":
			where = "in a profile"
		case "Config":
			where = "in team"
		case "Reviewer", "Publisher", "Rule":
			where = "in a team " + strings.ToLower(sub[2])
		}
		return fmt.Sprintf("unknown setting %q %s (hitl help config shows them; docs/config.md lists them all)", sub[1], where)
	})
	return strings.TrimSpace(strings.ReplaceAll(msg, "\n  ", "; "))
}
