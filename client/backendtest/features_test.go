package backendtest_test

import (
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/a2a"
	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/events"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/opencode"
	"github.com/hitl-sh/hitl/client/rest"
	"github.com/hitl-sh/hitl/client/transport"
)

// Every backend states every feature it implements.
func TestEveryBackendStatesAllItOffers(t *testing.T) {
	opts := transport.Options{URL: "http://127.0.0.1:1"}
	lg, err := langgraph.New(langgraph.Options{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rest.New(rest.Options{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := events.New(events.Options{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := a2a.New(a2a.Options{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	oc, err := opencode.New(opencode.Options{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []client.Backend{lg, r, ev, ag, oc, fake.New()} {
		backendtest.StatesAll(t, b)
	}
	// LangGraph offers everything but run controls.
	want := "Batcher Claimer Conversational Ender FailureLister Notifier Progressive Settled Activity ApprovalKeeper Redactor Attentive"
	if got := strings.Join(lg.Features().Names(), " "); got != want {
		t.Errorf("LangGraph offers %s\nwant %s", got, want)
	}
}

// hidesEnd is a wrapper that forgot a feature: it answers Settled itself
// (so its type implements it) but states only what it wrapped, less the
// ending.
type hidesEnd struct{ *fake.Backend }

func (h hidesEnd) Features() client.Features {
	f := h.Backend.Features()
	f.Ender = nil
	return f
}

func (hidesEnd) Settled() (uint64, bool) { return 0, false }

// The checks catch what they are for: a wrapper that drops a feature, and
// a backend that implements one without stating it.
func TestTheFeatureChecksCatchADroppedFeature(t *testing.T) {
	f := fake.New()
	if d := backendtest.Differences(f, f); len(d) != 0 {
		t.Fatalf("the fake differs from itself: %v", d)
	}
	d := backendtest.Differences(f, hidesEnd{f})
	if len(d) != 2 || !strings.Contains(d[0], "drops Ender") || !strings.Contains(d[1], "ends threads: false") {
		t.Fatalf("a dropped Ender: %q", d)
	}
	if u := backendtest.Unstated(hidesEnd{f}); len(u) != 2 || !strings.Contains(u[0], "leave Ender out") || !strings.Contains(u[1], "leave Settled out") {
		t.Fatalf("unstated: %q", u)
	}
}
