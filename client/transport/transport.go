// Package transport is the HTTP plumbing every backend shares: clients for
// reads (retried with backoff) and for decisions (never retried), auth
// headers, body limits, and errors that say what to do next without ever
// showing a secret.
package transport

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/go-resty/resty/v2"
	sse "github.com/tmaxmax/go-sse"
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
	opts   Options
	server string
	// Reads are retried with backoff on transport errors, 429 and 5xx.
	Reads *resty.Client
	// Writes are never retried: a decision is sent once.
	Writes *resty.Client
	// Long waits as long as a run may take.
	Long *resty.Client
}

// New checks the URL and builds the clients.
func New(opts Options) (*Conn, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not a server URL: write it like http://127.0.0.1:2024", opts.URL)
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
	c := &Conn{opts: opts, server: redactURL(u)}
	c.Reads = c.newClient().
		SetRetryCount(max(opts.ReadRetries, 0)).
		SetRetryWaitTime(200 * time.Millisecond).
		SetRetryMaxWaitTime(3 * time.Second).
		AddRetryCondition(func(r *resty.Response, err error) bool {
			if err != nil {
				return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
			}
			return r.StatusCode() == http.StatusTooManyRequests || r.StatusCode() >= 500
		})
	c.Writes = c.newClient()
	c.Long = c.newClient().SetTimeout(opts.Long)
	return c, nil
}

func (c *Conn) newClient() *resty.Client {
	r := resty.New().
		SetBaseURL(strings.TrimRight(c.opts.URL, "/")).
		SetTimeout(c.opts.Timeout).
		SetResponseBodyLimit(MaxBody).
		SetHeader("Accept", "application/json").
		SetHeader("User-Agent", "hitl").
		SetLogger(quietLogger{})
	if c.opts.InsecureSkipVerify {
		r.SetTLSClientConfig(&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the user asked for it in the profile
	}
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

// HTTPClient is a plain client with the same auth headers, for streams.
func (c *Conn) HTTPClient() *http.Client {
	return c.Long.GetClient()
}

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

// Check turns a transport error or a non-2xx answer into an error that says
// what to do, and decodes a 2xx JSON answer into into.
func (b *Conn) Check(resp *resty.Response, err error, what string, into any) error {
	if err != nil {
		return b.transportError(err, what)
	}
	if resp == nil {
		return fmt.Errorf("%s: no answer from %s", what, b.server)
	}
	code := resp.StatusCode()
	body := resp.Body()
	switch {
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
	if err := json.Unmarshal(body, into); err != nil {
		ct := resp.Header().Get("Content-Type")
		return fmt.Errorf("%s: the server at %s answered with something that is not the expected JSON (%s, %d bytes): %v; is --url pointing at the right server?", what, b.server, orUnknown(ct), len(body), err)
	}
	return nil
}

func (b *Conn) transportError(err error, what string) error {
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s: the server at %s refused the connection: %s (set --url or HITL_URL)", what, b.server, b.hint())
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the server at %s closed the connection without answering: is something else listening there? (set --url or HITL_URL)", what, b.server)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: cancelled", what)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return fmt.Errorf("%s: the server at %s did not answer in time: is it overloaded or unreachable?", what, b.server)
	case strings.Contains(err.Error(), "response body size limit"):
		return fmt.Errorf("%s: the answer of %s is larger than %d MiB; narrow the listing with --graph or --assistant", what, b.server, MaxBody>>20)
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
// "message"/"detail"/"error", or plain text), bounded in length.
func serverMessage(body []byte) string {
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
	return clip(s)
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
// server has no such stream (404, or not text/event-stream) it gives up and
// closes the channel, and the caller polls.
func (c *Conn) Watch(ctx context.Context, path string, types ...string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	want := map[string]bool{}
	for _, t := range types {
		want[t] = true
	}
	go func() {
		defer close(ch)
		client := &sse.Client{
			HTTPClient: &http.Client{},
			Backoff:    sse.Backoff{InitialInterval: 500 * time.Millisecond, MaxInterval: 15 * time.Second},
			ResponseValidator: func(r *http.Response) error {
				if r.StatusCode == http.StatusNotFound || r.StatusCode == http.StatusMethodNotAllowed ||
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
