package syncmodel

import (
	"fmt"
	"maps"
	"slices"
)

// goRWState is the world's Go reader/writer mutexes, by object.
type goRWState struct {
	gorws map[uint64]*gorwmutex
}

// goRWPrim is the primitive of Go's sync.RWMutex. A Lock is two events:
// GoRWLock takes writer exclusion and announces the writer, which blocks
// new readers; GoRWLockDrain, which the thread owes next, waits until the
// readers have left.
type goRWPrim struct{ basePrim }

func (*goRWPrim) kinds() []kindSpec {
	return []kindSpec{{kind: GoRWRLock}, {kind: GoRWTryRLock}, {kind: GoRWRUnlock, stateEff: true, precedes: true},
		{kind: GoRWLock}, {kind: GoRWLockDrain}, {kind: GoRWTryLock}, {kind: GoRWUnlock, precedes: true}}
}

func (*goRWPrim) check(_ *World, tid int, _ *thread, op Op) error {
	if op.Kind == GoRWLockDrain {
		return fmt.Errorf("syncmodel: thread %d: %s without its first half", tid, op)
	}
	return nil
}

func (*goRWPrim) enabled(w *World, _ int, op *Op) bool {
	switch op.Kind {
	case GoRWRLock, GoRWLock:
		return w.goRWFree(op.Obj)
	case GoRWLockDrain:
		return w.goRWDrained(op.Obj)
	}
	return true
}

func (*goRWPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case GoRWRLock:
		w.goRW(op.Obj).readers[tid]++
	case GoRWTryRLock:
		code = w.goRWTryRLock(tid, op.Obj)
	case GoRWRUnlock:
		msg = w.goRWRUnlock(tid, op.Obj)
	case GoRWLock:
		w.goRWLock(tid, op.Obj)
	case GoRWLockDrain:
		w.goRW(op.Obj).locked = true
		w.threads[tid-1].clearNext()
	case GoRWTryLock:
		code = w.goRWTryLock(tid, op.Obj)
	case GoRWUnlock:
		msg = w.goRWUnlock(op.Obj)
	}
	return done(code, msg)
}

func (*goRWPrim) waitFor(w *World, _ int, op *Op) Wait { return w.goRWWait(op) }

// effect: an RUnlock by a thread that holds a read lock of its own
// (Eff.Own).
func (*goRWPrim) effect(w *World, tid int, op *Op) Effect {
	eff := Effect{Known: true}
	if op.Kind == GoRWRUnlock {
		if r := w.gorws[op.Obj]; r != nil {
			eff.Own = r.readers[tid] > 0
		}
	}
	return eff
}

func (*goRWPrim) dependent(_ int, a *Op, _ int, b *Op, _ bool) bool {
	if isGoReaderSide(a) && (isGoReaderSide(b) || isGoWriterWait(b)) || isGoWriterWait(a) && isGoReaderSide(b) {
		return a.Obj == b.Obj && goRWDependent(a, b)
	}
	return sharesObject(a, b)
}

// isGoReaderSide reports the operations of a Go RWMutex's readers:
// RLock, TryRLock and RUnlock.
func isGoReaderSide(op *Op) bool {
	return op.Kind == GoRWRLock || op.Kind == GoRWTryRLock || op.Kind == GoRWRUnlock
}

// isGoWriterWait reports the two halves of a Go RWMutex's Lock: the
// announcement and the wait for the readers to leave.
func isGoWriterWait(op *Op) bool { return op.Kind == GoRWLock || op.Kind == GoRWLockDrain }

// goRWDependent decides two operations on one Go RWMutex, of which at
// least one is a reader's and the other a reader's or one of the halves of
// a writer's Lock. Readers take and release read locks of their own: two
// RLocks (or TryRLocks) only need no writer to have announced itself and
// each count their own lock, and an RUnlock that releases its thread's own
// read lock (Eff.Own) changes no other thread's count and no writer. So
// they all commute, and such an RUnlock commutes with an announcement too.
// An announcement disables RLock and changes what TryRLock returns:
// dependent. The drain waits for the readers to leave: an RUnlock may
// enable it (dependent); an RLock is never enabled beside it (the writer
// has announced itself) and a TryRLock fails before and after it, so they
// commute. An RUnlock without a read lock of its own releases another
// reader's, or is a misuse: dependent on every reader.
func goRWDependent(a, b *Op) bool {
	if a.Kind == GoRWRUnlock && !(a.Eff.Known && a.Eff.Own) || b.Kind == GoRWRUnlock && !(b.Eff.Known && b.Eff.Own) {
		return true
	}
	switch {
	case a.Kind == GoRWLock || b.Kind == GoRWLock:
		// The other is a reader's: only its own RUnlock commutes.
		return a.Kind != GoRWRUnlock && b.Kind != GoRWRUnlock
	case a.Kind == GoRWLockDrain || b.Kind == GoRWLockDrain:
		return a.Kind == GoRWRUnlock || b.Kind == GoRWRUnlock
	}
	return false
}

// mustPrecede: a writer's unlock, and a lock or read lock that waits; a
// reader's unlock, and the drain of a writer's lock.
func (*goRWPrim) mustPrecede(_ int, a *Op, _ int, b *Op) bool {
	switch a.Kind {
	case GoRWUnlock:
		return (b.Kind == GoRWLock || b.Kind == GoRWRLock) && b.Obj == a.Obj
	case GoRWRUnlock:
		return b.Kind == GoRWLockDrain && b.Obj == a.Obj
	}
	return false
}

func (*goRWPrim) fingerprint(w *World, f fp) fp {
	for _, k := range sortedKeys(w.gorws) {
		if r := w.gorws[k]; r.writer != 0 || r.locked || len(r.readers) > 0 {
			f.u(k)
			f.n(r.writer)
			f.b(r.locked)
			f.counts(r.readers)
		}
	}
	return f
}

func (*goRWPrim) clone(dst, src *World) { dst.gorws = cloneMap(src.gorws, (*gorwmutex).clone) }

func (*goRWPrim) reset(w *World) { w.goRWState = goRWState{gorws: keepMap(w.gorws)} }

// gorwmutex is a Go sync.RWMutex: writer-preferring, without owners. A
// writer announces itself (GoRWLock) before it waits for the readers to
// leave (GoRWLockDrain); from the announcement on, new readers block.
type gorwmutex struct {
	writer  int         // the thread that announced or holds the write lock; 0 if none
	locked  bool        // the writer holds the lock: the readers have left
	readers map[int]int // thread -> read locks taken; no zero entries
}

func (r *gorwmutex) clone() *gorwmutex {
	return &gorwmutex{writer: r.writer, locked: r.locked, readers: maps.Clone(r.readers)}
}

func (w *World) goRW(obj uint64) *gorwmutex {
	r := w.gorws[obj]
	if r == nil {
		r = &gorwmutex{}
		put(&w.gorws, obj, r)
	}
	if r.readers == nil {
		r.readers = map[int]int{}
	}
	return r
}

// goRWFree reports whether no writer has announced itself on obj.
func (w *World) goRWFree(obj uint64) bool {
	r := w.gorws[obj]
	return r == nil || r.writer == 0
}

// goRWDrained reports whether no reader holds obj.
func (w *World) goRWDrained(obj uint64) bool {
	r := w.gorws[obj]
	return r == nil || len(r.readers) == 0
}

func (w *World) goRWTryRLock(tid int, obj uint64) int64 {
	if !w.goRWFree(obj) {
		return 0
	}
	w.goRW(obj).readers[tid]++
	return 1
}

// goRWRUnlock releases a read lock: the caller's own if it holds one, else
// (Go read locks have no owner) the one of the reader with the lowest id.
func (w *World) goRWRUnlock(tid int, obj uint64) string {
	r := w.gorws[obj]
	if r == nil || len(r.readers) == 0 {
		if r != nil && r.locked {
			return fmt.Sprintf("RUnlock of RWMutex %#x, which is write-locked by %s", obj, w.threadName(r.writer))
		}
		return fmt.Sprintf("RUnlock of RWMutex %#x, which is not read-locked", obj)
	}
	t := tid
	if r.readers[t] == 0 {
		t = slices.Min(slices.Collect(maps.Keys(r.readers)))
	}
	if r.readers[t]--; r.readers[t] == 0 {
		delete(r.readers, t)
	}
	return ""
}

func (w *World) goRWLock(tid int, obj uint64) {
	r := w.goRW(obj)
	r.writer, r.locked = tid, false
	th := &w.threads[tid-1]
	th.next, th.nextObj = GoRWLockDrain, obj
}

func (w *World) goRWTryLock(tid int, obj uint64) int64 {
	if !w.goRWFree(obj) || !w.goRWDrained(obj) {
		return 0
	}
	r := w.goRW(obj)
	r.writer, r.locked = tid, true
	return 1
}

func (w *World) goRWUnlock(obj uint64) string {
	r := w.gorws[obj]
	switch {
	case r == nil || r.writer == 0:
		return fmt.Sprintf("Unlock of RWMutex %#x, which is not write-locked", obj)
	case !r.locked:
		return fmt.Sprintf("Unlock of RWMutex %#x, which is not write-locked (%s is still waiting for its readers)",
			obj, w.threadName(r.writer))
	}
	r.writer, r.locked = 0, false
	return ""
}

// goRWWait explains a blocked RLock, Lock or drain.
func (w *World) goRWWait(op *Op) Wait {
	r := w.gorws[op.Obj]
	wt := Wait{Obj: op.Obj, What: "RWMutex"}
	switch {
	case op.Kind == GoRWLockDrain:
		wt.Holders = slices.Sorted(maps.Keys(r.readers))
		wt.Detail = w.describeRW(&rwlock{readers: r.readers})
	case r.locked:
		wt.Holders = []int{r.writer}
		wt.Detail = "write-locked by " + w.threadName(r.writer)
	default:
		wt.Holders = []int{r.writer}
		wt.Detail = w.threadName(r.writer) + " is waiting to write-lock it"
	}
	return wt
}
