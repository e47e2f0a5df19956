package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
	"github.com/hitl-sh/hitl/present"
)

// The reviewer's refresh shows what appeared since the backend's watcher
// last looked: a refresh is never answered from that watcher's listing.
func TestRefreshShowsWhatTheWatcherHasNotSeen(t *testing.T) {
	srv := demo.New()
	srv.RunDelay = 0
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	// The watcher looks once, at start, and not again for an hour.
	b, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: srv.URL()}, Live: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessOn(t, 200, 40, nil, b)
	time.Sleep(200 * time.Millisecond) // the watcher's first look (milliseconds here) is over
	thread, err := srv.Spawn("asker", nil)
	if err != nil {
		t.Fatal(err)
	}
	short := present.ShortID(thread)
	h.msg(pollMsg{}) // the periodic poll: the watcher's listing will do
	if strings.Contains(h.screen(), short) {
		t.Fatalf("the poll asked the server although the watcher's listing was a moment old:\n%s", h.screen())
	}
	h.keys("R")
	if !strings.Contains(h.screen(), short) {
		t.Fatalf("after a refresh, thread %s is not listed:\n%s", short, h.screen())
	}
}
