package symbolize

import (
	"cmp"
	"debug/dwarf"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, used by old compilers
// instead of DW_AT_linkage_name.
const attrMIPSLinkageName dwarf.Attr = 0x2007

// tagGNUCallSite is DW_TAG_GNU_call_site, the pre-DWARF 5 call site.
const tagGNUCallSite dwarf.Tag = 0x4109

// lineRow is one row of the merged DWARF line table.
type lineRow struct {
	addr uint64
	file uint32 // index into dwarfData.files, endFile for an end of sequence
	line uint32
}

// endFile marks the row of a DW_LNE_end_sequence, which gives the first
// address after its sequence.
const endFile = math.MaxUint32

// end reports whether r ends a sequence.
func (r lineRow) end() bool { return r.file == endFile }

// funcRange is one address range of a DW_TAG_subprogram.
type funcRange struct {
	low, high uint64
	name      string
}

// dwarfData holds the line table and function ranges of a module, all in
// file virtual addresses.
type dwarfData struct {
	files []string
	rows  []lineRow   // sorted by addr; end rows before others at equal addr
	funcs []funcRange // sorted by low
	vars  []variable  // laid-out global and static variables, sorted by addr
	// golines, for a Go executable without DWARF, stands for rows and
	// funcs (gopcln.go).
	golines *goLines
}

// line returns the source position of the file virtual address v: the row
// with the greatest address <= v, unless that row ends its sequence.
func (dd *dwarfData) line(v uint64) (file string, line int, ok bool) {
	if dd.golines != nil {
		return dd.golines.line(v)
	}
	rows := dd.rows
	i := sort.Search(len(rows), func(i int) bool { return rows[i].addr > v }) - 1
	if i < 0 || rows[i].end() {
		return "", 0, false
	}
	r := rows[i]
	return dd.files[r.file], int(r.line), true
}

// function returns the innermost subprogram range containing v.
func (dd *dwarfData) function(v uint64) (funcRange, bool) {
	if dd.golines != nil {
		return dd.golines.function(v)
	}
	fs := dd.funcs
	i := sort.Search(len(fs), func(i int) bool { return fs[i].low > v }) - 1
	// Ranges normally do not overlap; nested (GNU C nested functions)
	// ranges start after their container, so the first hit going back
	// is the innermost.
	for j := i; j >= 0 && j > i-16; j-- {
		if f := fs[j]; v >= f.low && v < f.high {
			return f, true
		}
	}
	return funcRange{}, false
}

// dieName is what a subprogram DIE says about its name.
type dieName struct {
	name, linkage string
	ref           dwarf.Offset // DW_AT_specification or DW_AT_abstract_origin, 0 if none
}

// dwarfBuilder accumulates a module's DWARF tables.
type dwarfBuilder struct {
	m       *module
	d       *dwarf.Data
	dd      dwarfData
	fileIdx map[string]uint32
	names   map[dwarf.Offset]dieName
	pending []pendingFunc
	seq     []lineRow
	nerrs   int
	// vars are the variables with a fixed address of the compile units
	// whose language is laid out (layoutCU: the unit being walked).
	vars      []pendingVar
	declTypes map[dwarf.Offset]dwarf.Offset
	layoutCU  bool
}

// pendingFunc is a subprogram range whose name is resolved after all DIEs
// have been seen (references may point forward or into other units).
type pendingFunc struct {
	off       dwarf.Offset
	low, high uint64
}

// loadDWARF reads the line tables and subprograms of all compile units; m.mu
// must be held.
func (m *module) loadDWARF() (dd *dwarfData) {
	dd = &dwarfData{}
	src := m.dbg
	if src == nil {
		src = m.file
	}
	if src == nil || !hasDWARF(src) {
		return dd
	}
	defer func() {
		if r := recover(); r != nil {
			m.addErr(fmt.Errorf("symbolize: reading DWARF of %s: malformed data: %v", m.Path, r))
			dd = &dwarfData{}
		}
	}()
	d, err := src.DWARF()
	if err != nil {
		m.addErr(fmt.Errorf("symbolize: reading DWARF of %s: %w", m.Path, err))
		return dd
	}
	b := &dwarfBuilder{
		m:       m,
		d:       d,
		fileIdx: make(map[string]uint32),
		names:   make(map[dwarf.Offset]dieName),
	}
	b.walk()
	return b.finish()
}

// errorf records a DWARF problem, a few per module at most.
func (b *dwarfBuilder) errorf(format string, args ...any) {
	b.nerrs++
	if b.nerrs <= 3 {
		b.m.addErr(fmt.Errorf("symbolize: reading DWARF of %s: "+format, append([]any{b.m.Path}, args...)...))
	}
}

// walk visits all DIEs once.
func (b *dwarfBuilder) walk() {
	r := b.d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			b.errorf("%w", err)
			return
		}
		if e == nil {
			return
		}
		switch e.Tag {
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit:
			lang, _ := e.Val(dwarf.AttrLanguage).(int64)
			b.layoutCU = layoutLanguages[lang]
			b.addLines(e)
		case dwarf.TagSubprogram:
			b.addSubprogram(e)
		case dwarf.TagVariable:
			b.addDeclaration(e)
			b.addVariable(e)
			if e.Children {
				r.SkipChildren()
			}
		case dwarf.TagInlinedSubroutine, dwarf.TagCallSite, tagGNUCallSite,
			dwarf.TagFormalParameter, dwarf.TagEnumerationType,
			dwarf.TagSubroutineType, dwarf.TagArrayType:
			// Nothing named by a subprogram range lives below these.
			if e.Children {
				r.SkipChildren()
			}
		}
	}
}

// addLines appends the line table of one compile unit. Sequences that do not
// start in an executable segment (code discarded by the linker, relocated to
// 0 or a tombstone value) are dropped.
func (b *dwarfBuilder) addLines(cu *dwarf.Entry) {
	lr, err := b.d.LineReader(cu)
	if err != nil {
		name, _ := cu.Val(dwarf.AttrName).(string)
		b.errorf("line table of compile unit %q: %w", name, err)
		return
	}
	if lr == nil {
		return
	}
	b.seq = b.seq[:0]
	var le dwarf.LineEntry
	for {
		if err := lr.Next(&le); err != nil {
			if !errors.Is(err, io.EOF) {
				name, _ := cu.Val(dwarf.AttrName).(string)
				b.errorf("line table of compile unit %q: %w", name, err)
			}
			return
		}
		file := ""
		if le.File != nil {
			file = le.File.Name
		}
		row := lineRow{addr: le.Address, file: endFile}
		if !le.EndSequence {
			row.file = b.intern(file)
			row.line = uint32(min(max(int64(le.Line), 0), math.MaxUint32))
		}
		if n := len(b.seq); !row.end() && n > 0 {
			// A row repeating the previous position adds nothing.
			if p := b.seq[n-1]; p.file == row.file && p.line == row.line {
				continue
			}
		}
		b.seq = append(b.seq, row)
		if row.end() {
			if len(b.seq) > 1 && b.m.inText(b.seq[0].addr) {
				b.dd.rows = append(b.dd.rows, b.seq...)
			}
			b.seq = b.seq[:0]
		}
	}
}

// intern returns the index of file in b.dd.files.
func (b *dwarfBuilder) intern(file string) uint32 {
	if i, ok := b.fileIdx[file]; ok {
		return i
	}
	i := uint32(len(b.dd.files))
	b.dd.files = append(b.dd.files, file)
	b.fileIdx[file] = i
	return i
}

// addSubprogram records the naming attributes of a subprogram DIE and, when
// it has code, its address ranges.
func (b *dwarfBuilder) addSubprogram(e *dwarf.Entry) {
	var n dieName
	n.name, _ = e.Val(dwarf.AttrName).(string)
	if s, ok := e.Val(dwarf.AttrLinkageName).(string); ok {
		n.linkage = s
	} else if s, ok := e.Val(attrMIPSLinkageName).(string); ok {
		n.linkage = s
	}
	if o, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
		n.ref = o
	} else if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
		n.ref = o
	}
	b.names[e.Offset] = n
	if e.Val(dwarf.AttrLowpc) == nil && e.Val(dwarf.AttrRanges) == nil {
		return
	}
	ranges, err := b.d.Ranges(e)
	if err != nil {
		b.errorf("ranges of subprogram %q: %w", n.name, err)
		return
	}
	for _, r := range ranges {
		if r[1] > r[0] && b.m.inText(r[0]) {
			b.pending = append(b.pending, pendingFunc{off: e.Offset, low: r[0], high: r[1]})
		}
	}
}

// resolveName follows specification and abstract-origin references to find
// the best name of the subprogram at off: its demangled linkage name for C++
// (qualified with namespaces and classes), else its plain name.
func (b *dwarfBuilder) resolveName(off dwarf.Offset) string {
	var name, linkage string
	for range 8 {
		n, ok := b.names[off]
		if !ok {
			break
		}
		if name == "" {
			name = n.name
		}
		if linkage == "" {
			linkage = n.linkage
		}
		if (name != "" && linkage != "") || n.ref == 0 {
			break
		}
		off = n.ref
	}
	switch {
	case strings.HasPrefix(linkage, "_Z"):
		return demangleName(linkage)
	case name != "":
		return name
	default:
		return linkage
	}
}

// finish sorts the tables and returns them in a new dwarfData, so that the
// builder and the DWARF data it references can be collected.
func (b *dwarfBuilder) finish() *dwarfData {
	dd := &dwarfData{files: slices.Clone(b.dd.files), rows: slices.Clone(b.dd.rows), vars: b.layVariables()}
	b.dd = dwarfData{}
	slices.SortStableFunc(dd.rows, func(a, b lineRow) int {
		if c := cmp.Compare(a.addr, b.addr); c != 0 {
			return c
		}
		// At equal addresses an end of sequence comes first, so that a
		// sequence starting where another ends wins.
		switch {
		case a.end() == b.end():
			return 0
		case a.end():
			return -1
		default:
			return 1
		}
	})

	names := make(map[dwarf.Offset]string)
	for _, p := range b.pending {
		name, ok := names[p.off]
		if !ok {
			name = b.resolveName(p.off)
			names[p.off] = name
		}
		dd.funcs = append(dd.funcs, funcRange{low: p.low, high: p.high, name: name})
	}
	slices.SortStableFunc(dd.funcs, func(a, b funcRange) int {
		if c := cmp.Compare(a.low, b.low); c != 0 {
			return c
		}
		return cmp.Compare(b.high, a.high) // larger first, inner last
	})
	dd.funcs = slices.Clip(dd.funcs)
	return dd
}
