package syncmodel

import (
	"fmt"
	"slices"
)

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
	th.inBarrier, th.barrierObj, th.barrierReleased = true, op.Obj, false
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
