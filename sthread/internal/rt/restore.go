package rt

import (
	"fmt"
	"reflect"
	"unsafe"
)

// restore puts the snapshot back; it returns what it could not put back
// ("" when all was).
//
//go:norace
func (s *snapshot) restore() string {
	for i := range s.cells {
		c := &s.cells[i]
		if equalMem(c.addr, c.saved, c.size) {
			continue
		}
		if c.owner != nil {
			return s.changed(c.root, c.owner)
		}
		if c.raw {
			copy(unsafe.Slice((*byte)(c.addr), c.size), unsafe.Slice((*byte)(c.saved), c.size))
		} else {
			reflect.NewAt(c.typ, c.addr).Elem().Set(reflect.NewAt(c.typ, c.saved).Elem())
		}
	}
	for i := range s.maps {
		mc := &s.maps[i]
		if mc.same() {
			continue
		}
		mc.m.Clear()
		for j, k := range mc.keys {
			mc.m.SetMapIndex(k, mc.vals[j])
		}
	}
	for i := range s.smaps {
		mc := &s.smaps[i]
		if mc.same() {
			continue
		}
		if mc.owner != nil {
			return s.changed(mc.root, mc.owner)
		}
		mc.m.Clear()
		for j, k := range mc.keys {
			mc.m.Store(k, mc.vals[j])
		}
	}
	for _, pc := range s.pools {
		// Emptied as Get finds it: without New, Get returns nil once
		// the pool holds nothing.
		newf := pc.p.New
		pc.p.New = nil
		for pc.p.Get() != nil {
		}
		pc.p.New = newf
	}
	return ""
}

// changed says that memory inside a value of type owner, reached from
// variable root, changed: restore does not write another package's
// values.
func (s *snapshot) changed(root int, owner reflect.Type) string {
	v := s.vars[root]
	return fmt.Sprintf("%s (%s): a value of type %s reached from it changed, and stdbg does not put back the insides of another package's values",
		v.Name, v.Pos, owner)
}

// same reports whether the map holds the entries of the snapshot.
//
//go:norace
func (mc *mapCell) same() bool {
	if mc.m.Len() != len(mc.keys) {
		return false
	}
	size := mc.scratch.Type().Size()
	for j, k := range mc.keys {
		v := mc.m.MapIndex(k)
		if !v.IsValid() {
			return false
		}
		mc.scratch.Set(v)
		if !equalMem(mc.scratch.Addr().UnsafePointer(), mc.vals[j].Addr().UnsafePointer(), size) {
			return false
		}
	}
	return true
}

// same reports whether the sync.Map holds the entries of the snapshot
// (the same keys, each with the same value, compared as interfaces
// holding the same words).
//
//go:norace
func (mc *syncMapCell) same() bool {
	n := 0
	mc.m.Range(func(any, any) bool { n++; return true })
	if n != len(mc.keys) {
		return false
	}
	for j, k := range mc.keys {
		v, ok := mc.m.Load(k)
		if !ok || !equalMem(unsafe.Pointer(&v), unsafe.Pointer(&mc.vals[j]), unsafe.Sizeof(v)) {
			return false
		}
	}
	return true
}

// equalMem reports whether the n bytes at a and b are equal.
//
//go:norace
func equalMem(a, b unsafe.Pointer, n uintptr) bool {
	return unsafe.String((*byte)(a), n) == unsafe.String((*byte)(b), n)
}
