package symbolize

import (
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// module is the lazily loaded symbol and debug information of one Module.
//
// Loading happens in two stages, each at most once: symbols (ELF symbol
// tables; also opens the file and finds a separate debug file) and dwarf
// (line table and function ranges). The results are published through
// atomic pointers so that lookups after loading take no lock; mu
// serializes loading and guards the open files and errs.
type module struct {
	Module

	syms atomic.Pointer[symData]
	dw   atomic.Pointer[dwarfData]

	mu      sync.Mutex
	file    *elf.File   // the module itself, nil when not open
	dbg     *elf.File   // separate debug file, nil if none
	dbgPath string      // its path
	text    [][2]uint64 // file virtual address ranges of executable PT_LOAD segments
	errs    []error
	tried   bool // the file has been opened (or the attempt failed)
}

// symbols returns the module's symbol tables, loading them on first use.
// It never returns nil.
func (m *module) symbols(s *Symbolizer) *symData {
	if sd := m.syms.Load(); sd != nil {
		return sd
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.symbolsLocked(s)
}

// symbolsLocked is symbols with m.mu held.
func (m *module) symbolsLocked(s *Symbolizer) *symData {
	if sd := m.syms.Load(); sd != nil {
		return sd
	}
	sd := m.loadSymbols(s)
	m.syms.Store(sd)
	return sd
}

// dwarf returns the module's DWARF tables, loading them on first use. It
// never returns nil.
func (m *module) dwarf(s *Symbolizer) *dwarfData {
	if dd := m.dw.Load(); dd != nil {
		return dd
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if dd := m.dw.Load(); dd != nil {
		return dd
	}
	key, keyed := dwarfKeyOf(m.Path, s.debugDirs)
	if keyed && !s.closed.Load() {
		if e, ok := dwarfCache.get(key); ok {
			m.errs = append(m.errs, e.errs...)
			m.dw.Store(e.dd)
			return e.dd
		}
	}
	m.symbolsLocked(s) // opens the files
	n, opened := len(m.errs), m.file != nil
	var disk string // the file of the tables in s's cache directory
	if opened && s.cacheDir != "" {
		disk = m.diskCachePath(s.cacheDir)
	}
	var dd *dwarfData
	if opened && m.dbg == nil && !hasDWARF(m.file) {
		// A Go executable linked without DWARF: its own line table,
		// read in place (nothing to keep in the cache directory).
		if gl := m.loadGoLines(m.file); gl != nil {
			dd, disk = &dwarfData{golines: gl}, ""
		}
	}
	if dd == nil {
		dd = readDWARFCache(disk)
	}
	if dd == nil {
		dd = m.loadDWARF()
		if disk != "" && len(m.errs) == n {
			writeDWARFCache(disk, dd)
		}
	}
	if keyed && opened {
		dwarfCache.put(key, dwarfEntry{dd: dd, errs: slices.Clone(m.errs[n:])})
	}
	m.dw.Store(dd)
	// Everything has been extracted; the files are no longer needed.
	m.errs = append(m.errs, m.closeFiles()...)
	return dd
}

// addErr records a problem with the module's files.
func (m *module) addErr(err error) {
	if len(m.errs) < 16 {
		m.errs = append(m.errs, err)
	}
}

// closeFiles closes the open files; m.mu must be held.
func (m *module) closeFiles() []error {
	var errs []error
	for _, f := range []**elf.File{&m.file, &m.dbg} {
		if *f != nil {
			if err := (*f).Close(); err != nil {
				errs = append(errs, fmt.Errorf("symbolize: closing file of %s: %w", m.Path, err))
			}
			*f = nil
		}
	}
	return errs
}

// open opens the module's file and its separate debug file, if any; m.mu
// must be held. It is attempted once.
func (m *module) open(s *Symbolizer) {
	if m.tried || s.closed.Load() {
		return
	}
	m.tried = true
	if m.Path == "" || !filepath.IsAbs(m.Path) {
		// Pseudo modules such as linux-vdso.so.1 have no file; never
		// open a relative path in the current directory instead.
		return
	}
	f, err := elf.Open(m.Path)
	if err != nil {
		m.addErr(fmt.Errorf("symbolize: opening module %s: %w", m.Path, err))
		return
	}
	m.file = f
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Memsz > 0 {
			m.text = append(m.text, [2]uint64{p.Vaddr, p.Vaddr + p.Memsz})
		}
	}
	if !hasDWARF(f) {
		dbg, dbgPath, err := findDebugFile(f, m.Path, s.debugDirs)
		if err != nil {
			m.addErr(err)
		}
		m.dbg, m.dbgPath = dbg, dbgPath
	}
}

// inText reports whether the file virtual address v lies in an executable
// segment. Without program headers every non-zero address qualifies.
func (m *module) inText(v uint64) bool {
	if len(m.text) == 0 {
		return v != 0
	}
	for _, r := range m.text {
		if v >= r[0] && v < r[1] {
			return true
		}
	}
	return false
}

// loadSymbols reads the ELF symbol tables; m.mu must be held.
func (m *module) loadSymbols(s *Symbolizer) (sd *symData) {
	sd = &symData{}
	defer func() {
		if r := recover(); r != nil {
			m.addErr(fmt.Errorf("symbolize: reading symbols of %s: malformed file: %v", m.Path, r))
			sd = &symData{}
		}
	}()
	m.open(s)
	if m.file == nil {
		return sd
	}
	syms, err := m.file.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) && m.dbg != nil {
		syms, err = m.dbg.Symbols()
	}
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		m.addErr(fmt.Errorf("symbolize: reading .symtab of %s: %w", m.Path, err))
	}
	sd.funcs[0] = buildSymtab(syms, isFuncSym)
	sd.objects[0] = buildSymtab(syms, isObjectSym)

	dyn, err := m.file.DynamicSymbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		m.addErr(fmt.Errorf("symbolize: reading .dynsym of %s: %w", m.Path, err))
	}
	sd.funcs[1] = buildSymtab(dyn, isFuncSym)
	sd.objects[1] = buildSymtab(dyn, isObjectSym)
	return sd
}

// hasDWARF reports whether f carries its own debug information.
func hasDWARF(f *elf.File) bool {
	return f.Section(".debug_info") != nil || f.Section(".zdebug_info") != nil
}

// dwarfCache keeps the DWARF tables read in this process, by the identity
// of the module's file: reading them (decompressing, walking every entry)
// is most of the cost of symbolizing, and a process that symbolizes again
// and again (a search that reports many bugs, a test binary running many
// searches) meets the same programs and libraries. A file rebuilt or
// replaced has another inode, size or modification time, so another key.
var dwarfCache = &dwarfStore{m: make(map[dwarfKey]dwarfEntry)}

// dwarfCacheMax bounds the tables kept; past it the cache starts afresh.
const dwarfCacheMax = 32

// dwarfKey identifies a module's file, and the directories its separate
// debug file was looked for in.
type dwarfKey struct {
	path       string
	dev, ino   uint64
	size, nsec int64
	dirs       string
}

// dwarfEntry is what reading a module's DWARF gave: its tables and the
// problems met.
type dwarfEntry struct {
	dd   *dwarfData
	errs []error
}

type dwarfStore struct {
	mu sync.Mutex
	m  map[dwarfKey]dwarfEntry
}

func (c *dwarfStore) get(k dwarfKey) (dwarfEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	return e, ok
}

func (c *dwarfStore) put(k dwarfKey, e dwarfEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= dwarfCacheMax {
		clear(c.m)
	}
	c.m[k] = e
}

// dwarfKeyOf returns the key of the module file at path; false when it
// cannot be had (no such file, a pseudo module).
func dwarfKeyOf(path string, dirs []string) (dwarfKey, bool) {
	if path == "" || !filepath.IsAbs(path) {
		return dwarfKey{}, false
	}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return dwarfKey{}, false
	}
	return dwarfKey{path: path, dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		nsec: st.Mtim.Sec*1e9 + st.Mtim.Nsec, dirs: strings.Join(dirs, "\x00")}, true
}
