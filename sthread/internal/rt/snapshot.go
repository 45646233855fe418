package rt

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// A snapshot of the registered package-level variables and of everything
// they reach, as a runner's first execution began, which restore puts back.
//
// What is put back. Each variable's memory, and every object reachable
// from it through pointers, slices, maps and interfaces, is recorded as
// cells: a cell is a piece of memory at a fixed address (a pointer-free
// run of bytes, or one pointer, string, interface, slice header, map,
// channel or function value) with a copy of its contents. Before each later
// execution, every cell whose memory differs from its copy gets the copy
// back, in place: an object the program reached at the snapshot keeps its
// address and gets its old contents, so that pointers to it held anywhere
// stay right; objects made by later executions are simply no longer
// reachable. A map gets its old entries back (it is cleared and refilled
// when any differs); a sync.Map likewise through its methods; a sync.Pool
// that was empty at the snapshot is emptied again.
//
// What is only checked. Memory inside a value of a type of another module
// or of the standard library (but for plain values: sync/atomic's types,
// time.Time, bytes.Buffer, ...) is the other package's to manage (a file
// descriptor, a lock a goroutine outside the check may hold, a runtime
// timer): restore does not write it, it compares it, and a difference is
// a failure naming the variable it was reached from. Maps, closures and
// unsafe pointers inside such values are not looked into: like the
// variables of other packages, they are state the divergence check of the
// search is left to catch.
//
// What cannot be put back, and fails at once. A function value holding a
// closure (its captured variables cannot be seen), an unsafe.Pointer to
// something of unknown type, a sync.Pool that held values at the
// snapshot, and more state than maxUnits.
type snapshot struct {
	vars  []Var
	cells []cell
	maps  []mapCell
	smaps []syncMapCell
	pools []poolCell

	// problem is what cannot be put back, "name (pos): why" (the first
	// found); restore is then refused.
	problem string
	// root is the index of the variable being walked.
	root int
	// units counts the cells, map entries and bytes (by 64) recorded.
	units int

	seen    map[objKey]bool
	backing map[objKey]int // the longest backing array walked at an address
	mapSeen map[unsafe.Pointer]bool
	ptrFree map[reflect.Type]bool
}

// maxUnits bounds the state a snapshot records (cells, map entries, 64
// bytes of plain memory each): beyond it, putting it back would cost more
// than a fresh process.
const maxUnits = 1 << 20

type objKey struct {
	addr unsafe.Pointer
	typ  reflect.Type
}

// A cell is memory at addr with its copy at saved: size bytes of type typ,
// copied byte by byte when raw (pointer-free memory), else through
// reflect, with the garbage collector's write barriers. A frozen cell is
// inside a value of owner, a type of another package, and is compared
// only.
type cell struct {
	addr, saved unsafe.Pointer
	size        uintptr
	typ         reflect.Type
	raw         bool
	owner       reflect.Type
	root        int
}

// A mapCell is a map of the program (m, of its type) and its entries at the
// snapshot.
type mapCell struct {
	m          reflect.Value
	keys, vals []reflect.Value
	scratch    reflect.Value // a value of the element type, to compare entries
	root       int
}

// A syncMapCell is a sync.Map and its entries at the snapshot; owner is
// not nil when it is inside a value of another package's type (compared
// only).
type syncMapCell struct {
	m          *sync.Map
	keys, vals []any
	owner      reflect.Type
	root       int
}

// A poolCell is a sync.Pool of the program, empty at the snapshot.
type poolCell struct {
	p    *sync.Pool
	root int
}

// takeSnapshot records the variables vs and what they reach. A value
// that cannot be recorded (see snapshot) sets problem; so does a panic of
// the walk.
//
//go:norace
func takeSnapshot(vs []Var) (s *snapshot) {
	s = &snapshot{vars: vs, seen: map[objKey]bool{}, backing: map[objKey]int{},
		mapSeen: map[unsafe.Pointer]bool{}, ptrFree: map[reflect.Type]bool{}}
	defer func() {
		if p := recover(); p != nil {
			s.fail("cannot be read: %v", p)
		}
	}()
	for i, v := range vs {
		s.root = i
		pv := reflect.ValueOf(v.Addr)
		if pv.Kind() != reflect.Pointer || pv.IsNil() {
			s.fail("is not registered by its address")
			return s
		}
		s.object(pv.UnsafePointer(), pv.Type().Elem(), nil)
		if s.problem != "" {
			return s
		}
	}
	// The walk's memos are not needed any more.
	s.seen, s.backing, s.mapSeen = nil, nil, nil
	return s
}

// fail records why the state cannot be put back, naming the variable being
// walked (the first failure only).
func (s *snapshot) fail(format string, args ...any) {
	if s.problem != "" {
		return
	}
	v := s.vars[s.root]
	s.problem = fmt.Sprintf("%s (%s): %s", v.Name, v.Pos, fmt.Sprintf(format, args...))
}

// count adds n units of recorded state and reports whether the snapshot
// may go on.
func (s *snapshot) count(n int) bool {
	s.units += n
	if s.units > maxUnits && s.problem == "" {
		s.fail("reaches more state than stdbg puts back between executions (over %d values)", maxUnits)
	}
	return s.problem == ""
}

// object walks the object of type t at addr, once per address and type;
// owner is that of the value that points to it.
//
//go:norace
func (s *snapshot) object(addr unsafe.Pointer, t reflect.Type, owner reflect.Type) {
	k := objKey{addr, t}
	if s.seen[k] {
		return
	}
	s.seen[k] = true
	s.value(addr, t, owner, true)
}

// ownerOf is the type that makes a value of type t, held by (or reached
// from) a value whose owner is parent, compared only: parent if any, else
// t when t is a struct or array type of another package (but plain
// values), else nil. A value of any other kind (a number, a pointer, a
// map, an interface, ...) is its holder's, whatever package names its type:
// the other package's methods manage the fields of its structs, not a
// variable of the program that holds its map.
func (s *snapshot) ownerOf(t reflect.Type, parent reflect.Type) reflect.Type {
	if parent != nil || t.Kind() != reflect.Struct && t.Kind() != reflect.Array || t.Name() == "" || s.isOwn(t) {
		return parent
	}
	return t
}

// isOwn reports whether values of the named struct or array type t are
// the program's to put back: types of its own modules and of sthread's
// mirrors, and plain values of the standard library.
func (s *snapshot) isOwn(t reflect.Type) bool {
	if own(t.PkgPath()) {
		return true
	}
	name := t.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	return plainStd[t.PkgPath()+"."+name] || t.PkgPath() == "sync/atomic"
}

// plainStd are types of the standard library whose values are plain
// data, which restore may write.
var plainStd = map[string]bool{
	"time.Time": true, "time.Duration": true, "time.Month": true, "time.Weekday": true,
	"bytes.Buffer": true, "strings.Builder": true, "strings.Reader": true, "bytes.Reader": true,
	"math/big.Int": true, "math/big.Float": true, "math/big.Rat": true,
	"container/list.List": true, "container/list.Element": true, "container/ring.Ring": true,
	"math/rand.Rand": true, "math/rand.rngSource": true, "math/rand/v2.Rand": true, "math/rand/v2.PCG": true,
}

// immutable reports whether objects of type t never change once made
// (type descriptors, time zones, whose lazily filled caches would look like
// changes): they are not walked.
func immutable(t reflect.Type) bool {
	switch t.PkgPath() {
	case "internal/abi":
		return true
	case "time":
		return t.Name() == "Location"
	case "reflect":
		return t.Name() == "rtype"
	}
	return false
}

var (
	poolType    = reflect.TypeFor[sync.Pool]()
	syncMapType = reflect.TypeFor[sync.Map]()
)

// value walks the value of type t at addr: it records its cells (if
// record; a copy of the snapshot's own needs none) and walks what it
// points to. owner is not nil inside a value of another package's type.
//
//go:norace
func (s *snapshot) value(addr unsafe.Pointer, t reflect.Type, owner reflect.Type, record bool) {
	if s.problem != "" || immutable(t) {
		return
	}
	switch t {
	case poolType:
		s.pool(addr, owner, record)
		return
	case syncMapType:
		s.syncMap(addr, owner, record)
		return
	}
	owner = s.ownerOf(t, owner)
	if s.pointerFree(t) {
		if record && t.Size() > 0 {
			s.cell(addr, t, owner, true)
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.PkgPath() == "sync/atomic" && strings.HasPrefix(t.Name(), "Pointer[") {
			// atomic.Pointer[T]: its unsafe.Pointer is a *T (its first
			// field is a [0]*T).
			pt := t.Field(0).Type.Elem()
			f, _ := t.FieldByName("v")
			s.value(unsafe.Add(addr, f.Offset), pt, owner, record)
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			s.value(unsafe.Add(addr, f.Offset), f.Type, owner, record)
		}
	case reflect.Array:
		et := t.Elem()
		for i := range t.Len() {
			s.value(unsafe.Add(addr, uintptr(i)*et.Size()), et, owner, record)
		}
	case reflect.Pointer:
		s.leaf(addr, t, owner, record)
		if p := *(*unsafe.Pointer)(addr); p != nil && t.Elem().Size() > 0 {
			s.object(p, t.Elem(), owner)
		}
	case reflect.String, reflect.Chan:
		// A string's bytes do not change; a channel's state under the
		// checker is the execution's own.
		s.leaf(addr, t, owner, record)
	case reflect.Func:
		s.leaf(addr, t, owner, record)
		if fn := *(*unsafe.Pointer)(addr); fn != nil && owner == nil {
			if name, ok := closure(reflect.NewAt(t, addr).Elem().Pointer()); ok {
				s.fail("holds a closure (%s), whose captured variables cannot be put back", name)
			}
		}
	case reflect.UnsafePointer:
		s.leaf(addr, t, owner, record)
		if *(*unsafe.Pointer)(addr) != nil && owner == nil {
			s.fail("holds an unsafe.Pointer, whose target stdbg cannot see")
		}
	case reflect.Interface:
		s.leaf(addr, t, owner, record)
		iv := reflect.NewAt(t, addr).Elem()
		if iv.IsNil() {
			return
		}
		// The dynamic value, copied: a pointer-shaped one is the pointer
		// itself, any other a copy that no one changes; either way what
		// it points to is the program's.
		dv := iv.Elem()
		c := reflect.New(dv.Type()).Elem()
		c.Set(dv)
		s.value(c.Addr().UnsafePointer(), dv.Type(), owner, false)
	case reflect.Slice:
		s.leaf(addr, t, owner, record)
		h := (*sliceHeader)(addr)
		if h.data == nil || h.cap == 0 || t.Elem().Size() == 0 {
			return
		}
		s.array(h.data, t.Elem(), h.cap, owner)
	case reflect.Map:
		s.leaf(addr, t, owner, record)
		m := reflect.NewAt(t, addr).Elem()
		if m.IsNil() || owner != nil {
			// Another package's map may be written by its own goroutines
			// meanwhile: not looked into.
			return
		}
		s.mapEntries(m)
	default:
		s.fail("holds a value of kind %s that stdbg does not put back", t.Kind())
	}
}

// sliceHeader is the memory of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// array walks n elements of type et at data, the backing array of a slice
// (up to its capacity: a later append within it writes there), once per
// address and length.
//
//go:norace
func (s *snapshot) array(data unsafe.Pointer, et reflect.Type, n int, owner reflect.Type) {
	k := objKey{data, et}
	if s.backing[k] >= n {
		return
	}
	from := s.backing[k]
	s.backing[k] = n
	if s.pointerFree(et) {
		size := uintptr(n-from) * et.Size()
		s.rawCell(unsafe.Add(data, uintptr(from)*et.Size()), size, et, s.ownerOf(et, owner))
		return
	}
	for i := from; i < n && s.problem == ""; i++ {
		s.value(unsafe.Add(data, uintptr(i)*et.Size()), et, owner, true)
	}
}

// mapEntries records the entries of map m (once per map) and walks what
// they point to.
//
//go:norace
func (s *snapshot) mapEntries(m reflect.Value) {
	p := m.UnsafePointer()
	if s.mapSeen[p] {
		return
	}
	s.mapSeen[p] = true
	if !s.count(1 + m.Len()) {
		return
	}
	kt, vt := m.Type().Key(), m.Type().Elem()
	// The map itself, in memory of the snapshot's own: the variable that
	// holds it may hold another map later.
	held := reflect.New(m.Type()).Elem()
	held.Set(m)
	mc := mapCell{m: held, scratch: reflect.New(vt).Elem(), root: s.root}
	it := m.MapRange()
	for it.Next() {
		k, v := reflect.New(kt).Elem(), reflect.New(vt).Elem()
		k.Set(it.Key())
		v.Set(it.Value())
		mc.keys, mc.vals = append(mc.keys, k), append(mc.vals, v)
		s.value(k.Addr().UnsafePointer(), kt, nil, false)
		s.value(v.Addr().UnsafePointer(), vt, nil, false)
	}
	s.maps = append(s.maps, mc)
}

// syncMap records the entries of the sync.Map at addr.
//
//go:norace
func (s *snapshot) syncMap(addr unsafe.Pointer, owner reflect.Type, record bool) {
	if !record || s.mapSeen[addr] {
		return
	}
	s.mapSeen[addr] = true
	m := (*sync.Map)(addr)
	mc := syncMapCell{m: m, owner: owner, root: s.root}
	m.Range(func(k, v any) bool {
		mc.keys, mc.vals = append(mc.keys, k), append(mc.vals, v)
		return s.count(1)
	})
	s.smaps = append(s.smaps, mc)
	anyType := reflect.TypeFor[any]()
	for i := range mc.keys {
		s.value(unsafe.Pointer(&mc.keys[i]), anyType, owner, false)
		s.value(unsafe.Pointer(&mc.vals[i]), anyType, owner, false)
	}
}

// pool records the sync.Pool at addr: one of the program's that holds
// nothing yet is emptied before each execution (what a pool holds may
// vanish at any time, and a fresh process starts with it empty); one that
// held values cannot be put back. Another package's pool is its own cache.
//
//go:norace
func (s *snapshot) pool(addr unsafe.Pointer, owner reflect.Type, record bool) {
	if owner != nil || !record {
		return
	}
	f, _ := poolType.FieldByName("New")
	s.value(unsafe.Add(addr, f.Offset), f.Type, nil, true)
	for _, name := range []string{"local", "victim"} {
		if f, ok := poolType.FieldByName(name); !ok || *(*unsafe.Pointer)(unsafe.Add(addr, f.Offset)) != nil {
			s.fail("is a sync.Pool that held values when the search began, which cannot be put back")
			return
		}
	}
	s.pools = append(s.pools, poolCell{p: (*sync.Pool)(addr), root: s.root})
}

// leaf records the value of type t at addr (a pointer, string, interface,
// slice header, map, channel or function) as one cell, if record.
//
//go:norace
func (s *snapshot) leaf(addr unsafe.Pointer, t reflect.Type, owner reflect.Type, record bool) {
	if record {
		s.cell(addr, t, owner, false)
	}
}

// cell records the value of type t at addr.
//
//go:norace
func (s *snapshot) cell(addr unsafe.Pointer, t reflect.Type, owner reflect.Type, raw bool) {
	if raw {
		s.rawCell(addr, t.Size(), t, owner)
		return
	}
	if !s.count(1) {
		return
	}
	saved := reflect.New(t)
	saved.Elem().Set(reflect.NewAt(t, addr).Elem())
	s.cells = append(s.cells, cell{addr: addr, saved: saved.UnsafePointer(), size: t.Size(), typ: t, owner: owner, root: s.root})
}

// rawCell records size bytes of pointer-free memory at addr (values of
// type t).
//
//go:norace
func (s *snapshot) rawCell(addr unsafe.Pointer, size uintptr, t reflect.Type, owner reflect.Type) {
	if size == 0 || !s.count(1+int(size/64)) {
		return
	}
	saved := make([]byte, size)
	copy(saved, unsafe.Slice((*byte)(addr), size))
	s.cells = append(s.cells, cell{addr: addr, saved: unsafe.Pointer(&saved[0]), size: size, typ: t, raw: true, owner: owner, root: s.root})
}

// pointerFree reports whether values of type t hold no pointers.
func (s *snapshot) pointerFree(t reflect.Type) bool {
	if free, ok := s.ptrFree[t]; ok {
		return free
	}
	free := false
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		free = true
	case reflect.Array:
		free = t.Len() == 0 || s.pointerFree(t.Elem())
	case reflect.Struct:
		free = true
		for i := range t.NumField() {
			if !s.pointerFree(t.Field(i).Type) {
				free = false
				break
			}
		}
	}
	s.ptrFree[t] = free
	return free
}

// closure reports whether the function at code address pc may hold
// captured variables, with its name: a function literal or a method value
// does, a declared function or a method expression does not, nor a
// literal in the initialiser of a package-level variable (package.init.funcN),
// which can capture only package-level variables.
func closure(pc uintptr) (name string, captures bool) {
	f := runtime.FuncForPC(pc)
	if f == nil {
		return fmt.Sprintf("%#x", pc), true
	}
	return f.Name(), closureName(f.Name())
}

// closureName reports whether the function of that name may hold captured
// variables (see closure).
func closureName(name string) bool {
	if strings.HasSuffix(name, "-fm") {
		return true
	}
	// The name without type arguments, after the package path (whose
	// last element's dots are escaped).
	rest := withoutBrackets(name)
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		rest = rest[i+1:]
	}
	segs := strings.Split(rest, ".")
	if len(segs) == 2 && segs[0] == "init" && isFuncN(segs[1]) {
		return false
	}
	for _, seg := range segs {
		if isFuncN(seg) || seg != "" && strings.Trim(seg, "0123456789") == "" || strings.HasPrefix(seg, "gowrap") {
			return true
		}
	}
	return false
}

// isFuncN reports whether seg is "func" and a number, the name the
// compiler gives a function literal.
func isFuncN(seg string) bool {
	n, ok := strings.CutPrefix(seg, "func")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// withoutBrackets removes the bracketed parts of a function's name (type
// arguments).
func withoutBrackets(name string) string {
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
