package symbolize

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
	"sync"
)

// A Go executable linked without DWARF (go build -ldflags=-w) keeps the
// line table its runtime reads for stack traces, .gopclntab: the same file,
// line and function for every instruction as the DWARF line table and
// subprograms give, inlined calls included (the line of the innermost
// call, the function that holds the code). A module without DWARF is
// symbolized from it.

// goLines is a Go module's line table, read from .gopclntab.
type goLines struct {
	mu  sync.Mutex // debug/gosym promises no concurrent lookups
	tab *gosym.Table
}

// loadGoLines returns the line table of f's .gopclntab, nil when f has
// none (not a Go executable) or it cannot be read.
func (m *module) loadGoLines(f *elf.File) (gl *goLines) {
	sect, text := f.Section(".gopclntab"), f.Section(".text")
	if sect == nil || text == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			m.addErr(fmt.Errorf("symbolize: reading .gopclntab of %s: malformed data: %v", m.Path, r))
			gl = nil
		}
	}()
	data, err := sect.Data()
	if err != nil {
		m.addErr(fmt.Errorf("symbolize: reading .gopclntab of %s: %w", m.Path, err))
		return nil
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		m.addErr(fmt.Errorf("symbolize: reading .gopclntab of %s: %w", m.Path, err))
		return nil
	}
	return &goLines{tab: tab}
}

// line returns the source position of the file virtual address v.
func (gl *goLines) line(v uint64) (file string, line int, ok bool) {
	gl.mu.Lock()
	defer gl.mu.Unlock()
	file, line, fn := gl.tab.PCToLine(v)
	if fn == nil || file == "" || line <= 0 {
		return "", 0, false
	}
	return file, line, true
}

// function returns the function whose code holds v.
func (gl *goLines) function(v uint64) (funcRange, bool) {
	gl.mu.Lock()
	defer gl.mu.Unlock()
	fn := gl.tab.PCToFunc(v)
	if fn == nil {
		return funcRange{}, false
	}
	return funcRange{low: fn.Entry, high: fn.End, name: fn.Name}, true
}
