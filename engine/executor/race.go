package executor

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/hashmix"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// A happens-before data race detector over the schedule being run.
//
// Visible memory accesses (syncmodel.Read and Write: annotations, or the
// compiler's instrumentation of plain loads and stores) are checked against
// the order that the model's synchronization creates: thread creation and
// join, mutexes and spin locks, a condition wait's release and reacquisition
// of its mutex, semaphores, reader/writer locks, barriers and one-time
// initialisation. Two accesses to overlapping bytes, at least one a write,
// by different threads and unordered by that relation, are a data race.
//
// The detector costs nothing until an execution's first access: it then
// replays the steps so far once and follows every later step.

// vclock is a vector clock indexed by thread id.
type vclock []uint32

func (v vclock) get(tid int) uint32 {
	if tid < len(v) {
		return v[tid]
	}
	return 0
}

// join makes v the component-wise maximum of v and o.
func (v *vclock) join(o vclock) {
	if len(o) > len(*v) {
		*v = append(*v, make(vclock, len(o)-len(*v))...)
	}
	for i, x := range o {
		if x > (*v)[i] {
			(*v)[i] = x
		}
	}
}

func (v vclock) clone() vclock { return append(vclock(nil), v...) }

// access is one memory access remembered by the detector.
type access struct {
	tid   int
	epoch uint32 // the thread's own clock component at the access
	write bool
	// atomic accesses never race with each other, only with plain ones.
	atomic bool
	addr   uint64
	size   uint64
	step   int // 1-based step number in the trace
	// pc is where the access was made from: the step's first frame, or
	// for a logged access (logged set) its own return address. A logged
	// access was made after its step's operation, before the thread's
	// next one (wire.Accesses).
	pc     uint64
	logged bool
}

// happensBefore tells whether a is ordered before the current point of a
// thread whose clock is v.
func (a *access) happensBefore(v vclock) bool { return a.epoch <= v.get(a.tid) }

func (a *access) overlaps(addr, size uint64) bool {
	return a.addr < addr+size && addr < a.addr+a.size
}

// granule is the shadow of 8 bytes: the last write and the last read of
// each thread since it.
type granule struct {
	write *access
	reads []*access
}

// maxGranules bounds the shadow work of one access (an annotation of a
// large array checks its first 32 KiB).
const maxGranules = 4096

// raceDetector is the state of the detector over one execution.
type raceDetector struct {
	done    int // trace steps applied
	threads []vclock
	objs    map[uint64]vclock
	exited  map[int]vclock
	shadow  map[uint64]*granule
	// The room of granules and accesses, in chunks (pointers to them stay
	// valid), kept for the next execution by reset.
	granules [][]granule
	accesses [][]access
	nGran    int
	nAcc     int
}

// chunk is how many granules or accesses a detector allocates at once.
const chunk = 256

func newRaceDetector() *raceDetector {
	return &raceDetector{objs: make(map[uint64]vclock), exited: make(map[int]vclock), shadow: make(map[uint64]*granule)}
}

// reset empties d for another execution, keeping its room.
func (d *raceDetector) reset() {
	d.done = 0
	d.threads = d.threads[:0]
	clear(d.objs)
	clear(d.exited)
	clear(d.shadow)
	d.nGran, d.nAcc = 0, 0
}

// newGranule returns an empty granule from d's room.
func (d *raceDetector) newGranule() *granule {
	c, i := d.nGran/chunk, d.nGran%chunk
	if c == len(d.granules) {
		d.granules = append(d.granules, make([]granule, chunk))
	}
	d.nGran++
	g := &d.granules[c][i]
	g.write, g.reads = nil, g.reads[:0]
	return g
}

// newAccess returns room for an access from d's room.
func (d *raceDetector) newAccess() *access {
	c, i := d.nAcc/chunk, d.nAcc%chunk
	if c == len(d.accesses) {
		d.accesses = append(d.accesses, make([]access, chunk))
	}
	d.nAcc++
	return &d.accesses[c][i]
}

func (d *raceDetector) clock(tid int) *vclock {
	for len(d.threads) <= tid {
		if n := len(d.threads); n < cap(d.threads) {
			// A clock of an earlier execution: its room, emptied.
			d.threads = d.threads[:n+1]
			d.threads[n] = d.threads[n][:0]
		} else {
			d.threads = append(d.threads, nil)
		}
	}
	v := &d.threads[tid]
	if v.get(tid) == 0 {
		// A thread's own component starts at 1: an access at epoch e
		// is known to another thread only once that thread's clock
		// holds e.
		for len(*v) <= tid {
			*v = append(*v, 0)
		}
		(*v)[tid] = 1
	}
	return v
}

func (d *raceDetector) release(tid int, obj uint64) {
	o := d.objs[obj]
	o.join(*d.clock(tid))
	d.objs[obj] = o
}

func (d *raceDetector) acquire(tid int, obj uint64) {
	if o, ok := d.objs[obj]; ok {
		d.clock(tid).join(o)
	}
}

// sync applies the ordering that one executed step creates.
func (d *raceDetector) sync(st *Step) {
	t := st.Thread
	op := st.Op
	ok := st.Result.Code == syncmodel.OK
	switch op.Kind {
	case syncmodel.ThreadCreate:
		if c := st.Result.NewThread; c > 0 {
			d.clock(max(t, c)) // (room for both, before taking the parent's)
			v := append(d.threads[c][:0], *d.clock(t)...)
			for len(v) <= c {
				v = append(v, 0)
			}
			v[c] = 1
			d.threads[c] = v
		}
	case syncmodel.ThreadExit:
		d.exited[t] = d.clock(t).clone()
	case syncmodel.ThreadJoin:
		if v, found := d.exited[int(op.Arg)]; found && ok {
			d.clock(t).join(v)
		}
	case syncmodel.MutexUnlock, syncmodel.SpinUnlock, syncmodel.RWUnlock, syncmodel.SemPost, syncmodel.OnceEnd:
		d.release(t, op.Obj)
	case syncmodel.MutexLock, syncmodel.MutexTrylock, syncmodel.MutexTimedlock,
		syncmodel.SpinLock, syncmodel.SpinTrylock,
		syncmodel.RWRdlock, syncmodel.RWWrlock, syncmodel.RWTryRdlock, syncmodel.RWTryWrlock,
		syncmodel.RWTimedRdlock, syncmodel.RWTimedWrlock,
		syncmodel.SemWait, syncmodel.SemTrywait, syncmodel.SemTimedwait:
		if ok {
			d.acquire(t, op.Obj)
		}
	case syncmodel.CondWait:
		d.release(t, op.Obj2) // the wait unlocks its mutex
	case syncmodel.CondReacquire:
		d.acquire(t, op.Obj2) // and locks it again, even on a timeout
	case syncmodel.BarrierWait:
		d.release(t, op.Obj)
		if st.Result.Code == syncmodel.BarrierSerial {
			d.acquire(t, op.Obj)
		}
	case syncmodel.BarrierLeave, syncmodel.OnceBegin:
		d.acquire(t, op.Obj)
	case syncmodel.Read, syncmodel.Write:
		// Atomics as sequentially consistent: a load acquires what the
		// stores to its address released before it.
		if isAtomic(op.API) {
			if op.Kind == syncmodel.Write {
				d.release(t, atomicKey(op.Obj))
			}
			d.acquire(t, atomicKey(op.Obj))
		}
	}
	// Every step is an epoch of its thread.
	(*d.clock(t))[t]++
}

// isAtomic tells the atomic accesses among Reads and Writes.
func isAtomic(api syncmodel.API) bool {
	switch api {
	case syncmodel.APIStdbgAtomicRead, syncmodel.APIStdbgAtomicWrite,
		syncmodel.APICAtomicLoad, syncmodel.APICAtomicStore, syncmodel.APICAtomicRMW,
		syncmodel.APIAtomicLoad, syncmodel.APIAtomicStore, syncmodel.APIAtomicAdd, syncmodel.APIAtomicSwap,
		syncmodel.APIAtomicCompareSwap, syncmodel.APIAtomicAnd, syncmodel.APIAtomicOr:
		return true
	}
	return false
}

// atomicKey is the synchronization object of the atomic variable at addr,
// apart from the objects (mutexes, ...) named by their addresses.
func atomicKey(addr uint64) uint64 { return addr ^ 1<<63 }

// race is a data race between an earlier access and the current one.
type race struct {
	prev, cur *access
}

// check records the access of step st (a Read or Write) and returns the race
// it completes, if any.
func (d *raceDetector) check(st *Step, stepNo int) *race {
	a := d.newAccess()
	*a = access{tid: st.Thread, write: st.Op.Kind == syncmodel.Write, atomic: isAtomic(st.Op.API), addr: st.Op.Obj, size: uint64(st.Op.Arg), step: stepNo}
	if len(st.Frames) > 0 {
		a.pc = st.Frames[0]
	}
	return d.checkAccess(a)
}

// checkLogged records the plain accesses thread tid made after step
// stepNo's operation (its own, the last one applied) and returns the first
// race one of them completes, if any.
func (d *raceDetector) checkLogged(tid int, list []wire.Access, stepNo int) *race {
	for _, x := range list {
		a := d.newAccess()
		*a = access{tid: tid, write: x.Write, addr: x.Addr, size: uint64(x.Size), step: stepNo, pc: x.PC, logged: true}
		if r := d.checkAccess(a); r != nil {
			return r
		}
	}
	return nil
}

// checkAccess records a, an access of its thread at the thread's current
// clock, and returns the race it completes, if any.
func (d *raceDetector) checkAccess(a *access) *race {
	t := a.tid
	v := *d.clock(t)
	a.epoch = v.get(t)
	if a.size == 0 {
		a.size = 1
	}
	first, last := a.addr>>3, (a.addr+a.size-1)>>3
	if last-first >= maxGranules {
		last = first + maxGranules - 1
	}
	var found *race
	for g := first; g <= last; g++ {
		sh := d.shadow[g]
		if sh == nil {
			sh = d.newGranule()
			d.shadow[g] = sh
		}
		if found == nil {
			found = sh.conflict(a, v)
		}
		if a.write {
			sh.write = a
			sh.reads = sh.reads[:0]
			continue
		}
		replaced := false
		for i, r := range sh.reads {
			if r.tid == t {
				sh.reads[i] = a
				replaced = true
				break
			}
		}
		if !replaced {
			sh.reads = append(sh.reads, a)
		}
	}
	return found
}

// conflict returns a race between a and an earlier access of g, if any.
func (g *granule) conflict(a *access, v vclock) *race {
	races := func(b *access) bool {
		return b.tid != a.tid && !(a.atomic && b.atomic) && b.overlaps(a.addr, a.size) && !b.happensBefore(v)
	}
	if w := g.write; w != nil && races(w) {
		return &race{prev: w, cur: a}
	}
	if !a.write {
		return nil
	}
	for _, r := range g.reads {
		if races(r) {
			return &race{prev: r, cur: a}
		}
	}
	return nil
}

// checkRace runs the detector over the step just executed; it reports a
// race as the execution's outcome.
func (e *Execution) checkRace() {
	if !e.c.opts.Races || e.outcome != nil {
		return
	}
	n := len(e.trace)
	last := &e.trace[n-1]
	isAccess := last.Op.Kind == syncmodel.Read || last.Op.Kind == syncmodel.Write
	if e.races == nil {
		if !isAccess {
			return
		}
		e.races = e.c.takeRaces()
	}
	d := e.races
	for ; d.done < n-1; d.done++ {
		d.sync(&e.trace[d.done])
	}
	var r *race
	if isAccess {
		r = d.check(last, n)
	}
	d.sync(last)
	d.done = n
	if r != nil {
		e.finish(e.raceOutcome(r), false)
	}
}

// checkLogged runs the detector over the plain accesses a thread made
// after the last step (wire.Accesses); it reports a race as the
// execution's outcome.
func (e *Execution) checkLogged(a *wire.Accesses) {
	n := len(e.trace)
	if !e.c.opts.Races || e.outcome != nil || n == 0 || len(a.List) == 0 {
		// (Before the first step one thread runs: nothing to race with.)
		return
	}
	if e.races == nil {
		e.races = e.c.takeRaces()
	}
	d := e.races
	for ; d.done < n; d.done++ {
		d.sync(&e.trace[d.done])
	}
	if r := d.checkLogged(a.Tid, a.List, n); r != nil {
		e.finish(e.raceOutcome(r), false)
	}
}

// accessAt says where access a was made, and its step: "a.c:9 (step 4)",
// or for an access made after its step's operation, "a.c:9 (after step 4)".
func (e *Execution) accessAt(a *access) (at, step string) {
	if a.logged {
		return e.where([]uint64{a.pc}), fmt.Sprintf("after step %d", a.step)
	}
	return e.where(e.trace[a.step-1].Frames), fmt.Sprintf("step %d", a.step)
}

// raceOutcome describes a race: both accesses, the variable, and where.
func (e *Execution) raceOutcome(r *race) *search.Outcome {
	prev, cur := r.prev, r.cur
	curAt, curStep := e.accessAt(cur)
	prevAt, prevStep := e.accessAt(prev)
	tail := ""
	if !prev.logged {
		tail = e.stackTail(e.trace[prev.step-1].Frames)
	}
	what := fmt.Sprintf("%s at %#x", bytes(cur.size), cur.addr)
	if e.c.opts.Variable != nil {
		if name := e.c.opts.Variable(cur.addr); name != "" {
			what = fmt.Sprintf("%s (%s)", name, bytes(cur.size))
		}
	}
	msg := fmt.Sprintf("thread %d %s %s at %s (%s), unordered with thread %d's %s at %s (%s%s)",
		cur.tid, verb(cur.write, true), what, curAt, curStep,
		prev.tid, verb(prev.write, false), prevAt, prevStep, tail)
	sites := []string{curAt, prevAt}
	sort.Strings(sites)
	return &search.Outcome{Kind: search.DataRace, Message: msg, Where: strings.Join(sites, ",")}
}

// stackTail renders the callers of an earlier access (its own place is in
// the message already): ", called from a.c:3 < a.c:9". The thread's start
// in the C library ends it.
func (e *Execution) stackTail(frames []uint64) string {
	var parts []string
	own := true // still at the access's own frames
	for _, pc := range frames {
		l := e.c.locateKnown(pc)
		if own {
			own = l == ""
			continue
		}
		if l == "" || threadStart(l) {
			break
		}
		if len(parts) == 4 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, l)
	}
	if len(parts) == 0 {
		return ""
	}
	return ", called from " + strings.Join(parts, " < ")
}

// threadStart tells the C library's frames that start a thread or main.
func threadStart(l string) bool {
	for _, p := range []string{"pthread_create.c:", "libc_start_call_main.h:", "libc-start.c:", "_start", "start_thread"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return strings.Contains(l, ".S:")
}

func verb(write, present bool) string {
	switch {
	case write && present:
		return "writes"
	case present:
		return "reads"
	case write:
		return "write"
	default:
		return "read"
	}
}

func bytes(n uint64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// raceFingerprint hashes what of the detector's state decides the races
// still to come and how they are reported, and only that, so that it
// repeats when the program does: for every remembered access, the place
// it was made from (a race's report names it), and which live threads'
// current points, which synchronization objects' clocks and which exited
// threads' clocks it happens before (a later acquire or join passes those
// on; the epochs themselves only grow). It is 0 before the first access.
func (e *Execution) raceFingerprint() uint64 {
	d := e.races
	if d == nil {
		return 0
	}
	for ; d.done < len(e.trace); d.done++ {
		d.sync(&e.trace[d.done])
	}
	live := e.w.Live()
	objs := slices.Sorted(maps.Keys(d.objs))
	exited := slices.Sorted(maps.Keys(d.exited))
	var h uint64
	for _, addr := range slices.Sorted(maps.Keys(d.shadow)) {
		g := d.shadow[addr]
		acc := func(a *access) {
			if a == nil {
				return
			}
			x := hashmix.Mix(addr ^ uint64(a.tid)<<40 ^ uint64(a.size)<<48)
			if a.write {
				x ^= 1
			}
			if a.atomic {
				x ^= 2
			}
			if a.pc != 0 {
				x = hashmix.Mix(x ^ a.pc)
			}
			for i, t := range live {
				if t < len(d.threads) && a.happensBefore(d.threads[t]) {
					x ^= 4 << i
				}
			}
			for _, obj := range objs {
				if a.happensBefore(d.objs[obj]) {
					x = hashmix.Mix(x ^ obj)
				}
			}
			for _, t := range exited {
				if a.happensBefore(d.exited[t]) {
					x = hashmix.Mix(x ^ uint64(t)<<32 ^ 0x5bd1e995)
				}
			}
			h += hashmix.Mix(x) // a sum: the order of a granule's reads does not matter
		}
		acc(g.write)
		for _, r := range g.reads {
			acc(r)
		}
	}
	return h
}

// takeRaces returns a detector for an execution: the room of the last
// searched one's (see begin), or a new one.
func (c *Executor) takeRaces() *raceDetector {
	if d := c.spareRaces; d != nil {
		c.spareRaces = nil
		d.reset()
		return d
	}
	return newRaceDetector()
}
