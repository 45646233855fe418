package syncmodel

import (
	"fmt"
	"slices"
)

// barrierState is the world's barriers, by address.
type barrierState struct {
	barriers map[uint64]*barrier
}

// barrierThread is what barriers keep of a thread in a barrier wait
// (between BarrierWait and BarrierLeave, which it owes: thread.next, with
// the barrier in thread.nextObj).
type barrierThread struct {
	// barrierReleased: the last thread arrived; BarrierLeave is enabled.
	barrierReleased bool
}

// barrierPrim is the primitive of POSIX barriers. A wait is two events:
// BarrierWait arrives (the last thread to arrive is released at once),
// BarrierLeave waits for the last one.
type barrierPrim struct{ basePrim }

func (*barrierPrim) kinds() []kindSpec {
	return []kindSpec{{kind: BarrierInit}, {kind: BarrierWait, mayWait: true}, {kind: BarrierLeave, mayWait: true},
		{kind: BarrierDestroy}}
}

func (*barrierPrim) check(_ *World, tid int, _ *thread, op Op) error {
	if op.Kind == BarrierLeave {
		return fmt.Errorf("syncmodel: thread %d: %s without a barrier wait", tid, op)
	}
	return nil
}

// checkNext: a thread in a barrier wait must report its BarrierLeave, on
// the same barrier.
func (*barrierPrim) checkNext(_ *World, tid int, th *thread, op Op) error {
	if op.Kind != BarrierLeave || op.Obj != th.nextObj {
		return fmt.Errorf("syncmodel: thread %d is waiting on barrier %#x; got %s", tid, th.nextObj, op)
	}
	return nil
}

func (*barrierPrim) enabled(w *World, tid int, op *Op) bool {
	return op.Kind != BarrierLeave || w.threads[tid-1].barrierReleased
}

func (*barrierPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case BarrierInit:
		msg = w.barrierInit(*op)
	case BarrierWait:
		code, msg = w.barrierWait(tid, *op)
	case BarrierLeave:
		th := &w.threads[tid-1]
		th.next, th.nextObj, th.barrierReleased = 0, 0, false
	case BarrierDestroy:
		msg = w.barrierDestroy(*op)
	}
	return done(code, msg)
}

func (*barrierPrim) waitFor(w *World, _ int, op *Op) Wait {
	// A BarrierLeave.
	wt := Wait{Obj: op.Obj, What: "barrier"}
	if b := w.barriers[op.Obj]; b != nil {
		wt.Detail = fmt.Sprintf("%d of %d arrived", len(b.waiting), b.count)
	}
	return wt
}

func (*barrierPrim) fingerprint(w *World, f fp) fp {
	for i := range w.threads {
		f.b(w.threads[i].barrierReleased)
	}
	for _, k := range sortedKeys(w.barriers) {
		b := w.barriers[k]
		f.u(k)
		f.i(b.count)
		f.ints(b.waiting)
	}
	return f
}

func (*barrierPrim) clone(dst, src *World) {
	dst.barriers = cloneMap(src.barriers, func(b *barrier) *barrier {
		return &barrier{count: b.count, waiting: slices.Clone(b.waiting)}
	})
}

func (*barrierPrim) reset(w *World) { w.barrierState = barrierState{barriers: keepMap(w.barriers)} }

// barrier is a barrier of the current generation: count threads must arrive
// before all are released.
type barrier struct {
	count   int64
	waiting []int // threads that arrived in the current generation, ascending
}

func (w *World) barrierInit(op Op) string {
	if op.Arg <= 0 {
		return fmt.Sprintf("barrier %#x initialised with count %d", op.Obj, op.Arg)
	}
	if b := w.barriers[op.Obj]; b != nil && len(b.waiting) > 0 {
		return fmt.Sprintf("init of barrier %#x while %s on it", op.Obj, threadsVerb(b.waiting, "waits", "wait"))
	}
	put(&w.barriers, op.Obj, &barrier{count: op.Arg})
	return ""
}

// barrierWait makes tid arrive. The last thread to arrive completes the
// generation: it gets BarrierSerial and releases the others, whose
// BarrierLeave becomes enabled.
func (w *World) barrierWait(tid int, op Op) (int64, string) {
	b := w.barriers[op.Obj]
	if b == nil {
		return 0, fmt.Sprintf("wait on uninitialised barrier %#x", op.Obj)
	}
	if int64(len(b.waiting))+1 >= b.count {
		for _, t := range b.waiting {
			w.threads[t-1].barrierReleased = true
		}
		b.waiting = b.waiting[:0]
		return BarrierSerial, ""
	}
	th := &w.threads[tid-1]
	th.next, th.nextObj, th.barrierReleased = BarrierLeave, op.Obj, false
	i, _ := slices.BinarySearch(b.waiting, tid)
	b.waiting = slices.Insert(b.waiting, i, tid)
	return OK, ""
}

func (w *World) barrierDestroy(op Op) string {
	if b := w.barriers[op.Obj]; b != nil && len(b.waiting) > 0 {
		return fmt.Sprintf("destroy of barrier %#x while %s on it", op.Obj, threadsVerb(b.waiting, "waits", "wait"))
	}
	delete(w.barriers, op.Obj)
	return ""
}
