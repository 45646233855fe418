package rt

import "strings"

// Runs told apart for the race detector. The detector reports a race once
// per pair of stacks of its two accesses (GORACE's suppress_equal_stacks,
// on by default), so that a racy loop makes one report, not one per
// iteration or element. A search runs execution after execution in one
// process, and each execution in which a race happens must report it, to
// end there as it did the first time (the search replays the prefixes of
// earlier executions and checks that they repeat themselves). So, when
// the process hides its hand-overs from the detector, every run of a
// thread's function is called under frames that number it (raceMark):
// the stacks of its accesses are its own, and a race is reported once per
// execution in which it happens. The frames are taken out of the reports
// (dropRaceMarks), and out of the failing thread's stack like every frame
// of sthread's.

// raceRuns counts the runs of threads' functions in the process (only one
// runs at a time). The trampoline (Thread.run) calls raceMark itself, so
// that its frame stays the bottom of every thread's stack in the reports.
var raceRuns uint64

// raceMarkName is the function whose frames number a run.
const raceMarkName = rtPrefix + "raceMark"

// raceMark calls job under one frame per octal digit of n, the least
// significant first: each digit is a call from a call site of its own,
// whose return address the detector records as the frame's. Not
// //go:norace: the detector only records the frames of the functions it
// instruments, and it has no access to memory to report (its arguments
// are its own). (The third argument, a different constant at each call
// site, keeps the compiler from merging them.)
//
//go:noinline
func raceMark(job func(), n uint64, _ int) {
	switch n & 7 {
	case 0:
		if n == 0 {
			job()
			return
		}
		raceMark(job, n>>3, 0)
	case 1:
		raceMark(job, n>>3, 1)
	case 2:
		raceMark(job, n>>3, 2)
	case 3:
		raceMark(job, n>>3, 3)
	case 4:
		raceMark(job, n>>3, 4)
	case 5:
		raceMark(job, n>>3, 5)
	case 6:
		raceMark(job, n>>3, 6)
	default:
		raceMark(job, n>>3, 7)
	}
}

// dropRaceMarks takes the frames of raceMark out of race report rep: a
// frame is two lines, "  function()" and "      file:line +0x...".
func dropRaceMarks(rep string) string {
	if !strings.Contains(rep, raceMarkName+"(") {
		return rep
	}
	lines := strings.Split(rep, "\n")
	kept := lines[:0]
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "  "+raceMarkName+"(") {
			i++ // its file and line
			continue
		}
		kept = append(kept, lines[i])
	}
	return strings.Join(kept, "\n")
}
