// Package transport is the HTTP plumbing every backend shares: clients for
// reads (retried with backoff) and for decisions (never retried), auth
// headers sent to the configured server only, body limits, and errors that
// say what to do next without ever showing a secret.
package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-resty/resty/v2"
	sse "github.com/tmaxmax/go-sse"

	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/redact"
)

// MaxBody bounds what one answer may weigh: a hostile or broken server
// cannot make hitl read without end.
const MaxBody = 64 << 20

// Options configure a Conn.
type Options struct {
	URL         string
	APIKey      string // sent as X-Api-Key
	BearerToken string // sent as Authorization: Bearer
	Headers     map[string]string
	Timeout     time.Duration // each request; default 30s
	// Long bounds requests that wait on purpose (joining a run, streams).
	Long               time.Duration
	InsecureSkipVerify bool
	// ReadRetries is how often a failed read is retried, with backoff
	// (0: the default, 3; negative: never).
	ReadRetries int
	// Hint is added to a refused connection: what the user should start.
	Hint string
}

// Conn is a server reached over HTTP.
type Conn struct {
	opts     Options
	server   string
	origin   string // scheme://host:port of opts.URL: the only place credentials go
	redactor *redact.Redactor
	// stream is the client Watch uses: the profile's TLS setting and the
	// redirect policy of the other clients, no overall timeout.
	stream *http.Client
	// Reads are retried with backoff on transport errors, 429 and 5xx.
	Reads *resty.Client
	// Writes are never retried: a decision is sent once.
	Writes *resty.Client
	// Long waits as long as a run may take.
	Long *resty.Client
}

// New checks the URL and builds the clients.
func New(opts Options) (*Conn, error) {
	r := redact.New(secrets(opts)...)
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not a server URL: write it like http://127.0.0.1:2024", r.String(redact.URL(opts.URL)))
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Long <= 0 {
		opts.Long = 60 * time.Second
	}
	if opts.ReadRetries == 0 {
		opts.ReadRetries = 3
	}
	c := &Conn{opts: opts, redactor: r, origin: origin(u)}
	c.server = c.Redact(redactURL(u))
	// One transport for every request, so that the profile's TLS setting
	// reaches all of them, streams included.
	base := http.DefaultTransport.(*http.Transport).Clone()
	if opts.InsecureSkipVerify {
		base.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user asked for it in the profile
	}
	// Cookies (an auth proxy's session) go back only to the configured
	// origin, since no request leaves it: no public suffix list is needed.
	inner, _ := cookiejar.New(nil)
	jar := &givenJar{Jar: inner}
	stream := base.Clone()
	// A stream has no overall timeout (it lasts), but its answer must start
	// in time.
	stream.ResponseHeaderTimeout = opts.Timeout
	c.stream = &http.Client{Transport: stream, Jar: jar, CheckRedirect: c.checkStreamRedirect}
	newClient := func() *resty.Client {
		return c.newClient(&http.Client{Transport: base, Jar: jar, CheckRedirect: c.checkRedirect})
	}
	c.Reads = newClient().
		SetRetryCount(max(opts.ReadRetries, 0)).
		SetRetryWaitTime(200 * time.Millisecond).
		SetRetryMaxWaitTime(3 * time.Second).
		AddRetryCondition(func(r *resty.Response, err error) bool {
			if err != nil {
				var rerr *redirectError
				return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &rerr)
			}
			return r.StatusCode() == http.StatusTooManyRequests || r.StatusCode() >= 500
		})
	c.Writes = newClient()
	c.Long = newClient().SetTimeout(opts.Long)
	return c, nil
}

// givenJar is a cookie jar that knows whether it was ever given a cookie:
// until then it answers that it has none without looking (a watcher asks
// it five times a second, and most servers set no cookie).
type givenJar struct {
	*cookiejar.Jar
	given atomic.Bool
}

func (j *givenJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	if len(cookies) > 0 {
		j.given.Store(true)
	}
	j.Jar.SetCookies(u, cookies)
}

func (j *givenJar) Cookies(u *url.URL) []*http.Cookie {
	if !j.given.Load() {
		return nil
	}
	return j.Jar.Cookies(u)
}

// secrets are the values of opts that must never be shown: the API key, the
// bearer token, every extra header's value (hitl cannot tell a tenant name
// from a token, so it hides both), and a password or token in the URL.
func secrets(opts Options) []string {
	out := []string{opts.APIKey, opts.BearerToken}
	for _, v := range opts.Headers {
		out = append(out, v)
		// "Bearer xyz", "Basic xyz": a server may echo the credential alone.
		if scheme, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
			switch strings.ToLower(scheme) {
			case "bearer", "basic", "token", "digest", "apikey":
				out = append(out, strings.TrimSpace(cred))
			}
		}
	}
	u, err := url.Parse(opts.URL)
	if err != nil {
		return out
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw, u.User.String())
		} else {
			// https://TOKEN@host: the user name is the credential.
			out = append(out, u.User.Username())
		}
	}
	for k, vs := range u.Query() {
		if redact.CredentialParam(k) {
			out = append(out, vs...)
		}
	}
	return out
}

// origin is scheme://host:port, with the scheme's default port written out,
// so that http://h and http://h:80 are the same place.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// checkRedirect follows redirects within the configured origin only (with
// the credentials: same server). A redirect to another origin is refused
// rather than followed without credentials, because
//   - the request may be a decision, and a 307/308 carries its body (the exact
//     resume value) along: it must not reach a server the user never named;
//   - credentials hide in more places than headers hitl knows to strip (the
//     URL's userinfo, cookies, a header the user added for a proxy);
//   - followed without credentials, the other server would answer 401 and
//     the user would be told the configured server refused the key.
//
// The error names the target (redacted) and says to change the URL.
func (c *Conn) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if origin(req.URL) != c.origin {
		return &redirectError{from: c.server, to: c.Redact(redact.URL(req.URL.String()))}
	}
	return nil
}

// checkStreamRedirect is checkRedirect for streams: the event-stream client
// retries connection errors without end, so a redirect elsewhere is handed
// back as the 3xx answer instead, and Watch gives up on the stream (the
// caller's polling then reports the refusal).
func (c *Conn) checkStreamRedirect(req *http.Request, via []*http.Request) error {
	if err := c.checkRedirect(req, via); err != nil {
		return http.ErrUseLastResponse
	}
	return nil
}

// redirectError is a redirect to another origin, refused.
type redirectError struct{ from, to string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server at %s redirected to %s, which is not the configured server (scheme, host and port must match): hitl sends credentials and decisions only there; if the server moved, set --url (or url in the profile) to its new address", e.from, e.to)
}

func (c *Conn) newClient(hc *http.Client) *resty.Client {
	r := resty.NewWithClient(hc).
		SetBaseURL(strings.TrimRight(c.opts.URL, "/")).
		SetTimeout(c.opts.Timeout).
		SetResponseBodyLimit(MaxBody).
		SetHeader("Accept", "application/json").
		SetHeader("User-Agent", "hitl").
		SetLogger(quietLogger{})
	for k, v := range c.opts.Headers {
		r.SetHeader(k, v)
	}
	if c.opts.APIKey != "" {
		r.SetHeader("X-Api-Key", c.opts.APIKey)
	}
	if c.opts.BearerToken != "" {
		r.SetAuthToken(c.opts.BearerToken)
	}
	return r
}

// Server is the server's URL, without any credentials it carried.
func (c *Conn) Server() string { return c.server }

// HTTPClient is the client for streams (a run's events): the profile's TLS
// setting, credentials to the configured origin only, no overall timeout.
// Requests made with it take their headers from Header.
func (c *Conn) HTTPClient() *http.Client { return c.stream }

// Redact hides, in s, the secrets this Conn was configured with, URL
// userinfo and credential-looking URL parameters. Every error of the
// package has been through it; callers use it for text of their own.
func (c *Conn) Redact(s string) string { return c.redactor.String(s) }

// Header applies the auth and extra headers to a request made by hand.
func (c *Conn) Header(h http.Header) {
	for k, v := range c.opts.Headers {
		h.Set(k, v)
	}
	if c.opts.APIKey != "" {
		h.Set("X-Api-Key", c.opts.APIKey)
	}
	if c.opts.BearerToken != "" {
		h.Set("Authorization", "Bearer "+c.opts.BearerToken)
	}
}

// IsRefused reports whether err is a refused connection (certainly not sent).
func IsRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// Decoder is a value that decodes an answer itself: one item at a time,
// so that an item too deep or malformed is one item in error rather than
// the whole answer refused (encoding/json refuses a document whole).
type Decoder interface {
	DecodeJSON(body []byte) error
}

// Check turns a transport error or a non-2xx answer into an error that says
// what to do, and decodes a 2xx JSON answer into into. The error's text has
// been through Redact: a server that echoes the key does not get it shown.
func (b *Conn) Check(resp *resty.Response, err error, what string, into any) error {
	if err := b.check(resp, err, what, into); err != nil {
		return errors.New(b.Redact(err.Error()))
	}
	return nil
}

func (b *Conn) check(resp *resty.Response, err error, what string, into any) error {
	if err != nil {
		return b.transportError(err, what)
	}
	if resp == nil {
		return fmt.Errorf("%s: no answer from %s", what, b.server)
	}
	code := resp.StatusCode()
	body := resp.Body()
	switch {
	case code == http.StatusForbidden && len(bytes.TrimSpace(body)) > 0:
		// The credentials were taken, and do not allow this (a viewer's
		// token deciding, a publisher's reading): the server says why.
		return fmt.Errorf("%s: the server at %s refused (HTTP 403): %s", what, b.server, serverMessage(body))
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("%s: the server at %s refused the credentials (HTTP %d): set an API key with HITL_API_KEY (or api_key_env in the profile), or a bearer token", what, b.server, code)
	case code == http.StatusNotFound:
		return fmt.Errorf("%s: not found on %s (HTTP 404): %s", what, b.server, serverMessage(body))
	case code >= 300:
		return fmt.Errorf("%s: the server at %s answered HTTP %d: %s", what, b.server, code, serverMessage(body))
	}
	if into == nil {
		return nil
	}
	decode := json.Unmarshal
	if d, ok := into.(Decoder); ok {
		decode = func(b []byte, _ any) error { return d.DecodeJSON(b) }
	}
	if err := decode(body, into); err != nil {
		ct := resp.Header().Get("Content-Type")
		return fmt.Errorf("%s: the server at %s answered with something that is not the expected JSON (%s, %d bytes): %v; is --url pointing at the right server?", what, b.server, inert.Line(orUnknown(ct)), len(body), err)
	}
	return nil
}

func (b *Conn) transportError(err error, what string) error {
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s: the server at %s refused the connection: %s (set --url or HITL_URL)", what, b.server, b.hint())
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the connection to %s broke before an answer came (if this keeps happening, is something else listening there? set --url or HITL_URL)", what, b.server)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: cancelled", what)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return fmt.Errorf("%s: the server at %s did not answer in time: is it overloaded or unreachable?", what, b.server)
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return fmt.Errorf("%s: %s speaks plain HTTP, not HTTPS: use http:// in --url (or HITL_URL)", what, b.server)
	case strings.Contains(err.Error(), "tls: first record does not look like a TLS handshake"):
		return fmt.Errorf("%s: %s does not speak HTTPS: use http:// in --url (or HITL_URL) if the server is plain HTTP", what, b.server)
	case strings.Contains(err.Error(), "response body size limit"):
		return fmt.Errorf("%s: the answer of %s is larger than %d MiB; narrow the listing with --graph or --assistant", what, b.server, MaxBody>>20)
	}
	var rerr *redirectError
	if errors.As(err, &rerr) {
		return fmt.Errorf("%s: %v", what, rerr)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Errorf("%s: cannot resolve the host of %s: check --url", what, b.server)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		// url.Error repeats the URL, which may carry credentials: keep the cause only.
		return fmt.Errorf("%s: cannot reach %s: %v", what, b.server, uerr.Err)
	}
	return fmt.Errorf("%s: cannot reach %s: %v", what, b.server, err)
}

// serverMessage extracts a readable message from an error body (JSON with
// "message"/"detail"/"error", or plain text), bounded in length and inert:
// an error goes to terminals, logs and the audit log, and the server's
// bytes in it must not act on any of them.
func serverMessage(body []byte) string {
	return inert.Line(message(body))
}

func message(body []byte) string {
	var e map[string]any
	if json.Unmarshal(body, &e) == nil {
		for _, k := range []string{"message", "detail", "error"} {
			if s, ok := e[k].(string); ok && s != "" {
				return clip(s)
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "(empty answer)"
	}
	if text, ok := htmlText(s); ok {
		// A web page (a proxy, a web server, the wrong port): its words,
		// not its markup, and what that likely means.
		return "a web page, not the API's JSON (is --url the server's API?): " + clip(text)
	}
	return clip(s)
}

// htmlText is the text of an HTML page, tags dropped and spaces collapsed.
func htmlText(s string) (string, bool) {
	head := strings.ToLower(s[:min(len(s), 200)])
	if !strings.HasPrefix(head, "<!doctype html") && !strings.HasPrefix(head, "<html") && !strings.Contains(head, "<head") {
		return "", false
	}
	var b strings.Builder
	in, skip := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '<':
			in = true
			tag := strings.ToLower(s[i+1 : min(len(s), i+8)])
			switch {
			case strings.HasPrefix(tag, "style"), strings.HasPrefix(tag, "script"):
				skip = true
			case strings.HasPrefix(tag, "/style"), strings.HasPrefix(tag, "/script"):
				skip = false
			}
			b.WriteByte(' ')
		case c == '>' && in:
			in = false
		case !in && !skip:
			b.WriteByte(c)
		}
	}
	text := strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
	if text == "" {
		text = "(no text)"
	}
	return text, true
}

func clip(s string) string {
	const n = 300
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "no content type"
	}
	return s
}

func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	return strings.TrimRight(c.String(), "/")
}

// quietLogger keeps resty from printing to the terminal: errors reach the
// user through the returned error, once.
type quietLogger struct{}

func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Warnf(string, ...any)  {}
func (quietLogger) Debugf(string, ...any) {}

func (b *Conn) hint() string {
	if b.opts.Hint != "" {
		return b.opts.Hint
	}
	return "is it running?"
}

// errNoStream is a server that offers no event stream at that path.
var errNoStream = errors.New("no event stream")

// Watch follows the Server-Sent Events stream at path and signals on the
// returned channel whenever an event of one of the given types arrives. It
// reconnects with backoff, sending Last-Event-ID, until ctx ends; when the
// server has no such stream (404, not text/event-stream, or a redirect to
// another server) it gives up and closes the channel, and the caller polls.
// Its client has the profile's TLS setting.
func (c *Conn) Watch(ctx context.Context, path string, types ...string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	want := map[string]bool{}
	for _, t := range types {
		want[t] = true
	}
	go func() {
		defer close(ch)
		client := &sse.Client{
			HTTPClient: c.stream,
			Backoff:    sse.Backoff{InitialInterval: 500 * time.Millisecond, MaxInterval: 15 * time.Second},
			ResponseValidator: func(r *http.Response) error {
				// A 3xx is a redirect to another server, refused (see checkStreamRedirect).
				if r.StatusCode == http.StatusNotFound || r.StatusCode == http.StatusMethodNotAllowed ||
					(r.StatusCode >= 300 && r.StatusCode < 400) ||
					(r.StatusCode == 200 && !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream")) {
					return errNoStream
				}
				return sse.DefaultValidator(r)
			},
		}
		for ctx.Err() == nil {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.opts.URL, "/")+path, http.NoBody)
			if err != nil {
				return
			}
			c.Header(req.Header)
			conn := client.NewConnection(req)
			conn.SubscribeToAll(func(ev sse.Event) {
				if want[ev.Type] {
					select {
					case ch <- struct{}{}:
					default: // one pending signal is enough: the reader refetches everything
					}
				}
			})
			if err := conn.Connect(); errors.Is(err, errNoStream) {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}()
	return ch
}
