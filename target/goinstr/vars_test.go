package goinstr

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Instrument adds to the overlay a file per package (its files, its
// tests, its external tests) that registers its package-level variables,
// under a name no file of the directory has; the test binary builds and
// runs; and Result.Restored lists every variable PackageState finds.
func TestInstrumentRegistersVars(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "pkgvars"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Instrument(Config{Dir: dir, Tests: true, Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var restored []string
	for _, v := range res.Restored {
		restored = append(restored, v.String())
	}
	slices.Sort(restored)
	want := []string{"calls (x_test.go:9)", "count (p.go:8)", "mu (p.go:9)", "seen (p_test.go:5)", "taken (zz_stdbg_vars.go:4)"}
	if !slices.Equal(restored, want) {
		t.Errorf("Restored = %q, want %q", restored, want)
	}
	state, err := PackageState(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range state {
		if !slices.Contains(res.Restored, v) {
			t.Errorf("%s is package state that is not restored", v)
		}
	}
	ov := overlayOf(t, res.Overlay)
	for name, clause := range map[string]string{
		"zz_stdbg_vars1.go":      "package pkgvars\n",
		"zz_stdbg_vars_test.go":  "package pkgvars\n",
		"zz_stdbg_xvars_test.go": "package pkgvars_test\n",
	} {
		b, err := os.ReadFile(ov[filepath.Join(dir, name)])
		if err != nil {
			t.Errorf("no %s in the overlay: %v", name, err)
			continue
		}
		if !strings.Contains(string(b), clause) || !strings.Contains(string(b), "stdbglang.PackageVars(") {
			t.Errorf("%s:\n%s", name, b)
		}
	}
	if _, ok := ov[filepath.Join(dir, "zz_stdbg_vars.go")]; ok {
		t.Errorf("the user's zz_stdbg_vars.go is replaced")
	}
	exe := filepath.Join(t.TempDir(), "pkgvars.test")
	cmd := exec.Command("go", "test", "-c", "-o", exe, "-overlay="+res.Overlay, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	if out, err := exec.Command(exe, "-test.v").CombinedOutput(); err != nil {
		t.Fatalf("the instrumented tests: %v\n%s", err, out)
	}
}

// A variable reached by //go:linkname may be another package's: it is not
// registered; nor is _.
func TestRegistryLeavesLinknames(t *testing.T) {
	const src = `package p

import _ "unsafe"

//go:linkname clock runtime.nanotime
var clock func() int64

var (
	hits int
	_    = hits
)
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "/m/p/p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	r := &registry{pkgs: map[regKey]*regPkg{}, seen: map[string]bool{}}
	r.add("example.com/m", "/m/p/p.go", fset, f)
	files, vars := r.files(nil)
	if len(vars) != 1 || vars[0].String() != "hits (p.go:9)" {
		t.Errorf("registered %v, want hits alone", vars)
	}
	src2, ok := files["/m/p/zz_stdbg_vars.go"]
	if !ok || !strings.Contains(string(src2), `{Name: "hits", Pos: "p.go:9", Addr: &hits},`) {
		t.Errorf("files %q", files)
	}
}
