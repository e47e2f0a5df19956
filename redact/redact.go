// Package redact hides credentials in text that hitl prints or stores: the
// userinfo of URLs, query parameters that look like credentials, and the
// secret values the user configured. It imports nothing of the project, so
// that config (which shows URLs) and the transport (which makes errors) share
// one rule.
package redact

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Mark stands where something was hidden.
const Mark = "[redacted]"

// minSecret is the shortest configured value hunted for in text: replacing
// every "1" or "eu" would garble messages, and a value that short protects
// nothing anyway.
const minSecret = 4

// URL returns raw with its userinfo and its credential-looking query and
// fragment parameters replaced by Mark; the rest stays as written, so the
// result still says which server is meant. A string that is not a URL with
// an authority (a typo, a missing scheme) is read with suspicion: everything
// before its last '@' counts as userinfo.
func URL(raw string) string {
	head, tail := raw, ""
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		head, tail = raw[:i], raw[i:]
	}
	start := 0
	if i := strings.Index(head, "://"); i >= 0 {
		start = i + 3
	} else if strings.HasPrefix(head, "//") {
		start = 2
	}
	authority := head[start:]
	if u, err := url.Parse(raw); err == nil && start > 0 && u.Host != "" {
		// A well-formed URL: only the authority can hold userinfo, and a
		// path may contain '@' of its own.
		if u.User == nil {
			authority = ""
		} else if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority = authority[:i]
		}
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		head = head[:start] + Mark + head[start+at:]
	}
	return head + params(tail)
}

// params redacts the credential parameters of a "?query#fragment" tail (an
// OAuth implicit flow puts access_token in the fragment).
func params(tail string) string {
	if tail == "" {
		return ""
	}
	var b strings.Builder
	for tail != "" {
		b.WriteByte(tail[0]) // '?' or '#'
		part := tail[1:]
		tail = ""
		if tail0 := strings.IndexByte(part, '#'); tail0 >= 0 {
			part, tail = part[:tail0], part[tail0:]
		}
		fields := strings.Split(part, "&")
		for i, f := range fields {
			if name, _, ok := strings.Cut(f, "="); ok && CredentialParam(name) {
				fields[i] = name + "=" + Mark
			}
		}
		b.WriteString(strings.Join(fields, "&"))
	}
	return b.String()
}

// CredentialParam reports whether a query parameter's name says that its
// value is a credential: token, access_token, api_key, apikey, key, password,
// secret, sig, signature, X-Amz-Security-Token and the like (any case, with
// or without separators).
func CredentialParam(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	n := strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "", " ", "").Replace(name))
	switch n {
	case "key", "sig", "pwd", "pass", "auth", "jwt", "session", "code":
		return true
	}
	for _, s := range []string{"token", "secret", "password", "passwd", "signature", "apikey", "accesskey",
		"secretkey", "privatekey", "credential", "credentials", "sessionid", "authorization"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// urlInText finds URLs in running text: a scheme, "://", and everything up
// to a space or a quote (Go's errors quote the URLs they name).
var urlInText = regexp.MustCompile("(?i)[a-z][a-z0-9+.-]*://[^\\s\"'<>`]+")

// Text redacts every URL found in s (see URL), and credential parameters of
// paths and query strings shown without their server.
func Text(s string) string {
	return (*Redactor)(nil).String(s)
}

// Redactor hides the configured secrets wherever they appear, on top of what
// Text hides. The zero value and nil hide what Text hides.
type Redactor struct {
	secrets []string // longest first, so that no tail of one survives another
}

// New builds a Redactor for these secret values (API keys, tokens, header
// values, passwords). Empty and very short values are ignored; the
// percent-encoded form of each is hidden too, since servers echo URLs.
func New(secrets ...string) *Redactor {
	seen := map[string]bool{}
	r := &Redactor{}
	for _, s := range secrets {
		for _, v := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
			if len(v) >= minSecret && !seen[v] {
				seen[v] = true
				r.secrets = append(r.secrets, v)
			}
		}
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// Values returns s with the configured secret values (and their
// percent-encoded forms) replaced by Mark, and nothing else changed: for
// text shown as it is, such as a payload, where rewriting every URL would
// show the reviewer something other than what it holds.
func (r *Redactor) Values(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.secrets {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mark)
		}
	}
	return s
}

// String returns s with the secrets, URL userinfo and credential parameters
// replaced by Mark.
func (r *Redactor) String(s string) string {
	s = r.Values(s)
	s = urlInText.ReplaceAllStringFunc(s, func(u string) string {
		// Sentence punctuation after a URL is not part of it (a ']' is: an
		// IPv6 host, or a value already hidden).
		trimmed := strings.TrimRight(u, ".,;:!)}")
		return URL(trimmed) + u[len(trimmed):]
	})
	// A path echoed without its server ("GET /threads?api_key=…").
	return paramInText.ReplaceAllStringFunc(s, func(p string) string {
		name, value, _ := strings.Cut(p[1:], "=")
		if !CredentialParam(name) {
			return p
		}
		// As for URLs: sentence punctuation after the value is not part of it.
		trimmed := strings.TrimRight(value, ".,;:!")
		return p[:1] + name + "=" + Mark + value[len(trimmed):]
	})
}

// paramInText is one parameter of a query or fragment: ?name=value,
// &name=value or #name=value; a closing bracket ends it (prose around it),
// and a value already hidden is taken whole, so that hiding twice is hiding
// once.
var paramInText = regexp.MustCompile("[?&#][A-Za-z0-9_.%-]+=(?:" + regexp.QuoteMeta(Mark) + "|[^&#\\s\"'<>`)\\]}]*)")
