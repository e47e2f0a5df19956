package client

// Attentive is a Notifier whose watcher asks its server less while nobody
// is at the screen. A front end that knows whether a reviewer is there (the
// TUI: a key lately, or the terminal's focus) says so; one that exists to
// notify (hitl watch, a hub serving a team) never does, and the watcher
// keeps its usual pace. A watcher that was never told counts the reviewer
// as there.
type Attentive interface {
	// Attend says whether a reviewer is there. false: the watcher looks
	// seldom (the streams of runs it already follows still say at once
	// when one pauses); true: it looks at once, then at its usual pace.
	Attend(there bool)
}
