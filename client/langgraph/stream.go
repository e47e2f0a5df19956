package langgraph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Saying when something changed (client.Notifier).
//
// A LangGraph server has no stream of every thread's events: the JS dev
// server has none at all across threads, and a run's stream only for that
// run. So, while someone watches (Changes), the backend polls by watermark
// (pending.go) every Options.Live, which costs one small request when
// nothing changed, and signals when the pending set changed.
//
// Runs in flight that were created resumable (`stream_resumable: true`,
// as the SDK's useStream does to reconnect) are joined as well: their
// stream says the moment the run pauses at an interrupt, and the backend
// looks at once instead of at the next tick. Other runs are never joined:
// on langgraphjs dev a run's stream is one queue that its readers take
// turns at, so a second reader steals events from the agent's own client
// (observed: `/join` and `runs/wait` then miss the `__interrupt__`).

// defaultLive is how often a watched backend looks for changes: the p95 of
// an interrupt's arrival on screen is about this plus two round trips.
const defaultLive = 200 * time.Millisecond

// restingLook is how often the watcher looks while no reviewer is there
// (Attend(false)): a TUI left alone asks its server about ten times a
// minute, where it asks five times a second while the reviewer works. Six
// seconds, not five: the TUI's other reads (the failed threads every two
// minutes, the listing retaken every ten) keep the whole under twelve
// requests a minute (docs/performance.md).
const restingLook = 6 * time.Second

// maxJoins bounds the run streams joined at once.
const maxJoins = 8

// Info is what the server says of itself (GET /info), when it does.
type Info struct {
	// Name: aegra says "Aegra"; the LangGraph servers say none.
	Name    string `json:"name"`
	Version string `json:"version"`
	Context string `json:"context"` // "js" for langgraphjs
	// The langgraph library the server runs: langgraph_js_version on the JS
	// server, langgraph_py_version on the Python one (langgraph-api).
	LanggraphJS string `json:"langgraph_js_version"`
	LanggraphPy string `json:"langgraph_py_version"`
}

// Python reports whether this is the Python Agent Server (langgraph-api:
// `langgraph dev`, LangSmith Deployments), which says langgraph_py_version
// in /info. Its wire differs from the JS server's where docs/servers.md says.
func (i *Info) Python() bool { return i != nil && i.LanggraphPy != "" && i.Context != "js" }

// python reports whether the server said it is the Python Agent Server.
func (b *Backend) python(ctx context.Context) bool {
	b.detect(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.info.Python()
}

// Capabilities says what the backend found the server offers.
type Capabilities struct {
	// Info is nil when the server has no /info.
	Info *Info
	// Watermark: polls ask only what changed (the server sorts by
	// updated_at and searches by ids); false: each poll lists everything.
	Watermark bool
	// JoinRuns: streams of resumable runs in flight are joined.
	JoinRuns bool
}

// Capabilities reports what has been found so far (the watermark is tried
// at the second poll).
func (b *Backend) Capabilities(ctx context.Context) Capabilities {
	b.detect(ctx)
	var c Capabilities
	if b.lock(ctx) == nil {
		c.Watermark = !b.listing.view.full
		b.unlock()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c.Info, c.JoinRuns = b.info, !b.noJoin
	return c
}

// detect reads /info once.
func (b *Backend) detect(ctx context.Context) {
	b.infoOnce.Do(func() {
		var info Info
		resp, err := b.Reads.R().SetContext(ctx).Get("/info")
		if err == nil && resp.StatusCode() == http.StatusOK && json.Unmarshal(resp.Body(), &info) == nil {
			b.mu.Lock()
			b.info = &info
			b.mu.Unlock()
		}
	})
}

// Attend is client.Attentive: while no reviewer is there the watcher looks
// every restingLook; when one comes back it looks at once. The streams of
// runs already joined wake it whatever the pace.
func (b *Backend) Attend(there bool) {
	if b.away.Swap(!there) == !there {
		return // said already
	}
	if there {
		b.mu.Lock()
		close(b.back)
		b.back = make(chan struct{})
		b.mu.Unlock()
	}
}

// cameBack is closed when a reviewer comes back (Attend(true)).
func (b *Backend) cameBack() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.back
}

// Changes signals (at most one signal waiting) whenever the pending set
// changed, until ctx ends; then the channel closes. With Options.Live
// negative it closes at once, and the caller polls.
func (b *Backend) Changes(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	if b.opts.Live < 0 {
		close(ch)
		return ch
	}
	go b.notify(ctx, ch)
	return ch
}

func (b *Backend) notify(ctx context.Context, ch chan<- struct{}) {
	defer close(ch)
	b.watching.Add(1)
	defer b.watching.Add(-1)
	b.detect(ctx)
	j := &joiner{b: b, wake: make(chan struct{}, 1), joined: map[string]context.CancelFunc{}, probed: map[string]time.Time{}}
	defer j.stop()
	wait := time.Duration(0)
	var took time.Duration // how long a look takes, smoothed
	var quick []time.Duration
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-b.cameBack():
			// A reviewer came back: look now, whatever the wait was.
			timer.Stop()
		case <-j.wake:
			// A joined run paused or ended: its thread's status follows,
			// within milliseconds on a quiet server, seconds later on a
			// loaded one (the Python server, starved of CPU, was seen to
			// take more than a second). Look now, and again at doubling
			// waits (about 5 s in all, never slower than the usual pace)
			// until a look sees the change.
			quick = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond,
				160 * time.Millisecond, 320 * time.Millisecond, 640 * time.Millisecond, 1280 * time.Millisecond, 2560 * time.Millisecond}
		}
		at := time.Now()
		changed, busy, err := b.look(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			wait = min(max(wait*2, time.Second), 30*time.Second)
		default:
			// A server slow to answer (a huge one, an overloaded one) is
			// asked less often: looks take at most a quarter of the time.
			// The estimate is smoothed, so that one slow answer (a pause
			// of the server's garbage collector) does not delay the next.
			took = (4*took + time.Since(at)) / 5
			wait = max(b.opts.Live, 3*took)
			if b.away.Load() {
				wait = max(wait, restingLook) // nobody is there: look seldom
			}
			if changed {
				quick = nil // seen: the usual pace again
				select {
				case ch <- struct{}{}:
				default: // one waiting signal is enough: the reader reads everything
				}
			}
			j.sync(ctx, busy)
		}
		if len(quick) > 0 && err == nil {
			wait, quick = min(wait, quick[0]), quick[1:]
		}
		if err == nil {
			b.lookEvery.Store(int64(wait))
		} else {
			b.lookEvery.Store(0) // a failing watcher answers no one
		}
		timer.Reset(wait)
	}
}

// look refreshes the view and says whether the pending set changed, with
// the busy threads (id to updated_at).
func (b *Backend) look(ctx context.Context) (bool, map[string]time.Time, error) {
	if err := b.lock(ctx); err != nil {
		return false, nil, err
	}
	defer b.unlock()
	before := b.listing.view.version
	if err := b.listing.refresh(ctx, nil); err != nil {
		return false, nil, err
	}
	v := &b.listing.view
	if v.busy == nil || v.busyOf != v.installs {
		// Read again only when the threads changed: an idle look walks
		// no list of a thousand threads.
		v.busy, v.busyOf = map[string]time.Time{}, v.installs
		for id, e := range v.threads {
			if e.status == "busy" {
				v.busy[id] = e.updated
			}
		}
	}
	return v.version != before, v.busy, nil
}

// joiner keeps the streams of resumable runs in flight joined.
type joiner struct {
	b      *Backend
	wake   chan struct{}
	joined map[string]context.CancelFunc // run id → stop
	owner  map[string]string             // run id → thread id
	probed map[string]time.Time          // thread id → updated_at its runs were read at

	mu     sync.Mutex
	failed []string       // runs whose stream could not be read, to join again
	tries  map[string]int // run id → failed joins
}

// maxJoinTries bounds the joins of one run's stream that fail: after
// them the run is left to the watcher's looks.
const maxJoinTries = 3

func (j *joiner) stop() {
	for _, cancel := range j.joined {
		cancel()
	}
}

// sync joins the resumable runs of busy threads, and leaves the streams of
// threads no longer busy.
func (j *joiner) sync(ctx context.Context, busy map[string]time.Time) {
	b := j.b
	if j.owner == nil {
		j.owner = map[string]string{}
	}
	// A join that failed (a refused or broken request) is tried again on
	// this look, a few times: until then nothing would say the run paused
	// before the next look, an hour away for a reviewer left alone.
	j.mu.Lock()
	for _, run := range j.failed {
		if cancel, ok := j.joined[run]; ok {
			cancel()
			delete(j.probed, j.owner[run])
			delete(j.joined, run)
			delete(j.owner, run)
		}
	}
	j.failed = nil
	j.mu.Unlock()
	for run, cancel := range j.joined {
		if _, ok := busy[j.owner[run]]; !ok {
			cancel()
			delete(j.joined, run)
			delete(j.owner, run)
		}
	}
	for id := range j.probed {
		if _, ok := busy[id]; !ok {
			delete(j.probed, id)
		}
	}
	b.mu.Lock()
	off := b.noJoin
	b.mu.Unlock()
	if off {
		return
	}
	probes := 0
	for id, updated := range busy {
		if len(j.joined) >= maxJoins || probes >= 4 {
			return
		}
		if at, ok := j.probed[id]; ok && at.Equal(updated) {
			continue
		}
		probes++
		runs, err := b.activeRuns(ctx, id)
		if err != nil {
			continue // looked at again when the thread changes
		}
		if len(runs) > 0 {
			// A busy thread with no run pending or running is between
			// two states: its runs are read again at the next look.
			j.probed[id] = updated
		}
		for i := range runs {
			r := &runs[i]
			if _, ok := j.joined[r.RunID]; ok || !r.Kwargs.Resumable || len(j.joined) >= maxJoins {
				continue
			}
			j.mu.Lock()
			tries := j.tries[r.RunID]
			j.mu.Unlock()
			if tries >= maxJoinTries {
				continue
			}
			rctx, cancel := context.WithCancel(ctx)
			j.joined[r.RunID] = cancel
			j.owner[r.RunID] = id
			go func(run string) {
				if !j.join(rctx, id, run) && rctx.Err() == nil {
					j.mu.Lock()
					if j.tries == nil {
						j.tries = map[string]int{}
					}
					j.tries[run]++
					j.failed = append(j.failed, run)
					j.mu.Unlock()
					j.poke()
				}
			}(r.RunID)
		}
	}
}

// poke wakes the watcher: it looks now.
func (j *joiner) poke() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// join reads a run's stream and wakes the watcher when the run pauses at
// an interrupt, fails, or its stream ends. It says false when the stream
// could not be read at all (to be joined again), true when it was read to
// its end or this server has no run streams.
func (j *joiner) join(ctx context.Context, threadID, runID string) bool {
	b := j.b
	wake := j.poke
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		strings.TrimRight(b.opts.URL, "/")+"/threads/"+url.PathEscape(threadID)+"/runs/"+url.PathEscape(runID)+"/stream", http.NoBody)
	if err != nil {
		return true // a URL that makes no request: never better on a retry
	}
	b.Header(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	// From the start of the run: on langgraphjs this also keeps the run's
	// queue resumable should this reader come first.
	req.Header.Set("Last-Event-ID", "-1")
	resp, err := b.HTTPClient().Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
		b.mu.Lock()
		b.noJoin = true // this server has no run streams to join
		b.mu.Unlock()
		return true
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return false
	}
	paused(bufio.NewReaderSize(resp.Body, 64<<10), wake)
	wake() // the stream ended with the run
	return true
}

var interruptKey = []byte(`"__interrupt__"`)

// paused reads SSE lines until the stream ends, calling wake for each event
// that pauses or ends the run (an `__interrupt__` in its data, an error).
// Lines may be longer than the buffer: a key split across two reads is
// still found.
func paused(r *bufio.Reader, wake func()) {
	var tail []byte
	for {
		line, isPrefix, err := r.ReadLine()
		if err != nil {
			return
		}
		switch {
		case bytes.HasPrefix(line, []byte("event: error")), bytes.HasPrefix(line, []byte("event:error")):
			wake()
		case bytes.Contains(append(tail, line...), interruptKey):
			wake()
			tail = nil
			continue
		}
		tail = tail[:0]
		if isPrefix && len(line) >= len(interruptKey) {
			tail = append(tail, line[len(line)-len(interruptKey):]...)
		}
	}
}
