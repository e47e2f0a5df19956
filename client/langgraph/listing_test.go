package langgraph

// The listing engine without HTTP: a fake search function that answers as
// /threads/search does, and a lister over it. What the watermark promises:
// a poll reads by id only the threads that changed, drops those that
// stopped waiting or were deleted, pages only until a short page, and a
// refresh that fails leaves the last good listing as it was.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// fakeSearch is a server's threads, searched as /threads/search does:
// newest updated_at first, by status or by ids, the select honoured for
// interrupts, limit and offset, with the count of matches and a Date.
type fakeSearch struct {
	mu      sync.Mutex
	now     time.Time
	threads map[string]*thread
	queries []query
	// fail, when set, refuses the queries it returns an error for.
	fail func(q query) error
	// countOff is added to every count of matches (a server that counts
	// otherwise); ignoreIDs answers a search by ids with the oldest
	// threads; unsorted answers every search oldest first.
	countOff  int
	ignoreIDs bool
	unsorted  bool
}

func newFakeSearch() *fakeSearch {
	return &fakeSearch{now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), threads: map[string]*thread{}}
}

// put makes (or changes) thread id, with one interrupt whose id is
// interrupt, updated now.
func (f *fakeSearch) put(id, status, interrupt string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	created := f.now
	if t := f.threads[id]; t != nil {
		created = t.CreatedAt
	}
	t := &thread{ThreadID: id, Status: status, CreatedAt: created, UpdatedAt: f.now}
	if interrupt != "" {
		t.Interrupts = taskInterrupts{{TaskID: "task", Interrupts: []wireInterrupt{{ID: interrupt, Value: json.RawMessage(`"` + interrupt + `?"`)}}}}
	}
	f.threads[id] = t
}

func (f *fakeSearch) tick(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func (f *fakeSearch) remove(id string) {
	f.mu.Lock()
	delete(f.threads, id)
	f.mu.Unlock()
}

func (f *fakeSearch) search(_ context.Context, q query) ([]thread, answered, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	if f.fail != nil {
		if err := f.fail(q); err != nil {
			return nil, answered{total: -1}, err
		}
	}
	var match []thread
	for _, t := range f.threads {
		if q.ids != nil && !f.ignoreIDs && !slices.Contains(q.ids, t.ThreadID) {
			continue
		}
		if q.status != "" && t.Status != q.status {
			continue
		}
		c := *t
		if !slices.Contains(q.sel, "interrupts") {
			c.Interrupts = nil
		}
		match = append(match, c)
	}
	slices.SortFunc(match, func(a, b thread) int {
		if d := b.UpdatedAt.Compare(a.UpdatedAt); d != 0 {
			return d
		}
		return strings.Compare(a.ThreadID, b.ThreadID)
	})
	if f.unsorted || (f.ignoreIDs && q.ids != nil) {
		slices.Reverse(match)
	}
	total := len(match) + f.countOff
	match = match[min(q.offset, len(match)):]
	return match[:min(q.limit, len(match))], answered{total: total, date: f.now}, nil
}

// taken returns the queries asked since the last call.
func (f *fakeSearch) taken() []query {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.queries
	f.queries = nil
	return q
}

func newTestLister(f *fakeSearch, pageSize int) *lister {
	return &lister{
		search:     f.search,
		interrupts: func(_ context.Context, t *thread) ([]client.Interrupt, error) { return t.interrupts("fake", nil), nil },
		fullSelect: func(context.Context) []string { return fullSelect },
		forget:     func(map[string]*entry) {},
		server:     "fake",
		pageSize:   pageSize,
	}
}

// listed is the view's interrupts as "thread/interrupt", newest first.
func listed(l *lister) string {
	var s []string
	for _, it := range l.view.items {
		s = append(s, it.ThreadID+"/"+it.ID)
	}
	return strings.Join(s, " ")
}

// byID are the queries by ids, as the ids asked.
func byID(qs []query) []string {
	var out []string
	for _, q := range qs {
		if q.ids != nil {
			out = append(out, strings.Join(q.ids, ","))
		}
	}
	return out
}

// ofStatus are the queries for a status, as "status limit@offset".
func ofStatus(qs []query) []string {
	var out []string
	for _, q := range qs {
		if q.status != "" {
			out = append(out, fmt.Sprintf("%s %d@%d", q.status, q.limit, q.offset))
		}
	}
	slices.Sort(out)
	return out
}

// seeded is a lister that has listed n interrupted threads t0..t(n-1),
// each a minute newer than the one before, the newest an hour ago.
func seeded(t *testing.T, n, pageSize int) (*fakeSearch, *lister) {
	t.Helper()
	f := newFakeSearch()
	f.now = f.now.Add(-time.Hour - time.Duration(n)*time.Minute)
	for i := range n {
		f.tick(time.Minute)
		f.put(fmt.Sprintf("t%d", i), "interrupted", fmt.Sprintf("i%d", i))
	}
	f.tick(time.Hour)
	l := newTestLister(f, pageSize)
	if err := l.refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	f.taken()
	return f, l
}

// The full listing pages until a page comes back short, whatever the
// server's count says: pages grow from the configured size (2, then 8).
func TestListingPagesUntilAShortPage(t *testing.T) {
	t.Parallel()
	for _, off := range []int{0, -7, +20} {
		f := newFakeSearch()
		f.countOff = off
		for i := range 9 {
			f.tick(time.Second)
			f.put(fmt.Sprintf("t%d", i), "interrupted", fmt.Sprintf("i%d", i))
		}
		f.put("b", "busy", "")
		l := newTestLister(f, 2)
		if err := l.refresh(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if got := ofStatus(f.taken()); strings.Join(got, ", ") != "busy 2@0, interrupted 2@0, interrupted 8@2" {
			t.Errorf("count off by %d: searches %q, want 2 then 8 interrupted threads (a short page: the end)", off, got)
		}
		if got := listed(l); got != "t8/i8 t7/i7 t6/i6 t5/i5 t4/i4 t3/i3 t2/i2 t1/i1 t0/i0" {
			t.Errorf("count off by %d: listed %s", off, got)
		}
	}
}

// An idle poll asks one small page and reads no thread; a new thread and
// a changed one are read by id, in one search, and nothing else is.
func TestPollReadsByIDOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	f, l := seeded(t, 9, 100)
	ctx := context.Background()
	kept := l.view.threads["t2"]
	version := l.view.version
	if err := l.refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	qs := f.taken()
	if len(qs) != 1 || qs[0].limit != watermarkPage || qs[0].ids != nil || qs[0].status != "" || slices.Contains(qs[0].sel, "interrupts") {
		t.Fatalf("an idle poll asked %+v, want one light page of %d", qs, watermarkPage)
	}
	if l.view.version != version {
		t.Error("an idle poll moved the version: the screen would redraw")
	}

	f.tick(5 * time.Second)
	f.put("new", "interrupted", "n1")
	f.put("t5", "interrupted", "i5-again") // answered, and interrupted again
	if err := l.refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	qs = f.taken()
	if got := byID(qs); len(got) != 1 || (got[0] != "new,t5" && got[0] != "t5,new") {
		t.Errorf("read by id %q, want new and t5 in one search", got)
	}
	if got := ofStatus(qs); len(got) != 0 {
		t.Errorf("a poll listed again: %q", got)
	}
	if got := listed(l); got != "new/n1 t5/i5-again t8/i8 t7/i7 t6/i6 t4/i4 t3/i3 t2/i2 t1/i1 t0/i0" {
		t.Errorf("listed %s", got)
	}
	if l.view.threads["t2"] != kept {
		t.Error("a thread that did not change was read again")
	}
	if l.view.version == version {
		t.Error("the version did not move with the items")
	}
}

// A thread that stops waiting is dropped without being read (the light
// page says its status); a thread deleted changes the server's count,
// which no poll would show otherwise: the listing is taken again, lightly.
func TestPollDropsThreadsThatStoppedWaitingOrWereDeleted(t *testing.T) {
	t.Parallel()
	f, l := seeded(t, 9, 100)
	ctx := context.Background()
	if err := l.refresh(ctx, nil); err != nil { // the first poll learns the count
		t.Fatal(err)
	}
	f.taken()

	f.tick(5 * time.Second)
	f.put("t3", "idle", "")
	if err := l.refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := byID(f.taken()); len(got) != 0 {
		t.Errorf("read by id %q: a thread that no longer waits needs no reading", got)
	}
	if strings.Contains(listed(l), "t3/") {
		t.Errorf("t3 stopped waiting, still listed: %s", listed(l))
	}

	f.remove("t6")
	if err := l.refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	qs := f.taken()
	if got := ofStatus(qs); strings.Join(got, ", ") != "busy 100@0, interrupted 100@0" {
		t.Errorf("after a deletion, searched %q, want the listing again", got)
	}
	for _, q := range qs {
		if q.status != "" && slices.Contains(q.sel, "interrupts") {
			t.Errorf("the listing taken again read interrupts: %+v", q)
		}
	}
	if got := listed(l); got != "t8/i8 t7/i7 t5/i5 t4/i4 t2/i2 t1/i1 t0/i0" {
		t.Errorf("listed %s", got)
	}
}

// A refresh that fails leaves the last good listing as it was (items,
// version, watermark): the next one that works sees what changed meanwhile.
func TestFailedRefreshKeepsTheLastGoodListing(t *testing.T) {
	t.Parallel()
	f, l := seeded(t, 9, 100)
	ctx := context.Background()
	before, version, mark := listed(l), l.view.version, l.view.mark
	down := errors.New("connection reset")

	f.tick(5 * time.Second)
	f.put("new", "interrupted", "n1")
	f.put("t1", "interrupted", "i1-again")
	for name, fail := range map[string]func(query) error{
		"the window":         func(q query) error { return down },
		"the reading by ids": func(q query) error { return map[bool]error{true: down}[q.ids != nil] },
	} {
		f.fail = fail
		if err := l.refresh(ctx, nil); !errors.Is(err, down) {
			t.Fatalf("%s failed: refresh says %v", name, err)
		}
		if listed(l) != before || l.view.version != version || !l.view.mark.Equal(mark) {
			t.Fatalf("%s failed: the view moved: %s (version %d, mark %s)", name, listed(l), l.view.version, l.view.mark)
		}
	}
	f.fail = nil
	if err := l.refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := listed(l); !strings.HasPrefix(got, "new/n1 t1/i1-again t8/i8") || strings.Contains(got, "t1/i1 ") {
		t.Errorf("after the failure, listed %s", got)
	}

	// A full listing that fails on its second page: likewise.
	l.view.full = true
	before, version = listed(l), l.view.version
	f.fail = func(q query) error { return map[bool]error{true: down}[q.offset > 0] }
	l.pageSize = 2
	if err := l.refresh(ctx, nil); !errors.Is(err, down) {
		t.Fatalf("the second page failed: refresh says %v", err)
	}
	if listed(l) != before || l.view.version != version {
		t.Errorf("a listing that failed half way replaced the last good one: %s", listed(l))
	}
	if p, _ := l.board.read(); p != nil {
		t.Errorf("the progress of the failed listing is still posted: %+v", p)
	}
}

// A server that ignores ids, or does not sort as asked, cannot be polled
// by watermark: it is listed in full, at once and from then on.
func TestServerThatCannotBePolledIsListedInFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, fault := range []string{"ignores ids", "unsorted"} {
		f, l := seeded(t, 9, 100)
		f.ignoreIDs, f.unsorted = fault == "ignores ids", fault == "unsorted"
		f.tick(5 * time.Second)
		f.put("new", "interrupted", "n1")
		if err := l.refresh(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if !l.view.full || !strings.Contains(listed(l), "new/n1") || len(l.view.items) != 10 {
			t.Errorf("%s: full %v, listed %s", fault, l.view.full, listed(l))
		}
		if got := ofStatus(f.taken()); len(got) != 2 {
			t.Errorf("%s: searched %q, want the listing", fault, got)
		}
		if err := l.refresh(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if got := ofStatus(f.taken()); len(got) != 2 {
			t.Errorf("%s: the next refresh searched %q, want the listing again", fault, got)
		}
	}
}
