package syncmodel

import "fmt"

// create adds a new live thread with no pending operation and returns its id.
func (w *World) create(detached bool) int {
	w.threads = append(w.threads, thread{detached: detached})
	return len(w.threads)
}

// joinMisuse returns why a join of op.Arg by tid is a misuse, or "".
func (w *World) joinMisuse(tid int, op Op) string {
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
		if i+1 != tid && !o.finished && o.hasPending && o.pending.Kind == ThreadJoin && o.pending.Arg == target {
			return fmt.Sprintf("join of thread %d, which thread %d is already joining", t, i+1)
		}
	}
	return ""
}

func (w *World) joinEnabled(tid int, op Op) bool {
	return w.finished(int(op.Arg)) || w.joinMisuse(tid, op) != ""
}

func (w *World) join(tid int, op Op) string {
	if msg := w.joinMisuse(tid, op); msg != "" {
		return msg
	}
	w.threads[op.Arg-1].joined = true
	return ""
}

func (w *World) detach(op Op) string {
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
