package tui

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// While the screen rests (the pacer slowed the renderer down: no frame for
// a moment), a reviewer's process runs Go on one processor, and on all of
// them again as soon as a frame is drawn. An idle reviewer's work is
// wake-ups (the watcher's look, the renderer's check, the periodic read):
// with several processors each wake-up also wakes an idle one to look for
// work that is not there, which was a fifth of an idle reviewer's CPU
// (measured: docs/performance.md). Nothing waits on it: a key, a change
// on screen, brings the others back before the next frame is computed.
//
// Only the standalone TUI does this (Run): GOMAXPROCS is the process's,
// and a process serving several reviewers (hitl serve) has no one screen
// whose rest means the process rests. GOMAXPROCS set in the environment
// is left as it is.

// procsOne is what the process asks for: one processor (resting) or the
// default.
var procsOne atomic.Bool

// procsSet: GOMAXPROCS is set in the environment, and left as it is.
var procsSet = os.Getenv("GOMAXPROCS") != ""

var (
	procsKick = make(chan struct{}, 1)
	procsOnce sync.Once
)

// restProcs asks for one processor (rest) or the default, off the calling
// goroutine: changing GOMAXPROCS stops the world, and waits for a garbage
// collection under way to end.
func restProcs(rest bool) {
	if procsSet {
		return // the user's GOMAXPROCS stands
	}
	procsOne.Store(rest)
	procsOnce.Do(func() { go applyProcs() })
	select {
	case procsKick <- struct{}{}:
	default: // the worker will read the latest wish
	}
}

// applyProcs applies the latest wish, one at a time, in order.
func applyProcs() {
	for range procsKick {
		if procsOne.Load() {
			runtime.GOMAXPROCS(1)
		} else {
			runtime.SetDefaultGOMAXPROCS()
		}
	}
}
