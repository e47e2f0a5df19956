package main

import (
	"context"
	"io"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
)

// skippingBackend's first listing misses one interrupt, as a paged
// listing does when threads before it are answered while it is read.
type skippingBackend struct {
	*fake.Backend
	skip  string
	calls int
}

func (b *skippingBackend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	b.calls++
	all, err := b.Backend.Pending(ctx)
	if b.calls > 1 || err != nil {
		return all, err
	}
	var out []client.Interrupt
	for _, it := range all {
		if it.ID != b.skip {
			out = append(out, it)
		}
	}
	return out, nil
}

// An id the first page-by-page reading missed is looked for once more
// before it is called gone: two reviewers racing on a replicated server
// were both told "no waiting interrupt" when the listing skipped it.
func TestAnIDMissedByAPagedListingIsLookedForAgain(t *testing.T) {
	its := []client.Interrupt{
		{ID: "aaaa1111", ThreadID: "t1", Raw: []byte(`"one?"`)},
		{ID: "bbbb2222", ThreadID: "t2", Raw: []byte(`"two?"`)},
	}
	b := &skippingBackend{Backend: fake.New(its...), skip: "bbbb2222"}
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &app{backend: b, journal: j, stderr: io.Discard}
	it, err := a.find(context.Background(), "bbbb")
	if err != nil {
		t.Fatalf("the skipped interrupt was not found: %v", err)
	}
	if it.ID != "bbbb2222" || b.calls != 2 {
		t.Fatalf("found %q after %d listings, want bbbb2222 after 2", it.ID, b.calls)
	}
	// An id found at once costs one listing.
	b.calls = 0
	if _, err := a.find(context.Background(), "aaaa"); err != nil || b.calls != 1 {
		t.Fatalf("a listed id: %v after %d listings, want 1", err, b.calls)
	}
}
