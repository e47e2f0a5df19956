package client

import "time"

// Settled is a Notifier that can tell, without a request and without
// copying its listing, that a listing the watcher's reading answers
// (WatchedWillDo) would be the same as one taken earlier. A reader woken
// by its own timer (the periodic poll of `hitl watch`, of the TUI) asks
// it first and reads nothing when nothing changed: an idle reviewer
// copies, filters and compares no list of a thousand interrupts every
// few seconds.
type Settled interface {
	// Settled is the version of the pending set (it moves whenever the
	// set changes), and whether a WatchedWillDo listing taken now would
	// be answered from the watcher's reading of a moment ago. When ok is
	// false (the watcher is failing, slow, or looking at this instant),
	// read as usual: the listing says what is wrong, or waits for the look.
	Settled() (version uint64, ok bool)
}

// Activity is a Notifier whose watcher can tell, without a request, when
// any thread it watches last changed: the newest updated_at it saw among
// all of them, whatever their status, and how many there are. A thread's
// run fails, ends or is deleted only by moving one of the two, so a
// reader of something besides the pending set (the TUI's failed threads)
// reads it again only when they moved. ok is false when the watcher cannot
// tell (failing, slow, looking at this instant, or a server it must list
// in full).
type Activity interface {
	Activity() (newest time.Time, threads int, ok bool)
}
