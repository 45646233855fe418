package symbolize

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDWARFCache checks that a process reads the DWARF tables of a file
// once, however many symbolizers look into it, and reads them again once
// the file is replaced.
func TestDWARFCache(t *testing.T) {
	p := build(t, buildOpts{flags: []string{"-fno-pie", "-no-pie"}})
	main := p.mods[0]
	load := func() *dwarfData {
		t.Helper()
		s := NewWithOptions([]Module{main}, Options{DebugDirs: []string{}})
		defer s.Close()
		if f := s.Return(p.get(t, "RA")); f.Line == 0 {
			t.Fatalf("no line for the return address: %+v", f)
		}
		return s.byStart[0].dw.Load()
	}
	first := load()
	if again := load(); again != first {
		t.Error("the DWARF of an unchanged file was read again")
	}
	// Replaced by a copy (a new file, as a build writes it): read again,
	// with the same result.
	data, err := os.ReadFile(main.Path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(main.Path), "prog.new")
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, main.Path); err != nil {
		t.Fatal(err)
	}
	replaced := load()
	if replaced == first {
		t.Error("the DWARF of a replaced file came from the cache")
	}
	if len(replaced.funcs) != len(first.funcs) || len(replaced.rows) != len(first.rows) {
		t.Errorf("the replaced file's tables differ: %d functions, %d rows; want %d, %d",
			len(replaced.funcs), len(replaced.rows), len(first.funcs), len(first.rows))
	}
}
