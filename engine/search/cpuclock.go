package search

import (
	"syscall"
	"time"
)

// InProcess returns st for a search whose executions run in this process
// (sthread.Check, a Go target's search inside its own process): a
// portfolio that shares its search in time (Timed, as Spec.New makes it)
// shares it in the CPU time of the process instead, whatever clock it was
// given, when the system can tell that time. Any other strategy is
// returned as it is.
//
// The work an execution costs is then what its member's turn is charged,
// whatever else the machine runs. In wall time, a loaded machine (or a
// first execution that waits for the machine) spent the exhaustive
// member's lead before it finished a tree of a few executions; the other
// members then ran their turns before it finished, and the same test's
// exhaustive search counted 1 execution in one run and 27 in the next.
func InProcess(st Strategy) Strategy {
	if p, ok := st.(*Portfolio); ok && p.Now != nil {
		if _, ok := processCPU(); ok {
			p.Timed((&cpuClock{}).now)
		}
	}
	return st
}

// cpuSampleEvery is the least wall time between two readings of the
// process's CPU time by a cpuClock: a reading is a system call, which
// costs 10-20 µs on a loaded virtual machine, as much as a small
// execution.
const cpuSampleEvery = 2 * time.Millisecond

// A cpuClock is the CPU time the process has used (user and system, all
// its threads), as a time from the zero Unix time, read at most every
// cpuSampleEvery of wall time and the same between two readings: the
// clock of the turns of a portfolio whose executions run in the process
// (InProcess). Between two readings an execution costs nothing; the one
// under way at the next reading is charged what the process used since
// the last, so a member is charged the CPU time of its turn to within a
// sampling period.
type cpuClock struct {
	read time.Time     // wall time of the last reading
	cpu  time.Duration // its value
}

func (c *cpuClock) now() time.Time {
	if w := time.Now(); c.read.IsZero() || w.Sub(c.read) >= cpuSampleEvery {
		if d, ok := processCPU(); ok && d > c.cpu {
			c.cpu = d
		}
		c.read = w
	}
	return time.Unix(0, int64(c.cpu))
}

// processCPU is the CPU time the process has used, and whether the system
// could tell.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
