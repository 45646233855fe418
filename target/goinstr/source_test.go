package goinstr

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg"
	"golang.org/x/mod/modfile"
)

// goList runs go list -deps in stdbg's module root with format, for pkgs,
// and returns its lines.
func goList(t *testing.T, format string, pkgs ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", format}, pkgs...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

// TestSourcesComplete checks that stdbg.Sources holds every file of every
// package of stdbg's module that sthread's packages and the instrumenter
// import (an import added to sthread without its package in the embed
// patterns would break every build of plain Go made by an installed
// stdbg), and no package that none of them imports.
func TestSourcesComplete(t *testing.T) {
	const format = `{{if and .Module .Module.Main}}{{$d := .ImportPath}}{{range .GoFiles}}{{$d}}/{{.}} {{end}}{{range .SFiles}}{{$d}}/{{.}} {{end}}{{range .IgnoredGoFiles}}{{$d}}/{{.}} {{end}}{{end}}`
	var want []string
	dirs := map[string]bool{}
	for _, f := range goList(t, format, "./sthread/...", "./target/goinstr/internal/instrumenter") {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(f, stdbgModule), "/")
		want = append(want, name)
		dirs[path.Dir(name)] = true
	}
	if len(want) < 50 {
		t.Fatalf("go list named %d files: %v", len(want), want)
	}
	for _, name := range want {
		if _, err := fs.Stat(stdbg.Sources, name); err != nil {
			t.Errorf("stdbg.Sources has no %s: add its directory to the embed patterns of sources.go", name)
		}
	}
	err := fs.WalkDir(stdbg.Sources, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(name, "/") {
			return err
		}
		if !dirs[path.Dir(name)] {
			t.Errorf("stdbg.Sources holds %s, of a package that neither sthread nor the instrumenter imports", name)
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSourcesBuild writes the trees of stdbg.Sources into a cache of its
// own and builds from them as an installed stdbg does, with nothing but
// the module cache: sthread's packages in the tree instrumented builds
// use (whose go.mod requires only what they import), and the
// instrumenter in the other.
func TestSourcesBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Setenv("STDBG_CACHE", t.TempDir())
	t.Setenv("STDBG_SOURCE", "")
	src, err := SourceDir()
	if err != nil {
		t.Fatal(err)
	}
	again, err := SourceDir()
	if err != nil || again != src {
		t.Fatalf("SourceDir again: %q, %v; want %q", again, err, src)
	}
	b, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := modfile.Parse("go.mod", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every module that provides a package sthread imports, and no other.
	var want []string
	for _, m := range goList(t, `{{if and .Module (not .Module.Main)}}{{.Module.Path}}{{end}}`, "./sthread/...") {
		if !slices.Contains(want, m) {
			want = append(want, m)
		}
	}
	var got []string
	for _, r := range mod.Require {
		got = append(got, r.Mod.Path)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the go.mod of the sources requires %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(src, "target", "goinstr")); err == nil {
		t.Error("the sources of instrumented builds hold goinstr")
	}
	offline := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "GOPROXY=off")
	cmd := exec.Command("go", "build", "./sthread/...")
	cmd.Dir, cmd.Env = src, offline
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./sthread/... in %s: %v\n%s", src, err, out)
	}
	tool, err := toolDir()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "instrumenter"), "./target/goinstr/internal/instrumenter")
	cmd.Dir, cmd.Env = tool, offline
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the instrumenter in %s: %v\n%s", tool, err, out)
	}
}

// TestSourceDirOverride checks STDBG_SOURCE: a tree of stdbg's is used as
// it is; anything else is an InstallError.
func TestSourceDirOverride(t *testing.T) {
	abs, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("STDBG_SOURCE", abs)
	if dir, err := SourceDir(); err != nil || dir != abs {
		t.Errorf("SourceDir() = %q, %v; want %q", dir, err, abs)
	}
	t.Setenv("STDBG_SOURCE", t.TempDir())
	_, err = SourceDir()
	var ie *InstallError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "stdbg is not installed correctly") {
		t.Errorf("SourceDir() with STDBG_SOURCE elsewhere: %v, want an InstallError", err)
	}
}
