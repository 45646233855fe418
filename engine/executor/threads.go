package executor

import (
	"errors"
	"fmt"
	"reflect"

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
// a full pass over the model makes (fillThreads' look at every thread).
func (e *Execution) checkThreads() error {
	n := e.w.NumThreads()
	var full []search.Thread
	for tid := 1; tid <= n; tid++ {
		t := search.Thread{ID: tid}
		live, en, alts := e.w.Inspect(tid, &t.Op)
		if !live {
			continue
		}
		t.Enabled, t.Alternatives = en, alts
		t.Spinning = !en && e.spinning(tid)
		full = append(full, t)
	}
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
// annotation (an empty list and none are the same).
func sameOp(a, b *syncmodel.Op) bool {
	x, y := *a, *b
	x.Cases, y.Cases = nil, nil
	x.Eff.Links, y.Eff.Links = nil, nil
	x.Eff.Ends, y.Eff.Ends = nil, nil
	x.Eff.Await, y.Eff.Await = nil, nil
	return reflect.DeepEqual(x, y) && equalLists(a.Cases, b.Cases) && equalLists(a.Eff.Links, b.Eff.Links) &&
		equalLists(a.Eff.Ends, b.Eff.Ends) && equalLists(a.Eff.Await, b.Eff.Await)
}

// equalLists is reflect.DeepEqual with an empty list and nil the same.
func equalLists[S ~[]E, E any](a, b S) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
