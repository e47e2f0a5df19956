package review

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/fake"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/decide"
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
	a := &Session{Backend: b, Journal: j, Warnings: io.Discard}
	it, err := a.Find(context.Background(), "bbbb")
	if err != nil {
		t.Fatalf("the skipped interrupt was not found: %v", err)
	}
	if it.ID != "bbbb2222" || b.calls != 2 {
		t.Fatalf("found %q after %d listings, want bbbb2222 after 2", it.ID, b.calls)
	}
	// An id found at once costs one listing.
	b.calls = 0
	if _, err := a.Find(context.Background(), "aaaa"); err != nil || b.calls != 1 {
		t.Fatalf("a listed id: %v after %d listings, want 1", err, b.calls)
	}
}

func session(t *testing.T, b client.Backend) *Session {
	t.Helper()
	j, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &Session{Backend: b, Features: b.Features(), Journal: j, Reviewer: "alice", Warnings: io.Discard}
}

func kindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// An id is read as a prefix of 4+ characters; what it cannot name is said
// with what to do, by the Kind a script reads as the exit status.
func TestFindSaysWhatAnIDNames(t *testing.T) {
	its := []client.Interrupt{
		{ID: "abcd1111", ThreadID: "thread-one", GraphID: "g", Raw: []byte(`"one?"`), Payload: client.Parse([]byte(`"one?"`))},
		{ID: "abcd2222", ThreadID: "thread-two", GraphID: "g", Raw: []byte(`"two?"`), Payload: client.Parse([]byte(`"two?"`))},
	}
	s := session(t, fake.New(its...))
	ctx := context.Background()
	if _, err := s.Find(ctx, "abc"); kindOf(err) != Usage || !strings.Contains(err.Error(), "at least 4 characters") {
		t.Fatalf("a short id: %v", err)
	}
	if _, err := s.Find(ctx, "abcd"); kindOf(err) != Usage || !strings.Contains(err.Error(), "matches 2 interrupts") ||
		!strings.Contains(err.Error(), "abcd1111") || !strings.Contains(err.Error(), "abcd2222") {
		t.Fatalf("an ambiguous prefix: %v", err)
	}
	if it, err := s.Find(ctx, " ABCD2 "); err != nil || it.ID != "abcd2222" {
		t.Fatalf("a prefix, any case: %v %v", it.ID, err)
	}
	if _, err := s.Find(ctx, "ffff0000"); kindOf(err) != Refused || !strings.Contains(err.Error(), "never saw it listed") {
		t.Fatalf("an id never seen: %v", err)
	}
	got, err := s.FindAll(ctx, nil, "thread-t")
	if err != nil || len(got) != 1 || got[0].ID != "abcd2222" || len(s.Waiting) != 2 {
		t.Fatalf("a thread by its prefix: %+v %v (waiting %d)", got, err, len(s.Waiting))
	}
	if _, err := s.FindAll(ctx, nil, "thread"); kindOf(err) != Usage || !strings.Contains(err.Error(), "matches 2 threads") {
		t.Fatalf("an ambiguous thread: %v", err)
	}
	if _, err := s.FindAll(ctx, nil, "nope-thread"); kindOf(err) != Refused {
		t.Fatalf("no such thread: %v", err)
	}
}

// An interrupt decided from this machine is not sent again: the error
// says so with what its --json object names; read (hitl show), it says
// what became of it.
func TestFindTellsWhatThisMachineDecided(t *testing.T) {
	b := fake.New(tools("abcd1111", "bash", `["approve","reject"]`))
	s := session(t, b)
	ctx := context.Background()
	found, err := s.Find(ctx, "abcd")
	if err != nil {
		t.Fatal(err)
	}
	p := s.Pipeline()
	subs, err := p.Prepare([]decide.Draft{{Interrupt: found, Decisions: []client.Decision{{Type: client.Approve}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Send(ctx, subs[0]); r.Kind != decide.Sent {
		t.Fatalf("send: %v", r.Text())
	}
	_, err = s.Find(ctx, "abcd")
	var ab *About
	if kindOf(err) != Nothing || !errors.As(err, &ab) || ab.Result != "handled-here" || ab.ID != "abcd1111" ||
		!strings.Contains(err.Error(), "already handled from this machine") || !strings.Contains(err.Error(), "hitl forget abcd1111") {
		t.Fatalf("decided here: %v", err)
	}
	s.Reading = true
	if _, err := s.Find(ctx, "abcd"); kindOf(err) != Nothing || !strings.Contains(err.Error(), "no longer waits: it was decided from this machine") {
		t.Fatalf("decided here, read: %v", err)
	}
}

// An id that no longer waits but a failed run still holds is found there
// (answered again); the failed runs come with this machine's decision.
func TestFindReachesTheFailedRuns(t *testing.T) {
	held := client.Interrupt{ID: "ffff9999", ThreadID: "tf", Raw: []byte(`"again?"`), Payload: client.Parse([]byte(`"again?"`)), Retry: true}
	b := fake.New()
	b.SetFailures(client.Failure{ThreadID: "tf", GraphID: "g", Error: "boom", Interrupts: []client.Interrupt{held}})
	s := session(t, b)
	ctx := context.Background()
	it, err := s.Find(ctx, "ffff")
	if err != nil || it.ID != "ffff9999" {
		t.Fatalf("held by a failed run: %v %v", it.ID, err)
	}
	list, total, ok, err := s.Failures(ctx)
	if err != nil || !ok || total != 1 || len(list) != 1 || list[0].ThreadID != "tf" || list[0].Sent != nil {
		t.Fatalf("failures: %+v %d %v %v", list, total, ok, err)
	}
}
