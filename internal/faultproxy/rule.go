package faultproxy

import (
	"net/http"
	"net/url"
	"strings"
)

// Rule says which requests get a Fault.
//
// A request matches when its method is Method (any method if empty), its
// path matches Path, and Body (if set) returns true for its body. Rules are
// tried in the order they were injected; the first matching rule that has
// uses left applies, and each request gets at most one fault.
type Rule struct {
	// Method is the HTTP method ("POST"); empty matches any.
	Method string
	// Path is a pattern of slash-separated segments matched against the
	// request's path (never its query): "*" matches exactly one non-empty
	// segment, anything else must equal the segment (after unescaping).
	// "/threads/*/runs" matches /threads/42/runs but neither /threads/42/runs/wait
	// nor /threads/42/runs/. Empty matches any path; otherwise it must begin
	// with "/".
	Path string
	// Body, if set, must return true for the request's body. It is called
	// with the proxy's own copy, which it must not modify or keep, and
	// without any lock held.
	Body func(body []byte) bool
	// Times is how many matching requests the rule applies to; after that
	// they pass through untouched. 0: every matching request.
	Times int
	// Fault is what happens to a request the rule applies to.
	Fault Fault
}

// rule is an injected Rule and the uses it has left.
type rule struct {
	Rule
	segs []string // Path split on "/"; nil: any path
	left int      // < 0: without limit
}

func newRule(r Rule) *rule {
	if r.Path != "" && !strings.HasPrefix(r.Path, "/") {
		panic("faultproxy: Rule.Path must be empty or begin with \"/\": " + r.Path)
	}
	n := &rule{Rule: r, left: r.Times}
	if r.Times <= 0 {
		n.left = -1
	}
	if r.Path != "" {
		n.segs = strings.Split(r.Path, "/")
	}
	return n
}

// matches reports whether req (whose body is body) matches the rule,
// regardless of the uses it has left.
func (r *rule) matches(req *http.Request, body []byte) bool {
	if r.Method != "" && !strings.EqualFold(r.Method, req.Method) {
		return false
	}
	if r.segs != nil && !matchPath(r.segs, req.URL.EscapedPath()) {
		return false
	}
	return r.Body == nil || r.Body(body)
}

func matchPath(pattern []string, path string) bool {
	segs := strings.Split(path, "/")
	if len(segs) != len(pattern) {
		return false
	}
	for i, p := range pattern {
		s := segs[i]
		if p == "*" {
			if s == "" {
				return false
			}
			continue
		}
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		if s != p {
			return false
		}
	}
	return true
}
