package demo

import (
	"context"
	"time"
)

// Fake is what every demo server offers, whichever backend it fakes
// (Server: LangGraph; RESTServer: the REST HITL API; EventsServer: the
// event-stream coordinator; OpencodeServer: opencode's permission requests), so that `hitl demo` runs any of them the same
// way.
type Fake interface {
	// Start listens on addr ("127.0.0.1:0": a free port) and serves in the
	// background.
	Start(addr string) error
	// URL is the server's base URL once started.
	URL() string
	// Close stops it; open streams end.
	Close() error
	// Seed makes one request of every demo scenario, then burst more.
	Seed(burst int)
	// Produce makes a new request every `every` until ctx ends (0: never),
	// while fewer than upTo wait (0: however many wait).
	Produce(ctx context.Context, every time.Duration, upTo int)
	// Waiting is how many requests wait for a decision.
	Waiting() int
}

var (
	_ Fake = (*Server)(nil)
	_ Fake = (*RESTServer)(nil)
	_ Fake = (*EventsServer)(nil)
	_ Fake = (*OpencodeServer)(nil)
)

// Run starts the demo server of one backend kind, as hitl --backend names
// it (langgraph, rest, events or opencode; ok false for another) with its agents: each scenario once and burst more at
// start, then a new request every `every` while fewer than upTo wait.
// user is the REST server's user (its approvals are assigned to them).
func Run(ctx context.Context, kind, listen string, burst int, every time.Duration, upTo int, user string) (srv Fake, ok bool, err error) {
	switch kind {
	case "langgraph":
		srv = New()
	case "rest":
		rs := NewREST()
		rs.User = user
		srv = rs
	case "events":
		srv = NewEvents()
	case "opencode":
		srv = NewOpencode()
	default:
		return nil, false, nil
	}
	if err := srv.Start(listen); err != nil {
		return nil, true, err
	}
	srv.Seed(burst)
	go srv.Produce(ctx, every, upTo)
	return srv, true, nil
}
