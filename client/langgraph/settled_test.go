package langgraph_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Another reviewer's claim (thread metadata: it leaves the interrupt's
// updated_at as it was) moves the watcher's version and signals a change,
// on both servers: the TUI, which skips its periodic read while the
// version stands, shows claims as soon as the watcher sees them; so does
// its release.
func TestConformClaimMovesTheVersion(t *testing.T) {
	forEachEverywhere(t, func(t *testing.T, tg target) {
		meta := tag(t)
		start(t, tg, tg.single, anyMap(meta))
		b := backend(t, tg, meta, 0)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		changes := b.Changes(ctx)
		// moved waits until the watcher is current at another version
		// than old (and drains the change signals).
		moved := func(old uint64, what string) uint64 {
			t.Helper()
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				select {
				case <-changes:
				default:
				}
				if v, ok := b.Settled(); ok && v != old {
					return v
				}
			}
			t.Fatalf("%s: the watcher's version did not move in 10 s", what)
			return 0
		}
		v := moved(1<<63, "the first look")
		its := pendingOf(t, b)
		if len(its) != 1 {
			t.Fatalf("pending: %+v", its)
		}
		for {
			select {
			case <-changes:
				continue
			default:
			}
			break
		}
		other := backend(t, tg, meta, 0)
		now := time.Now()
		alice := client.Claim{Reviewer: "alice", Client: "c-alice", Since: now, Expires: now.Add(client.ClaimTTL)}
		if err := other.Claim(ctx, its[0], alice); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changes:
		case <-time.After(10 * time.Second):
			t.Fatal("a claim: no change signal in 10 s")
		}
		v = moved(v, "a claim")
		if got := pendingOf(t, b); len(got) != 1 || len(got[0].Claims) != 1 || !got[0].UpdatedAt.Equal(its[0].UpdatedAt) {
			t.Fatalf("after the claim: %+v", got)
		}
		if err := other.Release(ctx, its[0], alice); err != nil {
			t.Fatal(err)
		}
		moved(v, "a release")
	})
}
