package rt

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// hooked is the one load every primitive makes: false means that no check
// is running and that no goroutine of an earlier execution is still alive,
// so the primitive passes straight through to the real one.
var hooked atomic.Bool

// Hooked reports whether a check runs, or a goroutine of an earlier
// execution is still alive: when it is false, every primitive passes
// straight through to the real one. It is the one load a primitive makes
// outside a check.
//
//go:norace
func Hooked() bool { return hooked.Load() }

var (
	// checking is the runner of the check in progress, nil between checks.
	checking atomic.Pointer[Runner]

	// regMu guards stale and the recomputation of hooked.
	regMu sync.Mutex
	// stale are the threads of ended executions whose goroutines are still
	// running: they did not reach their next operation within the
	// transition timeout and cannot be stopped. Their next sthread call
	// unwinds them.
	stale []*Thread
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

// A Family is a kind of object, for the names of objects in reports.
type Family uint8

// The families of sthread's objects.
const (
	FamMutex Family = iota + 1
	FamRWMutex
	FamWaitGroup
	FamCond
	FamOnce
	FamChan
	FamBubble // a bubble of testing/synctest
)

var familyNames = [...]string{
	FamMutex: "mutex", FamRWMutex: "rwmutex", FamWaitGroup: "wg", FamCond: "cond", FamOnce: "once", FamChan: "chan",
	FamBubble: "bubble",
}

// idBase is added to the index of a registered object to make its model id,
// so that ids never collide with the addresses that Read and Write report.
const idBase = 1 << 44

// An ObjRef is the registration of an sthread object in the current
// execution: the execution's generation in the high 32 bits, the index of
// the object in the execution's object list in the low ones. Objects are
// registered on first use in each execution, so that an object shared by
// executions (a global, or one created before the check) starts afresh in
// each, and ids are stable across executions that follow the same
// schedule. The zero value is an object not registered yet.
type ObjRef struct{ v atomic.Uint64 }

// load and store access the registration without synchronisation in race
// builds that hide sthread's hand-overs (quietLoad): an atomic
// registration made by the first goroutine to use an object ordered it
// before every later user (a goroutine's read of a field, then its receive
// from the channel the field holds, before another's close of the channel
// and write of the field: that race was hidden). Registrations are made by
// the running checked goroutine only, one at a time.
//
//go:norace
func (o *ObjRef) load() uint64 { return quietLoad(&o.v) }

//go:norace
func (o *ObjRef) store(v uint64) { quietStore(&o.v, v) }

// ID returns the model id of the object at addr, of family fam, in the
// execution of checked thread th, registering it.
//
//go:norace
func (o *ObjRef) ID(th *Thread, fam Family, addr unsafe.Pointer) uint64 {
	return o.id(th.ex, fam, addr)
}

//go:norace
func (o *ObjRef) id(ex *Execution, fam Family, addr unsafe.Pointer) uint64 {
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
func (o *ObjRef) registeredIn(ex *Execution) bool {
	v := o.load()
	return v != 0 && uint32(v>>32) == ex.gen
}

// object is an sthread object registered in an execution.
type object struct {
	fam   Family
	addr  uintptr    // its address, to name global variables
	plain *plainInfo // a real channel of plain Go (see outside.go)
}

// Enter decides how the calling goroutine performs an operation on the
// object at addr, of family fam, registered by ref (nil for operations
// without an object) while Hooked is set. It returns the checked thread of
// the caller and the object's id, or ok false when the operation passes
// through to the real primitive. A goroutine being unwound (the end of its
// execution, or a goroutine left behind by a transition timeout) panics
// with the runtime's abort signal, which its trampoline recovers.
//
//go:norace
func Enter(ref *ObjRef, fam Family, addr unsafe.Pointer) (th *Thread, id uint64, ok bool) {
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
	unwindIfStale(g)
	return nil, 0, false
}

// unwindIfStale panics with the runtime's abort signal, which the
// goroutine's trampoline recovers, when goroutine g is a thread of an
// ended execution (stale) that is still running.
//
//go:norace
func unwindIfStale(g uintptr) {
	regMu.Lock()
	for _, s := range stale {
		if s.g.Load() == g {
			regMu.Unlock()
			panic(abortSignal{})
		}
	}
	regMu.Unlock()
}

// foreign handles a goroutine that sthread does not control (it was not
// started with Go) operating on an object of the checked program: the
// check cannot go on, and the scheduler reports it. The goroutine is parked
// for good: the real primitive is in no known state (unlocking it could
// be fatal to the process) and the goroutine cannot be unwound.
//
//go:norace
func foreign(r *Runner, g uintptr, fam Family) {
	unwindIfStale(g)
	o := outsiderOf(g)
	var msg string
	if o != nil {
		// A go statement of the program started it outside the check
		// (as the program initialised): not a bug of the program, but
		// what stdbg cannot check.
		msg = fmt.Sprintf("%s, used a %s of the checked program, which stdbg cannot order against its checked goroutines", o.describe(false), familyNames[fam])
		outsiders.mu.Lock()
		o.parked = true
		outsiders.gen.Add(1)
		outsiders.mu.Unlock()
	}
	r.mu.Lock()
	if r.foreign == "" {
		r.foreign, r.outsider = msg, o != nil
		if o == nil {
			r.foreign = fmt.Sprintf("a goroutine not started with sthread.Go used a %s of the checked program; "+
				"start every goroutine of the checked function with sthread.Go", familyNames[fam])
		}
	}
	r.mu.Unlock()
	select {}
}

// EnterFree is Enter for operations without an object.
//
//go:norace
func EnterFree() (*Thread, bool) {
	th, _, ok := Enter(nil, 0, nil)
	return th, ok
}

// Current returns the calling goroutine's thread under a check, or ok
// false when it runs outside one.
//
//go:norace
func Current() (*Thread, bool) {
	if !hooked.Load() {
		return nil, false
	}
	return EnterFree()
}
