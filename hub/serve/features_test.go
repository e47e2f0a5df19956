package serve

import (
	"testing"

	"github.com/hitl-sh/hitl/client/backendtest"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/coord"
	"github.com/hitl-sh/hitl/hub"
)

// The hub's merged inbox (the server's interrupts and the door's
// requests) offers exactly what the server's backend offers, and so does
// the shared watcher every session works with over it.
func TestTheMergedInboxOffersWhatTheServerOffers(t *testing.T) {
	lg, err := langgraph.New(langgraph.Options{Options: transport.Options{URL: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	in := hub.NewMerged((&doorRequests{c: coord.New(coord.Options{})}).source(), hub.Source{Name: "the LangGraph server", Backend: lg})
	backendtest.SameFeatures(t, lg, in)
	// What must reach the right source, the merged inbox answers itself.
	f := in.Features()
	if f.Notifier != in || f.Settled != in || f.Progressive != in || f.Claimer != in || f.Conversational != in || f.ApprovalKeeper != in {
		t.Errorf("the merged inbox passes on what it must answer: %+v", f)
	}
	backendtest.SameFeatures(t, lg, hub.NewShared(in))
}
