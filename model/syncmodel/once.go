package syncmodel

import "fmt"

// onceState is the world's once controls, by address.
type onceState struct {
	onces map[uint64]*once
}

// oncePrim is the primitive of one-time initialisation (pthread_once,
// call_once, Go's Once.Do): OnceBegin runs the initialiser, or waits for
// the thread running it, or finds it done; OnceEnd marks it done.
type oncePrim struct{ basePrim }

func (*oncePrim) kinds() []kindSpec {
	return []kindSpec{{kind: OnceBegin}, {kind: OnceEnd, precedes: true}}
}

func (*oncePrim) enabled(w *World, tid int, op *Op) bool {
	return op.Kind != OnceBegin || w.onceEnabled(tid, op)
}

func (*oncePrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	if op.Kind == OnceEnd {
		w.onceEnd(*op)
		return Result{}, "", nil
	}
	return done(w.onceBegin(tid, *op))
}

func (*oncePrim) waitFor(w *World, _ int, op *Op) Wait {
	// A OnceBegin while another thread runs the initialiser.
	o := w.onces[op.Obj]
	return Wait{Obj: op.Obj, What: "once", Holders: []int{o.runner},
		Detail: "initialiser running in " + w.threadName(o.runner)}
}

// mustPrecede: OnceEnd, and a OnceBegin (the initialisation is under way
// until then).
func (*oncePrim) mustPrecede(_ int, a *Op, _ int, b *Op) bool {
	return a.Kind == OnceEnd && b.Kind == OnceBegin && b.Obj == a.Obj
}

func (*oncePrim) fingerprint(w *World, f fp) fp {
	for _, k := range sortedKeys(w.onces) {
		if o := w.onces[k]; o.state != 0 || o.runner != 0 {
			f.u(k)
			f.n(o.state)
			f.n(o.runner)
		}
	}
	return f
}

func (*oncePrim) clone(dst, src *World) { dst.onces = cloneMap(src.onces, copyOf[once]) }

func (*oncePrim) reset(w *World) { w.onceState = onceState{onces: keepMap(w.onces)} }

// Once states.
const (
	onceFresh = iota
	onceRunning
	onceDone
)

// once is a one-time initialisation control.
type once struct {
	state  int
	runner int // the thread running the initialiser, while onceRunning
}

func (w *World) onceEnabled(tid int, op *Op) bool {
	o := w.onces[op.Obj]
	return o == nil || o.state != onceRunning || o.runner == tid
}

// onceBegin returns 1 if the caller is to run the initialiser, 0 if it has
// already run.
func (w *World) onceBegin(tid int, op Op) (int64, string) {
	o := w.onces[op.Obj]
	switch {
	case o == nil || o.state == onceFresh:
		put(&w.onces, op.Obj, &once{state: onceRunning, runner: tid})
		return 1, ""
	case o.state == onceRunning:
		// onceEnabled only lets the runner itself get here.
		return 0, fmt.Sprintf("recursive once %#x: its initialiser calls %s on it again (self-deadlock)",
			op.Obj, callName(op, "once"))
	}
	return 0, ""
}

// onceEnd marks the initialisation done. It is lenient: whatever the state,
// the control ends up done.
func (w *World) onceEnd(op Op) {
	put(&w.onces, op.Obj, &once{state: onceDone})
}
