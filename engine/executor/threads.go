package executor

import (
	"errors"
	"fmt"
	"slices"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// listThreads brings e.threads, the live threads at the new scheduling
// point, up to date. Entries are filled in place, an operation being too
// big to copy around at every step, and only the threads whose pending
// operation changed since the last point (e.changed) or whose annotation
// depends on the state are looked at again in full; the others only get
// their enabledness and choices anew.
func (e *Execution) listThreads() {
	ts := e.threads
	n := e.w.NumThreads()
	k := 0 // entries kept or made, at the front of ts
	r := 0 // the next entry of the last point to look at
	for tid := 1; tid <= n; tid++ {
		for r < len(ts) && ts[r].ID < tid {
			r++ // a thread that finished
		}
		old := r < len(ts) && ts[r].ID == tid
		if !old {
			if live, _, _ := e.w.Status(tid); !live {
				continue // finished before the last point
			}
		}
		if !old && k == r && r < len(ts) {
			// No room before the entries still to look at (a live
			// thread without an entry can only be a new one, after
			// them): start the list afresh.
			e.threads = ts[:0]
			e.fillThreads(1, n)
			return
		}
		if old {
			if k != r {
				ts[k] = ts[r]
			}
			r++
			if !e.isChanged(tid) && !syncmodel.StateAnnotated(ts[k].Op.Kind) {
				live, en, alts := e.w.Status(tid)
				if live {
					ts[k].Enabled, ts[k].Alternatives = en, alts
					ts[k].Spinning = !en && e.spinning(tid)
					k++
				}
				continue
			}
		} else if k == len(ts) {
			ts = append(ts, search.Thread{})
			r = len(ts)
		}
		t := &ts[k]
		t.ID = tid
		live, en, alts := e.w.Inspect(tid, &t.Op)
		if !live {
			continue
		}
		t.Enabled, t.Alternatives = en, alts
		t.Spinning = !en && e.spinning(tid)
		k++
	}
	e.threads = ts[:k]
	clear(e.changed)
}

// fillThreads appends to e.threads the live threads from..to, looked at
// in full.
func (e *Execution) fillThreads(from, to int) {
	for tid := from; tid <= to; tid++ {
		e.threads = append(e.threads, search.Thread{ID: tid})
		t := &e.threads[len(e.threads)-1]
		live, en, alts := e.w.Inspect(tid, &t.Op)
		if !live {
			e.threads = e.threads[:len(e.threads)-1]
			continue
		}
		t.Enabled, t.Alternatives = en, alts
		t.Spinning = !en && e.spinning(tid)
	}
	clear(e.changed)
}

// change notes that thread tid's pending operation changed (it ran, or
// reported a new one) since the last scheduling point.
func (e *Execution) change(tid int) {
	for tid >= len(e.changed) {
		e.changed = append(e.changed, false)
	}
	e.changed[tid] = true
}

func (e *Execution) isChanged(tid int) bool { return tid < len(e.changed) && e.changed[tid] }

// ErrThreadList is wrapped by the error of a step after which the thread
// list kept up to date differs from the one made afresh (Options.CheckThreads).
var ErrThreadList = errors.New("the thread list kept from step to step differs from the model's")

// checkThreads compares e.threads, as listThreads left it, with the list
// a full pass over the model makes (fillThreads' look at every thread),
// made in e.checkBuf.
func (e *Execution) checkThreads() error {
	n := e.w.NumThreads()
	full := e.checkBuf[:0]
	for tid := 1; tid <= n; tid++ {
		full = append(full, search.Thread{ID: tid})
		t := &full[len(full)-1]
		live, en, alts := e.w.Inspect(tid, &t.Op)
		if !live {
			full = full[:len(full)-1]
			continue
		}
		t.Enabled, t.Alternatives = en, alts
		t.Spinning = !en && e.spinning(tid)
	}
	e.checkBuf = full
	step := len(e.trace)
	if len(full) != len(e.threads) {
		return fmt.Errorf("after step %d: %w: %d live threads listed, %d in the model", step, ErrThreadList, len(e.threads), len(full))
	}
	for i := range full {
		got, want := &e.threads[i], &full[i]
		if got.ID != want.ID || got.Enabled != want.Enabled || got.Spinning != want.Spinning ||
			got.Alternatives != want.Alternatives || !sameOp(&got.Op, &want.Op) {
			return fmt.Errorf("after step %d: %w: thread %d listed as %+v, the model has %+v", step, ErrThreadList, want.ID, *got, *want)
		}
	}
	return nil
}

// sameOp reports whether a and b are the same operation with the same
// annotation, field by field (TestSameOpFields keeps the list whole).
func sameOp(a, b *syncmodel.Op) bool {
	x, y := &a.Eff, &b.Eff
	return a.Kind == b.Kind && a.API == b.API && a.Obj == b.Obj && a.Obj2 == b.Obj2 && a.Arg == b.Arg &&
		slices.Equal(a.Cases, b.Cases) &&
		x.Known == y.Known && x.Partner == y.Partner && slices.Equal(x.Links, y.Links) && slices.Equal(x.Ends, y.Ends) &&
		x.Mid == y.Mid && x.Parks == y.Parks && x.Counter == y.Counter && x.Own == y.Own && x.Writer == y.Writer &&
		slices.Equal(x.Await, y.Await)
}
