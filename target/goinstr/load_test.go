package goinstr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestLoadMainRewritesAlike checks that the main module's packages loaded
// from the listing and export data (loadMain) are rewritten exactly as
// those go/packages loads: the same files, byte for byte, the same
// warnings and the same variables to put back, for the programs of
// testdata and ten of examples/go/plain; and that no go list -export runs the
// second time a program with the same imports of the standard library
// is loaded, one when the export files kept are gone.
func TestLoadMainRewritesAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a dozen programs twice")
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, ex := range []string{"bufpool", "condsignal", "ctxcancel", "everyday", "fanin", "longsetup", "pkginit", "processstate", "timerstop", "wgchan"} {
		dirs = append(dirs, filepath.Join("..", "..", "examples", "go", "plain", ex))
	}
	cache := t.TempDir()
	loaded := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(m) == 0 {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg := Config{Dir: dir, Cache: cache, Deps: Deps{None: true}}
			_, pkgs, deps, outside, err := sourceKey(cfg)
			if err != nil {
				t.Skipf("not a program: %v", err)
			}
			fast := fastLoads.Load()
			res, files, err := rewritePackages(cfg, pkgs, deps, outside)
			if fastLoads.Load() == fast {
				t.Skip("not loaded from the listing (tests only, cgo)")
			}
			slowLoad = true
			defer func() { slowLoad = false }()
			want, wantFiles, wantErr := rewritePackages(cfg, pkgs, deps, outside)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("loaded from the listing: %v; by go/packages: %v", err, wantErr)
			}
			if err != nil {
				return
			}
			loaded++
			for name, b := range wantFiles {
				if string(files[name]) != string(b) {
					t.Errorf("%s rewritten otherwise:\n%s\nby go/packages:\n%s", name, files[name], b)
				}
			}
			for name := range files {
				if _, ok := wantFiles[name]; !ok {
					t.Errorf("%s rewritten, not by go/packages", name)
				}
			}
			if !reflect.DeepEqual(res, want) {
				t.Errorf("result %+v, by go/packages %+v", res, want)
			}
		})
	}
	if loaded < 10 {
		t.Errorf("%d programs loaded from the listing, want 10 or more", loaded)
	}

	// The export data of the standard library's packages comes from the
	// cache the second time.
	dir := filepath.Join("testdata", "maprange")
	cfg := Config{Dir: dir, Cache: cache, Deps: Deps{None: true}}
	_, pkgs, deps, outside, err := sourceKey(cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := exportLists.Load()
	for range 2 {
		if _, _, err := rewritePackages(cfg, pkgs, deps, outside); err != nil {
			t.Fatal(err)
		}
	}
	if n := exportLists.Load() - before; n != 0 {
		t.Errorf("%d go list -export for a program loaded before, want none", n)
	}
	// A file the cache names that is gone (the go command trims its
	// cache) is listed again.
	kept, _ := filepath.Glob(filepath.Join(cache, "goinstr", "std-export-*.json"))
	if len(kept) != 1 {
		t.Fatalf("%d files of the standard library's export data kept, want 1", len(kept))
	}
	b, err := os.ReadFile(kept[0])
	if err != nil {
		t.Fatal(err)
	}
	var files map[string]string
	if err := json.Unmarshal(b, &files); err != nil {
		t.Fatal(err)
	}
	for p := range files {
		files[p] = filepath.Join(t.TempDir(), "gone")
	}
	if b, err = json.Marshal(files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	before = exportLists.Load()
	if _, _, err := rewritePackages(cfg, pkgs, deps, outside); err != nil {
		t.Fatal(err)
	}
	if n := exportLists.Load() - before; n != 1 {
		t.Errorf("%d go list -export when the kept files are gone, want 1", n)
	}
	if !slices.Contains(dirs, dir) {
		t.Errorf("%s is not among the programs compared", dir)
	}
}
