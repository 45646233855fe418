package executor

import (
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
