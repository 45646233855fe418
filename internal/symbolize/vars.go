package symbolize

import (
	"debug/dwarf"
	"encoding/binary"
	"sort"
	"strconv"
	"strings"
)

// The layout of global and static variables, from their DWARF types: the
// element of an array or the member of a structure an address falls in,
// so that an object inside a variable is named as the program writes it
// (forks[1], b.not_empty) rather than by an offset (forks+40, b+16).

// opAddr is DW_OP_addr: a location that is a fixed address.
const opAddr = 0x03

// Languages whose variables are laid out (DW_AT_language): C and C++.
var layoutLanguages = map[int64]bool{
	0x01: true, 0x02: true, 0x0c: true, 0x1d: true, 0x2c: true, // C89, C, C99, C11, C17
	0x04: true, 0x1a: true, 0x21: true, 0x2b: true, // C++, C++03, C++11, C++14
}

// maxLayoutNodes bounds the layout nodes a module keeps (a program with
// huge structures is named by offsets beyond it).
const maxLayoutNodes = 1 << 16

// layout is a variable's type, reduced to what naming needs.
type layout struct {
	size uint64
	// elem and count describe an array (count < 0: unknown, a flexible
	// array); fields a structure or class. Neither: a leaf (a scalar, a
	// pointer, a union, an opaque type such as pthread_mutex_t).
	elem   *layout
	count  int64
	fields []member
}

// member is a named member of a structure.
type member struct {
	name string
	off  uint64
	l    *layout
}

// variable is a global or static variable with a fixed address.
type variable struct {
	addr uint64
	l    *layout
}

// pendingVar is a variable seen in the walk, laid out at its end: its
// type, or the declaration that has it.
type pendingVar struct {
	addr      uint64
	typ, spec dwarf.Offset
}

// addVariable records a variable DIE whose location is a fixed address,
// in a compile unit of a laid-out language.
func (b *dwarfBuilder) addVariable(e *dwarf.Entry) {
	if !b.layoutCU {
		return
	}
	loc, ok := e.Val(dwarf.AttrLocation).([]byte)
	if !ok || len(loc) != 9 || loc[0] != opAddr {
		return
	}
	addr := binary.LittleEndian.Uint64(loc[1:])
	if addr == 0 {
		return
	}
	if typ, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
		b.vars = append(b.vars, pendingVar{addr: addr, typ: typ})
	} else if spec, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
		// A C++ definition of a variable declared in a namespace or a
		// class: the type is the declaration's.
		b.vars = append(b.vars, pendingVar{addr: addr, spec: spec})
	}
}

// addDeclaration records the type of a variable declaration, for the
// definitions that refer to it.
func (b *dwarfBuilder) addDeclaration(e *dwarf.Entry) {
	if !b.layoutCU {
		return
	}
	if typ, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
		if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); decl {
			if b.declTypes == nil {
				b.declTypes = map[dwarf.Offset]dwarf.Offset{}
			}
			b.declTypes[e.Offset] = typ
		}
	}
}

// layVariables lays out the variables seen in the walk.
func (b *dwarfBuilder) layVariables() []variable {
	if len(b.vars) == 0 {
		return nil
	}
	memo := map[dwarf.Offset]*layout{}
	nodes := 0
	var out []variable
	for _, v := range b.vars {
		if v.typ == 0 {
			if v.typ = b.declTypes[v.spec]; v.typ == 0 {
				continue
			}
		}
		l, ok := memo[v.typ]
		if !ok {
			t, err := b.d.Type(v.typ)
			if err != nil {
				memo[v.typ] = nil
				continue
			}
			l = layOut(t, map[dwarf.Type]*layout{}, &nodes, 0)
			memo[v.typ] = l
		}
		if l != nil && (l.elem != nil || len(l.fields) > 0) {
			// A scalar variable is named by its symbol alone.
			out = append(out, variable{addr: v.addr, l: l})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

// layOut reduces t to a layout, nil beyond the node budget.
func layOut(t dwarf.Type, seen map[dwarf.Type]*layout, nodes *int, depth int) *layout {
	if l, ok := seen[t]; ok {
		return l
	}
	if *nodes >= maxLayoutNodes || depth > 16 {
		return nil
	}
	*nodes++
	size := t.Size()
	if size < 0 {
		size = 0
	}
	l := &layout{size: uint64(size)}
	seen[t] = l
	switch t := t.(type) {
	case *dwarf.TypedefType:
		if u := layOut(t.Type, seen, nodes, depth+1); u != nil {
			*l = *u
		}
	case *dwarf.QualType:
		if u := layOut(t.Type, seen, nodes, depth+1); u != nil {
			*l = *u
		}
	case *dwarf.ArrayType:
		l.elem = layOut(t.Type, seen, nodes, depth+1)
		l.count = t.Count
		if l.elem == nil || l.elem.size == 0 {
			l.elem = nil
		}
	case *dwarf.StructType:
		if t.Kind == "union" || t.Incomplete {
			break // which member is meant cannot be told
		}
		for _, f := range t.Field {
			if f.BitSize > 0 || f.ByteOffset < 0 {
				continue // bit fields share their bytes
			}
			fl := layOut(f.Type, seen, nodes, depth+1)
			if fl == nil {
				continue
			}
			l.fields = append(l.fields, member{name: f.Name, off: uint64(f.ByteOffset), l: fl})
		}
	}
	return l
}

// path names the object at offset off of a variable of layout l: the
// array elements and structure members that hold it (".b", "[2]",
// ".locks[1]"), and what is left of the offset ("+4") when it falls
// inside a leaf. The path stops at a union (which member is meant cannot
// be told) and before a member whose name starts with an underscore (a
// library's own, such as glibc's __data or libstdc++'s _M_mutex: the
// object the program names is the one that holds it).
func (l *layout) path(off uint64) string {
	var b strings.Builder
	for l != nil {
		switch {
		case l.elem != nil:
			i := off / l.elem.size
			if l.count >= 0 && i >= uint64(l.count) {
				goto rest
			}
			b.WriteString("[" + strconv.FormatUint(i, 10) + "]")
			off -= i * l.elem.size
			l = l.elem
			continue
		case len(l.fields) > 0:
			var m *member
			for k := range l.fields {
				f := &l.fields[k]
				if off >= f.off && (off < f.off+f.l.size || f.l.size == 0 && off == f.off) {
					m = f
					break
				}
			}
			if m == nil || strings.HasPrefix(m.name, "_") {
				goto rest
			}
			if m.name != "" {
				b.WriteString("." + m.name)
			}
			off -= m.off
			l = m.l
			continue
		}
		break
	}
rest:
	if off != 0 {
		b.WriteString("+" + strconv.FormatUint(off, 10))
	}
	return b.String()
}

// variable returns the laid-out variable containing the file virtual
// address v.
func (dd *dwarfData) variable(v uint64) (variable, bool) {
	vs := dd.vars
	i := sort.Search(len(vs), func(i int) bool { return vs[i].addr > v }) - 1
	if i >= 0 && v-vs[i].addr < max(vs[i].l.size, 1) {
		return vs[i], true
	}
	return variable{}, false
}
