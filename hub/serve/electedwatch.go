package serve

import (
	"context"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/hub"
	"github.com/hitl-sh/hitl/store"
)

// watcherLock is the advisory lock that elects the one hub, among those on
// one PostgreSQL store, that watches the LangGraph server.
const watcherLock int64 = 7468697403

// electedWatch is the LangGraph server's change signal for a hub that
// shares its store with others: the hub the store elects (store.Lead)
// watches the server and tells the others of each change (NOTIFY); the
// others do not watch, and list when told. N hubs cost the server one
// watcher, and each other hub a listing per change and per poll interval.
// When the watching hub goes, another is elected and watches.
type electedWatch struct {
	hub.Upstream
	st   *store.Store
	log  *hub.Logger
	lock int64 // the advisory lock of this server's watcher (watcherLock, or one per source)
}

// Features are the server's, its change signal this one.
func (w *electedWatch) Features() client.Features {
	f := w.Upstream.Features()
	if f.Notifier != nil {
		f.Notifier = w
	}
	return f
}

func (w *electedWatch) Changes(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	send := func() {
		select {
		case out <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(out)
		for ctx.Err() == nil {
			elected, lost := w.st.Lead(ctx, w.lock)
			if !w.follow(ctx, elected, send) {
				return
			}
			w.log.Info("this hub watches the LangGraph server for every hub on the store")
			if !w.lead(ctx, lost, send) {
				return
			}
			w.log.Warn("this hub no longer holds the watcher's lock (its connection to the store went): it lists when told, until elected again")
		}
	}()
	return out
}

// follow passes on the elected watcher's word of each change until this
// hub is elected; false: ctx ended.
func (w *electedWatch) follow(ctx context.Context, elected <-chan struct{}, send func()) bool {
	select {
	case <-elected:
		return true
	default:
	}
	w.log.Info("another hub on the store watches the LangGraph server: this one lists when told of a change")
	for {
		heard := w.st.UpstreamChanged()
		select {
		case <-ctx.Done():
			return false
		case <-elected:
			return true
		case <-heard:
			send()
		}
	}
}

// lead watches the server and tells every hub of each change, until the
// lock is lost; false: ctx ended (or the server's signal did).
func (w *electedWatch) lead(ctx context.Context, lost <-chan struct{}, send func()) bool {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes := w.Upstream.Changes(lctx)
	for {
		select {
		case <-ctx.Done():
			return false
		case <-lost:
			return true
		case _, ok := <-changes:
			if !ok {
				return false
			}
			send()
			if err := w.st.TellUpstreamChanged(ctx); err != nil && ctx.Err() == nil {
				w.log.Error("the other hubs were not told of a change of the LangGraph server", "error", err)
			}
		}
	}
}
