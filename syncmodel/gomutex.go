package syncmodel

import (
	"fmt"
	"maps"
	"slices"
)

// gomutex is a Go sync.Mutex. Go mutexes have no owner: any thread may
// unlock a locked one; holder only says who locked it, for explanations.
type gomutex struct {
	holder int // 0 when unlocked
}

func (w *World) goMutexEnabled(op Op) bool {
	m := w.gomutexes[op.Obj]
	return m == nil || m.holder == 0
}

func (w *World) goMutex(obj uint64) *gomutex {
	m := w.gomutexes[obj]
	if m == nil {
		m = &gomutex{}
		put(&w.gomutexes, obj, m)
	}
	return m
}

func (w *World) goMutexTryLock(tid int, op Op) int64 {
	m := w.goMutex(op.Obj)
	if m.holder != 0 {
		return 0
	}
	m.holder = tid
	return 1
}

func (w *World) goMutexUnlock(op Op) string {
	m := w.gomutexes[op.Obj]
	if m == nil || m.holder == 0 {
		return fmt.Sprintf("unlock of unlocked mutex %#x", op.Obj)
	}
	m.holder = 0
	return ""
}

func (w *World) goMutexWait(op Op) Wait {
	m := w.gomutexes[op.Obj]
	return Wait{Obj: op.Obj, What: "mutex", Holders: []int{m.holder}, Detail: "held by " + w.threadName(m.holder)}
}

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

// goRWFree reports whether no writer has announced itself on op.Obj.
func (w *World) goRWFree(op Op) bool {
	r := w.gorws[op.Obj]
	return r == nil || r.writer == 0
}

func (w *World) goRWDrained(op Op) bool {
	r := w.gorws[op.Obj]
	return r == nil || len(r.readers) == 0
}

func (w *World) goRWTryRLock(tid int, op Op) int64 {
	if !w.goRWFree(op) {
		return 0
	}
	w.goRW(op.Obj).readers[tid]++
	return 1
}

// goRWRUnlock releases a read lock: the caller's own if it holds one, else
// (Go read locks have no owner) the one of the reader with the lowest id.
func (w *World) goRWRUnlock(tid int, op Op) string {
	r := w.gorws[op.Obj]
	if r == nil || len(r.readers) == 0 {
		if r != nil && r.locked {
			return fmt.Sprintf("RUnlock of RWMutex %#x, which is write-locked by %s", op.Obj, w.threadName(r.writer))
		}
		return fmt.Sprintf("RUnlock of RWMutex %#x, which is not read-locked", op.Obj)
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

func (w *World) goRWLock(tid int, op Op) {
	r := w.goRW(op.Obj)
	r.writer, r.locked = tid, false
	th := &w.threads[tid-1]
	th.next, th.nextObj = GoRWLockDrain, op.Obj
}

func (w *World) goRWTryLock(tid int, op Op) int64 {
	if !w.goRWFree(op) || !w.goRWDrained(op) {
		return 0
	}
	r := w.goRW(op.Obj)
	r.writer, r.locked = tid, true
	return 1
}

func (w *World) goRWUnlock(op Op) string {
	r := w.gorws[op.Obj]
	switch {
	case r == nil || r.writer == 0:
		return fmt.Sprintf("Unlock of RWMutex %#x, which is not write-locked", op.Obj)
	case !r.locked:
		return fmt.Sprintf("Unlock of RWMutex %#x, which is not write-locked (%s is still waiting for its readers)",
			op.Obj, w.threadName(r.writer))
	}
	r.writer, r.locked = 0, false
	return ""
}

// goRWWait explains a blocked RLock, Lock or drain.
func (w *World) goRWWait(op Op) Wait {
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
