package syncmodel

import (
	"maps"
	"slices"

	"github.com/stdbg/stdbg/internal/hashmix"
)

// Fingerprint returns a 64-bit hash of the world's state: every thread's
// status and pending operation, and the state of every synchronization
// object. Two worlds that behave the same from now on (same threads in the
// same places, same owners, counts, waiters, buffers) have the same
// fingerprint, whatever the history that led to them; an object in its
// initial state (an unlocked mutex, a condition variable nobody waits on, a
// semaphore at zero, ...) counts as absent, since the model creates objects
// on first use. Object identities (addresses for C targets) are part of the
// hash.
//
// It is meant for stateful search (package search): the fingerprint is one
// part of a program state's identity, next to the program's own memory.
// Every field of the model's records must be hashed here.
func (w *World) Fingerprint() uint64 {
	f := &fp{h: 0xcbf29ce484222325}
	f.b(w.exited)
	f.i(w.status)
	f.b(w.spurious)
	f.n(w.hot)
	f.n(len(w.timerChans))
	for _, k := range slices.Sorted(maps.Keys(w.timerChans)) {
		f.u(k)
	}
	f.n(len(w.threads))
	for i := range w.threads {
		f.thread(&w.threads[i])
	}
	mutexes := func(tag uint64, m map[uint64]*mutex) {
		f.u(tag)
		for _, k := range sortedKeys(m) {
			if x := m[k]; x.owner != 0 || x.count != 0 || x.typ != MutexNormal {
				f.u(k)
				f.i(x.typ)
				f.n(x.owner)
				f.n(x.count)
			}
		}
	}
	mutexes(1, w.mutexes)
	mutexes(2, w.spins)
	f.u(3)
	for _, k := range sortedKeys(w.conds) {
		if c := w.conds[k]; len(c.waiters) > 0 {
			f.u(k)
			f.u(c.mutex)
			f.n(len(c.waiters))
			for _, wt := range c.waiters {
				f.n(wt.tid)
				f.b(wt.signalled)
				// Not wt.by: who signalled a waiter changes nothing
				// it or anyone else can do (only which events DPOR
				// orders).
			}
		}
	}
	f.u(4)
	for _, k := range sortedKeys(w.sems) {
		if s := w.sems[k]; s.value != 0 || s.destroyed {
			f.u(k)
			f.i(s.value)
			f.b(s.destroyed)
		}
	}
	f.u(5)
	for _, k := range sortedKeys(w.rwlocks) {
		if r := w.rwlocks[k]; r.writer != 0 || len(r.readers) > 0 {
			f.u(k)
			f.n(r.writer)
			f.counts(r.readers)
		}
	}
	f.u(6)
	for _, k := range sortedKeys(w.barriers) {
		b := w.barriers[k]
		f.u(k)
		f.i(b.count)
		f.ints(b.waiting)
	}
	f.u(7)
	for _, k := range sortedKeys(w.onces) {
		if o := w.onces[k]; o.state != 0 || o.runner != 0 {
			f.u(k)
			f.n(o.state)
			f.n(o.runner)
		}
	}
	f.u(8)
	for _, k := range sortedKeys(w.gomutexes) {
		if m := w.gomutexes[k]; m.holder != 0 {
			f.u(k)
			f.n(m.holder)
		}
	}
	f.u(9)
	for _, k := range sortedKeys(w.gorws) {
		if r := w.gorws[k]; r.writer != 0 || r.locked || len(r.readers) > 0 {
			f.u(k)
			f.n(r.writer)
			f.b(r.locked)
			f.counts(r.readers)
		}
	}
	f.u(10)
	for _, k := range sortedKeys(w.wgs) {
		if g := w.wgs[k]; g.count != 0 || len(g.waiters) > 0 {
			f.u(k)
			f.i(g.count)
			f.ints(g.waiters)
		}
	}
	f.u(11)
	for _, k := range sortedKeys(w.chans) {
		c := w.chans[k]
		f.u(k)
		f.i(c.cap)
		f.i(c.len)
		f.b(c.closed)
		for _, q := range [][]parkedOn{c.sendq, c.recvq} {
			f.n(len(q))
			for _, p := range q {
				f.n(p.tid)
				f.n(p.cas)
			}
		}
	}
	return f.sum()
}

// fp accumulates a fingerprint, one 64-bit word at a time.
type fp struct{ h uint64 }

func (f *fp) u(x uint64) {
	f.h = (f.h ^ x) * 0x100000001b3
	f.h ^= f.h >> 29
}

func (f *fp) i(x int64) { f.u(uint64(x)) }
func (f *fp) n(x int)   { f.u(uint64(int64(x))) }

func (f *fp) b(x bool) {
	if x {
		f.u(1)
	} else {
		f.u(0)
	}
}

func (f *fp) ints(xs []int) {
	f.n(len(xs))
	for _, x := range xs {
		f.n(x)
	}
}

// counts hashes a thread -> count map in thread order.
func (f *fp) counts(m map[int]int) {
	f.n(len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f.n(k)
		f.n(m[k])
	}
}

func (f *fp) op(o Op) {
	f.u(uint64(o.Kind))
	f.u(uint64(o.API))
	f.u(o.Obj)
	f.u(o.Obj2)
	f.i(o.Arg)
	f.cases(o.Cases)
}

func (f *fp) cases(cs []Case) {
	f.n(len(cs))
	for _, c := range cs {
		f.b(c.Send)
		f.u(c.Chan)
		f.i(c.Cap)
	}
}

func (f *fp) thread(th *thread) {
	f.b(th.hot)
	f.b(th.finished)
	f.b(th.hasPending)
	f.op(th.pending)
	f.b(th.detached)
	f.b(th.joined)
	f.b(th.inCond)
	f.u(th.condObj)
	f.u(th.condMutex)
	f.n(th.condCount)
	f.i(th.condType)
	f.b(th.inBarrier)
	f.u(th.barrierObj)
	f.b(th.barrierReleased)
	f.u(uint64(th.next))
	f.u(th.nextObj)
	f.cases(th.nextCases)
	f.u(uint64(th.parkedOp))
	f.b(th.woken)
	f.i(th.wakeCode)
	f.b(th.wakeClosed)
	f.b(th.inGoCond)
	f.u(th.goCondObj)
	f.b(th.spuriousUsed)
}

func (f *fp) sum() uint64 { return hashmix.Mix(f.h) }

func sortedKeys[V any](m map[uint64]*V) []uint64 {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}
