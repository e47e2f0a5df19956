// Package hookclient is a coding agent's hook's client of a hitl hub
// (hitl serve --http): it puts a permission request up (POST
// /hitl/requests), waits for its answer (GET /hitl/requests/{id}?wait=…)
// and withdraws it (DELETE /hitl/requests/{id}).
//
// The protocol's shapes are package coord/wire's.
//
// It is made to lose the hub and carry on: every call is retried with
// backoff while the caller's context lasts, on each of the hub's URLs in
// turn (two hubs of one team, or one hub's several addresses), and the
// wait re-attaches to its request by id, so a decision made while the hook
// was away, or after the hub came back, is received. It never follows a
// redirect to another origin: its token and headers would go with it.
//
// The agent's side (reading the hook's input, writing the agent's answer)
// is not here: package agenthook does that.
package hookclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/hitl-sh/hitl/coord/wire"
)

// Hub is the hub as a hook reaches it. Build it with New.
type Hub struct {
	urls    []string // base URLs, no trailing slash
	token   string
	headers map[string]string
	hc      *http.Client
	// Shown names a URL for the user (credentials hidden); nil: as is.
	Shown func(string) string
	// MaxBackoff caps the wait between two tries of a lost hub (default
	// 2 s).
	MaxBackoff time.Duration

	mu  sync.Mutex
	cur int // the URL that answered last
}

// Options configure New.
type Options struct {
	// Token is the publisher's bearer token.
	Token string
	// Headers are sent with every request (a profile's headers).
	Headers map[string]string
	// InsecureSkipVerify: the profile asked for it.
	InsecureSkipVerify bool
}

// ErrRedirect is the error of a hub that redirected to another origin.
var ErrRedirect = errors.New("the hub redirected to another origin: refused (the token is never sent anywhere but the hub's own address)")

// New returns the hub at urls (each an http or https base URL).
func New(urls []string, o Options) (*Hub, error) {
	if len(urls) == 0 {
		return nil, errors.New("no hub URL")
	}
	h := &Hub{token: o.Token, headers: o.Headers}
	for _, raw := range urls {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%q is not an http(s) URL", raw)
		}
		h.urls = append(h.urls, strings.TrimRight(strings.TrimSpace(raw), "/"))
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if o.InsecureSkipVerify {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the profile asked for it
	}
	h.hc = &http.Client{Transport: tr, CheckRedirect: sameOrigin}
	return h, nil
}

// sameOrigin lets a redirect within the hub's own origin through (scheme,
// host and port), and refuses any other: net/http would send the
// X-Api-Key and other headers along.
func sameOrigin(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || !strings.EqualFold(req.URL.Host, first.Host) {
		return fmt.Errorf("%w: %s to %s://%s", ErrRedirect, first.Host, req.URL.Scheme, req.URL.Host)
	}
	if len(via) >= 5 {
		return errors.New("the hub redirected 5 times")
	}
	return nil
}

// URLs are the hub's URLs as given.
func (h *Hub) URLs() []string { return h.urls }

func (h *Hub) shown(u string) string {
	if h.Shown != nil {
		return h.Shown(u)
	}
	return u
}

// Standing is where a request stands, as the hub says (Status: pending,
// answered or withdrawn).
type Standing = wire.Standing

// Request is what a hook puts up: Put sends it as a wire.Publish (Data
// as its JSON, the durations in seconds).
type Request struct {
	Agent, SessionID string
	Data             any
	// ExpiresIn: the hub withdraws the request then, whatever happens.
	ExpiresIn time.Duration
	// Lease: the hub withdraws the request this long after the hook
	// stopped waiting on it (killed outright, cut off): 0, never.
	Lease time.Duration
}

// Refused is the hub's refusal of the hook's token (HTTP 401, 403): no
// retry mends it.
type Refused struct {
	Code    int
	Message string
}

func (e *Refused) Error() string {
	return fmt.Sprintf("the hub refused the token (HTTP %d: %s): HITL_BEARER_TOKEN must be a publisher's token", e.Code, e.Message)
}

// HTTPError is an answer the hub gave that is not the one asked for.
type HTTPError struct {
	Code    int
	Message string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("the hub answered HTTP %d: %s", e.Code, e.Message)
}

// Put puts req up, trying each URL with backoff while ctx lasts.
func (h *Hub) Put(ctx context.Context, req Request) (Standing, error) {
	data, err := json.Marshal(req.Data)
	if err != nil {
		return Standing{}, err
	}
	body := wire.Publish{Agent: req.Agent, SessionID: req.SessionID, Data: data, ExpiresIn: req.ExpiresIn.Seconds(), LeaseSeconds: req.Lease.Seconds()}
	var st Standing
	err = h.retry(ctx, func(ctx context.Context, base string) (bool, error) {
		code, err := h.call(ctx, 15*time.Second, base, "POST", "/hitl/requests", body, &st)
		switch {
		case err != nil:
			return retryable(err), err
		case code == http.StatusCreated:
			return false, nil
		case code >= 500:
			return true, &HTTPError{code, st.Message}
		}
		return false, &HTTPError{code, st.Message}
	})
	return st, err
}

// ErrLost is the error of Wait when no hub knows the request any more.
var ErrLost = errors.New("no longer knows the request (was it restarted?)")

// Wait waits until request id is answered or withdrawn, and returns its
// standing; a lost hub is tried again with backoff, on each URL, until ctx
// ends (then ctx's error). heard, when not nil, is called after each
// answer of a hub (the hook is attached again).
func (h *Hub) Wait(ctx context.Context, id string) (Standing, error) {
	for {
		var st Standing
		err := h.retry(ctx, func(ctx context.Context, base string) (bool, error) {
			st = Standing{}
			code, err := h.call(ctx, 40*time.Second, base, "GET", "/hitl/requests/"+url.PathEscape(id)+"?wait=25s", nil, &st)
			switch {
			case err != nil:
				return retryable(err), err
			case code == http.StatusOK:
				return false, nil
			case code == http.StatusNotFound:
				return false, ErrLost
			case code >= 500:
				return true, &HTTPError{code, st.Message}
			}
			return false, &HTTPError{code, st.Message}
		})
		if errors.Is(err, ErrLost) && len(h.urls) > 1 {
			// Another of the hub's URLs may know it (one hub restarted
			// empty, the other not): the one after, once.
			if st2, err2 := h.lookupElsewhere(ctx, id); err2 == nil {
				st, err = st2, nil
			}
		}
		if err != nil {
			return st, err
		}
		if st.Status != wire.Pending {
			return st, nil
		}
	}
}

// lookupElsewhere asks the URLs other than the current one for id.
func (h *Hub) lookupElsewhere(ctx context.Context, id string) (Standing, error) {
	h.mu.Lock()
	cur := h.cur
	h.mu.Unlock()
	for i := range h.urls {
		if i == cur {
			continue
		}
		var st Standing
		code, err := h.call(ctx, 15*time.Second, h.urls[i], "GET", "/hitl/requests/"+url.PathEscape(id), nil, &st)
		if err == nil && code == http.StatusOK {
			h.mu.Lock()
			h.cur = i
			h.mu.Unlock()
			return st, nil
		}
	}
	return Standing{}, ErrLost
}

// Withdraw withdraws request id with reason. answered: the hub had an
// answer first (st holds it).
func (h *Hub) Withdraw(ctx context.Context, id, reason string) (st Standing, answered bool, err error) {
	err = h.retry(ctx, func(ctx context.Context, base string) (bool, error) {
		st = Standing{}
		code, err := h.call(ctx, 5*time.Second, base, "DELETE", "/hitl/requests/"+url.PathEscape(id), wire.Withdrawal{Reason: reason}, &st)
		switch {
		case err != nil:
			return retryable(err), err
		case code == http.StatusOK:
			return false, nil
		case code == http.StatusConflict && st.Status == wire.Answered:
			answered = true
			return false, nil
		case code == http.StatusConflict:
			return false, nil // withdrawn already
		case code >= 500:
			return true, &HTTPError{code, st.Message}
		}
		return false, &HTTPError{code, st.Message}
	})
	return st, answered, err
}

// retry runs try on the current URL, then the next ones, with backoff
// between rounds, while try says the failure may pass and ctx lasts. The
// URL that answers becomes the current one.
func (h *Hub) retry(ctx context.Context, try func(ctx context.Context, base string) (again bool, err error)) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 100 * time.Millisecond
	b.MaxInterval = h.MaxBackoff
	if b.MaxInterval <= 0 {
		b.MaxInterval = 2 * time.Second
	}
	for {
		h.mu.Lock()
		start := h.cur
		h.mu.Unlock()
		var last error
		for k := range h.urls {
			i := (start + k) % len(h.urls)
			again, err := try(ctx, h.urls[i])
			if err == nil || !again {
				h.mu.Lock()
				h.cur = i
				h.mu.Unlock()
				return err
			}
			last = fmt.Errorf("%s: %w", h.shown(h.urls[i]), err)
			if ctx.Err() != nil {
				return last
			}
		}
		t := time.NewTimer(b.NextBackOff())
		select {
		case <-ctx.Done():
			t.Stop()
			return last
		case <-t.C:
		}
	}
}

// retryable: a failure the next try may not meet (the hub down, the
// network cut), as opposed to a refusal.
func retryable(err error) bool {
	var r *Refused
	return !errors.As(err, &r) && !errors.Is(err, ErrRedirect) && !errors.Is(err, errNotHub)
}

var errNotHub = errors.New("the hub answered with something that is not its JSON: is the URL a hitl hub?")

// call sends one request to base and decodes its JSON answer into into.
func (h *Hub) call(ctx context.Context, limit time.Duration, base, method, path string, body, into any) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, err
	}
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hitl-hook")
	resp, err := h.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		var m Standing
		_ = json.Unmarshal(b, &m)
		return resp.StatusCode, &Refused{resp.StatusCode, m.Message}
	}
	if err := json.Unmarshal(b, into); err != nil {
		if resp.StatusCode >= 500 {
			return resp.StatusCode, nil // a proxy's page while the hub is away: retried
		}
		return resp.StatusCode, fmt.Errorf("HTTP %d: %w", resp.StatusCode, errNotHub)
	}
	return resp.StatusCode, nil
}
