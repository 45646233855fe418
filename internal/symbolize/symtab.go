package symbolize

import (
	"cmp"
	"debug/elf"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// symbol is one ELF symbol, reduced to what lookups need.
type symbol struct {
	addr, size uint64
	name       string // raw name, possibly mangled, without @version
	global     bool   // STB_GLOBAL or STB_WEAK binding
}

// symtab is a symbol table sorted by address, with at most one symbol (the
// best-named alias) per address.
type symtab []symbol

// symData holds a module's ELF symbol tables. Index 0 is .symtab (of the
// module or of its separate debug file), index 1 is .dynsym.
type symData struct {
	funcs   [2]symtab
	objects [2]symtab
}

// function returns the demangled name of the function symbol containing the
// file virtual address v, trying .symtab before .dynsym.
func (sd *symData) function(v uint64) (string, bool) {
	for _, t := range sd.funcs {
		if s, ok := t.find(v); ok {
			return demangleName(s.name), true
		}
	}
	return "", false
}

// preferredAt returns the demangled name of the function symbol starting
// exactly at v when it is a better name than DWARF's: a global symbol
// carries the public name (glibc's DWARF calls pthread_mutex_lock
// ___pthread_mutex_lock), and a mangled C++ name is fully qualified where
// DWARF may only say "operator()" (lambdas).
func (sd *symData) preferredAt(v uint64) (string, bool) {
	for _, t := range sd.funcs {
		if s, ok := t.at(v); ok && (s.global || strings.HasPrefix(s.name, "_Z")) {
			return demangleName(s.name), true
		}
	}
	return "", false
}

// object returns "name" or "name+off" for the data symbol containing the
// file virtual address v, trying .symtab before .dynsym.
func (sd *symData) object(v uint64) (string, bool) {
	s, ok := sd.objectAt(v)
	if !ok {
		return "", false
	}
	name := demangleName(s.name)
	if off := v - s.addr; off != 0 {
		name = fmt.Sprintf("%s+%d", name, off)
	}
	return name, true
}

// objectAt returns the data symbol containing the file virtual address
// v, trying .symtab before .dynsym.
func (sd *symData) objectAt(v uint64) (symbol, bool) {
	for _, t := range sd.objects {
		if s, ok := t.find(v); ok {
			return s, true
		}
	}
	return symbol{}, false
}

// isFuncSym selects code symbols.
func isFuncSym(s *elf.Symbol) bool {
	t := elf.ST_TYPE(s.Info)
	return t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC
}

// isObjectSym selects data symbols (thread-local ones have no fixed address
// and are left out).
func isObjectSym(s *elf.Symbol) bool {
	t := elf.ST_TYPE(s.Info)
	return t == elf.STT_OBJECT || t == elf.STT_COMMON
}

// buildSymtab selects the defined symbols accepted by want, keeps the best
// name among aliases at the same address and sorts them by address.
func buildSymtab(syms []elf.Symbol, want func(*elf.Symbol) bool) symtab {
	var t symtab
	for i := range syms {
		s := &syms[i]
		if !want(s) || s.Section == elf.SHN_UNDEF || s.Value == 0 || s.Name == "" {
			continue
		}
		name, _, _ := strings.Cut(s.Name, "@")
		if name == "" {
			continue
		}
		b := elf.ST_BIND(s.Info)
		t = append(t, symbol{
			addr:   s.Value,
			size:   s.Size,
			name:   name,
			global: b == elf.STB_GLOBAL || b == elf.STB_WEAK,
		})
	}
	slices.SortFunc(t, func(a, b symbol) int {
		if c := cmp.Compare(a.addr, b.addr); c != 0 {
			return c
		}
		return compareNames(a, b)
	})
	// Keep the first (best) alias per address, with the largest size.
	out := t[:0]
	for _, s := range t {
		if n := len(out); n > 0 && out[n-1].addr == s.addr {
			out[n-1].size = max(out[n-1].size, s.size)
			continue
		}
		out = append(out, s)
	}
	return slices.Clip(out)
}

// compareNames orders aliases, best first: global before local, fewer
// leading underscores (pthread_mutex_lock before __pthread_mutex_lock), then
// shorter, then alphabetical for determinism.
func compareNames(a, b symbol) int {
	if a.global != b.global {
		if a.global {
			return -1
		}
		return 1
	}
	ua := len(a.name) - len(strings.TrimLeft(a.name, "_"))
	ub := len(b.name) - len(strings.TrimLeft(b.name, "_"))
	if c := cmp.Compare(ua, ub); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.name), len(b.name)); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}

// find returns the symbol whose extent contains v. A symbol of size zero
// only contains its own address.
func (t symtab) find(v uint64) (symbol, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].addr > v }) - 1
	// The nearest symbol below v may be a small one nested in a larger
	// one (or of size zero); look a little further back.
	for j := i; j >= 0 && j > i-8; j-- {
		s := t[j]
		if v == s.addr || v-s.addr < s.size {
			return s, true
		}
	}
	return symbol{}, false
}

// at returns the symbol starting exactly at v.
func (t symtab) at(v uint64) (symbol, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].addr >= v })
	if i < len(t) && t[i].addr == v {
		return t[i], true
	}
	return symbol{}, false
}

// demangleName demangles a C++ name without its parameter list
// ("_ZNSt6thread4joinEv" becomes "std::thread::join"), returning other
// names unchanged.
func demangleName(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return name
	}
	d, err := demangle.ToString(name, demangle.NoParams)
	if err != nil || d == "" {
		return name
	}
	return d
}
