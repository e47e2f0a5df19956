// Package procs runs a reviewer's process on one processor while it rests,
// and on all of them again as soon as it works.
//
// An idle reviewer's work is wake-ups (the watcher's look, the renderer's
// check, the periodic read): with several processors each wake-up also
// wakes an idle one to look for work that is not there, which was a fifth
// to a quarter of an idle reviewer's CPU (measured: docs/performance.md).
// Nothing waits on it: the change is made off the caller's goroutine, and
// work that follows a rest (a key, a change on screen, an arrival) asks
// for the default back as it starts.
//
// Only a process that is one reviewer's does this: the standalone TUI
// (its screen rests) and `hitl watch` (it waits between listings).
// GOMAXPROCS is the process's, and a process serving several reviewers
// (hitl serve) has no one screen whose rest means the process rests.
// GOMAXPROCS set in the environment is left as it is.
package procs

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// one is what the process asks for: one processor (resting) or the
// default.
var one atomic.Bool

// fromEnv: GOMAXPROCS is set in the environment, and left as it is.
var fromEnv = os.Getenv("GOMAXPROCS") != ""

var (
	kick = make(chan struct{}, 1)
	once sync.Once
)

// Rest asks for one processor (rest) or the default, off the calling
// goroutine: changing GOMAXPROCS stops the world, and waits for a garbage
// collection under way to end. The latest wish wins.
func Rest(rest bool) {
	if fromEnv {
		return // the user's GOMAXPROCS stands
	}
	one.Store(rest)
	once.Do(func() { go apply() })
	select {
	case kick <- struct{}{}:
	default: // the worker will read the latest wish
	}
}

// apply applies the latest wish, one at a time, in order.
func apply() {
	for range kick {
		if one.Load() {
			runtime.GOMAXPROCS(1)
		} else {
			runtime.SetDefaultGOMAXPROCS()
		}
	}
}
