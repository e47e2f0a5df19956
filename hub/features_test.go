package hub

import (
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
)

// The shared watcher offers exactly what its upstream offers: every
// session of the hub can do what a reviewer against the server can
// (dismiss, reject --stop, conversations, failed runs, approvals…).
func TestSharedOffersWhatItsUpstreamOffers(t *testing.T) {
	lg, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	s := NewShared(lg)
	backendtest.SameFeatures(t, lg, s)
	// What it shares, it answers itself: a session's signals, version,
	// listing and failed runs never go past the one watcher, and a
	// session's reviewer leaving does not slow the watcher everyone needs.
	f := s.Features()
	if f.Notifier != s || f.Settled != s || f.Progressive != s || f.FailureLister != s || f.Attentive != s {
		t.Errorf("the shared watcher passes on what it shares: %+v", f)
	}
	// An upstream that offers less: the hub offers that less, no more.
	less := &lessUpstream{Upstream: lg}
	backendtest.SameFeatures(t, less, NewShared(less))
}

// lessUpstream is an upstream without progress, version, activity or
// endings.
type lessUpstream struct{ Upstream }

func (l *lessUpstream) Features() client.Features {
	f := l.Upstream.Features()
	f.Progressive, f.Settled, f.Activity, f.Ender = nil, nil, nil, nil
	return f
}
