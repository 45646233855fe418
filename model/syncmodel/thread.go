package syncmodel

import "fmt"

// threadPrim is the primitive of threads and of the process: creating,
// starting, joining, detaching and ending threads, and the process's exit.
// Its state is the world's list of threads.
type threadPrim struct {
	basePrim
	noState
}

func (*threadPrim) kinds() []kindSpec {
	return []kindSpec{
		{kind: ThreadCreate, class: classThread},
		{kind: ThreadJoin, class: classThread, mayWait: true},
		{kind: ThreadDetach, class: classThread},
		{kind: ThreadExit, class: classThread, precedes: true},
		{kind: ThreadStart, class: classStart},
		{kind: Exit, class: classExit, mayWait: true},
	}
}

func (*threadPrim) enabled(w *World, tid int, op *Op) bool {
	return op.Kind != ThreadJoin || w.joinEnabled(tid, op)
}

func (*threadPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	var msg string
	switch op.Kind {
	case ThreadCreate:
		id := w.create(op.Arg == 1)
		w.inheritBubble(tid, id)
		return Result{Code: int64(id), NewThread: id}, "", nil
	case ThreadExit:
		w.threads[tid-1].finished = true
	case ThreadJoin:
		msg = w.join(tid, op)
	case ThreadDetach:
		msg = w.detach(op)
	case Exit:
		w.exited = true
		w.status = op.Arg
		w.threads[tid-1].finished = true
	}
	return done(0, msg)
}

func (*threadPrim) waitFor(_ *World, _ int, op *Op) Wait {
	// Only a join waits.
	return Wait{What: "thread", Join: int(op.Arg), Detail: fmt.Sprintf("thread %d has not exited", op.Arg)}
}

// dependent decides two thread operations (class classThread): a join or
// a detach of thread t depends on t's exit and on every other join or
// detach of t; two creations are dependent (the world numbers threads in
// creation order); a creation is independent of the rest, and two exits
// are independent.
func (*threadPrim) dependent(ta int, a *Op, tb int, b *Op, _ bool) bool {
	switch {
	case a.Kind == ThreadCreate && b.Kind == ThreadCreate:
		return true
	case a.Kind == ThreadCreate || b.Kind == ThreadCreate:
		return false
	case a.Kind == ThreadExit && b.Kind == ThreadExit:
		return false
	case a.Kind == ThreadExit:
		return b.Arg == int64(ta)
	case b.Kind == ThreadExit:
		return a.Arg == int64(tb)
	}
	// Both are joins or detaches.
	return a.Arg == b.Arg
}

// mustPrecede: a thread's exit, and a join of that thread.
func (*threadPrim) mustPrecede(ta int, a *Op, _ int, b *Op) bool {
	return a.Kind == ThreadExit && b.Kind == ThreadJoin && b.Arg == int64(ta)
}

// create adds a new live thread with no pending operation and returns its id.
func (w *World) create(detached bool) int {
	w.threads = append(w.threads, thread{detached: detached})
	w.threads[len(w.threads)-1].since = w.now // it can run from now on
	return len(w.threads)
}

// joinMisuse returns why a join of op.Arg by tid is a misuse, or "".
func (w *World) joinMisuse(tid int, op *Op) string {
	target := op.Arg
	if target < 1 || target > int64(len(w.threads)) {
		return fmt.Sprintf("join of unknown thread %d", target)
	}
	t := int(target)
	th := &w.threads[t-1]
	switch {
	case t == tid:
		return fmt.Sprintf("thread %d joins itself (self-deadlock)", tid)
	case th.detached:
		return fmt.Sprintf("join of detached thread %d", t)
	case th.joined:
		return fmt.Sprintf("join of thread %d, which was already joined", t)
	}
	if th.finished {
		// The first join of a finished thread succeeds; another thread
		// joining it too is then told it was already joined.
		return ""
	}
	for i := range w.threads {
		o := &w.threads[i]
		if o.pending.Kind == ThreadJoin && o.pending.Arg == target && o.hasPending && !o.finished && i+1 != tid {
			return fmt.Sprintf("join of thread %d, which thread %d is already joining", t, i+1)
		}
	}
	return ""
}

func (w *World) joinEnabled(tid int, op *Op) bool {
	return w.finished(int(op.Arg)) || w.joinMisuse(tid, op) != ""
}

func (w *World) join(tid int, op *Op) string {
	if msg := w.joinMisuse(tid, op); msg != "" {
		return msg
	}
	w.threads[op.Arg-1].joined = true
	return ""
}

func (w *World) detach(op *Op) string {
	target := op.Arg
	if target < 1 || target > int64(len(w.threads)) {
		return fmt.Sprintf("detach of unknown thread %d", target)
	}
	th := &w.threads[target-1]
	switch {
	case th.detached:
		return fmt.Sprintf("detach of thread %d, which is already detached", target)
	case th.joined:
		return fmt.Sprintf("detach of thread %d, which was already joined", target)
	}
	th.detached = true
	return ""
}
