package langgraph

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
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

// watermarkPage is the first page size of a watermark poll: an idle poll
// sees the newest thread or two and stops.
const watermarkPage = 4

// maxPage is the most threads the server gives in one page.
const maxPage = 1000

// resyncEvery is how often the listing is taken again even when nothing
// says it must: a safety net for changes a server makes without moving
// updated_at.
const resyncEvery = 10 * time.Minute

// errNoIDs: the server answered a search by ids with other threads.
var errNoIDs = errors.New("the server ignores ids in /threads/search")

// lightSelect is what a watermark poll and a resync read of each thread.
var lightSelect = []string{"thread_id", "status", "created_at", "updated_at"}

// fullSelect is what hitl reads of a thread it shows: everything but its
// values (the whole conversation).
var fullSelect = []string{"thread_id", "status", "metadata", "created_at", "updated_at", "interrupts"}

// pySelect adds, on the Python server, state_updated_at: when the thread's
// state or status last changed, which a metadata PATCH (a claim) does not
// move (the JS server has no such field, and refuses to select it).
var pySelect = append(append([]string(nil), fullSelect...), "state_updated_at")

// fullSelect is what to select of a thread hitl shows, on this server.
func (b *Backend) fullSelect(ctx context.Context) []string {
	if b.python(ctx) {
		return pySelect
	}
	return fullSelect
}

// threadFacts is what the thread list does not say about a thread and that
// costs a request to learn: which interrupts were answered already (a
// fan-out thread keeps listing answered branches), which are being answered
// by a run in progress, and, for a breakpoint, where it stopped. It holds
// for the thread's updated_at it was read at.
type threadFacts struct {
	updated   time.Time
	answered  map[string]bool // interrupt ids whose task has a result
	answering map[string]*run // interrupt ids an active run resumes
	state     *threadState    // read for a thread with several tasks or no interrupt value
	runs      []run           // the active runs, for a busy thread
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

// Pending lists the waiting interrupts of every interrupted thread that
// matches the filters, and those of busy threads that no run is answering
// (marked Busy), newest thread first.
func (b *Backend) Pending(ctx context.Context) ([]client.Interrupt, error) {
	return b.PendingProgress(ctx, nil)
}

// PendingProgress is Pending, reporting each page of a long listing as it
// arrives (client.Progressive).
func (b *Backend) PendingProgress(ctx context.Context, report func(client.Progress)) ([]client.Interrupt, error) {
	called := time.Now()
	if err := b.lockReporting(ctx, report); err != nil {
		return nil, err
	}
	defer b.unlock()
	v := &b.view
	// A refresh that started after this call and ended while it waited
	// has read everything this call would. A caller that says the
	// watcher's listing will do (a reader woken by Changes comes here
	// right after the look that found the change) takes one that ended a
	// moment ago: no older than the watcher's cadence, since the watcher
	// would have said if a newer one had found a change (a periodic read
	// costs no request). Anyone else is answered from the server: a
	// listing asked for after something happened must show it.
	fresh := !v.done.Before(v.started) &&
		(v.started.After(called) ||
			(client.WatchedDoes(ctx) && b.watching.Load() > 0 &&
				time.Since(v.done) < time.Duration(b.lookEvery.Load())+b.opts.Live/2))
	if fresh {
		return slices.Clone(v.items), nil
	}
	if err := b.refresh(ctx, report); err != nil {
		return nil, err
	}
	return slices.Clone(v.items), nil
}

// lock takes the turn to refresh the view, or gives up with ctx.
func (b *Backend) lock(ctx context.Context) error {
	select {
	case b.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *Backend) unlock() { <-b.turn }

// lockReporting takes the turn, reporting meanwhile the progress of the
// listing that holds it (the watcher's first listing, say).
func (b *Backend) lockReporting(ctx context.Context, report func(client.Progress)) error {
	var last *client.Progress
	for {
		p, changed := b.board.read()
		if report != nil && p != nil && p != last {
			report(*p)
			last = p
		}
		select {
		case b.turn <- struct{}{}:
			return nil
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// board shares the progress of the listing in flight with the callers
// waiting for their turn.
type board struct {
	mu      sync.Mutex
	latest  *client.Progress // nil: no listing in flight
	changed chan struct{}    // closed when latest changes
}

func (p *board) publish(pr *client.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latest = pr
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}

func (p *board) read() (*client.Progress, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.latest, p.changed
}

// refresh brings the view up to date; the turn is held.
func (b *Backend) refresh(ctx context.Context, report func(client.Progress)) error {
	v := &b.view
	v.started = time.Now()
	var err error
	switch {
	case !v.listed || v.full:
		err = b.list(ctx, report)
	case time.Since(v.synced) > resyncEvery:
		err = b.resync(ctx)
	default:
		err = b.poll(ctx)
	}
	if err == nil {
		v.done = time.Now()
	}
	return err
}

// filters are the metadata the listing is limited to.
func (b *Backend) filters() map[string]any {
	meta := map[string]any{}
	for k, v := range b.opts.Metadata {
		meta[k] = v
	}
	if b.opts.Graph != "" {
		meta["graph_id"] = b.opts.Graph
	}
	if b.opts.Assistant != "" {
		meta["assistant_id"] = b.opts.Assistant
	}
	return meta
}

// query is one /threads/search.
type query struct {
	status string
	ids    []string
	sel    []string
	limit  int
	offset int
}

// answered is what a search's answer says besides its threads.
type answered struct {
	total int       // the server's count of matches (-1: it does not say)
	date  time.Time // its Date header (zero: none)
}

// searchPage asks for one page.
func (b *Backend) searchPage(ctx context.Context, q query) ([]thread, answered, error) {
	body := map[string]any{
		"limit":      q.limit,
		"offset":     q.offset,
		"sort_by":    "updated_at",
		"sort_order": "desc",
		"select":     q.sel,
	}
	if q.status != "" {
		body["status"] = q.status
	}
	if q.ids != nil {
		body["ids"] = q.ids
	} else if meta := b.filters(); len(meta) > 0 {
		body["metadata"] = meta
	}
	var page threadPage // one unreadable thread is one item, not a failed listing
	resp, err := b.Reads.R().SetContext(ctx).SetBody(body).Post("/threads/search")
	if err := b.Check(resp, err, "list interrupted threads", &page); err != nil {
		if resp == nil || resp.StatusCode() != http.StatusNotFound {
			return nil, answered{total: -1}, err
		}
		// Every Agent Server has this route: the URL is not one.
		return nil, answered{total: -1}, fmt.Errorf("%v; POST /threads/search is on every LangGraph server: is --url (or HITL_URL) the server's base address, without a path?", err)
	}
	a := answered{total: -1}
	if n, err := strconv.Atoi(resp.Header().Get("X-Pagination-Total")); err == nil {
		a.total = n
	}
	a.date, _ = http.ParseTime(resp.Header().Get("Date"))
	return []thread(page), a, nil
}

// countOf is the server's count of matches from a first page, or -1 when it
// cannot be trusted: the JS server counts one too many when the matches
// fill the page exactly.
func countOf(page []thread, limit, count int) int {
	if len(page) == limit && count == limit+1 {
		return -1
	}
	return count
}

// search pages through /threads/search for threads of one status; ids
// limits it to those threads (any status). Pages start at the configured
// size, so that the first screenful comes quickly, and grow to the
// server's most. each is called with every page, and can stop the paging.
func (b *Backend) search(ctx context.Context, status string, ids []string, sel []string, each func([]thread, int) error) ([]thread, time.Time, error) {
	var all []thread
	var date time.Time // of the first page
	size := b.opts.PageSize
	known := -1 // the total the first page counted
	for offset := 0; ; {
		page, a, err := b.searchPage(ctx, query{status: status, ids: ids, sel: sel, limit: size, offset: offset})
		if err != nil {
			return nil, date, err
		}
		if offset == 0 {
			known, date = countOf(page, size, a.total), a.date
		}
		all = append(all, page...)
		if each != nil {
			if err := each(page, known); err != nil {
				return nil, date, err
			}
		}
		offset += len(page)
		// Only a short page ends the paging. The server's count
		// (X-Pagination-Total) is for progress only: the JS server counts
		// one too many when the matches fill the page exactly, past the
		// first page its count is not the total, and a count that fell
		// short (threads made while paging) would drop threads.
		if len(page) < size {
			return all, date, nil
		}
		size = min(size*4, maxPage)
	}
}

// thread reads one thread as the search shows it, or nil when the server
// does not know it.
func (b *Backend) thread(ctx context.Context, id string) (*thread, error) {
	list, _, err := b.search(ctx, "", []string{id}, b.fullSelect(ctx), nil)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].ThreadID == id {
			return &list[i], nil
		}
	}
	return nil, nil
}

// newest asks for the newest thread's updated_at and the count of threads:
// where the next poll starts.
func (b *Backend) newest(ctx context.Context) (time.Time, int, error) {
	page, a, err := b.searchPage(ctx, query{sel: lightSelect, limit: 1})
	if err != nil || len(page) == 0 {
		return time.Time{}, a.total, err
	}
	return page[0].UpdatedAt, countOf(page, 1, a.total), nil
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
func (b *Backend) list(ctx context.Context, report func(client.Progress)) error {
	v := &b.view
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
		es, err := b.readThreads(ctx, ts)
		if err != nil {
			return err
		}
		for i, t := range ts {
			threads[t.ThreadID] = es[i]
		}
		read += len(page)
		p := client.Progress{Items: assemble(threads), Threads: read, Total: counted + max(known, len(page))}
		b.board.publish(&p)
		if report != nil {
			report(p)
		}
		return nil
	}
	defer b.board.publish(nil)
	type searched struct {
		list []thread
		date time.Time
		err  error
	}
	busy := make(chan searched, 1)
	sel := b.fullSelect(ctx)
	go func() {
		l, d, err := b.search(ctx, "busy", nil, sel, nil)
		busy <- searched{l, d, err}
	}()
	list, date, err := b.search(ctx, "interrupted", nil, sel, each)
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
	b.install(threads)
	return nil
}

// read makes an entry of a thread just read with its interrupts, reusing
// what was parsed before when the thread has not changed.
func (b *Backend) read(ctx context.Context, t *thread) (*entry, error) {
	if e := b.view.threads[t.ThreadID]; e.same(t) {
		return e, nil
	}
	its, err := b.threadInterrupts(ctx, t, true)
	if err != nil {
		return nil, err
	}
	return &entry{updated: t.UpdatedAt, status: t.Status, its: its}, nil
}

// readers is how many threads are read at once: each thread whose state
// must be read (a breakpoint, parallel or fan-out interrupts) costs a
// request, and a large inbox has hundreds of them.
const readers = 32

// readThreads makes entries of threads just read, several at a time.
func (b *Backend) readThreads(ctx context.Context, ts []*thread) ([]*entry, error) {
	out := make([]*entry, len(ts))
	errs := make([]error, len(ts))
	sem := make(chan struct{}, readers)
	var wg sync.WaitGroup
	for i, t := range ts {
		if e := b.view.threads[t.ThreadID]; e.same(t) {
			out[i] = e
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = b.read(ctx, t)
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
				return nil, err
			}
		}
	}
	for i, err := range errs {
		if err != nil {
			out[i] = b.unreadableThread(ts[i], err)
		}
	}
	return out, nil
}

// unreadableThread is a thread whose interrupts could not be read, as one
// item that says why. It is not kept: the next poll reads the thread again.
func (b *Backend) unreadableThread(t *thread, err error) *entry {
	p := client.Unreadable("the server could not give this thread's interrupts (" + err.Error() + "); hitl asks again at every poll")
	it := t.base(b.Server(), hash128("hitl-unreadable|"+t.ThreadID), nil, p)
	return &entry{status: t.Status, its: []client.Interrupt{it}} // zero updated: never the same as the thread
}

// install makes threads the view; the version moves when the items do.
func (b *Backend) install(threads map[string]*entry) {
	v := &b.view
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
	b.forget(threads)
}

// sameItems reports whether two lists show the same: a busy thread that
// went idle without interrupts changes nothing a reader sees.
func sameItems(a, c []client.Interrupt) bool {
	return slices.EqualFunc(a, c, func(x, y client.Interrupt) bool {
		return x.ID == y.ID && x.Busy == y.Busy && x.UpdatedAt.Equal(y.UpdatedAt)
	})
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

// window lists, lightly, the threads at least as new as the watermark,
// newest first, with the server's count of threads (-1: unknown). ok is
// false when the server does not sort by updated_at as asked.
func (b *Backend) window(ctx context.Context) (list []thread, total int, ok bool, err error) {
	mark := b.view.mark
	size := watermarkPage
	total = -1
	last := time.Time{}
	for offset := 0; ; {
		page, a, err := b.searchPage(ctx, query{sel: lightSelect, limit: size, offset: offset})
		if err != nil {
			return nil, -1, true, err
		}
		if offset == 0 {
			total = countOf(page, size, a.total)
		}
		// The whole page must be in order, not only up to the watermark:
		// a server that sorts otherwise would have its changes missed.
		for _, t := range page {
			if !last.IsZero() && t.UpdatedAt.After(last) {
				return nil, -1, false, nil
			}
			last = t.UpdatedAt
		}
		for _, t := range page {
			if t.UpdatedAt.Before(mark) {
				return list, total, true, nil
			}
			list = append(list, t)
		}
		if len(page) < size {
			return list, total, true, nil
		}
		offset += len(page)
		size = min(size*4, maxPage)
	}
}

// poll asks what changed since the watermark and reads only that.
func (b *Backend) poll(ctx context.Context) error {
	v := &b.view
	list, total, ok, err := b.window(ctx)
	if err != nil {
		return err
	}
	if !ok {
		v.full = true
		return b.list(ctx, nil)
	}
	mark := v.mark
	if len(list) > 0 && list[0].UpdatedAt.After(mark) {
		mark = list[0].UpdatedAt
	}
	// Threads created since the last poll are all in the window: any other
	// change of the count is a thread deleted (or moved out of the
	// filters), which no poll would show. Take the listing again.
	if total >= 0 && v.total >= 0 && !v.countless {
		created := 0
		seen := map[string]bool{}
		for _, t := range list {
			if !seen[t.ThreadID] && t.CreatedAt.After(v.mark) {
				created++
			}
			seen[t.ThreadID] = true
		}
		if total != v.total+created {
			// Several times in a row right after listings taken for that
			// reason: this server counts otherwise. Rely on resyncEvery.
			if v.recounts++; v.recounts > 3 {
				v.countless = true
			} else {
				return b.resync(ctx)
			}
		}
	}
	v.recounts = 0
	if err := b.apply(ctx, list); err != nil {
		return b.fallBack(ctx, err)
	}
	v.mark, v.total = mark, total
	return nil
}

// resync takes the listing again, lightly: ids and times of every
// interrupted and busy thread, then by id the threads that differ from
// the view.
func (b *Backend) resync(ctx context.Context) error {
	v := &b.view
	mark, total, err := b.newest(ctx)
	if err != nil {
		return err
	}
	var list []thread
	for _, status := range []string{"interrupted", "busy"} {
		l, _, err := b.search(ctx, status, nil, lightSelect, nil)
		if err != nil {
			return err
		}
		list = append(list, l...)
	}
	listed := map[string]bool{}
	for _, t := range list {
		listed[t.ThreadID] = true
	}
	threads := make(map[string]*entry, len(v.threads))
	for id, e := range v.threads {
		if listed[id] {
			threads[id] = e
		}
	}
	if err := b.update(ctx, threads, list); err != nil {
		return b.fallBack(ctx, err)
	}
	v.synced, v.mark, v.total = time.Now(), mark, total
	b.install(threads)
	return nil
}

// fallBack lists in full, from now on, a server that ignored ids.
func (b *Backend) fallBack(ctx context.Context, err error) error {
	if !errors.Is(err, errNoIDs) {
		return err
	}
	b.view.full = true
	return b.list(ctx, nil)
}

// apply brings the view up to date with threads seen to have changed.
// When none has (the look of an idle watcher: the window holds the
// newest thread, as it was), the view stays as it is: no copy of it.
func (b *Backend) apply(ctx context.Context, list []thread) error {
	if b.unchanged(list) {
		return nil
	}
	threads := make(map[string]*entry, len(b.view.threads))
	for id, e := range b.view.threads {
		threads[id] = e
	}
	if err := b.update(ctx, threads, list); err != nil {
		return err
	}
	b.install(threads)
	return nil
}

// unchanged: every thread of list is in the view as it was, or neither
// waits nor is in it.
func (b *Backend) unchanged(list []thread) bool {
	for i := range list {
		t := &list[i]
		e := b.view.threads[t.ThreadID]
		if !e.same(t) && (e != nil || waits(t.Status)) {
			return false
		}
	}
	return true
}

// update reads by id the threads of list (seen lightly) that differ from
// threads, and puts them in threads, or takes them out when they no
// longer wait.
func (b *Backend) update(ctx context.Context, threads map[string]*entry, list []thread) error {
	var ids []string
	seen := map[string]bool{}
	for i := range list {
		t := &list[i]
		if seen[t.ThreadID] {
			continue // seen twice while paging: the first is the newer
		}
		seen[t.ThreadID] = true
		switch e := threads[t.ThreadID]; {
		case e.same(t):
		case !waits(t.Status):
			delete(threads, t.ThreadID)
		default:
			ids = append(ids, t.ThreadID)
		}
	}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), maxPage)]
		ids = ids[len(chunk):]
		page, _, err := b.searchPage(ctx, query{ids: chunk, sel: b.fullSelect(ctx), limit: len(chunk)})
		if err != nil {
			return err
		}
		asked := make(map[string]bool, len(chunk))
		for _, id := range chunk {
			asked[id] = true
			delete(threads, id) // gone unless the answer has it
		}
		var ts []*thread
		for i := range page {
			t := &page[i]
			if !asked[t.ThreadID] {
				return errNoIDs
			}
			if waits(t.Status) {
				ts = append(ts, t)
			}
		}
		es, err := b.readThreads(ctx, ts)
		if err != nil {
			return err
		}
		for i, t := range ts {
			threads[t.ThreadID] = es[i]
		}
	}
	return nil
}

// threadInterrupts reads a thread's waiting interrupts. Answered branches
// (their task has a result) and interrupts an active run is answering are
// left out; the others of a busy thread are marked Busy. A thread that is
// interrupted but lists no interrupt value is read through its state: its
// tasks may carry them, or it stopped at a static breakpoint.
func (b *Backend) threadInterrupts(ctx context.Context, t *thread, cached bool) ([]client.Interrupt, error) {
	n := t.Interrupts.count()
	switch {
	case t.Status == "interrupted" && n == 0:
	case t.Status == "busy" && n > 0:
	case t.Status == "interrupted" && len(t.Interrupts) > 1:
	case t.Status == "interrupted":
		return t.interrupts(b.Server(), nil), nil
	default:
		return nil, nil
	}
	f, err := b.facts(ctx, t, cached)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return b.stateInterrupts(t, f.state), nil
	}
	skip := map[string]bool{}
	for id := range f.answered {
		skip[id] = true
	}
	for id := range f.answering {
		skip[id] = true
	}
	its := t.interrupts(b.Server(), skip)
	if t.Status == "busy" {
		for i := range its {
			its[i].Busy = true
		}
	}
	return its, nil
}

// stateInterrupts are the interrupts a thread's state carries in its tasks,
// or its breakpoint when it has none.
func (b *Backend) stateInterrupts(t *thread, st *threadState) []client.Interrupt {
	if st == nil {
		return nil
	}
	var out []client.Interrupt
	for _, task := range st.Tasks {
		if task.answered() {
			continue
		}
		for i, w := range task.Interrupts {
			out = append(out, t.base(b.Server(), interruptID(w, t.ThreadID, task.ID, i), w.Value, w.payload()))
		}
	}
	if len(out) > 0 {
		return out
	}
	it := t.base(b.Server(), breakpointID(t.ThreadID, st.Checkpoint.CheckpointID), nil, client.Breakpoint(st.Next))
	it.Checkpoint = st.Checkpoint.CheckpointID
	return []client.Interrupt{it}
}

// facts reads (or, when cached and the thread has not changed, reuses) what
// the thread list does not say.
func (b *Backend) facts(ctx context.Context, t *thread, cached bool) (threadFacts, error) {
	if cached {
		b.mu.Lock()
		f, ok := b.state[t.ThreadID]
		b.mu.Unlock()
		if ok && f.updated.Equal(t.UpdatedAt) {
			return f, nil
		}
	}
	f := threadFacts{updated: t.UpdatedAt, answered: map[string]bool{}, answering: map[string]*run{}}
	if t.Status == "interrupted" || t.Interrupts.count() > 0 {
		st, err := b.readState(ctx, t.ThreadID)
		if err != nil {
			return f, err
		}
		f.state = st
		f.answered = answeredIDs(t, st)
	}
	if t.Status == "busy" {
		runs, err := b.activeRuns(ctx, t.ThreadID)
		if err != nil {
			return f, err
		}
		f.runs = runs
		for i := range runs {
			for _, e := range t.Interrupts {
				for j, w := range e.Interrupts {
					id := interruptID(w, t.ThreadID, e.TaskID, j)
					if _, ok := runs[i].resumes(id); ok {
						f.answering[id] = &runs[i]
					}
				}
			}
		}
	}
	b.mu.Lock()
	b.state[t.ThreadID] = f
	b.mu.Unlock()
	return f, nil
}

// forget drops cached facts of threads no longer waiting.
func (b *Backend) forget(keep map[string]*entry) {
	b.mu.Lock()
	for id := range b.state {
		if keep[id] == nil {
			delete(b.state, id)
		}
	}
	b.mu.Unlock()
}

func (b *Backend) readState(ctx context.Context, threadID string) (*threadState, error) {
	var st threadState
	resp, err := b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(threadID) + "/state")
	if err := b.Check(resp, err, "read the state of thread "+threadID, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// activeRuns lists the thread's runs that have not ended.
func (b *Backend) activeRuns(ctx context.Context, threadID string) ([]run, error) {
	var out []run
	for _, status := range []string{"running", "pending"} {
		var list runList
		resp, err := b.Reads.R().SetContext(ctx).SetQueryParams(map[string]string{"status": status, "limit": "100"}).
			Get("/threads/" + url.PathEscape(threadID) + "/runs")
		if err := b.Check(resp, err, "list the runs of thread "+threadID, &list); err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}
