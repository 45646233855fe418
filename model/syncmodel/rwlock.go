package syncmodel

import (
	"fmt"
	"maps"
	"slices"
)

// rwlockState is the world's POSIX reader/writer locks, by address.
type rwlockState struct {
	rwlocks map[uint64]*rwlock
}

// rwlockPrim is the primitive of POSIX reader/writer locks.
type rwlockPrim struct{ basePrim }

func (*rwlockPrim) kinds() []kindSpec {
	return []kindSpec{{kind: RWInit}, {kind: RWRdlock}, {kind: RWWrlock}, {kind: RWTryRdlock}, {kind: RWTryWrlock},
		{kind: RWTimedRdlock}, {kind: RWTimedWrlock}, {kind: RWUnlock, stateEff: true, precedes: true}, {kind: RWDestroy}}
}

func (*rwlockPrim) enabled(w *World, tid int, op *Op) bool {
	switch op.Kind {
	case RWRdlock:
		return w.rdlockEnabled(tid, *op)
	case RWWrlock:
		return w.wrlockEnabled(tid, *op)
	}
	return true
}

func (*rwlockPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case RWInit:
		msg = w.rwInit(*op)
	case RWRdlock:
		msg = w.rdlock(tid, *op)
	case RWWrlock:
		msg = w.wrlock(tid, *op)
	case RWTryRdlock:
		code = w.tryRdlock(tid, *op, EBUSY)
	case RWTryWrlock:
		code = w.tryWrlock(tid, *op)
	case RWTimedRdlock:
		code, msg = w.timedRdlock(tid, *op)
	case RWTimedWrlock:
		code, msg = w.timedWrlock(tid, *op)
	case RWUnlock:
		msg = w.rwUnlock(tid, *op)
	case RWDestroy:
		msg = w.rwDestroy(*op)
	}
	return done(code, msg)
}

func (*rwlockPrim) waitFor(w *World, _ int, op *Op) Wait { return w.rwWait(op) }

// effect: an unlock by the writer releases the write lock (Eff.Writer).
func (*rwlockPrim) effect(w *World, tid int, op *Op) Effect {
	eff := Effect{Known: true}
	if op.Kind == RWUnlock {
		if r := w.rwlocks[op.Obj]; r != nil {
			eff.Writer = r.writer == tid
		}
	}
	return eff
}

// mustPrecede: an unlock (the lock is held), and a write lock that waits;
// an unlock that releases the write lock (Eff.Writer), and a read lock
// that waits (a read lock does not keep readers out).
func (*rwlockPrim) mustPrecede(_ int, a *Op, _ int, b *Op) bool {
	return a.Kind == RWUnlock && (b.Kind == RWWrlock || b.Kind == RWRdlock && a.Eff.Known && a.Eff.Writer) && b.Obj == a.Obj
}

func (*rwlockPrim) fingerprint(w *World, f fp) fp {
	for _, k := range sortedKeys(w.rwlocks) {
		if r := w.rwlocks[k]; r.writer != 0 || len(r.readers) > 0 {
			f.u(k)
			f.n(r.writer)
			f.counts(r.readers)
		}
	}
	return f
}

func (*rwlockPrim) clone(dst, src *World) {
	dst.rwlocks = cloneMap(src.rwlocks, func(r *rwlock) *rwlock {
		return &rwlock{writer: r.writer, readers: maps.Clone(r.readers)}
	})
}

func (*rwlockPrim) reset(w *World) { w.rwlockState = rwlockState{rwlocks: keepMap(w.rwlocks)} }

// rwlock is a reader/writer lock with POSIX default (reader-preferring)
// semantics: a reader gets the lock whenever no writer holds it, even if
// writers are waiting.
type rwlock struct {
	writer  int         // 0 when no writer holds the lock
	readers map[int]int // thread -> number of read holds; no zero entries
}

func (r *rwlock) held() bool { return r != nil && (r.writer != 0 || len(r.readers) > 0) }

// holders returns the writer, or the readers in ascending order.
func (r *rwlock) holders() []int {
	if r == nil {
		return nil
	}
	if r.writer != 0 {
		return []int{r.writer}
	}
	return slices.Sorted(maps.Keys(r.readers))
}

func (w *World) rwlock(obj uint64) *rwlock {
	r := w.rwlocks[obj]
	if r == nil {
		r = &rwlock{}
		put(&w.rwlocks, obj, r)
	}
	if r.readers == nil {
		r.readers = map[int]int{}
	}
	return r
}

// describeRW returns "write-locked by thread 2" or "read-locked by threads 2,
// 3" (with "(finished)" after finished threads).
func (w *World) describeRW(r *rwlock) string {
	if r.writer != 0 {
		return "write-locked by " + w.threadName(r.writer)
	}
	hs := r.holders()
	s := "read-locked by thread"
	if len(hs) > 1 {
		s += "s"
	}
	for i, h := range hs {
		if i > 0 {
			s += ","
		}
		s += " " + fmt.Sprint(h)
		if w.finished(h) {
			s += " (finished)"
		}
	}
	return s
}

func (w *World) rdlockEnabled(tid int, op Op) bool {
	r := w.rwlocks[op.Obj]
	return r == nil || r.writer == 0 || r.writer == tid
}

func (w *World) wrlockEnabled(tid int, op Op) bool {
	r := w.rwlocks[op.Obj]
	return !r.held() || r.writer == tid || r.readers[tid] > 0
}

// rdlock performs a read lock that rdlockEnabled allowed.
func (w *World) rdlock(tid int, op Op) string {
	r := w.rwlock(op.Obj)
	if r.writer == tid {
		return fmt.Sprintf("read lock of rwlock %#x while holding the write lock (self-deadlock)", op.Obj)
	}
	r.readers[tid]++
	return ""
}

// wrlock performs a write lock that wrlockEnabled allowed.
func (w *World) wrlock(tid int, op Op) string {
	r := w.rwlock(op.Obj)
	switch {
	case r.writer == tid:
		return fmt.Sprintf("relock of rwlock %#x while holding the write lock (self-deadlock)", op.Obj)
	case r.readers[tid] > 0:
		return fmt.Sprintf("write lock of rwlock %#x while holding a read lock (self-deadlock)", op.Obj)
	}
	r.writer = tid
	return ""
}

// tryRdlock takes a read hold if no writer holds the lock, else returns
// fail (a thread holding the write lock gets fail too).
func (w *World) tryRdlock(tid int, op Op, fail int64) int64 {
	r := w.rwlock(op.Obj)
	if r.writer != 0 {
		return fail
	}
	r.readers[tid]++
	return OK
}

func (w *World) tryWrlock(tid int, op Op) int64 {
	r := w.rwlock(op.Obj)
	if r.held() {
		return EBUSY
	}
	r.writer = tid
	return OK
}

func (w *World) timedRdlock(tid int, op Op) (int64, string) {
	if w.rdlockEnabled(tid, op) {
		return OK, w.rdlock(tid, op)
	}
	return ETIMEDOUT, ""
}

func (w *World) timedWrlock(tid int, op Op) (int64, string) {
	if w.wrlockEnabled(tid, op) {
		return OK, w.wrlock(tid, op)
	}
	return ETIMEDOUT, ""
}

func (w *World) rwUnlock(tid int, op Op) string {
	r := w.rwlocks[op.Obj]
	switch {
	case !r.held():
		return fmt.Sprintf("unlock of unlocked rwlock %#x", op.Obj)
	case r.writer == tid:
		r.writer = 0
	case r.readers[tid] > 0:
		r.readers[tid]--
		if r.readers[tid] == 0 {
			delete(r.readers, tid)
		}
	default:
		return fmt.Sprintf("unlock of rwlock %#x %s", op.Obj, w.describeRW(r))
	}
	return ""
}

func (w *World) rwInit(op Op) string {
	if r := w.rwlocks[op.Obj]; r.held() {
		return fmt.Sprintf("init of rwlock %#x while %s", op.Obj, w.describeRW(r))
	}
	put(&w.rwlocks, op.Obj, &rwlock{readers: map[int]int{}})
	return ""
}

func (w *World) rwDestroy(op Op) string {
	if r := w.rwlocks[op.Obj]; r.held() {
		return fmt.Sprintf("destroy of rwlock %#x while %s", op.Obj, w.describeRW(r))
	}
	delete(w.rwlocks, op.Obj)
	return ""
}

func (w *World) rwWait(op *Op) Wait {
	r := w.rwlocks[op.Obj]
	wt := Wait{Obj: op.Obj, What: "rwlock"}
	if r.held() {
		wt.Holders = r.holders()
		wt.Detail = w.describeRW(r)
	}
	return wt
}
