package langgraph

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/hitl-sh/hitl/client"
)

// Finding what waits, at any scale.
//
// The first listing reads every interrupted and busy thread, in pages. After
// that a poll asks only what changed: the server sorts threads by
// updated_at and every change of status or interrupts moves a thread's
// updated_at, so a poll lists threads (id, status, times: no interrupts)
// newest first and stops at the first one older than the newest it saw last
// time (the watermark). Threads that changed are read again by id, in one
// search; the others keep the interrupts already parsed. A thread that
// stopped waiting shows up in that poll too, with its new status, and is
// dropped. Deleted threads never show up: the server's count of threads
// tells, and the listing is then taken again (lightly: ids and times,
// reading by id only what differs). A server that does not sort as asked
// or ignores ids is listed in full at every poll, as before.

// lister is the listing engine: it keeps the view of the server's waiting
// threads and brings it up to date (refresh) by a full listing, a
// watermark poll (watermark.go) or a resync. It reaches the server only
// through its functions, so that it is tested without HTTP. One refresh
// runs at a time: the caller holds Backend.turn.
type lister struct {
	view  view
	board board // the progress of a listing, for those waiting for the turn
	// search asks for one page of /threads/search (Backend.searchPage).
	search searchFunc
	// interrupts reads a thread's waiting interrupts (Backend.threadInterrupts,
	// with the thread's facts: facts.go).
	interrupts func(ctx context.Context, t *thread) ([]client.Interrupt, error)
	// fullSelect is what to select of a thread hitl shows (Backend.fullSelect).
	fullSelect func(ctx context.Context) []string
	// forget is given the threads of each new view (Backend.forget drops
	// the facts of the others).
	forget   func(keep map[string]*entry)
	server   string // the Server of the interrupts it makes
	pageSize int    // the first page of a listing (Options.PageSize)
}

// pages pages through the search for threads of one status (with ids:
// those threads, whatever their status), from the configured page size.
func (l *lister) pages(ctx context.Context, status string, ids, sel []string, each func([]thread, int) error) ([]thread, time.Time, error) {
	return l.search.pages(ctx, query{status: status, ids: ids, sel: sel, limit: l.pageSize}, each)
}

// view is what the backend knows of the server's waiting threads between
// polls. It is read and written by one refresh at a time (Backend.turn).
type view struct {
	listed bool      // a full listing was taken
	synced time.Time // when the listing was last taken
	// mark is the newest updated_at seen: the next poll asks for threads at
	// least this new.
	mark time.Time
	// total is how many threads match the filters, as the server counted
	// them at the last poll (-1: unknown).
	total int
	// full: this server cannot be polled by watermark; list it in full.
	full bool
	// recounts is how many listings in a row were taken because the count
	// was off; countless: the server's count does not add up, unused.
	recounts  int
	countless bool
	threads   map[string]*entry // interrupted and busy threads, by id
	items     []client.Interrupt
	version   uint64 // moves whenever items change
	installs  int    // moves whenever threads is replaced
	// busy are the busy threads (id to updated_at) of threads as of
	// installs busyOf.
	busy    map[string]time.Time
	busyOf  int
	started time.Time
	done    time.Time
}

// entry is one waiting (or busy) thread as last read, with its parsed
// interrupts: they are parsed again only when the thread changes.
type entry struct {
	updated time.Time
	status  string
	its     []client.Interrupt
}

func (e *entry) same(t *thread) bool {
	return e != nil && e.updated.Equal(t.UpdatedAt) && e.status == t.Status
}

func waits(status string) bool { return status == "interrupted" || status == "busy" }

// refresh brings the view up to date; the turn is held.
func (l *lister) refresh(ctx context.Context, report func(client.Progress)) error {
	v := &l.view
	v.started = time.Now()
	var err error
	switch {
	case !v.listed || v.full:
		err = l.list(ctx, report)
	case time.Since(v.synced) > resyncEvery:
		err = l.resync(ctx)
	default:
		err = l.poll(ctx)
	}
	if err == nil {
		v.done = time.Now()
	}
	return err
}

// markMargin is how far before the server's Date of the first listing the
// watermark is set: the Date header counts whole seconds and is written
// after the server read its threads, and a gateway's clock may differ a
// little from the server's.
const markMargin = 10 * time.Second

// list takes the whole listing: every interrupted and busy thread with its
// interrupts, page by page, the two searches at once (a cold `hitl list`
// is one round trip, two with breakpoints or fan-out threads).
//
// The next poll starts at the watermark: whatever changes during or after
// the listing must be at least that new. It is the server's Date of the
// listing's first answers, less a margin; a server that sends no Date has
// its first poll read every thread's id and time once.
func (l *lister) list(ctx context.Context, report func(client.Progress)) error {
	v := &l.view
	threads := map[string]*entry{}
	read, counted := 0, 0
	each := func(page []thread, known int) error {
		var ts []*thread
		for i := range page {
			t := &page[i]
			// A thread that changed status between the two searches is in
			// both: the newer reading is the truth.
			if e := threads[t.ThreadID]; e != nil && e.updated.After(t.UpdatedAt) {
				continue
			}
			ts = append(ts, t)
		}
		if err := l.readThreads(ctx, ts, threads); err != nil {
			return err
		}
		read += len(page)
		p := client.Progress{Items: assemble(threads), Threads: read, Total: counted + max(known, len(page))}
		l.board.publish(&p)
		if report != nil {
			report(p)
		}
		return nil
	}
	defer l.board.publish(nil)
	type searched struct {
		list []thread
		date time.Time
		err  error
	}
	busy := make(chan searched, 1)
	sel := l.fullSelect(ctx)
	go func() {
		l, d, err := l.pages(ctx, "busy", nil, sel, nil)
		busy <- searched{l, d, err}
	}()
	list, date, err := l.pages(ctx, "interrupted", nil, sel, each)
	bs := <-busy
	if err != nil {
		return err
	}
	if bs.err != nil {
		return bs.err
	}
	counted += len(list)
	if err := each(bs.list, len(bs.list)); err != nil {
		return err
	}
	var mark time.Time
	if !date.IsZero() && !bs.date.IsZero() {
		mark = date
		if bs.date.Before(mark) {
			mark = bs.date
		}
		mark = mark.Add(-markMargin)
	}
	v.listed, v.synced, v.mark, v.total = true, time.Now(), mark, -1
	l.install(threads)
	return nil
}

// read makes an entry of a thread just read with its interrupts, reusing
// what was parsed before when the thread has not changed.
func (l *lister) read(ctx context.Context, t *thread) (*entry, error) {
	if e := l.view.threads[t.ThreadID]; e.same(t) {
		return e, nil
	}
	its, err := l.interrupts(ctx, t)
	if err != nil {
		return nil, err
	}
	return &entry{updated: t.UpdatedAt, status: t.Status, its: its}, nil
}

// readers is how many threads are read at once: each thread whose state
// must be read (a breakpoint, parallel or fan-out interrupts) costs a
// request, and a large inbox has hundreds of them.
const readers = 32

// readThreads makes entries of threads just read, several at a time, and
// puts them in threads.
func (l *lister) readThreads(ctx context.Context, ts []*thread, threads map[string]*entry) error {
	out := make([]*entry, len(ts))
	errs := make([]error, len(ts))
	sem := make(chan struct{}, readers)
	var wg sync.WaitGroup
	for i, t := range ts {
		if e := l.view.threads[t.ThreadID]; e.same(t) {
			out[i] = e
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = l.read(ctx, t)
		}()
	}
	wg.Wait()
	// One thread the server cannot read is one visible item, not a failed
	// listing; when none can be read, the server itself is the problem.
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
		}
	}
	if failed > 0 && (failed == len(ts) || ctx.Err() != nil) {
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	for i, t := range ts {
		if errs[i] != nil {
			out[i] = l.unreadableThread(t, errs[i])
		}
		threads[t.ThreadID] = out[i]
	}
	return nil
}

// unreadableThread is a thread whose interrupts could not be read, as one
// item that says why. It is not kept: the next poll reads the thread again.
func (l *lister) unreadableThread(t *thread, err error) *entry {
	p := client.Unreadable("the server could not give this thread's interrupts (" + err.Error() + "); hitl asks again at every poll")
	it := t.base(l.server, unreadableThreadItem(t.ThreadID), nil, p)
	return &entry{status: t.Status, its: []client.Interrupt{it}} // zero updated: never the same as the thread
}

// install makes threads the view; the version moves when the items do.
func (l *lister) install(threads map[string]*entry) {
	v := &l.view
	changed := len(threads) != len(v.threads)
	for id, e := range threads {
		if old := v.threads[id]; old != e {
			changed = true
		}
	}
	v.threads = threads
	v.installs++
	if changed {
		items := assemble(threads)
		if !sameItems(items, v.items) {
			v.version++
		}
		v.items = items
	}
	l.forget(threads)
}

// sameItems reports whether two lists show the same: a busy thread that
// went idle without interrupts changes nothing a reader sees. Claims and
// approvals are thread metadata that do not move an interrupt's
// updated_at (wire.go), nor does a value asked again under a claim: they
// are compared themselves (a reader that skips its read while the version
// stands, the TUI, shows them). Values read again are new arrays only
// when their thread changed.
func sameItems(a, c []client.Interrupt) bool {
	return slices.EqualFunc(a, c, func(x, y client.Interrupt) bool {
		return x.ID == y.ID && x.Busy == y.Busy && x.UpdatedAt.Equal(y.UpdatedAt) &&
			bytes.Equal(x.Raw, y.Raw) && bytes.Equal(x.Bytes, y.Bytes) &&
			slices.EqualFunc(x.Claims, y.Claims, sameClaim) && sameApproval(x.Approval, y.Approval)
	})
}

func sameClaim(p, q client.Claim) bool {
	return p.Reviewer == q.Reviewer && p.Client == q.Client && p.Since.Equal(q.Since) && p.Expires.Equal(q.Expires)
}

func sameApproval(p, q *client.Approval) bool {
	if p == nil || q == nil {
		return p == q
	}
	return slices.Equal(p.Approvers, q.Approvers) && p.Needed == q.Needed && bytes.Equal(p.Value, q.Value) &&
		slices.Equal(p.Tools, q.Tools) && p.Since.Equal(q.Since)
}

// assemble lists the threads' interrupts, newest thread first.
func assemble(threads map[string]*entry) []client.Interrupt {
	ids := make([]string, 0, len(threads))
	n := 0
	for id, e := range threads {
		ids = append(ids, id)
		n += len(e.its)
	}
	slices.SortFunc(ids, func(a, c string) int {
		if d := threads[c].updated.Compare(threads[a].updated); d != 0 {
			return d
		}
		if a < c {
			return -1
		}
		return 1
	})
	out := make([]client.Interrupt, 0, n)
	for _, id := range ids {
		out = append(out, threads[id].its...)
	}
	return out
}
