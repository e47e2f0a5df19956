package demo_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/events"
	"github.com/hitl-sh/hitl/client/langgraph"
	"github.com/hitl-sh/hitl/client/rest"
	"github.com/hitl-sh/hitl/client/transport"
	"github.com/hitl-sh/hitl/demo"
)

// Every demo server keeps the Fake contract that `hitl demo` relies on:
// Seed makes one thread of every scenario plus burst more, and Produce keeps
// making them; each is read through its own backend, as hitl reads it.
func TestFakesSeedAndProduce(t *testing.T) {
	restFake := demo.NewREST()
	restFake.User = "alice"
	for _, tt := range []struct {
		kind    string
		fake    demo.Fake
		backend func(url string) (client.Backend, error)
	}{
		{"langgraph", demo.New(), func(url string) (client.Backend, error) {
			return langgraph.New(langgraph.Options{Options: transport.Options{URL: url}})
		}},
		// Listing alice's approvals only: the runs are the demo user's.
		{"rest", restFake, func(url string) (client.Backend, error) {
			return rest.New(rest.Options{Options: transport.Options{URL: url}, UserID: "alice"})
		}},
		{"events", demo.NewEvents(), func(url string) (client.Backend, error) {
			return events.New(events.Options{Options: transport.Options{URL: url}})
		}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			if err := tt.fake.Start("127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
			defer tt.fake.Close()
			b, err := tt.backend(tt.fake.URL())
			if err != nil {
				t.Fatal(err)
			}
			threads := func() int {
				its, err := b.Pending(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				seen := map[string]bool{}
				for _, it := range its {
					seen[it.ThreadID] = true
				}
				return len(seen)
			}
			tt.fake.Seed(0)
			scenarios := threads()
			if scenarios == 0 {
				t.Fatal("Seed(0) made nothing")
			}
			tt.fake.Seed(2)
			if n := threads(); n != 2*scenarios+2 {
				t.Fatalf("after Seed(0) and Seed(2): %d threads, want %d", n, 2*scenarios+2)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Capped: new work arrives until three more wait, then no more.
			upTo := tt.fake.Waiting() + 3
			go tt.fake.Produce(ctx, 10*time.Millisecond, upTo)
			for deadline := time.Now().Add(5 * time.Second); threads() <= 2*scenarios+2 || tt.fake.Waiting() < upTo; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("Produce made %d threads, %d waiting, want %d waiting", threads()-2*scenarios-2, tt.fake.Waiting(), upTo)
				}
			}
			// A thread can bring several interrupts (a fan-out), so the cap
			// may be passed by the last one made; then nothing more comes.
			reached := tt.fake.Waiting()
			time.Sleep(200 * time.Millisecond) // twenty ticks
			if n := tt.fake.Waiting(); n != reached {
				t.Fatalf("Produce up to %d waiting went on from %d to %d", upTo, reached, n)
			}
			cancel()
			// Not capped: it keeps making them.
			ctx, cancel = context.WithCancel(context.Background())
			defer cancel()
			go tt.fake.Produce(ctx, 10*time.Millisecond, 0)
			for deadline := time.Now().Add(5 * time.Second); tt.fake.Waiting() <= upTo+3; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("Produce with no cap made nothing more")
				}
			}
		})
	}
}
