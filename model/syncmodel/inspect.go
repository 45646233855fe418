package syncmodel

// What a search reads of the world at every step, without copying an
// operation more than it must, and the reset of a world for the next
// execution.

// Reset puts w back in the state NewWorld returns, keeping the room it
// has grown (its thread list and object maps), so that a search that runs
// one execution after another allocates less.
func (w *World) Reset() {
	clear(w.threads)
	w.threads, w.exited, w.status = w.threads[:1], false, 0
	for _, p := range families {
		p.reset(w)
	}
}

// PendingTo writes the pending operation of thread tid to *op, as Pending
// returns it, and reports whether it has one (*op is left alone if not):
// a caller that keeps the operation somewhere of its own copies it once.
func (w *World) PendingTo(tid int, op *Op) bool {
	th := w.thread(tid)
	if th == nil || !th.hasPending {
		return false
	}
	*op = th.pending
	return true
}

// Status is Inspect without the operation: whether thread tid is live,
// Enabled, and its Choices.
func (w *World) Status(tid int) (live, enabled bool, choices int) {
	th := w.thread(tid)
	if th == nil || th.finished {
		return false, false, 0
	}
	if !th.hasPending || w.exited {
		return true, false, 0
	}
	en, ch := w.statusTh(tid, th)
	return true, en, ch
}

// StateAnnotated reports whether the annotation of a pending operation of
// kind k (Annotated, Inspect) depends on the state of the world, and so can
// change while the operation stays pending; for other kinds it is fixed
// once the operation is reported.
func StateAnnotated(k Kind) bool { return infoOf(k).stateEff }

// Inspect tells, in one look at thread tid, what a search needs of it at
// a scheduling point: whether it is live (created, not finished), its
// pending operation annotated as Annotated returns it (written to *op,
// the zero Op if it has none), whether it is Enabled, and its Choices.
func (w *World) Inspect(tid int, op *Op) (live, enabled bool, choices int) {
	th := w.thread(tid)
	if th == nil || th.finished {
		return false, false, 0
	}
	if !th.hasPending {
		*op = Op{}
		return true, false, 0
	}
	*op = th.pending
	w.annotate(tid, &th.pending, op)
	if w.exited {
		return true, false, 0
	}
	en, ch := w.statusTh(tid, th)
	return true, en, ch
}

// statusTh is Enabled and Choices for the live thread th (thread tid), which
// has a pending operation, in a world that has not exited: the kind's
// entry looked up once, its primitive asked for choices only when the
// kind offers some.
func (w *World) statusTh(tid int, th *thread) (enabled bool, choices int) {
	in := &kindTable[th.pending.Kind]
	enabled = !th.awaiting && in.prim.enabled(w, tid, &th.pending)
	if in.chooses {
		choices = in.prim.choices(w, tid, th)
	}
	return enabled, choices
}
