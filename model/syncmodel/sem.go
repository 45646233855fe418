package syncmodel

import "fmt"

// semState is the world's semaphores, by address.
type semState struct {
	sems map[uint64]*sem
}

// semPrim is the primitive of POSIX counting semaphores. A wait waits
// until the value is positive; using a destroyed semaphore is a misuse.
type semPrim struct{ basePrim }

func (*semPrim) kinds() []kindSpec {
	return []kindSpec{{kind: SemInit}, {kind: SemWait, mayWait: true}, {kind: SemTrywait},
		{kind: SemTimedwait, mayWait: true}, {kind: SemPost}, {kind: SemGetvalue}, {kind: SemDestroy}}
}

func (*semPrim) enabled(w *World, _ int, op *Op) bool {
	return op.Kind != SemWait || w.semWaitEnabled(op)
}

func (*semPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case SemInit:
		msg = w.semInit(*op)
	case SemWait:
		if msg = w.semUse(*op); msg == "" {
			w.sem(op.Obj).value--
		}
	case SemTrywait:
		if msg = w.semUse(*op); msg == "" {
			code = w.semTry(*op, EAGAIN)
		}
	case SemTimedwait:
		if msg = w.semUse(*op); msg == "" {
			code = w.semTry(*op, ETIMEDOUT)
		}
	case SemPost:
		if msg = w.semUse(*op); msg == "" {
			w.sem(op.Obj).value++
		}
	case SemGetvalue:
		if msg = w.semUse(*op); msg == "" {
			if s := w.sems[op.Obj]; s != nil {
				code = s.value
			}
		}
	case SemDestroy:
		msg = w.semDestroy(tid, *op)
	}
	return done(code, msg)
}

func (*semPrim) waitFor(_ *World, _ int, op *Op) Wait {
	// A SemWait.
	return Wait{Obj: op.Obj, What: "semaphore", Detail: "value 0"}
}

// dependent: on a common semaphore, but two SemGetvalue, which only read.
func (*semPrim) dependent(_ int, a *Op, _ int, b *Op, _ bool) bool {
	return !(a.Kind == SemGetvalue && b.Kind == SemGetvalue) && sharesObject(a, b)
}

func (*semPrim) fingerprint(w *World, f fp) fp {
	for _, k := range sortedKeys(w.sems) {
		if s := w.sems[k]; s.value != 0 || s.destroyed {
			f.u(k)
			f.i(s.value)
			f.b(s.destroyed)
		}
	}
	return f
}

func (*semPrim) clone(dst, src *World) { dst.sems = cloneMap(src.sems, copyOf[sem]) }

func (*semPrim) reset(w *World) { w.semState = semState{sems: keepMap(w.sems)} }

// sem is a counting semaphore. A destroyed one stays known, so that a
// later use is a misuse rather than a wait that never ends.
type sem struct {
	value     int64
	destroyed bool
}

// sem returns semaphore obj, creating it with value 0 on first use.
func (w *World) sem(obj uint64) *sem {
	s := w.sems[obj]
	if s == nil {
		s = &sem{}
		put(&w.sems, obj, s)
	}
	return s
}

// semWaitEnabled: a wait can go on when the value is positive, or when
// the semaphore was destroyed (the wait is then a misuse, which must run
// to be reported).
func (w *World) semWaitEnabled(op *Op) bool {
	s := w.sems[op.Obj]
	return s != nil && (s.value > 0 || s.destroyed)
}

// semUse reports the misuse of using a destroyed semaphore, "" if it is
// not one.
func (w *World) semUse(op Op) string {
	if s := w.sems[op.Obj]; s != nil && s.destroyed {
		name := op.API.String()
		if op.API == APINone {
			name = op.Kind.String()
		}
		return fmt.Sprintf("%s on semaphore %#x after it was destroyed", name, op.Obj)
	}
	return ""
}

func (w *World) semInit(op Op) string {
	if op.Arg < 0 {
		return fmt.Sprintf("semaphore %#x initialised with negative value %d", op.Obj, op.Arg)
	}
	put(&w.sems, op.Obj, &sem{value: op.Arg})
	return ""
}

// semTry decrements the semaphore if it is positive and returns OK, or
// returns fail.
func (w *World) semTry(op Op, fail int64) int64 {
	s := w.sem(op.Obj)
	if s.value <= 0 {
		return fail
	}
	s.value--
	return OK
}

func (w *World) semDestroy(tid int, op Op) string {
	if msg := w.semUse(op); msg != "" {
		return fmt.Sprintf("destroy of semaphore %#x, already destroyed", op.Obj)
	}
	var waiters []int
	for i := range w.threads {
		th := &w.threads[i]
		if i+1 != tid && !th.finished && th.hasPending && th.pending.Kind == SemWait && th.pending.Obj == op.Obj {
			waiters = append(waiters, i+1)
		}
	}
	if len(waiters) > 0 {
		return fmt.Sprintf("destroy of semaphore %#x while %s on it", op.Obj, threadsVerb(waiters, "waits", "wait"))
	}
	w.sem(op.Obj).destroyed = true
	return ""
}
