package rt

import (
	"debug/elf"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// goSymbols resolves the addresses of an in-process execution for package
// report: code addresses through the Go runtime's tables, objects by their
// global variable's name or as family#n, other data addresses by the
// executable's symbol table.
type goSymbols struct {
	r     *Runner
	ex    *Execution
	names map[uint64]string // objects named by number
}

// newSymbols returns the symbols of execution ex of r. Objects are named
// after the global variable they are, or else as the user's code names
// them at their first use ("mu" for a first use mu.Lock()), or else
// numbered per family (mutex#1) in the order they appear in trace and
// blocked.
//
//go:norace
func newSymbols(r *Runner, ex *Execution, trace []executor.Step, blocked []executor.Blocked) *goSymbols {
	s := &goSymbols{r: r, ex: ex, names: map[uint64]string{}}
	taken := map[string]bool{}
	spoken := spokenNames(trace, blocked)
	counts := map[Family]int{}
	name := func(id uint64) {
		if s.names[id] != "" {
			return
		}
		var fam Family
		if id > idBase && id <= idBase+uint64(len(ex.objs)) {
			o := ex.objs[id-idBase-1]
			fam = o.fam
			if n, ok := globalName(uint64(o.addr)); ok && !taken[n] {
				s.names[id], taken[n] = n, true
				return
			}
		} else if n, ok := globalName(id); ok {
			s.names[id], taken[n] = n, true
			return
		}
		if n := spoken[id]; n != "" && !taken[n] {
			s.names[id], taken[n] = n, true
			return
		}
		if fam != 0 {
			counts[fam]++
			s.names[id] = fmt.Sprintf("%s#%d", familyNames[fam], counts[fam])
		}
	}
	for _, st := range trace {
		for _, id := range opObjects(st.Op) {
			name(id)
		}
	}
	for _, b := range blocked {
		for _, id := range opObjects(b.Op) {
			name(id)
		}
	}
	for i := range ex.objs {
		name(idBase + uint64(i) + 1)
	}
	return s
}

// spokenNames returns how the user's code names the objects of the
// operations of trace and blocked at their first use, read from the source
// lines of the operations.
//
//go:norace
func spokenNames(trace []executor.Step, blocked []executor.Blocked) map[uint64]string {
	spoken := map[uint64]string{}
	see := func(op syncmodel.Op, frames []uint64) {
		var line string
		if len(frames) > 0 {
			fr := userFrame(uintptr(frames[0]))
			line, _ = symbolize.SourceLine(fr.File, fr.Line)
		}
		switch {
		case op.Kind == syncmodel.Select || op.Cases != nil:
			for i, c := range op.Cases {
				method := "RecvCase"
				if c.Send {
					method = "SendCase"
				}
				if _, ok := spoken[c.Chan]; !ok {
					spoken[c.Chan] = receiverOf(line, method, countCases(op.Cases[:i], c.Send))
				}
			}
		case op.Obj != 0:
			if _, ok := spoken[op.Obj]; !ok {
				spoken[op.Obj] = nameAt(op, line)
			}
		}
	}
	for _, st := range trace {
		see(st.Op, st.Frames)
	}
	for _, b := range blocked {
		see(b.Op, b.Frames)
	}
	return spoken
}

// opObjects returns the objects an operation names.
//
//go:norace
func opObjects(op syncmodel.Op) []uint64 {
	ids := []uint64{op.Obj}
	for _, c := range op.Cases {
		ids = append(ids, c.Chan)
	}
	return ids
}

// countCases counts the cases of the given direction.
//
//go:norace
func countCases(cases []syncmodel.Case, send bool) int {
	n := 0
	for _, c := range cases {
		if c.Send == send {
			n++
		}
	}
	return n
}

// nameAt returns how the source line of op names its object: the receiver
// of the method called ("s.mu" in s.mu.Lock()), or the variable whose
// address is given to sthread.Read and sthread.Write; "" if it cannot tell.
//
//go:norace
func nameAt(op syncmodel.Op, line string) string {
	api := op.API.String()
	method := api[strings.LastIndexByte(api, '.')+1:]
	switch op.API {
	case syncmodel.APIGoRead, syncmodel.APIGoWrite:
		i := strings.Index(line, api+"(")
		if i < 0 {
			return ""
		}
		arg := strings.TrimPrefix(line[i+len(api)+1:], "&")
		n := 0
		for n < len(arg) && isNameByte(arg[n]) {
			n++
		}
		return arg[:n]
	case syncmodel.APIWaitGroupAdd:
		if n := receiverOf(line, method, 0); n != "" {
			return n
		}
		return receiverOf(line, "Go", 0)
	}
	return receiverOf(line, method, 0)
}

// receiverOf returns the receiver of the k-th call of method in line ("a"
// in a.Lock()), or "" if there is none.
//
//go:norace
func receiverOf(line, method string, k int) string {
	needle := "." + method + "("
	off := 0
	for {
		i := strings.Index(line[off:], needle)
		if i < 0 {
			return ""
		}
		i += off
		if k == 0 {
			j := i
			for j > 0 && (isNameByte(line[j-1]) || line[j-1] == '.') {
				j--
			}
			return strings.Trim(line[j:i], ".")
		}
		k--
		off = i + len(needle)
	}
}

//go:norace
func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Return implements report.Symbols.
//
//go:norace
func (s *goSymbols) Return(pc uint64) symbolize.Frame {
	if f, ok := s.r.known.Load(pc); ok {
		return f.(symbolize.Frame)
	}
	fr := userFrame(uintptr(pc))
	return symbolize.Frame{PC: pc, Func: shortName(fr.Function), File: fr.File, Line: fr.Line}
}

// Exact implements report.Symbols.
//
//go:norace
func (s *goSymbols) Exact(pc uint64) symbolize.Frame { return s.Return(pc + 1) }

// Data implements report.Symbols.
//
//go:norace
func (s *goSymbols) Data(addr uint64) (string, bool) {
	if n, ok := s.names[addr]; ok {
		return n, true
	}
	return globalName(addr)
}

var idPattern = regexp.MustCompile(`0x[0-9a-f]+`)

// nameIDs replaces the object ids in a model message by their names.
//
//go:norace
func (s *goSymbols) nameIDs(msg string) string {
	return idPattern.ReplaceAllStringFunc(msg, func(h string) string {
		v, err := strconv.ParseUint(h[2:], 16, 64)
		if err != nil || v <= idBase {
			return h
		}
		if n, ok := s.Data(v); ok {
			return n
		}
		return h
	})
}

// anchor locates the executable in memory: its address minus its symbol's
// value is the load bias.
var anchor byte

var exe struct {
	once sync.Once
	syms *symbolize.Symbolizer
}

// globalName returns the name of the global variable at addr ("first",
// "state+8"), from the executable's symbol table.
//
//go:norace
func globalName(addr uint64) (string, bool) {
	exe.once.Do(func() { exe.syms = loadExecutable() })
	if exe.syms == nil {
		return "", false
	}
	n, ok := exe.syms.Data(addr)
	if !ok {
		return "", false
	}
	return shortName(n), true
}

// loadExecutable returns a symbolizer of the running executable, or nil if
// it cannot be read.
//
//go:norace
func loadExecutable() *symbolize.Symbolizer {
	path, err := os.Executable()
	if err != nil {
		return nil
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil
	}
	var value uint64
	for _, s := range syms {
		if s.Name == rtPrefix+"anchor" {
			value = s.Value
			break
		}
	}
	if value == 0 {
		return nil
	}
	bias := uint64(uintptr(unsafe.Pointer(&anchor))) - value
	var lo, hi uint64
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if lo == 0 || p.Vaddr < lo {
			lo = p.Vaddr
		}
		hi = max(hi, p.Vaddr+p.Memsz)
	}
	return symbolize.New([]symbolize.Module{{Path: path, Bias: bias, Start: lo + bias, End: hi + bias}})
}
