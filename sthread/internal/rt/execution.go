package rt

import (
	"math/rand"
	randv2 "math/rand/v2"
	"reflect"
	"sync/atomic"

	"github.com/stdbg/stdbg/model/wire"
)

// An Execution is one run of the checked function.
type Execution struct {
	r       *Runner
	gen     uint32
	threads []*Thread // threads[i] is thread i+1
	running atomic.Pointer[Thread]
	events  []wire.Event
	arena   []uint64  // frames of this execution's scheduling points
	objs    []object  // registered objects; object i has id idBase+i+1
	byAddr  addrTable // the objects registered by their address (see objaddr.go)
	failed  bool      // a failure was reported: nothing more runs
	over    bool      // the checked function's return was executed
	skipped bool      // the checked test skipped itself (t.Skip)
	stale   bool      // a thread of this execution went stale
	// stuck is where the goroutine of thread stuckTid was when its
	// transition timed out.
	stuck    []string
	stuckTid int

	// Stateful search (Config.State): the state and propositions the
	// program declared, and whether it marked progress in the transition.
	declared []declared
	progress bool

	// plain maps the real channels used in this execution (see plain.go)
	// to their state.
	plain table
	// plainChans counts the real channels of plain Go registered in this
	// execution (see outside.go); fed names the first that something
	// outside the check feeds.
	plainChans int
	fed        string
	// noted is the text of the last note on what is outside the model,
	// made when outsiders.gen was notedGen-1 and fed was notedFed (see
	// noteOutside).
	noted, notedFed string
	notedGen        uint64
	// now is the time of timers (see clock.go), in nanoseconds since the
	// epoch of package sthread/time.
	now int64
	// bubbleClocks are the clocks of the execution's bubbles of
	// testing/synctest (see clock.go), each in nanoseconds since the
	// epoch too, where each bubble's begins.
	bubbleClocks []bubbleClock
	// clockVars are the counts of readings of the clock that the
	// objects pass on (see clocksync.go).
	clockVars table
	// rand and rand2 are the execution's generators (see rand.go), and
	// randVal and randPos what rand's last draw for a Read left.
	rand    *rand.Rand
	rand2   *randv2.Rand
	randVal int64
	randPos int8
	// mapOrder chooses the order of the execution's ranges over maps
	// (see rand.go).
	mapOrder *randv2.Rand
	// tests are the checked test (first) and its subtests, and testKey
	// the key of the checked test's scheduling points (see testrules.go).
	tests   []testState
	testKey uint64
	// cleanups are the cleanups of the checked test and its subtests,
	// by their *testing.T (see subtest.go).
	cleanups map[any][]func()
	// values are the execution's values (see execvalue.go).
	values []execValue
	// raceVars are the race detector's variables of the objects (see
	// race.go).
	raceVars table
	// raceEnd is released by each thread of the execution as it ends, and
	// racePrev, the previous execution's, acquired by each as it starts:
	// what one execution did happens before the next, in a process that
	// serves many (the checker's hand-overs, hidden from the race
	// detector, order nothing).
	raceEnd, racePrev *uint64
	// raceReports is how many reports the race detector had made when
	// the execution began.
	raceReports int
}

//go:norace
func (r *Runner) newExecution() *Execution {
	if raceOn && raceHide && raceReports != nil {
		raceReports.dropAll() // an earlier execution's
	}
	ex := &Execution{r: r, gen: genCounter.Add(1), raceEnd: new(uint64), raceReports: raceErrors()}
	if ex.gen == 0 {
		ex.gen = genCounter.Add(1)
	}
	if r.last != nil {
		ex.racePrev = r.last.raceEnd
	}
	if l := r.last; l != nil && !l.stale {
		// Reuse the buffers of the previous execution, which nothing
		// refers to any more: the checker drops an execution when it
		// begins the next one.
		ex.events, ex.arena, ex.objs, ex.threads = l.events[:0], l.arena[:0], l.objs[:0], l.threads[:0]
		clear(l.threads[:cap(l.threads)])
		ex.plain = l.plain
		ex.plain.reset()
		ex.byAddr = l.byAddr
		ex.byAddr.reset()
		ex.clockVars = l.clockVars
		ex.clockVars.reset()
	}
	return ex
}

//go:norace
func (ex *Execution) newThread(tid int, f func()) *Thread {
	r := ex.r
	var th *Thread
	if n := len(r.free); n > 0 {
		th = r.free[n-1]
		r.free = r.free[:n-1]
		th.reset()
	} else {
		th = &Thread{wake: make(chan struct{}, 1)}
	}
	th.ex, th.tid, th.job = ex, tid, f
	th.fn = reflect.ValueOf(f).Pointer()
	ex.threads = append(ex.threads, th)
	return th
}

// Threads returns the number of threads of ex.
//
//go:norace
func (ex *Execution) Threads() int { return len(ex.threads) }

// Thread describes thread tid of ex: the id of its goroutine (which changes
// from run to run) and the entry of the function it runs, where its return
// is shown (while it is lent, that of the function it runs there: see
// Lend).
//
//go:norace
func (ex *Execution) Thread(tid int) (goroutine int64, entry uintptr) {
	th := ex.threads[tid-1]
	if th.lentFn != 0 {
		return int64(th.goid.Load()), th.lentFn
	}
	return int64(th.goid.Load()), th.fn
}

// record copies frames into the execution's arena.
//
//go:norace
func (ex *Execution) record(pcs []uintptr) []uint64 {
	if len(ex.arena)+len(pcs) > cap(ex.arena) {
		ex.arena = make([]uint64, 0, max(4096, 2*cap(ex.arena), len(pcs)))
	}
	n := len(ex.arena)
	for _, pc := range pcs {
		ex.arena = append(ex.arena, uint64(pc))
	}
	return ex.arena[n:len(ex.arena):len(ex.arena)]
}
