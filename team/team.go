// Package team is the team of a shared inbox (`hitl serve`): who may look
// and who may decide (reviewers, known by their SSH keys or a token), who may
// publish interrupts (publishers, known by a token), and which tools need
// more than one approver (rules). It is the config file's `team:` section:
//
//	team:
//	  reviewers:
//	    alice: {keys: ["ssh-ed25519 AAAA… alice@laptop"], role: approver}
//	    carol: {keys: ["ssh-ed25519 AAAA…"], role: viewer, token_env: CAROL_TOKEN}
//	  publishers:
//	    billing-agent: {token_env: BILLING_TOKEN}
//	  rules:
//	    - tools: ["transfer_funds", "delete_*"]
//	      approvals: 2
//
// A name always comes from what authenticated (a key, a token), never from
// what a session says. Tokens are secrets: nothing here prints one (see
// Secrets, for the redactor), and ByToken compares in constant time.
package team

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"os"
	"sort"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// Role is what a reviewer may do.
type Role string

const (
	// Approver sees everything and decides.
	Approver Role = "approver"
	// Viewer sees everything and decides nothing.
	Viewer Role = "viewer"
)

// CanDecide reports whether the role may send or approve a decision.
func (r Role) CanDecide() bool { return r == Approver }

// Config is the team: the config file's `team:` section.
type Config struct {
	Reviewers  map[string]Reviewer  `yaml:"reviewers"`
	Publishers map[string]Publisher `yaml:"publishers"`
	Rules      []Rule               `yaml:"rules"`

	// Getenv reads the variables token_env names; nil: the process's
	// environment.
	Getenv func(string) string `yaml:"-"`
}

// Reviewer is one person of the team.
type Reviewer struct {
	// Keys are SSH public keys in authorized_keys form
	// ("ssh-ed25519 AAAA… comment").
	Keys []string `yaml:"keys"`
	// Token (or the variable TokenEnv names, preferred) authenticates the
	// reviewer to the hub's HTTP endpoint.
	Token    string `yaml:"token"`
	TokenEnv string `yaml:"token_env"`
	Role     Role   `yaml:"role"`
}

// Publisher is an agent (or its coordinator) that may publish interrupts
// to the hub.
type Publisher struct {
	Token    string `yaml:"token"`
	TokenEnv string `yaml:"token_env"`
}

// Rule asks for more than one approver for the tools it names.
type Rule struct {
	// Tools are tool (action) names; '*' stands for any run of characters,
	// '?' for one.
	Tools []string `yaml:"tools"`
	// Approvals is how many distinct approvers must approve the same
	// decision before it is sent.
	Approvals int `yaml:"approvals"`
}

// Kind says which part of the team a principal is.
type Kind string

const (
	KindReviewer  Kind = "reviewer"
	KindPublisher Kind = "publisher"
)

// Principal is who a token belongs to.
type Principal struct {
	Name string
	Kind Kind
	// Role is the reviewer's role; empty for a publisher.
	Role Role
}

// Empty reports whether the config names nobody.
func (c *Config) Empty() bool {
	return c == nil || (len(c.Reviewers) == 0 && len(c.Publishers) == 0)
}

func (c *Config) getenv(name string) string {
	if name == "" {
		return ""
	}
	if c.Getenv != nil {
		return c.Getenv(name)
	}
	return os.Getenv(name)
}

// secret is the token in force: the variable's value, else the inline one.
func (c *Config) secret(inline, env string) string {
	if env != "" {
		return c.getenv(env)
	}
	return inline
}

// ByKey finds the reviewer whose keys include key.
func (c *Config) ByKey(key gossh.PublicKey) (string, Reviewer, bool) {
	if c == nil || key == nil {
		return "", Reviewer{}, false
	}
	want := key.Marshal()
	for _, name := range c.reviewerNames() {
		r := c.Reviewers[name]
		for _, k := range r.Keys {
			pk, err := parseKey(k)
			if err == nil && bytes.Equal(pk.Marshal(), want) {
				return name, r, true
			}
		}
	}
	return "", Reviewer{}, false
}

// ByToken finds the reviewer or publisher whose token is token. Every
// token is compared, in constant time, whatever matches first.
func (c *Config) ByToken(token string) (Principal, bool) {
	if c == nil || token == "" {
		return Principal{}, false
	}
	var found Principal
	ok := false
	check := func(p Principal, secret string) {
		if secret == "" {
			return
		}
		if subtle.ConstantTimeCompare([]byte(secret), []byte(token)) == 1 && !ok {
			found, ok = p, true
		}
	}
	for _, name := range c.reviewerNames() {
		r := c.Reviewers[name]
		check(Principal{Name: name, Kind: KindReviewer, Role: r.Role}, c.secret(r.Token, r.TokenEnv))
	}
	for _, name := range c.publisherNames() {
		p := c.Publishers[name]
		check(Principal{Name: name, Kind: KindPublisher}, c.secret(p.Token, p.TokenEnv))
	}
	return found, ok
}

// RuleFor is the rule for a tool: of the rules whose globs match it, the one
// asking for the most approvals. ok false: one approver decides.
func (c *Config) RuleFor(tool string) (Rule, bool) {
	if c == nil {
		return Rule{}, false
	}
	var best Rule
	ok := false
	for _, r := range c.Rules {
		for _, g := range r.Tools {
			if Glob(g, tool) && (!ok || r.Approvals > best.Approvals) {
				best, ok = r, true
			}
		}
	}
	if ok && best.Approvals <= 1 {
		return best, false
	}
	return best, ok
}

// MayDecide reports whether name is a reviewer of the team whose role
// decides (an approver).
func (c *Config) MayDecide(name string) bool {
	if c == nil {
		return false
	}
	r, ok := c.Reviewers[name]
	return ok && r.Role.CanDecide()
}

// Approvers are the names of the reviewers who may decide, sorted.
func (c *Config) Approvers() []string {
	var out []string
	for _, n := range c.reviewerNames() {
		if c.Reviewers[n].Role.CanDecide() {
			out = append(out, n)
		}
	}
	return out
}

// Secrets are the tokens in force, for the redactor: none of them is ever
// printed.
func (c *Config) Secrets() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, r := range c.Reviewers {
		if s := c.secret(r.Token, r.TokenEnv); s != "" {
			out = append(out, s)
		}
	}
	for _, p := range c.Publishers {
		if s := c.secret(p.Token, p.TokenEnv); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// InlineTokens names the principals whose token is written in the file
// itself (the config's permissions then matter).
func (c *Config) InlineTokens() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, n := range c.reviewerNames() {
		if c.Reviewers[n].Token != "" {
			out = append(out, "team reviewer "+n)
		}
	}
	for _, n := range c.publisherNames() {
		if c.Publishers[n].Token != "" {
			out = append(out, "team publisher "+n)
		}
	}
	return out
}

// MinToken is the shortest token accepted: a shorter one can be guessed.
const MinToken = 16

// Check lists every problem of the config at once, each saying what to
// write instead; none when it can be served. It never quotes a token.
func (c *Config) Check() []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Empty() {
		bad("team: no reviewers: add a team: section with reviewers (their SSH keys and role: approver or viewer) to the config file")
		return errs
	}
	keyOwner := map[string]string{}
	tokenOwner := map[string]string{}
	token := func(who, inline, env string) {
		if inline != "" && env != "" {
			bad("%s: give token or token_env, not both", who)
		}
		s := c.secret(inline, env)
		if env != "" && s == "" {
			bad("%s: token_env names %s, which is not set in the environment", who, env)
		}
		if s == "" {
			return
		}
		if len(s) < MinToken {
			bad("%s: the token is shorter than %d characters: make a longer one (openssl rand -hex 32)", who, MinToken)
		}
		if other, dup := tokenOwner[s]; dup {
			bad("%s: has the same token as %s: give each its own", who, other)
		} else {
			tokenOwner[s] = who
		}
	}
	if len(c.Reviewers) == 0 {
		bad("team: no reviewers: nobody can open the inbox")
	}
	for _, name := range c.reviewerNames() {
		r := c.Reviewers[name]
		who := "team reviewer " + name
		if err := checkName(name); err != "" {
			bad("%s: %s", who, err)
		}
		switch r.Role {
		case Approver, Viewer:
		case "":
			bad("%s: no role: write role: approver (decides) or role: viewer (only looks)", who)
		default:
			bad("%s: role %q is not known: write approver or viewer", who, string(r.Role))
		}
		if len(r.Keys) == 0 && r.Token == "" && r.TokenEnv == "" {
			bad("%s: no keys and no token: add the reviewer's SSH public key (the line of ~/.ssh/id_ed25519.pub)", who)
		}
		for i, k := range r.Keys {
			pk, err := parseKey(k)
			if err != nil {
				bad("%s: key %d is not an SSH public key (%v): paste the whole line of the .pub file", who, i+1, err)
				continue
			}
			id := string(pk.Marshal())
			if other, dup := keyOwner[id]; dup && other != name {
				bad("%s: key %d (%s) is also %s's: a key names one reviewer", who, i+1, gossh.FingerprintSHA256(pk), other)
			} else {
				keyOwner[id] = name
			}
		}
		token(who, r.Token, r.TokenEnv)
	}
	for _, name := range c.publisherNames() {
		p := c.Publishers[name]
		who := "team publisher " + name
		if err := checkName(name); err != "" {
			bad("%s: %s", who, err)
		}
		if _, clash := c.Reviewers[name]; clash {
			bad("%s: is also a reviewer's name: give it another", who)
		}
		if p.Token == "" && p.TokenEnv == "" {
			bad("%s: no token: set token_env to a variable holding one", who)
		}
		token(who, p.Token, p.TokenEnv)
	}
	approvers := len(c.Approvers())
	for i, r := range c.Rules {
		who := fmt.Sprintf("team rule %d", i+1)
		if len(r.Tools) == 0 {
			bad("%s: no tools: list the tool names it covers (tools: [\"transfer_funds\", \"delete_*\"])", who)
		}
		for _, g := range r.Tools {
			if strings.TrimSpace(g) == "" {
				bad("%s: an empty tool name", who)
			}
		}
		switch {
		case r.Approvals < 1:
			bad("%s: approvals must be 1 or more (2 for a two-person rule)", who)
		case r.Approvals > approvers:
			bad("%s: asks for %d approvals but the team has %d approver(s): it could never be met", who, r.Approvals, approvers)
		}
	}
	return errs
}

// checkName refuses names that would be ambiguous or unsafe in metadata,
// logs and on screen.
func checkName(name string) string {
	if name == "" {
		return "an empty name"
	}
	if len(name) > 64 {
		return "a name longer than 64 characters"
	}
	if strings.HasPrefix(name, ".") {
		return "a name may not start with a dot"
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._@-", r)) {
			return "a name may hold only letters, digits and . _ @ -"
		}
	}
	return ""
}

func parseKey(line string) (gossh.PublicKey, error) {
	pk, _, _, _, err := gossh.ParseAuthorizedKey([]byte(strings.TrimSpace(line)))
	return pk, err
}

func (c *Config) reviewerNames() []string { return sortedKeys(c.Reviewers) }

func (c *Config) publisherNames() []string { return sortedKeys(c.Publishers) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Glob reports whether name matches pattern, where '*' stands for any run
// of characters (slashes too) and '?' for one character.
func Glob(pattern, name string) bool {
	p, n := []rune(pattern), []rune(name)
	// Iterative matching with one backtrack point (the last star).
	pi, ni, star, mark := 0, 0, -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
