package targetproc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/model/wire"
)

// Placement puts one executor on CPUs: the checker's thread on Checker and
// every thread of the target on Target.
//
// The checker and the running target thread hand the mailbox back and forth
// at every transition. On two CPUs both sides poll, and a hand-over takes a
// few microseconds; the target's own threads, which run one at a time,
// share their CPU and wake each other without polling. When the checker
// and the target share one CPU (Checker == Target) neither side polls: the
// one that waits gives the CPU to the other at once.
type Placement struct {
	Checker, Target int
}

// Shared reports whether the checker and the target share one CPU.
func (pl Placement) Shared() bool { return pl.Checker == pl.Target }

// allowedCPUs lists the CPUs this process may run on (nil if unknown).
func allowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// CPUClaim is a set of CPUs this process holds for placing executors.
type CPUClaim struct {
	cpus  []int
	files []*os.File
}

// ClaimCPUs claims up to n of the CPUs this process may use, skipping those
// another claim holds: two stdbg searches placed on the same CPUs would
// keep each other waiting. Claims are advisory locks on files under the
// cache directory (cpus/N.lock), held until Release or the end of the
// process. With $STDBG_PIN=0, or when no CPU is free, the claim is empty
// and Place proposes nothing.
//
// Nor does it claim anything on a busy machine, where fewer than n CPUs
// are left by the threads of other programs ready to run (Busy): a thread
// placed on a CPU beside a busy program waits for it at every hand-over,
// when the kernel would have moved it to a CPU that is free at that
// moment. $STDBG_PIN=1 claims all the same.
func ClaimCPUs(n int) *CPUClaim {
	c := &CPUClaim{}
	pin := os.Getenv("STDBG_PIN")
	if pin == "0" || n < 1 || pin != "1" && Busy(n) {
		return c
	}
	base, err := cachedir.Dir()
	if err != nil {
		return c
	}
	dir := filepath.Join(base, "cpus")
	if os.MkdirAll(dir, 0o755) != nil {
		return c
	}
	for _, cpu := range allowedCPUs() {
		if len(c.cpus) == n {
			break
		}
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d.lock", cpu)), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close()
			continue
		}
		c.cpus = append(c.cpus, cpu)
		c.files = append(c.files, f)
	}
	return c
}

// Busy reports whether fewer than n of the CPUs this process may use are
// left by the threads of other programs that are ready to run: the
// kernel's count of runnable threads (procs_running in /proc/stat), less
// the caller, at its lowest over up to three readings a millisecond apart,
// so that a program that only passes by is not counted (a machine found
// free at the first reading costs no wait).
func Busy(n int) bool {
	cpus := len(allowedCPUs())
	if cpus == 0 {
		return false
	}
	for i := range 3 {
		if i > 0 {
			time.Sleep(time.Millisecond)
		}
		r, ok := runnable()
		if !ok || cpus-(r-1) >= n {
			return false
		}
	}
	return true
}

// runnable returns the number of threads ready to run on the machine now
// (procs_running in /proc/stat), the caller included.
func runnable() (int, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "procs_running "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			return n, err == nil
		}
	}
	return 0, false
}

// CPUs returns the claimed CPUs.
func (c *CPUClaim) CPUs() []int { return c.cpus }

// Place proposes a placement for each of workers executors on the claimed
// CPUs, two CPUs each while there are enough, else one each, in turn; nil when
// nothing was claimed.
func (c *CPUClaim) Place(workers int) []Placement {
	if workers < 1 {
		workers = 1
	}
	return placements(c.cpus, workers)
}

// Release gives the CPUs back to other claims.
func (c *CPUClaim) Release() {
	for _, f := range c.files {
		f.Close()
	}
	c.cpus, c.files = nil, nil
}

// placements places workers on cpus: two CPUs each while there are enough,
// else one each, in turn; nil without CPUs.
func placements(cpus []int, workers int) []Placement {
	if len(cpus) == 0 {
		return nil
	}
	out := make([]Placement, workers)
	for w := range out {
		if 2*workers <= len(cpus) {
			out[w] = Placement{Checker: cpus[2*w], Target: cpus[2*w+1]}
		} else {
			c := cpus[w%len(cpus)]
			out[w] = Placement{Checker: c, Target: c}
		}
	}
	return out
}

// PinAlone claims two CPUs and places p on them as stdbg find places a
// single copy of the program; release gives the CPUs back. Without free
// CPUs (or with $STDBG_PIN=0) p is left to the kernel.
func PinAlone(p *Process) (release func(), err error) {
	c := ClaimCPUs(2)
	if pls := c.Place(1); pls != nil {
		if err := p.Pin(pls[0]); err != nil {
			c.Release()
			return nil, err
		}
	}
	return c.Release, nil
}

// flags are the wire flags that tell the runtime how it is placed.
func (pl Placement) flags() uint32 {
	if pl.Shared() {
		return wire.FlagNoSpin | wire.FlagOneCPU
	}
	return wire.FlagOneCPU
}

// Pin places the fork server, and with it every later execution, on
// pl.Target, and the thread that calls Begin on pl.Checker (the caller
// should keep its goroutine on one OS thread, runtime.LockOSThread). A
// target in Respawn mode, which forks no executions, is left unplaced.
func (p *Process) Pin(pl Placement) error {
	if p.cfg.Respawn {
		return nil
	}
	var set unix.CPUSet
	set.Set(pl.Target)
	if err := unix.SchedSetaffinity(p.hello.Pid, &set); err != nil {
		return fmt.Errorf("placing %s on CPU %d: %w", p.cfg.Binary, pl.Target, err)
	}
	if p.placed && p.place != pl {
		p.Unpin()
	}
	p.place, p.placed = pl, true
	return nil
}

// pinCaller puts the calling thread on the checker's CPU the first time it
// begins an execution, remembering the thread's own CPUs for Close.
func (p *Process) pinCaller() {
	if !p.placed {
		return
	}
	tid := unix.Gettid()
	if tid == p.pinnedTid {
		return
	}
	p.Unpin()
	var old, set unix.CPUSet
	if unix.SchedGetaffinity(0, &old) != nil {
		return
	}
	set.Set(p.place.Checker)
	if unix.SchedSetaffinity(0, &set) == nil {
		p.pinnedTid, p.pinnedOld = tid, old
		p.mb.SetCPU(p.place.Checker)
	}
}

// Unpin gives the thread pinned by Begin its CPUs back, when called on that
// thread, and leaves later executions where they are until the next Pin.
func (p *Process) Unpin() {
	if p.pinnedTid != 0 && p.pinnedTid == unix.Gettid() {
		unix.SchedSetaffinity(0, &p.pinnedOld)
	}
	p.pinnedTid = 0
	p.mb.SetCPU(-1)
}
