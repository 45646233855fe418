package symbolize

import (
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
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

	mu    sync.Mutex
	file  *elf.File   // the module itself, nil when not open
	dbg   *elf.File   // separate debug file, nil if none
	text  [][2]uint64 // file virtual address ranges of executable PT_LOAD segments
	errs  []error
	tried bool // the file has been opened (or the attempt failed)
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
	m.symbolsLocked(s) // opens the files
	dd := m.loadDWARF()
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
		dbg, err := findDebugFile(f, m.Path, s.debugDirs)
		if err != nil {
			m.addErr(err)
		}
		m.dbg = dbg
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
