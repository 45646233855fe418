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
			p.Timed((&cpuClock{}).now)
		}
	}
	return st, err
}

// cpuSampleEvery is the least wall time between two readings of the
// process's CPU time by a cpuClock: a reading is a system call, which
// costs 10-20 µs on a loaded virtual machine, as much as a small
// execution.
const cpuSampleEvery = 2 * time.Millisecond

// A cpuClock is the CPU time the process has used (user and system, all
// its threads), as a time from the zero Unix time, read at most every
// cpuSampleEvery of wall time and the same between two readings: the
// clock of a portfolio's turns in the target. Between two readings an
// execution costs nothing; the one under way at the next reading is
// charged what the process used since the last, so a member is charged
// the CPU time of its turn to within a sampling period.
type cpuClock struct {
	read time.Time     // wall time of the last reading
	cpu  time.Duration // its value
}

func (c *cpuClock) now() time.Time {
	if w := time.Now(); c.read.IsZero() || w.Sub(c.read) >= cpuSampleEvery {
		if d, ok := cpuUsed(); ok && d > c.cpu {
			c.cpu = d
		}
		c.read = w
	}
	return time.Unix(0, int64(c.cpu))
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
