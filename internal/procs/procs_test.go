package procs

import (
	"runtime"
	"testing"
	"time"
)

// Rest puts the process on one processor, and back on the default; the
// last of several quick wishes is the one that stands.
func TestRestAppliesTheLatestWish(t *testing.T) {
	env := fromEnv
	fromEnv = false // whatever the shell's GOMAXPROCS
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { fromEnv = env; runtime.SetDefaultGOMAXPROCS() })
	if def < 2 {
		t.Skip("one processor here already")
	}
	procsAre := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); runtime.GOMAXPROCS(0) != want; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("GOMAXPROCS %d, want %d", runtime.GOMAXPROCS(0), want)
			}
		}
	}
	Rest(true)
	procsAre(1)
	Rest(false)
	procsAre(def)
	for range 100 {
		Rest(true)
		Rest(false)
	}
	Rest(true)
	procsAre(1)
	Rest(false)
	procsAre(def)
}

// A GOMAXPROCS set in the environment stands.
func TestRestLeavesTheEnvironmentsGOMAXPROCS(t *testing.T) {
	env := fromEnv
	fromEnv = true
	runtime.GOMAXPROCS(3)
	t.Cleanup(func() { fromEnv = env; runtime.SetDefaultGOMAXPROCS() })
	Rest(true)
	time.Sleep(20 * time.Millisecond)
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("GOMAXPROCS %d after Rest, want the environment's 3", n)
	}
}
