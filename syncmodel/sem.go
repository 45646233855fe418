package syncmodel

import "fmt"

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
func (w *World) semWaitEnabled(op Op) bool {
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
