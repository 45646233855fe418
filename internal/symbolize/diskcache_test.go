package symbolize

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// forget empties the tables kept in this process, so that the next
// symbolizer reads its module again (from the cache directory or DWARF).
func forget() {
	dwarfCache.mu.Lock()
	clear(dwarfCache.m)
	dwarfCache.mu.Unlock()
}

// TestDWARFDiskCache checks that the tables of a module are kept in the
// cache directory by its content: another process (here, another
// symbolizer after the process's own tables are forgotten) reads them
// from there, identical to what DWARF gives; a changed file, or a damaged
// cache file, is read from its DWARF again.
func TestDWARFDiskCache(t *testing.T) {
	p := build(t, buildOpts{flags: []string{"-fno-pie", "-no-pie"}})
	main := p.mods[0]
	cache := t.TempDir()
	load := func(dir string) (*dwarfData, Frame) {
		t.Helper()
		forget()
		s := NewWithOptions([]Module{main}, Options{DebugDirs: []string{}, CacheDir: dir})
		defer s.Close()
		f := s.Return(p.get(t, "RA"))
		if f.Line == 0 {
			t.Fatalf("no line for the return address: %+v", f)
		}
		return s.byStart[0].dw.Load(), f
	}
	fromDWARF, want := load("")
	if len(fromDWARF.vars) == 0 || len(fromDWARF.funcs) == 0 {
		t.Fatalf("the test program gives no variables or functions: %d, %d", len(fromDWARF.vars), len(fromDWARF.funcs))
	}
	first, _ := load(cache)
	files, _ := filepath.Glob(filepath.Join(cache, "dwarf", "*"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	if !reflect.DeepEqual(first, fromDWARF) {
		t.Fatal("the tables read with a cache directory differ from DWARF's")
	}

	// Read back: the same tables. Then planted: lines moved in the file
	// show that the file is what the next process reads.
	back := readDWARFCache(files[0])
	if !reflect.DeepEqual(back, fromDWARF) {
		t.Fatal("the cache file does not read back as written")
	}
	planted := *back
	planted.rows = append([]lineRow(nil), back.rows...)
	for i := range planted.rows {
		planted.rows[i].line += 1000
	}
	writeDWARFCache(files[0], &planted)
	if _, f := load(cache); f.Line != want.Line+1000 {
		t.Errorf("line %d, want the cache file's %d", f.Line, want.Line+1000)
	}

	// A damaged file is not trusted: the tables come from DWARF.
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(data) / 2, len(data) - 1, len(dwarfCacheFormat)} {
		if err := os.WriteFile(files[0], data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if dd, f := load(cache); f.Line != want.Line || !reflect.DeepEqual(dd, fromDWARF) {
			t.Errorf("cut at %d bytes: line %d, want %d from DWARF", cut, f.Line, want.Line)
		}
	}

	// Another content, another cache file.
	exe, err := os.ReadFile(main.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main.Path, append(exe, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	load(cache)
	if files, _ := filepath.Glob(filepath.Join(cache, "dwarf", "*")); len(files) != 2 {
		t.Errorf("after the module changed: cache files %v, want two", files)
	}
}
