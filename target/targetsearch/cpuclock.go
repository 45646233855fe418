package targetsearch

import (
	"syscall"
	"time"

	"github.com/stdbg/stdbg/engine/search"
)

// newStrategy returns a fresh strategy of spec for a search served inside
// the target's process (Serve). A portfolio there shares the search among
// its members in the CPU time of the process, not in wall time: the work
// an execution costs is what its turn is charged, whatever else the
// machine runs. In wall time, a loaded machine (or a first execution
// that waits for the machine) spent the exhaustive member's lead before
// it finished a tree of a few executions; the other members then ran
// their turns before it finished, and the same test's exhaustive search
// counted 1 execution in one run and 27 in the next.
func newStrategy(spec *Spec) (search.Strategy, error) {
	st, err := spec.NewStrategy()
	if p, ok := st.(*search.Portfolio); ok && p.Now != nil {
		if _, ok := cpuUsed(); ok {
			p.Timed(processCPU)
		}
	}
	return st, err
}

// processCPU is the CPU time the process has used (user and system, all
// its threads), as a time from the zero Unix time: the clock of a
// portfolio's turns in the target.
func processCPU() time.Time {
	d, _ := cpuUsed()
	return time.Unix(0, int64(d))
}

// cpuUsed is the CPU time the process has used, and whether the system
// could tell.
func cpuUsed() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
