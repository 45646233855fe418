package goinstr

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A Go target's start lists its build once for the source key, the
// package state and the default GODEBUG, and again only when a file of its
// module changed.
func TestListedOnce(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/l\n\ngo 1.22\n\ngodebug panicnil=1\n",
		"l.go":        "package l\n\nvar Count int\n",
		"l_test.go":   "package l\n\nimport \"testing\"\n\nfunc TestL(t *testing.T) { Count++ }\n",
		"sub/sub.go":  "package sub\n\nvar Names []string\n",
		"sub/use.go":  "package sub\n",
		"other/o.go":  "package other\n\nvar Unused bool\n",
		"other/o2.go": "package other\n",
		"off.go":      "//go:build never\n\npackage l\n\nvar Off int\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := func() []string {
		t.Helper()
		vars, err := PackageState(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range vars {
			out = append(out, v.Name)
		}
		slices.Sort(out)
		return out
	}
	before := goLists.Load()
	if got := names(); !slices.Equal(got, []string{"Count"}) {
		t.Errorf("variables %q, want Count", got)
	}
	godebug, err := defaultGodebug(dir, true)
	if err != nil || !slices.Contains(godebug, "panicnil=1") {
		t.Errorf("default GODEBUG %q, %v: want panicnil=1 among them", godebug, err)
	}
	if _, _, _, _, err := sourceKey(Config{Dir: dir, Tests: true}); err != nil {
		t.Fatal(err)
	}
	if n := goLists.Load() - before; n != 1 {
		t.Errorf("%d go lists for the three, want 1", n)
	}
	// The package now imports sub: listed again, sub's variable with it.
	if err := os.WriteFile(filepath.Join(dir, "l.go"), []byte("package l\n\nimport _ \"example.com/l/sub\"\n\nvar Count int\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"Count", "Names"}) {
		t.Errorf("after an import: variables %q, want Count and Names", got)
	}
	// A file added to sub (its directory changes).
	if err := os.WriteFile(filepath.Join(dir, "sub", "more.go"), []byte("package sub\n\nvar More int\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"Count", "More", "Names"}) {
		t.Errorf("after a file added: variables %q, want Count, More and Names", got)
	}
	// A file left out by its build constraint now built (edited in
	// place: its directory does not change).
	if err := os.WriteFile(filepath.Join(dir, "off.go"), []byte("package l\n\nvar Off int\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"Count", "More", "Names", "Off"}) {
		t.Errorf("after a file built: variables %q, want Count, More, Names and Off", got)
	}
	if n := goLists.Load() - before; n != 4 {
		t.Errorf("%d go lists, want 4 (one per state of the module)", n)
	}
}
