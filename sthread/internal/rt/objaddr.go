package rt

import "unsafe"

// Objects registered by their address. The mirrors of the standard
// library's types (sthread/sync's Mutex, WaitGroup, ...) have the size and
// alignment of the types they stand for, so that code that pads, embeds or
// lays out structs builds and behaves the same under stdbg: they hold the
// standard type (the real primitive, for their operations outside a check)
// and no ObjRef. Their registration in an execution is kept beside them, in
// the execution's table of addresses (Execution.byAddr), which EnterAt
// consults.
//
// The table keeps every object it names alive (its keys are pointers):
// while an execution runs, no other object can take the address of one it
// registered, whatever the garbage collector does. It is emptied when the
// next execution begins (newExecution), which lets the objects go; an
// object used again (a global, an object made before the check) is
// registered afresh, in the order of the new execution's first uses, as an
// ObjRef registers it.

// addrTable maps the addresses of an execution's objects to their index
// in Execution.objs (plus one), with open addressing: the state that
// checked goroutines share cannot be a Go map (see table).
//
// Only the running checked goroutine writes it. Goroutines outside the
// check read it (EnterAt, to tell that they use an object of the checked
// program) without synchronisation, which the race detector must not see
// either: so a table's slices are never replaced in place, a growth
// publishes a new addrSlots with a single word, and every entry is
// written word by word, the key last.
type addrTable struct{ s *addrSlots }

type addrSlots struct {
	keys []unsafe.Pointer // nil: an empty slot
	ids  []uint32
	n    int
}

//go:norace
func (s *addrSlots) slot(p unsafe.Pointer) int {
	mask := uintptr(len(s.keys) - 1)
	i := (uintptr(p) * 0x9e3779b97f4a7c15) >> 11 & mask
	for s.keys[i] != nil && s.keys[i] != p {
		i = (i + 1) & mask
	}
	return int(i)
}

// get returns the index (plus one) of the object at p, or 0.
//
//go:norace
func (t *addrTable) get(p unsafe.Pointer) uint32 {
	s := t.s
	if s == nil {
		return 0
	}
	i := s.slot(p)
	if s.keys[i] != p {
		return 0
	}
	return s.ids[i]
}

// put records that the object at p has index id (plus one).
//
//go:norace
func (t *addrTable) put(p unsafe.Pointer, id uint32) {
	s := t.s
	if s == nil || 2*(s.n+1) > len(s.keys) {
		size := 64
		if s != nil {
			size = 2 * len(s.keys)
		}
		bigger := &addrSlots{keys: make([]unsafe.Pointer, size), ids: make([]uint32, size)}
		if s != nil {
			for i, k := range s.keys {
				if k != nil {
					bigger.add(k, s.ids[i])
				}
			}
		}
		t.s, s = bigger, bigger
	}
	s.add(p, id)
}

//go:norace
func (s *addrSlots) add(p unsafe.Pointer, id uint32) {
	i := s.slot(p)
	if s.keys[i] == nil {
		s.n++
	}
	s.ids[i] = id
	s.keys[i] = p
}

// reset empties t, keeping its memory, and lets the objects it named go.
//
//go:norace
func (t *addrTable) reset() {
	if s := t.s; s != nil {
		clear(s.keys)
		clear(s.ids)
		s.n = 0
	}
}

// EnterAt is Enter for an object registered by its address (a mirror of a
// type of the standard library, which keeps no ObjRef: see above).
//
//go:norace
func EnterAt(fam Family, addr unsafe.Pointer) (th *Thread, id uint64, ok bool) {
	g := getg()
	if r := checking.Load(); r != nil {
		if ex := r.ex.Load(); ex != nil {
			if th := ex.running.Load(); th != nil && th.g.Load() == g {
				if th.abort.Load() {
					panic(abortSignal{})
				}
				return th, ex.idAt(fam, addr), true
			}
			if ex.byAddr.get(addr) != 0 {
				foreign(r, g, fam)
			}
		}
	}
	unwindIfStale(g)
	return nil, 0, false
}

// IDAt returns the model id of the object at addr, of family fam, in the
// execution of checked thread th, registering it by its address.
//
//go:norace
func (th *Thread) IDAt(fam Family, addr unsafe.Pointer) uint64 { return th.ex.idAt(fam, addr) }

//go:norace
func (ex *Execution) idAt(fam Family, addr unsafe.Pointer) uint64 {
	if n := ex.byAddr.get(addr); n != 0 {
		return idBase + uint64(n)
	}
	ex.objs = append(ex.objs, object{fam: fam, addr: uintptr(addr)})
	n := uint32(len(ex.objs))
	ex.byAddr.put(addr, n)
	return idBase + uint64(n)
}
