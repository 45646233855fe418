package sthread

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// hooked is the one load every primitive makes: false means that no Check
// is running and that no goroutine of an earlier execution is still alive,
// so the primitive passes straight through to the real one.
var hooked atomic.Bool

var (
	// checking is the runner of the Check in progress, nil between Checks.
	checking atomic.Pointer[runner]
	// checkMu serialises Checks: one process checks one program at a time.
	checkMu sync.Mutex

	// regMu guards stale and the recomputation of hooked.
	regMu sync.Mutex
	// stale are the threads of ended executions whose goroutines are still
	// running: they did not reach their next operation within the
	// transition timeout and cannot be stopped. Their next sthread call
	// unwinds them.
	stale []*thread
)

// rehook recomputes hooked; regMu must be held.
//
//go:norace
func rehook() {
	hooked.Store(checking.Load() != nil || len(stale) > 0)
}

// abortSignal is the panic value that unwinds a checked goroutine at the
// end of an execution; the goroutine's trampoline recovers it.
type abortSignal struct{}

// family names a kind of object, for the names of objects in reports.
type family uint8

const (
	famMutex family = iota + 1
	famRWMutex
	famWaitGroup
	famCond
	famOnce
	famChan
)

var familyNames = [...]string{
	famMutex: "mutex", famRWMutex: "rwmutex", famWaitGroup: "wg", famCond: "cond", famOnce: "once", famChan: "chan",
}

// idBase is added to the index of a registered object to make its model id,
// so that ids never collide with the addresses that Read and Write report.
const idBase = 1 << 44

// objRef is the registration of an sthread object in the current
// execution: the execution's generation in the high 32 bits, the index of
// the object in the execution's object list in the low ones. Objects are
// registered on first use in each execution, so that an object shared by
// executions (a global, or one created before Check) starts afresh in each,
// and ids are stable across executions that follow the same schedule.
type objRef struct{ v atomic.Uint64 }

// load and store access the registration without synchronisation in race
// builds that hide sthread's hand-overs (quietLoad): an atomic
// registration made by the first goroutine to use an object ordered it
// before every later user (a goroutine's read of a field, then its receive
// from the channel the field holds, before another's close of the channel
// and write of the field: that race was hidden). Registrations are made by
// the running checked goroutine only, one at a time.
//
//go:norace
func (o *objRef) load() uint64 { return quietLoad(&o.v) }

//go:norace
func (o *objRef) store(v uint64) { quietStore(&o.v, v) }

// id returns the model id of the object in execution ex, registering it.
//
//go:norace
func (o *objRef) id(ex *execution, fam family, addr unsafe.Pointer) uint64 {
	v := o.load()
	if v != 0 && uint32(v>>32) == ex.gen {
		return idBase + uint64(uint32(v))
	}
	ex.objs = append(ex.objs, object{fam: fam, addr: uintptr(addr)})
	n := uint64(len(ex.objs))
	o.store(uint64(ex.gen)<<32 | n)
	return idBase + n
}

// registeredIn reports whether the object was used in execution ex.
//
//go:norace
func (o *objRef) registeredIn(ex *execution) bool {
	v := o.load()
	return v != 0 && uint32(v>>32) == ex.gen
}

// object is an sthread object registered in an execution.
type object struct {
	fam  family
	addr uintptr // its address, to name global variables
}

// enter decides how the calling goroutine performs an operation on the
// object registered by ref (nil for operations without an object) while
// hooked is set. It returns the checked thread of the caller and the
// object's id, or ok false when the operation passes through to the real
// primitive. A goroutine being unwound (the end of its execution, or a
// goroutine left behind by a transition timeout) panics with abortSignal.
//
//go:norace
func enter(ref *objRef, fam family, addr unsafe.Pointer) (th *thread, id uint64, ok bool) {
	g := getg()
	if r := checking.Load(); r != nil {
		if ex := r.ex.Load(); ex != nil {
			if th := ex.running.Load(); th != nil && th.g.Load() == g {
				if th.abort.Load() {
					panic(abortSignal{})
				}
				if ref != nil {
					id = ref.id(ex, fam, addr)
				}
				return th, id, true
			}
			if ref != nil && ref.registeredIn(ex) {
				foreign(r, g, fam)
			}
		}
	}
	regMu.Lock()
	for _, s := range stale {
		if s.g.Load() == g {
			regMu.Unlock()
			panic(abortSignal{})
		}
	}
	regMu.Unlock()
	return nil, 0, false
}

// foreign handles a goroutine that sthread does not control (it was not
// started with Go) operating on an object of the checked program: the
// check cannot go on, and the scheduler reports it. The goroutine is parked
// for good: the real primitive is in no known state (unlocking it could
// be fatal to the process) and the goroutine cannot be unwound.
//
//go:norace
func foreign(r *runner, g uintptr, fam family) {
	regMu.Lock()
	for _, s := range stale {
		if s.g.Load() == g {
			regMu.Unlock()
			panic(abortSignal{})
		}
	}
	regMu.Unlock()
	r.mu.Lock()
	if r.foreign == "" {
		r.foreign = fmt.Sprintf("a goroutine not started with sthread.Go used a %s of the checked program; "+
			"start every goroutine of the checked function with sthread.Go", familyNames[fam])
	}
	r.mu.Unlock()
	select {}
}

// enterFree is enter for operations without an object.
//
//go:norace
func enterFree() (*thread, bool) {
	th, _, ok := enter(nil, 0, nil)
	return th, ok
}
