// Package langgraph speaks to a LangGraph Agent Server (`langgraph dev`,
// `langgraphjs dev`, LangSmith deployments): it finds interrupted threads,
// reads their interrupts, resumes them by interrupt id, and reads back from
// the server which decision took effect.
//
// Files: pending.go lists what waits (one refresh at a time, a long
// listing's progress) through the listing engine: listing.go (the view,
// the full listing) and watermark.go (a poll asks the server only what
// changed since the last look), which reach the server through search.go
// (/threads/search); facts.go reads what a thread's listing does not say
// (answered fan-out branches, with answered.go; runs in progress,
// breakpoints). stream.go
// says when something changed, as soon as it can tell; failed.go finds
// threads whose run failed; decide.go sends and follows a decision,
// verify.go reads back which run took it; end.go ends a thread's work;
// claims.go and approvals.go keep reviewers' claims and approvals in
// thread metadata; wire.go holds the server's JSON shapes and decode.go
// reads them one item at a time; conversation.go reads a thread's
// messages.
package langgraph

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/transport"
)

// pageSize is how many threads one search asks for (the server allows 1..1000).
const pageSize = 100

// Run metadata hitl writes on every resume, so that the server records who
// decided and a lost answer can be found again.
const (
	metaDecision = "hitl_decision_id"
	metaReviewer = "hitl_reviewer"
	// metaApprovers names every approver of a decision a team's rule
	// asked several for (hitl serve).
	metaApprovers = "hitl_approvers"
)

// Options configure a Backend.
type Options struct {
	transport.Options
	// Graph and Assistant filter what is listed (thread metadata graph_id,
	// assistant_id); Metadata adds more metadata filters.
	Graph     string
	Assistant string
	Metadata  map[string]string
	// Follow bounds how long Follow waits for a run to end (default 60s).
	Follow time.Duration
	// PageSize is how many threads the first page of a listing asks for
	// (default 100); later pages grow to the server's most, 1,000.
	PageSize int
	// Live is how often a watched backend (Changes) looks for changes
	// (default 200ms; negative: Changes closes at once and callers poll).
	Live time.Duration
}

// Backend is a LangGraph Agent Server.
type Backend struct {
	opts Options
	*transport.Conn

	mu     sync.Mutex
	state  map[string]threadFacts // per thread, for the updated_at it was read at
	failed map[string]failedFacts // per errored thread, likewise

	// turn is held by the one refresh of view at a time (a channel, so
	// that waiting for it ends with the caller's ctx).
	turn    chan struct{}
	listing lister // what waits, kept up to date (listing.go)
	// looker is the watcher's look, under turn (look.go).
	looker looker

	watching atomic.Int32 // Changes loops running
	// lookEvery is how long the watcher waits between looks now (its
	// cadence: Options.Live, longer for a slow server), in nanoseconds.
	lookEvery atomic.Int64
	// away: no reviewer is at the screen (Attend): the watcher looks every
	// restingLook; back is closed (and replaced) when one comes back.
	away     atomic.Bool
	back     chan struct{}
	infoOnce sync.Once
	info     *Info // nil when the server has no /info
	noJoin   bool  // the server has no run streams to join
	// keyOrder: whether thread.interrupts keeps the key order the graph
	// wrote (orderKept), or not (orderChanged: the pg runtime's JSONB),
	// as the first value that tells showed (facts.go, inGraphOrder).
	keyOrder atomic.Int32
	// mostPage is the largest search page the server takes, where it
	// refused a larger one (aegra: 100); 0 while none was refused.
	mostPage atomic.Int32
	// schemaSeen: the server showed a response_schema; failedRefused: it
	// refused to resume a thread whose last run failed (again.go).
	schemaSeen    atomic.Bool
	failedRefused atomic.Bool
}

// New returns a backend for the server at opts.URL.
func New(opts Options) (*Backend, error) {
	if opts.PageSize <= 0 || opts.PageSize > 1000 {
		opts.PageSize = pageSize
	}
	if opts.Live == 0 {
		opts.Live = defaultLive
	}
	if opts.Follow <= 0 {
		opts.Follow = 60 * time.Second
	}
	if opts.Long <= 0 {
		opts.Long = opts.Follow
	}
	if opts.Hint == "" {
		opts.Hint = "is the server (langgraph dev, or langgraphjs dev) running there?"
	}
	c, err := transport.New(opts.Options)
	if err != nil {
		return nil, err
	}
	b := &Backend{opts: opts, Conn: c, state: map[string]threadFacts{}, failed: map[string]failedFacts{}, turn: make(chan struct{}, 1),
		back: make(chan struct{})}
	b.listing = lister{
		search: b.firstPage, // searchPage, cheap for the watcher's look (look.go)
		interrupts: func(ctx context.Context, t *thread) ([]client.Interrupt, error) {
			its, err := b.threadInterrupts(ctx, t, true)
			b.noteSchemas(its)
			return its, err
		},
		fullSelect: b.fullSelect,
		forget:     b.forget,
		server:     b.Server(),
		pageSize:   opts.PageSize,
	}
	return b, nil
}

// Batches: one resume may answer several interrupts of a thread.
func (b *Backend) Batches() bool { return true }

// Live is how often the watcher looks for changes (Options.Live, or its
// default), before a slow server stretches it.
func (b *Backend) Live() time.Duration { return b.opts.Live }
