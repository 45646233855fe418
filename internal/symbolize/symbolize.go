// Package symbolize turns raw addresses reported by a traced C/C++ process
// into function names, source positions and global-variable names.
//
// The preloaded stdbg library reports code addresses (return addresses of
// intercepted calls, crash backtraces) and data addresses (of mutexes,
// condition variables, ...) together with the process's module map as
// produced by dl_iterate_phdr. A [Symbolizer] built from that map resolves
// the addresses with the ELF symbol tables and the DWARF debug information
// of the modules, reading separate debug files from /usr/lib/debug when the
// modules themselves are stripped. C++ names are demangled. A Go
// executable linked without DWARF (-ldflags=-w) is read from the line
// table the Go runtime keeps for its stack traces (.gopclntab).
//
// Everything is loaded lazily, per module, on the first lookup that needs
// it, and every result is cached. Files that cannot be read or parsed never
// cause a failure: lookups in such modules just return less information
// (see [Symbolizer.Errors] for what went wrong).
package symbolize

import (
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// Module is one loaded ELF object of the target process, as reported by
// dl_iterate_phdr.
type Module struct {
	Path  string // absolute path of the file (the main executable's real path too)
	Bias  uint64 // load bias (dlpi_addr): runtime address = file virtual address + Bias (0 for non-PIE executables)
	Start uint64 // lowest runtime address of its PT_LOAD segments
	End   uint64 // highest runtime address (exclusive)
}

// Options configures a Symbolizer built with [NewWithOptions].
type Options struct {
	// DebugDirs are the roots searched for separate debug files, both
	// by build ID (DIR/.build-id/xx/yyyy.debug) and by .gnu_debuglink
	// (DIR/<directory of the module>/<link name>). Nil means
	// []string{"/usr/lib/debug"}; an empty non-nil slice disables the
	// search in global directories (the module's own directory and its
	// .debug subdirectory are still tried for .gnu_debuglink).
	DebugDirs []string
	// Types names an object inside a global or static variable of a C or
	// C++ module by the array element or structure member that holds it,
	// from the variable's DWARF type: forks[1], b.not_empty, gpair.b
	// instead of forks+40, b+16, gpair+8. The first Data lookup in a
	// module then reads its debug information.
	Types bool
	// CacheDir is a directory where the tables read from a module's
	// debug information (line table, functions, variables' layouts) are
	// kept for other processes, by the content of the module's file and
	// of its separate debug file: reading the C library's debug file
	// takes seconds. "" keeps them in this process only.
	CacheDir string
}

// defaultDebugDirs is used when Options.DebugDirs is nil.
var defaultDebugDirs = []string{"/usr/lib/debug"}

// maxCached bounds the number of cached lookups of each kind. Beyond it,
// results are still computed but no longer remembered.
const maxCached = 1 << 17

// Symbolizer resolves addresses of one process. It is safe for concurrent
// use; opened files, parsed tables and lookup results are cached.
type Symbolizer struct {
	mods      []Module  // as given, sorted by Start
	byStart   []*module // modules with a non-empty range, sorted by Start
	debugDirs []string
	types     bool
	cacheDir  string
	closed    atomic.Bool

	frames  sync.Map // uint64 (lookup address) -> Frame
	nframes atomic.Int64
	data    sync.Map // uint64 -> dataResult
	ndata   atomic.Int64
}

// dataResult is a cached result of Symbolizer.Data.
type dataResult struct {
	name string
	ok   bool
}

// New returns a Symbolizer for a process with the given modules. Nothing is
// read until the first lookup.
func New(mods []Module) *Symbolizer {
	return NewWithOptions(mods, Options{})
}

// NewWithOptions is like [New] with explicit options.
func NewWithOptions(mods []Module, opts Options) *Symbolizer {
	s := &Symbolizer{
		mods:      slices.Clone(mods),
		debugDirs: opts.DebugDirs,
		types:     opts.Types,
		cacheDir:  opts.CacheDir,
	}
	if s.debugDirs == nil {
		s.debugDirs = defaultDebugDirs
	} else {
		s.debugDirs = slices.Clone(s.debugDirs)
	}
	sort.SliceStable(s.mods, func(i, j int) bool { return s.mods[i].Start < s.mods[j].Start })
	for _, m := range s.mods {
		if m.End > m.Start {
			s.byStart = append(s.byStart, &module{Module: m})
		}
	}
	return s
}

// Modules returns a copy of the module map, sorted by start address.
func (s *Symbolizer) Modules() []Module {
	return slices.Clone(s.mods)
}

// Return symbolizes a return address, as found on the stack or reported for
// an intercepted call. The lookup uses pc-1, which lies inside the call
// instruction and hence on the line of the call, but the returned frame
// reports PC = pc.
func (s *Symbolizer) Return(pc uint64) Frame {
	if pc == 0 {
		return Frame{}
	}
	f := s.lookup(pc - 1)
	f.PC = pc
	return f
}

// Exact symbolizes the address of an instruction itself, such as the
// faulting PC of a crash or the entry address of a function.
func (s *Symbolizer) Exact(pc uint64) Frame {
	f := s.lookup(pc)
	f.PC = pc
	return f
}

// Data returns the name of the global or static variable containing addr,
// from the STT_OBJECT symbols of .symtab (or of a separate debug file) and
// .dynsym of the module containing addr: "name" for its first byte,
// "name+8" for an offset inside it; with Options.Types, the element or
// member of the variable that holds it ("name[1]", "name.field"). ok is
// false when no variable is known.
func (s *Symbolizer) Data(addr uint64) (name string, ok bool) {
	if v, hit := s.data.Load(addr); hit {
		r := v.(dataResult)
		return r.name, r.ok
	}
	var r dataResult
	if m := s.module(addr); m != nil {
		sd := m.symbols(s)
		v := addr - m.Bias
		r.name, r.ok = sd.object(v)
		if s.types && r.ok {
			if sym, ok := sd.objectAt(v); ok {
				if vr, ok := m.dwarf(s).variable(v); ok && vr.addr == sym.addr {
					r.name = demangleName(sym.name) + vr.l.path(v-vr.addr)
				}
			}
		}
	}
	if s.ndata.Load() < maxCached {
		if _, loaded := s.data.LoadOrStore(addr, r); !loaded {
			s.ndata.Add(1)
		}
	}
	return r.name, r.ok
}

// Errors returns the problems met so far while reading modules (unreadable
// files, malformed ELF or DWARF data, ...), each naming the file. They do
// not make lookups fail, but explain why a frame lacks information.
func (s *Symbolizer) Errors() []error {
	var errs []error
	for _, m := range s.byStart {
		m.mu.Lock()
		errs = append(errs, m.errs...)
		m.mu.Unlock()
	}
	return errs
}

// Close releases the files held open by the Symbolizer. Lookups remain
// possible afterwards: information already loaded is still used, modules
// not yet loaded yield frames with the module only.
func (s *Symbolizer) Close() error {
	s.closed.Store(true)
	var errs []error
	for _, m := range s.byStart {
		m.mu.Lock()
		errs = append(errs, m.closeFiles()...)
		m.mu.Unlock()
	}
	return errors.Join(errs...)
}

// module returns the module whose address range contains addr, or nil.
func (s *Symbolizer) module(addr uint64) *module {
	i := sort.Search(len(s.byStart), func(i int) bool { return s.byStart[i].Start > addr }) - 1
	// Ranges should not overlap, but tolerate it by looking a little
	// further back.
	for j := i; j >= 0 && j > i-4; j-- {
		if m := s.byStart[j]; addr >= m.Start && addr < m.End {
			return m
		}
	}
	return nil
}

// lookup returns the (cached) frame for the code address addr.
func (s *Symbolizer) lookup(addr uint64) Frame {
	if v, ok := s.frames.Load(addr); ok {
		return v.(Frame)
	}
	f := s.resolve(addr)
	if s.nframes.Load() < maxCached {
		if _, loaded := s.frames.LoadOrStore(addr, f); !loaded {
			s.nframes.Add(1)
		}
	}
	return f
}

// resolve computes the frame for the code address addr.
func (s *Symbolizer) resolve(addr uint64) Frame {
	f := Frame{PC: addr}
	m := s.module(addr)
	if m == nil {
		return f
	}
	f.Module = m.Path
	v := addr - m.Bias
	sd := m.symbols(s)
	dd := m.dwarf(s)
	if file, line, ok := dd.line(v); ok {
		f.File, f.Line = file, line
	}
	if fn, ok := dd.function(v); ok {
		f.Func = fn.name
		if name, ok := sd.preferredAt(fn.low); ok {
			f.Func = name
		}
		if f.Func != "" {
			return f
		}
	}
	f.Func, _ = sd.function(v)
	return f
}
