package symbolize

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildGo builds testdata/goprog into dir with ldflags, and returns the
// executable's path and its module (a non-PIE executable: no bias).
func buildGo(t *testing.T, dir, name, ldflags string) (string, Module) {
	t.Helper()
	exe := filepath.Join(dir, name)
	src, err := filepath.Abs(filepath.Join("testdata", "goprog", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-ldflags="+ldflags, "-o", exe, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := Module{Path: exe}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if m.Start == 0 || p.Vaddr < m.Start {
			m.Start = p.Vaddr
		}
		m.End = max(m.End, p.Vaddr+p.Memsz)
	}
	return exe, m
}

// TestGoWithoutDWARF symbolizes a Go executable linked without DWARF
// (-ldflags=-w, as stdbg grade builds its targets) from its .gopclntab:
// every instruction of the program's functions, and of the runtime's and
// fmt's, gets the file, line and function the DWARF of the same build
// gives.
func TestGoWithoutDWARF(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	withExe, withMod := buildGo(t, dir, "with", "")
	withoutExe, withoutMod := buildGo(t, dir, "without", "-w")
	f, err := elf.Open(withoutExe)
	if err != nil {
		t.Fatal(err)
	}
	if hasDWARF(f) {
		t.Fatalf("%s was linked with -w and has DWARF", withoutExe)
	}
	f.Close()
	f, err = elf.Open(withExe)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	with, without := New([]Module{withMod}), New([]Module{withoutMod})
	defer with.Close()
	defer without.Close()
	compared, inlined := 0, false
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 ||
			!(strings.HasPrefix(s.Name, "main.") || s.Name == "runtime.gopanic" || s.Name == "fmt.Fprintln") {
			continue
		}
		// Every instruction's address, and every return address whose
		// call lies in the function (Return looks up pc-1).
		for pc := s.Value; pc < s.Value+s.Size; pc++ {
			for _, lookup := range []func(*Symbolizer, uint64) Frame{
				(*Symbolizer).Exact,
				func(s *Symbolizer, pc uint64) Frame { return s.Return(pc + 1) },
			} {
				a, b := lookup(with, pc), lookup(without, pc)
				a.Module, b.Module = "", ""
				if a != b {
					t.Fatalf("%s+%#x: with DWARF %v, without %v", s.Name, pc-s.Value, a, b)
				}
				if b.File == "" || b.Line == 0 || b.Func == "" {
					t.Fatalf("%s+%#x: %v has no position", s.Name, pc-s.Value, b)
				}
				if b.Func == "main.count" && b.Line == 14 {
					inlined = true // the line of the inlined add
				}
				compared++
			}
		}
	}
	if compared == 0 {
		t.Fatal("no function of the program found in its symbol table")
	}
	if !inlined {
		t.Errorf("no instruction of main.count symbolized at the line of the inlined add (testdata/goprog/main.go:14)")
	}
	if errs := without.Errors(); len(errs) > 0 {
		t.Errorf("errors reading %s: %v", withoutExe, errs)
	}
}
