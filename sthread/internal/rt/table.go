package rt

import "unsafe"

// table maps uint64 keys (never 0) to pointers, with open addressing. It
// replaces Go maps for the state that checked goroutines share in race
// builds: the runtime reports map accesses to the race detector whoever
// makes them, and the hand-overs that order them are hidden from it (see
// race.go). Its methods are not instrumented.
type table struct {
	keys []uint64
	vals []unsafe.Pointer
	keep []any // values kept alive with their entries
	n    int
}

//go:norace
func (t *table) slot(k uint64) int {
	mask := uint64(len(t.keys) - 1)
	i := (k * 0x9e3779b97f4a7c15) >> 7 & mask
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & mask
	}
	return int(i)
}

// get returns the value of k, or nil.
//
//go:norace
func (t *table) get(k uint64) unsafe.Pointer {
	if len(t.keys) == 0 {
		return nil
	}
	i := t.slot(k)
	if t.keys[i] != k {
		return nil
	}
	return t.vals[i]
}

// put sets the value of k to v, keeping keep alive with it.
//
//go:norace
func (t *table) put(k uint64, v unsafe.Pointer, keep any) {
	if 2*(t.n+1) > len(t.keys) {
		old, oldv, oldk := t.keys, t.vals, t.keep
		size := max(16, 2*len(old))
		t.keys, t.vals, t.keep, t.n = make([]uint64, size), make([]unsafe.Pointer, size), make([]any, size), 0
		for i := range old {
			if old[i] != 0 {
				t.put(old[i], oldv[i], oldk[i])
			}
		}
	}
	i := t.slot(k)
	if t.keys[i] == 0 {
		t.n++
	}
	t.keys[i], t.vals[i], t.keep[i] = k, v, keep
}

// reset empties t, keeping its memory.
//
//go:norace
func (t *table) reset() {
	for i := range t.keys {
		t.keys[i], t.vals[i], t.keep[i] = 0, nil, nil
	}
	t.n = 0
}
