package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/hitl-sh/hitl/client/transport"
)

// Secrets a test configures; none may reach another server or an error.
const (
	apiKey      = "sk-test-api-key-0001"
	bearerToken = "bearer-token-0002"
	customValue = "custom-secret-0003"
)

func secretOptions(url string) transport.Options {
	return transport.Options{URL: url, APIKey: apiKey, BearerToken: bearerToken,
		Headers: map[string]string{"X-Custom-Auth": customValue}, ReadRetries: -1}
}

func newConn(t *testing.T, o transport.Options) *transport.Conn {
	t.Helper()
	c, err := transport.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func assertNoSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, v := range []string{apiKey, bearerToken, customValue} {
		if strings.Contains(s, v) {
			t.Errorf("%s shows the secret %q: %s", what, v, s)
		}
	}
}

// recorder is a server that keeps the requests it received.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Clone(context.Background()))
	r.body = append(r.body, string(b))
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"ok":true}`))
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// call sends one request with the named client: reads GET, writes and long
// waits POST (so that a 307 would carry the body along).
func call(c *transport.Conn, client, path string) error {
	var resp *resty.Response
	var err error
	switch client {
	case "reads":
		resp, err = c.Reads.R().Get(path)
	case "writes":
		resp, err = c.Writes.R().SetBody(`{"decision":"approve"}`).Post(path)
	case "long":
		resp, err = c.Long.R().SetBody(`{"decision":"approve"}`).Post(path)
	}
	return c.Check(resp, err, client, nil)
}

func TestCrossOriginRedirectIsRefused(t *testing.T) {
	other := &recorder{}
	elsewhere := httptest.NewServer(other)
	defer elsewhere.Close()
	var asked atomic.Int32
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		code := map[string]int{"/307": 307, "/302": 302, "/308": 308, "/301": 301}[r.URL.Path]
		http.Redirect(w, r, elsewhere.URL+"/steal?token=leaked-token-0004&page=2", code)
	}))
	defer origin.Close()

	for _, client := range []string{"reads", "writes", "long"} {
		for _, code := range []string{"307", "302", "308", "301"} {
			t.Run(client+"/"+code, func(t *testing.T) {
				o := secretOptions(origin.URL)
				o.ReadRetries = 3 // a refused redirect is not retried
				asked.Store(0)
				err := call(newConn(t, o), client, "/"+code)
				if err == nil {
					t.Fatal("a redirect to another server was followed")
				}
				msg := err.Error()
				want := "redirected to " + elsewhere.URL + "/steal?token=[redacted]&page=2, which is not the configured server"
				if !strings.Contains(msg, want) || !strings.Contains(msg, "set --url") {
					t.Errorf("error does not say where and what to do:\n%s", msg)
				}
				assertNoSecret(t, "the error", msg)
				if strings.Contains(msg, "leaked-token-0004") {
					t.Errorf("the error shows the target's token: %s", msg)
				}
				if n := asked.Load(); n != 1 {
					t.Errorf("the origin was asked %d times, want 1", n)
				}
			})
		}
	}
	// The other server received nothing: no key, no token, no header, no body.
	if n := other.count(); n != 0 {
		for _, r := range other.reqs {
			t.Errorf("the other server received %s %s with headers %v", r.Method, r.URL, r.Header)
		}
	}
}

func TestSameOriginRedirectKeepsCredentials(t *testing.T) {
	rec := &recorder{}
	mux := http.NewServeMux()
	mux.Handle("/new", rec)
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := newConn(t, secretOptions(srv.URL))
	for _, client := range []string{"reads", "writes", "long"} {
		if err := call(c, client, "/old"); err != nil {
			t.Fatalf("%s: %v", client, err)
		}
	}
	if rec.count() != 3 {
		t.Fatalf("the redirect target got %d requests, want 3", rec.count())
	}
	for i, r := range rec.reqs {
		if r.Header.Get("X-Api-Key") != apiKey || r.Header.Get("Authorization") != "Bearer "+bearerToken ||
			r.Header.Get("X-Custom-Auth") != customValue {
			t.Errorf("request %d lost its credentials on a same-server redirect: %v", i, r.Header)
		}
	}
	if rec.body[1] != `{"decision":"approve"}` {
		t.Errorf("a 307 lost the decision's body: %q", rec.body[1])
	}
}

func TestServerEchoingSecretsIsRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"message":"invalid key %s for tenant"}`, r.Header.Get("X-Api-Key"))
		case "/text":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "headers were %v", r.Header)
		case "/notfound":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"detail":"no route for token %s"}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		case "/notjson":
			w.Write([]byte("not json " + r.Header.Get("X-Custom-Auth")))
		}
	}))
	defer srv.Close()
	c := newConn(t, secretOptions(srv.URL))
	for _, path := range []string{"/json", "/text", "/notfound"} {
		err := call(c, "reads", path)
		if err == nil {
			t.Fatalf("%s: no error", path)
		}
		assertNoSecret(t, path, err.Error())
		if !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("%s: nothing redacted: %v", path, err)
		}
	}
	resp, err := c.Reads.R().Get("/notjson")
	var into map[string]any
	if err := c.Check(resp, err, "read", &into); err == nil {
		t.Fatal("not JSON: no error")
	} else {
		assertNoSecret(t, "/notjson", err.Error())
	}
}

func TestURLCredentialsAreRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A hostile server echoes the whole request, basic auth included.
		u, p, _ := r.BasicAuth()
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "you sent %s as %s:%s", r.URL, u, p)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c := newConn(t, transport.Options{URL: "http://alice:pa55-word-9@" + host + "/?token=t0k3n-value-8", ReadRetries: -1})
	if c.Server() != srv.URL {
		t.Errorf("Server() = %q, want %q", c.Server(), srv.URL)
	}
	err := call(c, "reads", "threads")
	if err == nil {
		t.Fatal("no error")
	}
	for _, leak := range []string{"pa55-word-9", "t0k3n-value-8"} {
		if strings.Contains(err.Error(), leak) || strings.Contains(c.Server(), leak) {
			t.Errorf("%q shown: %v / %s", leak, err, c.Server())
		}
	}

	for _, bad := range []string{"htp://alice:pa55-word-9@host", "alice:pa55-word-9@127.0.0.1:2024", "http://alice:pa55/word-9@host"} {
		_, err := transport.New(transport.Options{URL: bad})
		if err == nil {
			t.Errorf("%q accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), "is not a server URL") ||
			strings.Contains(err.Error(), "pa55") || strings.Contains(err.Error(), "t0k3n") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestRedactHidesTheCredentialOfAnAuthorizationHeader(t *testing.T) {
	c := newConn(t, transport.Options{URL: "http://127.0.0.1:1", Headers: map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}})
	if got := c.Redact("server said: dXNlcjpwYXNz"); got != "server said: [redacted]" {
		t.Errorf("got %q", got)
	}
}

// eventStream answers one event of type typ, then holds the stream open.
func eventStream(typ string, seen *atomic.Value) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get("X-Api-Key"))
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: %s\ndata: {}\n\n", typ)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

func TestWatchHonoursInsecureSkipVerify(t *testing.T) {
	var seen atomic.Value
	srv := httptest.NewUnstartedServer(eventStream("hitl_asked", &seen))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := secretOptions(srv.URL)
	o.InsecureSkipVerify = true
	select {
	case <-newConn(t, o).Watch(ctx, "/events", "hitl_asked"):
	case <-time.After(5 * time.Second):
		t.Fatal("no event over TLS with insecure_skip_verify")
	}
	if seen.Load() != apiKey {
		t.Errorf("the stream was opened without the key: %v", seen.Load())
	}

	// Without it, the self-signed certificate is refused: no event.
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	select {
	case _, open := <-newConn(t, secretOptions(srv.URL)).Watch(ctx2, "/events", "hitl_asked"):
		if open {
			t.Fatal("an event through an unverified certificate")
		}
	case <-ctx2.Done():
	}
}

func TestWatchGivesUpOnARedirectElsewhere(t *testing.T) {
	other := &recorder{}
	elsewhere := httptest.NewServer(other)
	defer elsewhere.Close()
	var seen atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/events", http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/events", http.StatusTemporaryRedirect)
	})
	mux.Handle("/events", eventStream("ping", &seen))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := newConn(t, secretOptions(srv.URL))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	select {
	case <-c.Watch(ctx, "/moved", "ping"):
		if seen.Load() != apiKey {
			t.Errorf("a same-server redirect lost the key: %v", seen.Load())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a same-server redirect of the stream was not followed")
	}
	select {
	case _, open := <-c.Watch(ctx, "/away", "ping"):
		if open {
			t.Fatal("an event from another server")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watching a stream redirected elsewhere did not give up")
	}
	if n := other.count(); n != 0 {
		t.Errorf("the other server received %d requests", n)
	}
}

func TestOnlyReadsAreRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	o := secretOptions(srv.URL)
	o.ReadRetries = 2
	c := newConn(t, o)
	for _, tc := range []struct {
		client string
		want   int32
	}{{"reads", 3}, {"writes", 1}, {"long", 1}} {
		n.Store(0)
		if err := call(c, tc.client, "/x"); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
			t.Errorf("%s: %v", tc.client, err)
		}
		if got := n.Load(); got != tc.want {
			t.Errorf("%s: %d requests for a 500, want %d", tc.client, got, tc.want)
		}
	}
}

func TestRefusedConnectionIsNotRetriedForever(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := newConn(t, transport.Options{URL: url, ReadRetries: -1, Hint: "is `langgraph dev` running?"})
	_, err := c.Reads.R().Get("/x")
	if !transport.IsRefused(err) {
		t.Fatalf("not a refused connection: %v", err)
	}
	if cerr := c.Check(nil, err, "list", nil); !strings.Contains(cerr.Error(), "refused the connection: is `langgraph dev` running?") {
		t.Errorf("got %v", cerr)
	}
}

// An error quotes the server inertly: escape sequences, C1 controls, bidi
// and zero-width characters of its body and its Content-Type are escapes
// in the error's text, wherever it is shown or stored.
func TestServerWordsInErrorsAreInert(t *testing.T) {
	const attack = "a\x1b]0;title\x07 \x1b[31mred \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ \u009b2J \u202eexe \u200bzw \x9b"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.WriteHeader(http.StatusInternalServerError)
			b, _ := json.Marshal(map[string]string{"detail": attack})
			w.Write(b)
		case "/text":
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, attack)
		case "/notjson":
			w.Header().Set("Content-Type", "text/html; \u009b2J\u202e")
			io.WriteString(w, attack)
		}
	}))
	defer srv.Close()
	c := newConn(t, transport.Options{URL: srv.URL, ReadRetries: -1})
	for _, path := range []string{"/json", "/text", "/notjson"} {
		resp, err := c.Reads.R().Get(path)
		var into map[string]any
		err = c.Check(resp, err, "read", &into)
		if err == nil {
			t.Fatalf("%s: no error", path)
		}
		for _, r := range err.Error() {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x202e || r == 0x200b {
				t.Errorf("%s: the error carries %U: %q", path, r, err)
				break
			}
		}
	}
}

// https:// typed for a plain HTTP server says to use http://.
func TestHTTPSToAPlainServerSaysSo(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c := newConn(t, transport.Options{URL: strings.Replace(srv.URL, "http://", "https://", 1), ReadRetries: -1})
	resp, err := c.Reads.R().Get("/x")
	if cerr := c.Check(resp, err, "list", nil); cerr == nil || !strings.Contains(cerr.Error(), "speaks plain HTTP, not HTTPS: use http:// in --url") {
		t.Errorf("got %v", cerr)
	}
}
