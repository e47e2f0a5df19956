package langgraph

import (
	"context"
	"errors"
	"time"
)

// watermarkPage is the first page size of a watermark poll: an idle poll
// sees the newest thread or two and stops.
const watermarkPage = 4

// resyncEvery is how often the listing is taken again even when nothing
// says it must: a safety net for changes a server makes without moving
// updated_at.
const resyncEvery = 10 * time.Minute

// errNoIDs: the server answered a search by ids with other threads.
var errNoIDs = errors.New("the server ignores ids in /threads/search")

// window lists, lightly, the threads at least as new as the watermark,
// newest first, with the server's count of threads (-1: unknown). ok is
// false when the server does not sort by updated_at as asked.
func (l *lister) window(ctx context.Context) (list []thread, total int, ok bool, err error) {
	mark := l.view.mark
	size := watermarkPage
	total = -1
	last := time.Time{}
	for offset := 0; ; {
		page, a, err := l.search(ctx, query{sel: lightSelect, limit: size, offset: offset})
		var large *pageTooLarge
		if errors.As(err, &large) && large.most < size {
			size = large.most
			continue
		}
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
func (l *lister) poll(ctx context.Context) error {
	v := &l.view
	list, total, ok, err := l.window(ctx)
	if err != nil {
		return err
	}
	if !ok {
		v.full = true
		return l.list(ctx, nil)
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
				return l.resync(ctx)
			}
		}
	}
	v.recounts = 0
	if err := l.apply(ctx, list); err != nil {
		return l.fallBack(ctx, err)
	}
	v.mark, v.total = mark, total
	return nil
}

// resync takes the listing again, lightly: ids and times of every
// interrupted and busy thread, then by id the threads that differ from
// the view.
func (l *lister) resync(ctx context.Context) error {
	v := &l.view
	mark, total, err := l.search.newest(ctx)
	if err != nil {
		return err
	}
	var list []thread
	for _, status := range []string{"interrupted", "busy"} {
		l, _, err := l.pages(ctx, status, nil, lightSelect, nil)
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
	if err := l.update(ctx, threads, list); err != nil {
		return l.fallBack(ctx, err)
	}
	v.synced, v.mark, v.total = time.Now(), mark, total
	l.install(threads)
	return nil
}

// fallBack lists in full, from now on, a server that ignored ids.
func (l *lister) fallBack(ctx context.Context, err error) error {
	if !errors.Is(err, errNoIDs) {
		return err
	}
	l.view.full = true
	return l.list(ctx, nil)
}

// apply brings the view up to date with threads seen to have changed.
// When none has (the look of an idle watcher: the window holds the
// newest thread, as it was), the view stays as it is: no copy of it.
func (l *lister) apply(ctx context.Context, list []thread) error {
	if l.unchanged(list) {
		return nil
	}
	threads := make(map[string]*entry, len(l.view.threads))
	for id, e := range l.view.threads {
		threads[id] = e
	}
	if err := l.update(ctx, threads, list); err != nil {
		return err
	}
	l.install(threads)
	return nil
}

// unchanged: every thread of list is in the view as it was, or neither
// waits nor is in it.
func (l *lister) unchanged(list []thread) bool {
	for i := range list {
		t := &list[i]
		e := l.view.threads[t.ThreadID]
		if !e.same(t) && (e != nil || waits(t.Status)) {
			return false
		}
	}
	return true
}

// update reads by id the threads of list (seen lightly) that differ from
// threads, and puts them in threads, or takes them out when they no
// longer wait.
func (l *lister) update(ctx context.Context, threads map[string]*entry, list []thread) error {
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
	most := maxPage
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), most)]
		page, _, err := l.search(ctx, query{ids: chunk, sel: l.fullSelect(ctx), limit: len(chunk)})
		var large *pageTooLarge
		if errors.As(err, &large) && large.most < len(chunk) {
			most = large.most
			continue
		}
		if err != nil {
			return err
		}
		ids = ids[len(chunk):]
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
		if err := l.readThreads(ctx, ts, threads); err != nil {
			return err
		}
	}
	return nil
}
