// Package long is the switch of the suite's long checks, one flag for
// every package of tests: -e2e.long. Without it go test ./... leaves out
// the checks that would keep it from finishing in minutes on a busy
// machine (campaigns, sweeps over every example, real Go run many times
// over, real modules); each names the cheaper test that asserts the same
// behaviour in the default run. .ci/run runs, as a step of its own, every
// package whose tests import this one with -args -e2e.long, so CI covers
// them.
package long

import (
	"flag"
	"testing"
)

// Flag is the name of the command-line flag of the long checks.
const Flag = "e2e.long"

var enabled = flag.Bool(Flag, false, "also run the long checks: campaigns, sweeps over every example, real Go run many times over (minutes; .ci/run runs them as a step of their own)")

// Enabled reports whether the long checks were asked for (-e2e.long).
func Enabled() bool { return *enabled }

// Skip skips t unless the long checks were asked for, saying why the
// check is long and which test asserts its behaviour in the default run.
func Skip(t testing.TB, why string) {
	t.Helper()
	if !*enabled {
		t.Skipf("%s: run with -args -%s", why, Flag)
	}
}

// Size returns short in the default run and full with -e2e.long: the
// number of programs, seeds or examples of a sweep whose first ones
// already assert its behaviour.
func Size(short, full int) int {
	if *enabled {
		return full
	}
	return short
}
