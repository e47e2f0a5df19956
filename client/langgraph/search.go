package langgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// maxPage is the most threads the server gives in one page.
const maxPage = 1000

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
	var page threadPage // one unreadable thread is one item, not a failed listing
	if most := int(b.mostPage.Load()); most > 0 && q.limit > most {
		return nil, answered{total: -1}, &pageTooLarge{most: most, err: fmt.Errorf("the server at %s lists at most %d threads a page", b.Server(), most)}
	}
	resp, err := b.Reads.R().SetContext(ctx).SetBody(b.searchBody(q)).Post("/threads/search")
	if err := b.Check(resp, err, "list interrupted threads", &page); err != nil {
		if resp != nil && resp.StatusCode() == http.StatusUnprocessableEntity {
			if most := limitRefused(resp.Body()); most > 0 && most < q.limit {
				b.mostPage.Store(int32(most))
				return nil, answered{total: -1}, &pageTooLarge{most: most, err: err}
			}
		}
		if resp == nil || resp.StatusCode() != http.StatusNotFound {
			return nil, answered{total: -1}, err
		}
		// Every Agent Server has this route: the URL is not one.
		return nil, answered{total: -1}, fmt.Errorf("%v; POST /threads/search is on every LangGraph server: is --url (or HITL_URL) the server's base address, without a path?", err)
	}
	return []thread(page), answeredOf(resp.Header()), nil
}

// searchBody is the body of the /threads/search that q asks (look.go
// sends the same, encoded once).
func (b *Backend) searchBody(q query) map[string]any {
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
	return body
}

// answeredOf reads what a search's answer says in its headers.
func answeredOf(h http.Header) answered {
	a := answered{total: -1}
	if n, err := strconv.Atoi(h.Get("X-Pagination-Total")); err == nil {
		a.total = n
	}
	a.date, _ = http.ParseTime(h.Get("Date"))
	return a
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

// searchFunc asks for one page of /threads/search: Backend.searchPage
// over HTTP, the one way the listing engine (lister) reaches the server's
// list of threads, and a fake in its tests.
type searchFunc func(ctx context.Context, q query) ([]thread, answered, error)

// pages pages through the search q (its status, ids, select) from its
// first page of q.limit threads, so that the first screenful comes
// quickly, growing to the server's most. each is called with every page
// and the count the first one gave (-1: none to trust), and can stop the
// paging with an error. It returns every thread and the Date of the first
// page.
func (search searchFunc) pages(ctx context.Context, q query, each func([]thread, int) error) ([]thread, time.Time, error) {
	var all []thread
	var date time.Time // of the first page
	size := q.limit
	maxSize := maxPage
	seen := map[string]bool{}
	known := -1 // the total the first page counted
	for offset := 0; ; {
		q.limit, q.offset = size, offset
		page, a, err := search(ctx, q)
		var large *pageTooLarge
		if errors.As(err, &large) && large.most < size {
			// A server with a smaller page (aegra: 100): ask again, and
			// never for more.
			size, maxSize = large.most, large.most
			continue
		}
		if err != nil {
			return nil, date, err
		}
		if offset == 0 {
			known, date = countOf(page, size, a.total), a.date
		}
		full := len(page)
		fresh := page[:0:0]
		for _, t := range page {
			if !seen[t.ThreadID] {
				seen[t.ThreadID] = true
				fresh = append(fresh, t)
			}
		}
		all = append(all, fresh...)
		if each != nil {
			if err := each(fresh, known); err != nil {
				return nil, date, err
			}
		}
		// The next page overlaps this one by an eighth: a thread that
		// leaves the search while hitl pages (answered: no longer
		// interrupted) moves every later one up, and the first of the
		// next page would otherwise be skipped (seen on langhost, with
		// four decisions at once among 100+ waiting threads).
		offset += full - full/8
		// Only a short page ends the paging. The server's count
		// (X-Pagination-Total) is for progress only: the JS server counts
		// one too many when the matches fill the page exactly, past the
		// first page its count is not the total, and a count that fell
		// short (threads made while paging) would drop threads.
		if full < size {
			return all, date, nil
		}
		size = min(size*4, maxSize)
	}
}

// thread reads one thread as the search shows it, or nil when the server
// does not know it.
func (b *Backend) thread(ctx context.Context, id string) (*thread, error) {
	list, _, err := b.listing.pages(ctx, "", []string{id}, b.fullSelect(ctx), nil)
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
func (search searchFunc) newest(ctx context.Context) (time.Time, int, error) {
	page, a, err := search(ctx, query{sel: lightSelect, limit: 1})
	if err != nil || len(page) == 0 {
		return time.Time{}, a.total, err
	}
	return page[0].UpdatedAt, countOf(page, 1, a.total), nil
}

// pageTooLarge is a search refused for its limit: the server takes at most
// most threads a page.
type pageTooLarge struct {
	most int
	err  error
}

func (e *pageTooLarge) Error() string { return e.err.Error() }
func (e *pageTooLarge) Unwrap() error { return e.err }

// limitRefused reads, from a 422 answer, the most a search's limit may be:
// FastAPI's {"detail": [{"loc": ["body", "limit"], "ctx": {"le": 100}}]}
// (aegra), or 0.
func limitRefused(body []byte) int {
	var e struct {
		Detail []struct {
			Loc []any `json:"loc"`
			Ctx struct {
				LE int `json:"le"`
			} `json:"ctx"`
		} `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil {
		return 0
	}
	for _, d := range e.Detail {
		if len(d.Loc) > 0 && d.Loc[len(d.Loc)-1] == "limit" && d.Ctx.LE > 0 {
			return d.Ctx.LE
		}
	}
	return 0
}
