package symbolize

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/internal/cachedir"
)

// The tables a module's DWARF gives are kept in a cache directory between
// processes, in a file named by the SHA-256 of the module's file and of
// its separate debug file (their contents, not their names or dates) and
// of the format's version: a changed file, or a debug file installed or
// removed, names another cache file.

// dwarfCacheFormat is the first line of a cache file; a change of what is
// written changes it.
const dwarfCacheFormat = "stdbg dwarf tables 1\n"

// maxCacheFile bounds the cache files read (a damaged or foreign file is
// not trusted to say its own sizes).
const maxCacheFile = 1 << 30

// diskCachePath returns the cache file of m's tables under dir, "" when
// its files cannot be read.
func (m *module) diskCachePath(dir string) string {
	h := sha256.New()
	io.WriteString(h, dwarfCacheFormat)
	for _, p := range []string{m.Path, m.dbgPath} {
		if p == "" {
			io.WriteString(h, "-")
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return ""
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return ""
		}
		io.WriteString(h, "+")
	}
	return filepath.Join(dir, "dwarf", hex.EncodeToString(h.Sum(nil))[:32])
}

// readDWARFCache returns the tables kept in the cache file p, nil when
// there are none (or "" was given, or the file does not read back).
func readDWARFCache(p string) *dwarfData {
	if p == "" {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil || len(data) > maxCacheFile {
		return nil
	}
	dd, err := decodeDWARF(data)
	if err != nil {
		return nil
	}
	cachedir.Used(p)
	return dd
}

// writeDWARFCache keeps dd in the cache file p; a cache that cannot be
// written is only a cache.
func writeDWARFCache(p string, dd *dwarfData) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	atomicfile.Write(p, encodeDWARF(dd))
}

// encodeDWARF writes dd: its files, rows, functions, then the layouts of
// its variables, each after the layouts it refers to, and the variables
// by the index of their layout.
func encodeDWARF(dd *dwarfData) []byte {
	var b bytes.Buffer
	b.WriteString(dwarfCacheFormat)
	var tmp [binary.MaxVarintLen64]byte
	num := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	str := func(s string) { num(uint64(len(s))); b.WriteString(s) }

	num(uint64(len(dd.files)))
	for _, f := range dd.files {
		str(f)
	}
	num(uint64(len(dd.rows)))
	for _, r := range dd.rows {
		num(r.addr)
		num(uint64(r.file))
		num(uint64(r.line))
	}
	num(uint64(len(dd.funcs)))
	for _, f := range dd.funcs {
		num(f.low)
		num(f.high)
		str(f.name)
	}

	index := map[*layout]uint64{}
	var order []*layout
	var visit func(l *layout)
	visit = func(l *layout) {
		if _, ok := index[l]; ok {
			return
		}
		if l.elem != nil {
			visit(l.elem)
		}
		for _, f := range l.fields {
			if f.l != nil {
				visit(f.l)
			}
		}
		index[l] = uint64(len(order))
		order = append(order, l)
	}
	for _, v := range dd.vars {
		visit(v.l)
	}
	// ref is a layout's index + 1, 0 for none.
	ref := func(l *layout) uint64 {
		if l == nil {
			return 0
		}
		return index[l] + 1
	}
	num(uint64(len(order)))
	for _, l := range order {
		num(l.size)
		num(ref(l.elem))
		b.Write(tmp[:binary.PutVarint(tmp[:], l.count)])
		num(uint64(len(l.fields)))
		for _, f := range l.fields {
			str(f.name)
			num(f.off)
			num(ref(f.l))
		}
	}
	num(uint64(len(dd.vars)))
	for _, v := range dd.vars {
		num(v.addr)
		num(ref(v.l))
	}
	return b.Bytes()
}

// errCacheFile says that a cache file does not read back.
var errCacheFile = errors.New("symbolize: damaged cache file")

// decodeDWARF reads back what encodeDWARF wrote.
func decodeDWARF(data []byte) (*dwarfData, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	head := make([]byte, len(dwarfCacheFormat))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != dwarfCacheFormat {
		return nil, errCacheFile
	}
	var bad bool
	num := func() uint64 {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			bad = true
		}
		return v
	}
	// count reads a number of items, each at least one byte long.
	count := func() int {
		n := num()
		if n > uint64(len(data)) {
			bad = true
			return 0
		}
		return int(n)
	}
	str := func() string {
		n := count()
		if bad {
			return ""
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			bad = true
		}
		return string(buf)
	}

	dd := &dwarfData{}
	for n := count(); n > 0 && !bad; n-- {
		dd.files = append(dd.files, str())
	}
	for n := count(); n > 0 && !bad; n-- {
		row := lineRow{addr: num(), file: uint32(num()), line: uint32(num())}
		if !row.end() && int(row.file) >= len(dd.files) {
			bad = true
		}
		dd.rows = append(dd.rows, row)
	}
	for n := count(); n > 0 && !bad; n-- {
		dd.funcs = append(dd.funcs, funcRange{low: num(), high: num(), name: str()})
	}
	var layouts []*layout
	get := func(ref uint64) *layout {
		if ref == 0 {
			return nil
		}
		if ref > uint64(len(layouts)) {
			bad = true
			return nil
		}
		return layouts[ref-1]
	}
	for n := count(); n > 0 && !bad; n-- {
		l := &layout{size: num()}
		l.elem = get(num())
		c, err := binary.ReadVarint(r)
		if err != nil {
			bad = true
		}
		l.count = c
		for k := count(); k > 0 && !bad; k-- {
			l.fields = append(l.fields, member{name: str(), off: num(), l: get(num())})
		}
		layouts = append(layouts, l)
	}
	for n := count(); n > 0 && !bad; n-- {
		v := variable{addr: num(), l: get(num())}
		if v.l == nil {
			bad = true
		}
		dd.vars = append(dd.vars, v)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		bad = true // trailing bytes
	}
	if bad {
		return nil, errCacheFile
	}
	return dd, nil
}
