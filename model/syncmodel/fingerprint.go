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
// Every field of the model's records must be hashed: the generic ones here,
// each primitive's by its fingerprint method.
func (w *World) Fingerprint() uint64 {
	f := fp{h: 0xcbf29ce484222325}
	f.b(w.exited)
	f.i(w.status)
	f.n(len(w.threads))
	for i := range w.threads {
		f.thread(&w.threads[i])
	}
	for i, p := range families {
		f.n(i)
		f = p.fingerprint(w, f)
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

// keys hashes a set of objects in order.
func (f *fp) keys(m map[uint64]bool) {
	f.n(len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f.u(k)
	}
}

func (f *fp) op(o *Op) {
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

// thread hashes the generic part of a thread's record; its primitives'
// parts are theirs to hash.
func (f *fp) thread(th *thread) {
	f.b(th.finished)
	f.b(th.hasPending)
	f.op(&th.pending)
	f.b(th.detached)
	f.b(th.joined)
	f.u(uint64(th.next))
	f.u(th.nextObj)
	f.cases(th.nextCases)
	f.u(uint64(th.parkedOp))
	f.b(th.woken)
	f.i(th.wakeCode)
	f.b(th.wakeClosed)
	f.b(th.awaiting)
	f.n(len(th.reads))
	for _, r := range th.reads {
		f.u(r.Addr)
		f.i(r.Size)
	}
}

func (f *fp) sum() uint64 { return hashmix.Mix(f.h) }

func sortedKeys[V any](m map[uint64]*V) []uint64 {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}
