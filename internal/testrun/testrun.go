// Package testrun is the TestMain of the packages whose tests wait on
// servers, processes and clocks rather than on the CPU.
package testrun

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// Parallel is how many tests run at once unless -parallel says otherwise.
// The default (one per core) leaves a small machine idle while tests wait.
const Parallel = 8

// Main runs the tests, Parallel of them at once unless -parallel is given,
// and exits.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit, for a TestMain that cleans up after.
func Run(m *testing.M) int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(Parallel))
	}
	return m.Run()
}
