package client

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
