package wire_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/coord/wire"
)

// read connects to url with lastID (none: "") and returns the first n
// lines after the hello and its blank line, or fails after 5 s.
func read(t *testing.T, url, lastID string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for len(lines) < n+2 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < n+2 {
		t.Fatalf("the stream ended after %q", lines)
	}
	return lines[2:]
}

// A reader gets the events after the id it names, as many as the hub
// keeps; one that names none gets every event kept (FromStart) or only
// what comes next.
func TestHubReplaysAfterLastEventID(t *testing.T) {
	h := &wire.Hub{Keep: 3, Stream: wire.Stream{FromStart: true}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		h.Publish(wire.Asked, wire.Request{RequestID: id})
	}
	got := strings.Join(read(t, srv.URL, "3", 8), "\n")
	if !strings.HasPrefix(got, "id: 4\nevent: hitl_asked\ndata: {\"request_id\":\"d\"") || !strings.Contains(got, "id: 5\nevent: hitl_asked\ndata: {\"request_id\":\"e\"") {
		t.Fatalf("after 3:\n%s", got)
	}
	// Only the last three are kept: a reader from the start gets c, d, e.
	if got := read(t, srv.URL, "", 3); got[0] != "id: 3" {
		t.Fatalf("from the start: %q", got)
	}
}

// A bare stream (opencode's bus) writes data alone, from the newest event
// whatever the reader names.
func TestBareStreamStartsAtNewest(t *testing.T) {
	h := &wire.Hub{Stream: wire.Stream{Bare: true}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	h.Publish("", "old")
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Last-Event-ID", "0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var got []string
	for len(got) < 4 && sc.Scan() {
		got = append(got, sc.Text())
		if len(got) == 2 { // the hello is read: the reader is there
			h.Publish("", "new")
		}
	}
	if strings.Join(got[2:], "|") != `data: "new"|` {
		t.Fatalf("bare stream: %q", got)
	}
}

// Close ends every stream.
func TestHubCloseEndsStreams(t *testing.T) {
	h := &wire.Hub{}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
		close(done)
	}()
	h.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end at Close")
	}
}
