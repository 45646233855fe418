package syncmodel

import "fmt"

// Awaits: the model's side of spin and polling loops (docs/spin.md).
//
// An iteration of a loop that changed nothing (it read memory, failed a
// trylock or a compare-and-swap, took a select's default case, yielded)
// and came back to the state it started from can be left out of any
// execution without losing a behaviour: from the same state, reading the
// same values, the thread does the same again. So once a runtime shows
// that a thread did such an iteration (the executor decides it, from what
// the thread read and wrote since it was last in that state), the thread
// waits, as a blocked one does, until another thread writes something the
// iteration read: World.Await disables it, World.Ran and World.Wrote
// enable it again. The wait is part of the state (Fingerprint), and the
// dependency relation makes what ends it dependent on it (Effect.Await).

// A Span is something an iteration read: the bytes [Addr, Addr+Size) of
// memory when Size is positive, or the synchronization object Addr when
// Size is 0 (a mutex a trylock found held, a channel a select found with
// nothing to offer).
type Span struct {
	Addr uint64
	Size int64
}

// Mem reports whether s is memory (not an object).
func (s Span) Mem() bool { return s.Size > 0 }

func (s Span) String() string {
	if s.Mem() {
		return fmt.Sprintf("%#x+%d", s.Addr, s.Size)
	}
	return fmt.Sprintf("%#x", s.Addr)
}

// last returns the last byte of memory span s.
func (s Span) last() uint64 {
	if l := s.Addr + uint64(s.Size-1); l >= s.Addr {
		return l
	}
	return ^uint64(0)
}

// Overlaps reports whether a write to s changes what a read of r read:
// two memory spans that share a byte, two objects that are one, or a
// memory span that holds an object's address (the model does not know
// the sizes of objects, so it errs towards overlapping).
func (s Span) Overlaps(r Span) bool {
	switch {
	case s.Mem() && r.Mem():
		return s.Addr <= r.last() && r.Addr <= s.last()
	case s.Mem():
		return r.Addr >= s.Addr && r.Addr <= s.last()
	case r.Mem():
		return s.Addr >= r.Addr && s.Addr <= r.last()
	}
	return s.Addr == r.Addr
}

// awaitThread is what awaits keep of a thread.
type awaitThread struct {
	// awaiting: the thread waits until another thread writes one of
	// reads (Await). reads is never changed in place: a copy of a world
	// may share it.
	awaiting bool
	reads    []Span
}

// Await makes thread tid, which has a pending operation, wait until
// another thread writes one of reads (none: for ever): it is no longer
// enabled, and its pending operation is annotated with reads (Effect.Await)
// for the dependency relation. Ran and Wrote end the wait; so does a new
// report of the thread's pending operation (SetPending).
func (w *World) Await(tid int, reads []Span) error {
	th := w.thread(tid)
	switch {
	case th == nil:
		return fmt.Errorf("syncmodel: no thread %d", tid)
	case th.finished || !th.hasPending:
		return fmt.Errorf("syncmodel: thread %d has no pending operation to await at", tid)
	case w.exited:
		return fmt.Errorf("syncmodel: thread %d: the process has exited", tid)
	}
	th.awaiting = true
	th.reads = append([]Span(nil), reads...)
	return nil
}

// Awaits reports whether thread tid waits (Await), and for a write to
// what.
func (w *World) Awaits(tid int) (reads []Span, ok bool) {
	th := w.thread(tid)
	if th == nil || th.finished || !th.awaiting {
		return nil, false
	}
	return th.reads, true
}

// Spinning returns the live threads that wait (Await), ascending.
func (w *World) Spinning() []int {
	var ids []int
	for i := range w.threads {
		if th := &w.threads[i]; !th.finished && th.awaiting {
			ids = append(ids, i+1)
		}
	}
	return ids
}

// Wrote records that thread tid wrote s, outside any operation the model
// ran (a plain store, or the write of an operation the runtime reports
// after running it): every other thread waiting for a write to a span
// that s overlaps is enabled again. It returns the number of threads it
// enabled.
func (w *World) Wrote(tid int, s Span) int {
	n := 0
	for i := range w.threads {
		th := &w.threads[i]
		if i+1 == tid || !th.awaiting || th.finished {
			continue
		}
		for _, r := range th.reads {
			if s.Overlaps(r) {
				th.awaiting, th.reads = false, nil
				n++
				break
			}
		}
	}
	return n
}

// Ran tells the world what thread tid's last operation op, which returned
// res, did once the thread ran on to its next scheduling point (unchanged:
// the runtime saw that the operation, a memory write in the model, left
// memory as it was: a compare-and-swap that failed). If the operation
// changed nothing of the state (Poll), Ran returns what it read and
// polled; else it enables again the threads waiting for a write to what
// it touched (Touched), and returns the number it enabled.
func (w *World) Ran(tid int, op Op, res Result, unchanged bool) (reads []Span, polled bool, woken int) {
	if reads, ok := Poll(op, res, unchanged); ok {
		return reads, true, 0
	}
	var buf [4]Span
	for _, s := range AppendTouched(buf[:0], &op) {
		woken += w.Wrote(tid, s)
	}
	return nil, false, woken
}

// Poll reports whether an executed operation op, which returned res,
// changed nothing of the program's state, and what it read: an atomic or
// annotated read of memory (and a write the runtime saw leave memory
// unchanged, unchanged), a trylock, trywait or timed wait that failed,
// a select that took its default case, a semaphore's value or a channel's
// length, a yield or a C sleep (which read nothing). Every other
// operation may have changed something, or time.
func Poll(op Op, res Result, unchanged bool) (reads []Span, ok bool) {
	return AppendPolled(nil, &op, res, unchanged)
}

// AppendPolled is Poll appending what *op read to dst: a caller that
// passes room it owns allocates nothing (but for a select's cases beyond
// that room).
func AppendPolled(dst []Span, op *Op, res Result, unchanged bool) (reads []Span, ok bool) {
	switch op.Kind {
	case Read:
		return append(dst, memSpan(op)), true
	case Write:
		if unchanged {
			return append(dst, memSpan(op)), true
		}
	case Yield, Sleep:
		return dst, true
	case MutexTrylock, SpinTrylock, RWTryRdlock, RWTryWrlock:
		if res.Code == EBUSY {
			return append(dst, Span{Addr: op.Obj}), true
		}
	case SemTrywait:
		if res.Code == EAGAIN {
			return append(dst, Span{Addr: op.Obj}), true
		}
	case MutexTimedlock, SemTimedwait, RWTimedRdlock, RWTimedWrlock:
		if res.Code == ETIMEDOUT {
			return append(dst, Span{Addr: op.Obj}), true
		}
	case GoMutexTryLock, GoRWTryRLock, GoRWTryLock:
		if res.Code == 0 {
			return append(dst, Span{Addr: op.Obj}), true
		}
	case SemGetvalue, ChanLen:
		return append(dst, Span{Addr: op.Obj}), true
	case Select:
		if DecodeChanResult(res.Code).Via == ViaDefault {
			for _, c := range op.Cases {
				dst = append(dst, Span{Addr: c.Chan})
			}
			return dst, true
		}
	}
	return dst, false
}

// Touched returns what an operation may write: the bytes of a memory
// write, the objects (and linked channels, Effect.Links) of a
// synchronization operation. Reads, yields, choices and thread operations
// touch nothing another thread's iteration can have read.
func Touched(op Op) []Span { return AppendTouched(nil, &op) }

// AppendTouched appends to dst what *op may write (Touched) and returns
// the extended slice: a caller that passes room it owns (an array on its
// stack, a buffer kept from one step to the next) allocates nothing.
func AppendTouched(dst []Span, op *Op) []Span {
	switch infoOf(op.Kind).class {
	case classMem:
		if op.Kind == Write {
			dst = append(dst, memSpan(op))
		}
	case classSync:
		for i, n := 0, numObjects(op); i < n; i++ {
			dst = append(dst, Span{Addr: objectAt(op, i)})
		}
		for _, c := range op.Eff.Links {
			dst = append(dst, Span{Addr: c})
		}
	}
	return dst
}

func memSpan(op *Op) Span { return Span{Addr: op.Obj, Size: max(op.Arg, 1)} }

// mayEnd reports whether operation op (executed or pending) may write
// one of reads, which a thread waits for (Effect.Await): a memory write
// over one of them, a synchronization operation on one of them. It errs
// towards yes: a trylock may succeed, a compare-and-swap may swap.
func mayEnd(op *Op, reads []Span) bool {
	switch infoOf(op.Kind).class {
	case classMem:
		if op.Kind != Write {
			return false
		}
		s := memSpan(op)
		for _, r := range reads {
			if s.Overlaps(r) {
				return true
			}
		}
	case classSync:
		return touches(op, func(x uint64) bool {
			s := Span{Addr: x}
			for _, r := range reads {
				if s.Overlaps(r) {
					return true
				}
			}
			return false
		})
	}
	return false
}

// awaitDependent is the part of the dependency relation that awaits add
// (see Dependent): an operation that may end a thread's wait depends on
// the thread's pending operation, which it enables.
func awaitDependent(a, b *Op) bool {
	return a.Eff.Await != nil && mayEnd(b, a.Eff.Await) || b.Eff.Await != nil && mayEnd(a, b.Eff.Await)
}

// awaitWait is WaitFor for a thread that waits (Await).
func awaitWait(reads []Span) Wait {
	w := Wait{What: "spin", Reads: reads}
	if len(reads) == 0 {
		w.Detail = "its loop reads nothing another thread writes"
	}
	return w
}
