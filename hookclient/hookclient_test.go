package hookclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/team"
)

const (
	pubToken   = "publisher-token-0123456789"
	aliceToken = "alice-token-0123456789abc"
)

func hubTeam() *team.Config {
	return &team.Config{
		Reviewers:  map[string]team.Reviewer{"alice": {Token: aliceToken, Role: team.Approver}},
		Publishers: map[string]team.Publisher{"ci": {Token: pubToken}},
	}
}

var bash = map[string]any{"action_requests": []any{map[string]any{"name": "Bash", "args": map[string]any{"command": "ls"}}},
	"review_configs": []any{map[string]any{"action_name": "Bash", "allowed_decisions": []any{"approve", "reject"}}}}

// serveOn serves c on addr ("127.0.0.1:0": a free port) until stop.
func serveOn(t *testing.T, c *coord.Server, addr string) (url string, stop func()) {
	t.Helper()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: c.Handler()}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }
}

func respond(t *testing.T, url, id string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/hitl/respond", strings.NewReader(`{"request_id":"`+id+`","response":{"decisions":[{"type":"approve"}]}}`))
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("respond: HTTP %d", resp.StatusCode)
	}
}

// A hub lost while the hook waits, and back on its address with its
// requests (as a hub with a store comes back): the hook re-attaches by id
// and receives the decision made while it was away.
func TestWaitReattachesAfterTheHubCameBack(t *testing.T) {
	c := coord.New(coord.Options{Team: hubTeam()})
	url, stop := serveOn(t, c, "127.0.0.1:0")
	h, err := New([]string{url}, Options{Token: pubToken})
	if err != nil {
		t.Fatal(err)
	}
	h.MaxBackoff = 200 * time.Millisecond
	st, err := h.Put(context.Background(), Request{Agent: "claude", SessionID: "s", Data: bash})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Standing, 1)
	var waitErr atomic.Value
	go func() {
		got, err := h.Wait(context.Background(), st.RequestID)
		if err != nil {
			waitErr.Store(err)
		}
		done <- got
	}()
	time.Sleep(100 * time.Millisecond) // the first wait is open
	stop()                             // the hub goes away
	// Decided meanwhile (a reviewer on another of the hub's doors).
	side, stopSide := serveOn(t, c, "127.0.0.1:0")
	respond(t, side, st.RequestID)
	stopSide()
	select {
	case <-done:
		t.Fatal("the wait ended while the hub was away")
	case <-time.After(500 * time.Millisecond):
	}
	_, stop = serveOn(t, c, strings.TrimPrefix(url, "http://")) // back on its address
	defer stop()
	select {
	case got := <-done:
		if e := waitErr.Load(); e != nil || got.Status != "answered" || !strings.Contains(string(got.Response), "approve") {
			t.Fatalf("after the hub came back: %+v %v", got, e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hook never received the decision made while it was away")
	}
}

// Several hub URLs: a down one is passed over for the next.
func TestTheNextURLWhenOneIsDown(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + ln.Addr().String()
	ln.Close()
	c := coord.New(coord.Options{Team: hubTeam()})
	up, stop := serveOn(t, c, "127.0.0.1:0")
	defer stop()
	h, err := New([]string{down, up}, Options{Token: pubToken})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := h.Put(ctx, Request{Agent: "claude", SessionID: "s", Data: bash})
	if err != nil || st.Status != "pending" {
		t.Fatalf("put with the first URL down: %+v %v", st, err)
	}
	go func() { time.Sleep(200 * time.Millisecond); respond(t, up, st.RequestID) }()
	got, err := h.Wait(ctx, st.RequestID)
	if err != nil || got.Status != "answered" {
		t.Fatalf("wait: %+v %v", got, err)
	}
}

// A hub that redirects to another origin: refused, and the other origin
// never sees the token nor the API key.
func TestNoRedirectToAnotherOrigin(t *testing.T) {
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" {
			leaked.Add(1)
		}
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"request_id":"req-x","status":"pending"}`))
	}))
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	h, err := New([]string{redirecting.URL}, Options{Token: pubToken, Headers: map[string]string{"X-Api-Key": "secret-api-key"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err = h.Put(ctx, Request{Agent: "claude", SessionID: "s", Data: bash})
	if !errors.Is(err, ErrRedirect) {
		t.Fatalf("put through a redirect to another origin: %v", err)
	}
	if n := leaked.Load(); n != 0 {
		t.Fatalf("the other origin got the credentials %d times", n)
	}
}
