package langgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/hitl-sh/hitl/client/transport"
)

// The watcher's look, made cheap.
//
// A watcher looks five times a second while the reviewer is there, and when
// nothing changed every look is the same request (the first page of the
// watermark poll) answered with the same bytes. So the first page of a
// watermark poll is asked with bytes encoded once, through the read
// client's http.Client (its connection kept alive by its transport), read
// into a buffer kept from look to look, and decoded only when its bytes
// differ from the last answer's: the same bytes are the same threads.
//
// Anything but a clean 200 (a transport error, another status, a body too
// large or that does not decode) is asked again the usual way, whose
// retries and error messages are the ones every read has.

// looker is what the cheap look keeps from one look to the next.
type looker struct {
	req  []byte   // the body of the look's request
	buf  []byte   // the last answer's bytes (decoded into page)
	page []thread // the last answer, decoded (given out as copies)
	read bytes.Buffer

	httpReq     *http.Request // the look's request (request)
	base        string        // the read client's URL it was made with
	readsHeader http.Header   // and its headers
	said        said          // what the last answer's headers said (answered)
}

// isLook: q is the first page of a watermark poll.
func isLook(q query) bool {
	return q.offset == 0 && q.limit == watermarkPage && q.ids == nil && q.status == "" && slices.Equal(q.sel, lightSelect)
}

// firstPage is searchPage for the first page of a watermark poll, cheap
// when the answer did not change.
func (b *Backend) firstPage(ctx context.Context, q query) ([]thread, answered, error) {
	if !isLook(q) {
		return b.searchPage(ctx, q)
	}
	page, a, ok := b.looker.ask(ctx, b, q)
	if !ok {
		return b.searchPage(ctx, q)
	}
	return page, a, nil
}

// ask makes the look; ok is false when it should be asked the usual way.
func (l *looker) ask(ctx context.Context, b *Backend, q query) ([]thread, answered, bool) {
	if l.req == nil {
		req, err := json.Marshal(b.searchBody(q))
		if err != nil {
			return nil, answered{}, false
		}
		l.req = req
	}
	req := l.request(b)
	if req == nil {
		return nil, answered{}, false
	}
	resp, err := send(ctx, b.Reads.GetClient(), req, &l.read)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, answered{}, false
	}
	if l.page == nil || !bytes.Equal(l.read.Bytes(), l.buf) {
		var page threadPage
		if err := page.DecodeJSON(l.read.Bytes()); err != nil {
			l.page = nil
			return nil, answered{}, false
		}
		l.page = page
		l.buf = append(l.buf[:0], l.read.Bytes()...)
	}
	return slices.Clone(l.page), l.answered(resp.Header), true // a few threads: the caller may keep them
}

// request is the look's request, without its context: made again only
// when the read client's URL or headers changed (a look asks the same five
// times a second), with what the read client sends (its extra headers and
// key) and the bearer token, which it keeps apart; nil if it cannot be made.
func (l *looker) request(b *Backend) *http.Request {
	if l.httpReq != nil && l.base == b.Reads.BaseURL && maps.EqualFunc(l.readsHeader, b.Reads.Header, slices.Equal[[]string]) {
		return l.httpReq
	}
	req, err := http.NewRequest(http.MethodPost, b.Reads.BaseURL+"/threads/search", bytes.NewReader(l.req))
	if err != nil {
		l.httpReq = nil
		return nil
	}
	req.Header = b.Reads.Header.Clone()
	b.Header(req.Header)
	req.Header.Set("Content-Type", "application/json")
	if u := req.URL.User; u != nil && req.Header.Get("Authorization") == "" {
		// Credentials in the URL, sent as http.Client sends them (it does,
		// (*http.Request).Write, which writes the look, does not).
		password, _ := u.Password()
		req.SetBasicAuth(u.Username(), password)
	}
	l.httpReq, l.base, l.readsHeader = req, b.Reads.BaseURL, b.Reads.Header.Clone()
	return req
}

// answered is answeredOf(h), kept while h says the same: the Date of an
// answer changes once a second, and a look comes five times a second.
func (l *looker) answered(h http.Header) answered {
	date, total := h.Get("Date"), h.Get("X-Pagination-Total")
	if !l.said.ok || date != l.said.date || total != l.said.total {
		l.said = said{date, total, answeredOf(h), true}
	}
	return l.said.a
}

// said is what the last look's headers said, and how it was read.
type said struct {
	date, total string
	a           answered
	ok          bool
}

// send makes the look through the read client's http.Client, reading the
// answer's body into out (at most transport.MaxBody bytes).
func send(ctx context.Context, hc *http.Client, req *http.Request, out *bytes.Buffer) (*http.Response, error) {
	req = req.Clone(ctx)
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	req.Body = body
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if err := readAnswer(resp, out); err != nil {
		return nil, err
	}
	return resp, nil
}

// readAnswer reads resp's body into out and closes it: a 200's whole (at
// most transport.MaxBody bytes), another status's skipped, so that the
// connection carries the next look.
func readAnswer(resp *http.Response, out *bytes.Buffer) error {
	defer resp.Body.Close()
	out.Reset()
	if resp.StatusCode != http.StatusOK {
		if n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)); err != nil || n == 64<<10 {
			return errors.New("an answer too large to skip")
		}
		return nil
	}
	if _, err := out.ReadFrom(io.LimitReader(resp.Body, transport.MaxBody+1)); err != nil {
		return err
	}
	if out.Len() > transport.MaxBody {
		return errors.New("an answer too large")
	}
	return nil
}

// turnSoon takes the turn, waiting for a look under way (milliseconds)
// but not for a listing (up to a second): a periodic reader that met the
// watcher's look at the same moment would otherwise be told nothing can
// be said, and ask the server itself (an idle TUI's reads and the
// watcher's looks fall on the same ticks). Its caller unlocks.
func (b *Backend) turnSoon() bool {
	select {
	case b.turn <- struct{}{}:
		return true
	default:
	}
	wait := time.NewTimer(time.Second)
	defer wait.Stop()
	select {
	case b.turn <- struct{}{}:
		return true
	case <-wait.C:
		return false
	}
}

// Settled is client.Settled: the view's version, and whether a
// WatchedWillDo listing taken now would be answered from it (the test
// PendingProgress makes), while no refresh holds the turn.
func (b *Backend) Settled() (uint64, bool) {
	if !b.turnSoon() {
		return 0, false // a listing is under way
	}
	defer b.unlock()
	return b.listing.view.version, b.current()
}

// current: the watcher's last look is recent and whole. With the turn.
func (b *Backend) current() bool {
	v := &b.listing.view
	return !v.done.Before(v.started) && b.watching.Load() > 0 && b.lookEvery.Load() > 0 &&
		time.Since(v.done) < time.Duration(b.lookEvery.Load())+b.opts.Live/2
}

// Activity is client.Activity: the watermark of the watcher's looks (the
// newest updated_at of every thread in the filters) and the server's count
// of them (-1: not counted), while no refresh holds the turn. A server
// listed in full has no watermark.
func (b *Backend) Activity() (time.Time, int, bool) {
	if !b.turnSoon() {
		return time.Time{}, 0, false
	}
	defer b.unlock()
	v := &b.listing.view
	return v.mark, v.total, b.current() && !v.full && !v.mark.IsZero()
}
