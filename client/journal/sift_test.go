package journal

import (
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

func ids(its []client.Interrupt) string {
	var s []string
	for _, it := range its {
		s = append(s, it.ID)
	}
	return strings.Join(s, ",")
}

// A listing as the CLI and the TUI show it: what this machine handled is
// left out, in the backend's order, and every interrupt listed (handled or
// not) is recorded as seen.
func TestSiftLeavesOutHandledAndRecordsSightings(t *testing.T) {
	t.Parallel()
	j, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.MarkHandled("b", "d"); err != nil {
		t.Fatal(err)
	}
	all := []client.Interrupt{{ID: "a", ThreadID: "t1"}, {ID: "b", ThreadID: "t1"}, {ID: "c", ThreadID: "t2"}, {ID: "d", ThreadID: "t3"}}
	s := j.Sift(all)
	if ids(s.Items) != "a,c" || !s.Handled["b"] || !s.Handled["d"] || s.SawErr != nil {
		t.Fatalf("sifted %q, handled %v, err %v", ids(s.Items), s.Handled, s.SawErr)
	}
	if ids(all) != "a,b,c,d" {
		t.Errorf("the backend's list was changed: %s", ids(all))
	}
	for _, id := range []string{"a", "b", "c", "d"} {
		if len(j.Sightings(id)) != 1 {
			t.Errorf("%s was not recorded as seen", id)
		}
	}
}

// Nothing handled: the listing itself, not a copy (the idle poll of a
// large inbox); the first item handled, or the last: still in order.
func TestUnhandledKeepsOrder(t *testing.T) {
	t.Parallel()
	all := []client.Interrupt{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	if got := Unhandled(all, map[string]bool{"x": true}); &got[0] != &all[0] || len(got) != 3 {
		t.Error("nothing handled, yet the list was copied")
	}
	for handled, want := range map[string]string{"a": "b,c", "c": "a,b", "b": "a,c"} {
		if got := ids(Unhandled(all, map[string]bool{handled: true})); got != want {
			t.Errorf("%s handled: %s, want %s", handled, got, want)
		}
	}
	if got := Unhandled(all, map[string]bool{"a": true, "b": true, "c": true}); len(got) != 0 {
		t.Errorf("all handled: %s", ids(got))
	}
}
