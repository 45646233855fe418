package syncmodel

import (
	"fmt"
	"hash"
	"hash/fnv"
	"slices"
)

// Fingerprint returns a 64-bit hash of the world's state: every thread's
// status and pending operation, and the state of every synchronization
// object. Two worlds that behave the same from now on (same threads in the
// same places, same owners, counts, waiters, buffers) have the same
// fingerprint, whatever the history that led to them; an object in its
// initial state (an unlocked mutex, a semaphore that was never posted, ...)
// counts as absent, since the model creates objects on first use. Object
// identities (addresses for C targets) are part of the hash.
//
// It is meant for stateful search (package search): the fingerprint is one
// part of a program state's identity, next to the program's own memory.
func (w *World) Fingerprint() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "x%v,%d;", w.exited, w.status)
	for i := range w.threads {
		fmt.Fprintf(h, "t%d%+v;", i+1, w.threads[i])
	}
	hashObjects(h, "m", w.mutexes)
	hashObjects(h, "s", w.spins)
	hashObjects(h, "c", w.conds)
	hashObjects(h, "e", w.sems)
	hashObjects(h, "r", w.rwlocks)
	hashObjects(h, "b", w.barriers)
	hashObjects(h, "o", w.onces)
	hashObjects(h, "gm", w.gomutexes)
	hashObjects(h, "gr", w.gorws)
	hashObjects(h, "gw", w.wgs)
	hashObjects(h, "gc", w.chans)
	return h.Sum64()
}

// hashObjects writes the objects of m that are not in their initial state
// to h, in increasing order of identity.
func hashObjects[V any](h hash.Hash64, tag string, m map[uint64]*V) {
	if len(m) == 0 {
		return
	}
	var zero V
	idle := fmt.Sprintf("%+v", zero)
	_, custom := any(&zero).(idler)
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if custom {
			if any(m[k]).(idler).idle() {
				continue
			}
		}
		s := fmt.Sprintf("%+v", *m[k])
		if !custom && s == idle {
			continue
		}
		fmt.Fprintf(h, "%s%#x%s;", tag, k, s)
	}
}

// idler is implemented by objects whose initial state is not their zero
// value.
type idler interface{ idle() bool }

// idle: an unlocked mutex is as good as one never used (its type, set at
// initialisation, is kept: a recursive mutex differs from a normal one).
func (m *mutex) idle() bool { return m.owner == 0 && m.count == 0 && m.typ == MutexNormal }

// idle: a condition variable nobody waits on is as good as a new one.
func (c *cond) idle() bool { return len(c.waiters) == 0 }
