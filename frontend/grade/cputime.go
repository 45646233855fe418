package grade

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// This file measures the CPU time a check uses, which bounds it (Limits'
// Budget) where wall time would not do: a check that needs 20 s of CPU
// takes five minutes of wall time on a machine with twenty other busy
// processes, and would get another grade there. The grader's own share is
// its process's (getrusage): checks graded at once in one process count
// each other's.

// cpuMeter is the CPU time used since it was made by this process, the
// children it has waited for, and the processes of a check's program.
type cpuMeter struct {
	start time.Duration
	group int // the program's process group (0: not known yet)
}

func newCPUMeter() *cpuMeter { return &cpuMeter{start: ownCPU()} }

// used is the CPU time used since the meter was made: this process's and
// its waited-for children's, and that of the processes still alive of the
// program's group and of every group a live child of this process leads
// (with the children they have waited for: a fork server's executions).
// A Go target's search inside the target runs in a process of its own,
// the leader of its own group, beside the session's first one.
func (m *cpuMeter) used() time.Duration {
	return ownCPU() - m.start + groupCPU(m.group)
}

// ownCPU is the user and system time of this process and of the children
// it has waited for.
func ownCPU() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	d := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(children.Utime) + d(children.Stime)
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on
// every Linux port but a few old ones).
const clockTick = 10 * time.Millisecond

// groupCPU is the CPU time of the live processes of process group pgid
// and of the groups that live children of this process lead (this
// process's own group is never a program's: 0 for it).
func groupCPU(pgid int) time.Duration {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self, own := os.Getpid(), syscall.Getpgrp()
	type proc struct {
		pgid int
		cpu  time.Duration
	}
	var procs []proc
	groups := map[int]bool{}
	if pgid > 1 && pgid != own {
		groups[pgid] = true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone
		}
		g, t, ok := parseStat(b)
		if !ok {
			continue
		}
		procs = append(procs, proc{g, t})
		if ppid, ok := parseParent(b); ok && ppid == self && g == pid && g > 1 && g != own {
			groups[g] = true
		}
	}
	var total time.Duration
	for _, p := range procs {
		if groups[p.pgid] {
			total += p.cpu
		}
	}
	return total
}

// parseParent reads a process's parent's id from its /proc/PID/stat.
func parseParent(b []byte) (ppid int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// parseStat reads a process's group and its CPU time (its own and its
// waited-for children's) from its /proc/PID/stat.
func parseStat(b []byte) (pgid int, cpu time.Duration, ok bool) {
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	// state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime
	if len(f) < 15 {
		return 0, 0, false
	}
	pgid, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	var ticks int64
	for _, k := range []int{11, 12, 13, 14} {
		v, err := strconv.ParseInt(string(f[k]), 10, 64)
		if err != nil {
			return 0, 0, false
		}
		ticks += v
	}
	return pgid, time.Duration(ticks) * clockTick, true
}
