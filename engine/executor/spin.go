package executor

import (
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// Spin loops (docs/spin.md). A thread that came back to a state it was in
// before, having changed nothing on the way (it only read, failed a
// trylock or a compare-and-swap, took a select's default, yielded), does
// the same again from there as long as nobody writes what it read: the
// iteration can be left out of any execution. So the executor makes such
// a thread wait (syncmodel.World.Await) until another thread writes
// something it read, as it would make a blocked thread wait for an unlock.
//
// What the executor keeps of each thread is its stretch: what it did since
// it last changed something, as a list of marks (its scheduling points
// whose state the runtime fingerprinted, wire.Spin.State) and a list of
// reads (what its operations and plain accesses read), each remembering
// whether another thread has written it since. At a point whose state is
// that of an earlier mark, the reads since that mark are the iteration's:
// if none was written since it was read, every value the thread read is
// still there, and the thread waits for a write to one of them.
//
// The runtime vouches for the state and for what the executor cannot see
// (wire.Spin.Clean: no write or read of memory it did not report, no call
// into code it cannot see into); a transition that is not clean, an
// operation that may have changed something, or a plain write, starts the
// stretch again.

// Bounds of a stretch: an iteration with more points or reads than these
// is not collapsed (the stretch starts again, and so loses nothing).
const (
	spinMarks = 32
	spinReads = 64
)

// spinMark is a scheduling point of a stretch with a fingerprinted state.
type spinMark struct {
	state uint64
	reads int // the stretch's reads before the point
}

// spinRead is one read of a stretch.
type spinRead struct {
	span syncmodel.Span
	// dirty: another thread wrote it since it was read.
	dirty bool
}

// stretch is what a thread did since it last changed something.
type stretch struct {
	marks []spinMark
	reads []spinRead
	// plain and wrote are the plain accesses of the transition under
	// way (wire.Accesses come before the thread's next report): what it
	// read, and whether it wrote.
	plain []syncmodel.Span
	wrote bool
}

// resetStretch starts st again, empty.
func (e *Execution) resetStretch(st *stretch) {
	e.spinReads -= len(st.reads)
	st.marks, st.reads = st.marks[:0], st.reads[:0]
}

// spinRan is the operation a thread ran in the step under way, until its
// next report says what it did: the step of the trace that ran it (an
// operation is too big to copy at every step).
type spinRan struct {
	tid   int
	step  int
	valid bool
}

// stretchOf returns thread tid's stretch.
func (e *Execution) stretchOf(tid int) *stretch {
	for tid >= len(e.spins) {
		e.spins = append(e.spins, stretch{})
	}
	return &e.spins[tid]
}

// spinAccesses takes what a thread's plain accesses tell of spinning:
// its writes end other threads' waits and dirty what they read, its reads
// join the transition's.
func (e *Execution) spinAccesses(a *wire.Accesses) {
	st := e.stretchOf(a.Tid)
	for i := range a.List {
		x := &a.List[i]
		s := syncmodel.Span{Addr: x.Addr, Size: int64(max(x.Size, 1))}
		if x.Write {
			st.wrote = true
			e.spinWrite(a.Tid, s)
			continue
		}
		st.plain = append(st.plain, s)
	}
}

// spinWrite records that thread tid wrote s: the reads of other threads'
// stretches that it overlaps are dirty, and the threads that wait for a
// write to it go on.
func (e *Execution) spinWrite(tid int, s syncmodel.Span) {
	if e.spinReads == 0 && len(e.awaiting) == 0 {
		// No stretch holds a read for s to dirty, and no thread waits
		// (e.awaiting holds every thread that World.Await made wait).
		return
	}
	for t := range e.spins {
		if t == tid {
			continue
		}
		rs := e.spins[t].reads
		for i := range rs {
			if !rs[i].dirty && s.Overlaps(rs[i].span) {
				rs[i].dirty = true
			}
		}
	}
	if len(e.awaiting) > 0 && e.w.Wrote(tid, s) > 0 {
		e.spinWoken()
	}
}

// spinWoken notes, among the threads that waited, those that go on again:
// their operations are annotated anew.
func (e *Execution) spinWoken() {
	kept := e.awaiting[:0]
	for _, t := range e.awaiting {
		if _, ok := e.w.Awaits(t); ok {
			kept = append(kept, t)
			continue
		}
		e.change(t)
	}
	e.awaiting = kept
}

// spinDone takes what thread tid's last step did, now that the step is
// over: the operation it ran (e.ran) and, from its report, whether the
// transition was clean and the operation left memory unchanged. With no
// report (the thread finished, the execution ended), the step counts as a
// change.
func (e *Execution) spinDone(tid int, sp wire.Spin) {
	st := e.stretchOf(tid)
	if !sp.Clean && e.spinReads == 0 && len(e.awaiting) == 0 {
		// The stretch starts again whatever the step did, and what it
		// wrote has no read to dirty and no thread to wake.
		if e.ran.valid && e.ran.tid == tid {
			e.ran.valid = false
		}
		st.marks, st.plain, st.wrote = st.marks[:0], st.plain[:0], false
		return
	}
	clean := sp.Clean && !st.wrote
	if e.ran.valid && e.ran.tid == tid {
		e.ran.valid = false
		ran := &e.trace[e.ran.step]
		// What World.Ran does, the writes told to the stretches too.
		var buf [4]syncmodel.Span
		if reads, polled := syncmodel.AppendPolled(buf[:0], &ran.Op, ran.Result, sp.Unchanged); polled {
			for _, s := range reads {
				st.reads = append(st.reads, spinRead{span: s})
			}
			e.spinReads += len(reads)
		} else {
			clean = false
			if e.spinReads > 0 || len(e.awaiting) > 0 {
				for _, s := range syncmodel.AppendTouched(buf[:0], &ran.Op) {
					e.spinWrite(tid, s)
				}
			}
		}
	}
	for _, s := range st.plain {
		st.reads = append(st.reads, spinRead{span: s})
	}
	e.spinReads += len(st.plain)
	st.plain, st.wrote = st.plain[:0], false
	if !clean || len(st.reads) > spinReads {
		e.resetStretch(st)
	}
}

// spinPoint takes thread tid's report of its next scheduling point v:
// what its last step did (spinDone), the threads whose state the step
// touched, and whether the thread is back in a state it was in with
// nothing it read written since, when it waits for a write.
func (e *Execution) spinPoint(v *wire.Pending) {
	tid := v.Tid
	e.spinDone(tid, v.Spin)
	for _, p := range v.Spin.Poked {
		if p <= 0 || p == tid {
			continue
		}
		e.resetStretch(e.stretchOf(p))
		if _, ok := e.w.Awaits(p); ok {
			if op, ok := e.w.Pending(p); ok {
				e.w.SetPending(p, op) // (a report anew ends the wait)
				e.change(p)
			}
		}
	}
	st := e.stretchOf(tid)
	if v.Spin.State == 0 {
		return
	}
	// (After a transition that was not clean the stretch starts here:
	// spinDone emptied it, and this point is its first mark.)
	for j := len(st.marks) - 1; j >= 0; j-- {
		if st.marks[j].state != v.Spin.State {
			continue
		}
		reads := st.reads[st.marks[j].reads:]
		for i := range reads {
			if reads[i].dirty {
				goto mark
			}
		}
		e.spinAwait(tid, reads)
		break
	}
mark:
	if len(st.marks) == spinMarks {
		e.resetStretch(st)
	}
	st.marks = append(st.marks, spinMark{state: v.Spin.State, reads: len(st.reads)})
}

// spinAwait makes thread tid wait for a write to one of reads.
func (e *Execution) spinAwait(tid int, reads []spinRead) {
	spans := make([]syncmodel.Span, 0, len(reads))
	for _, r := range reads {
		dup := false
		for _, s := range spans {
			if s == r.span {
				dup = true
				break
			}
		}
		if !dup {
			spans = append(spans, r.span)
		}
	}
	if e.w.Await(tid, spans) == nil {
		e.awaiting = append(e.awaiting, tid)
		e.change(tid)
	}
}

// spinning reports whether thread tid waits for a write after an
// iteration that changed nothing.
func (e *Execution) spinning(tid int) bool {
	if len(e.awaiting) == 0 {
		return false
	}
	_, ok := e.w.Awaits(tid)
	return ok
}

// spinStep prepares thread tid's step: a thread that waits and is run all
// the same (a schedule replayed from elsewhere) runs as it would without
// the wait, its stretch started again.
func (e *Execution) spinStep(tid int) {
	if len(e.awaiting) == 0 {
		return
	}
	if _, ok := e.w.Awaits(tid); !ok {
		return
	}
	if op, ok := e.w.Pending(tid); ok {
		e.w.SetPending(tid, op)
	}
	e.resetStretch(e.stretchOf(tid))
	e.spinWoken()
}

// resetSpins empties the stretches for a new execution, keeping their
// room.
func (e *Execution) resetSpins() {
	for i := range e.spins {
		s := &e.spins[i]
		s.marks, s.reads = s.marks[:0], s.reads[:0]
		s.plain, s.wrote = s.plain[:0], false
	}
	e.spinReads = 0
	e.awaiting = e.awaiting[:0]
	e.ran = spinRan{}
}

// spinningNow returns the threads that wait for a write after an
// iteration that changed nothing, as blocked threads.
func (e *Execution) spinningNow() []Blocked {
	var out []Blocked
	for _, tid := range e.w.Spinning() {
		op, _ := e.w.Pending(tid)
		out = append(out, Blocked{Thread: tid, Op: op, Frames: e.PendingFrames(tid), Wait: e.w.WaitFor(tid)})
	}
	return out
}

// spinMessage is the message of a livelock: the threads that spin, and
// what each waits for a write to, then the threads blocked.
func (e *Execution) spinMessage(spinning, stuck []Blocked) string {
	var b strings.Builder
	b.WriteString("no thread can make progress: ")
	for i, s := range spinning {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "thread %d spins at %s %s", s.Thread, e.where(s.Frames), e.spinWaits(s.Wait.Reads))
	}
	if len(stuck) > 0 {
		ids := blockedIDs(stuck)
		if len(ids) == 1 {
			b.WriteString("; thread " + ids[0] + " is blocked")
		} else {
			b.WriteString("; threads " + strings.Join(ids, ", ") + " are blocked")
		}
	}
	return b.String()
}

// spinWaits says what a spinning thread waits for a write to.
func (e *Execution) spinWaits(reads []syncmodel.Span) string {
	if len(reads) == 0 {
		return "reading nothing another thread writes"
	}
	names := make([]string, len(reads))
	for i, r := range reads {
		names[i] = e.spanName(r)
	}
	return "waiting for a write to " + strings.Join(names, " or ")
}

// spanName names what a span read: its variable when the executor knows
// it (C), else its address.
func (e *Execution) spanName(s syncmodel.Span) string {
	if v := e.c.opts.Variable; v != nil {
		if n := v(s.Addr); n != "" {
			return n
		}
	}
	return fmt.Sprintf("%#x", s.Addr)
}

// spinNote is what an ending execution says of the threads that still
// spin: each spins for ever, nothing left being able to write what its
// loop reads ("" if none).
func (e *Execution) spinNote() string {
	spinning := e.spinningNow()
	if len(spinning) == 0 {
		return ""
	}
	parts := make([]string, len(spinning))
	for i, s := range spinning {
		parts[i] = fmt.Sprintf("thread %d spins for ever at %s %s", s.Thread, e.where(s.Frames), e.spinWaits(s.Wait.Reads))
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
