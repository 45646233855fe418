package goinstr

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// writeTree writes files (slash-separated paths relative to root).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goCmd runs the go command in dir with env added, and returns its output.
func goCmd(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// sharedLoopTest passes only when its module's code is compiled with the
// loop variables of Go 1.21 and earlier, one for all iterations, and with
// the default GODEBUG of a module at go 1.21 (gotypesalias=0: the
// predeclared any is no *types.Alias).
const sharedLoopTest = `package m

import (
	"fmt"
	"go/types"
	"runtime"
	"testing"
)

func TestShared(t *testing.T) {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	if got := fs[0](); got != 3 {
		t.Errorf("fs[0]() = %d, want 3", got)
	}
	// types.Alias by its name: the type is of go1.22, and vet (run by go
	// test) refuses a go 1.21 module's use of it from Go 1.27 on, which
	// also dropped the gotypesalias setting (aliases are always made).
	if runtime.Version() < "go1.27" && fmt.Sprintf("%T", types.Universe.Lookup("any").Type()) == "*types.Alias" {
		t.Error("gotypesalias=1, not the default of a module at go 1.21")
	}
}
`

// TestWorkspace builds modules as go test builds them, in the workspace
// Workspace gives: a module at go 1.21 keeps its loop variables and its
// GODEBUG defaults; a module of a go.work keeps its workspace, whose
// relative paths are made absolute; GOFLAGS keeps all but -mod; a vendor
// directory is named in a warning; stdbg's own module needs no workspace.
func TestWorkspace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	src, err := SourceDir()
	if err != nil {
		t.Fatal(err)
	}
	own, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	stdbgMod, err := modfile.ParseLax("go.mod", own, nil)
	if err != nil {
		t.Fatal(err)
	}
	stdbgGo := modGo(stdbgMod)
	tests := []struct {
		name    string
		files   map[string]string
		pkg     string // the package's directory, relative to the tree
		goflags string
		// uses: directories the workspace must hold, relative to the
		// tree (besides stdbg's sources).
		uses    []string
		env     string // the GOFLAGS the build must get
		warning string // a warning the build must give
		run     bool   // run go test in the workspace; it must pass
		// absent: directories the workspace must not use; toolchain:
		// the toolchain line it must have.
		absent    []string
		toolchain string
		godebugs  bool // the program's GODEBUG defaults are go test's
	}{
		{
			name: "module at go 1.21",
			files: map[string]string{
				"m/go.mod":       "module example.com/m\n\ngo 1.21\n",
				"m/loop_test.go": sharedLoopTest,
			},
			pkg: "m", uses: []string{"m"}, env: "GOFLAGS=", run: true, godebugs: true,
		},
		{
			name: "module of a go.work",
			files: map[string]string{
				"go.work":        "go 1.22\n\nuse (\n\t./m\n\t./lib\n)\n\nreplace example.com/dep v1.0.0 => ./dep\n",
				"m/go.mod":       "module example.com/m\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n",
				"m/dep_test.go":  "package m\n\nimport (\n\t\"testing\"\n\n\t\"example.com/dep\"\n)\n\nfunc TestDep(t *testing.T) {\n\tif dep.Three() != 3 {\n\t\tt.Fail()\n\t}\n}\n",
				"dep/go.mod":     "module example.com/dep\n\ngo 1.21\n",
				"dep/dep.go":     "package dep\n\n// Three returns 3.\nfunc Three() int { return 3 }\n",
				"m/loop_test.go": sharedLoopTest,
				"m/lib_test.go":  "package m\n\nimport (\n\t\"testing\"\n\n\t\"example.com/lib\"\n)\n\nfunc TestLib(t *testing.T) {\n\tif lib.Two() != 2 {\n\t\tt.Fail()\n\t}\n}\n",
				"lib/go.mod":     "module example.com/lib\n\ngo 1.22\n",
				"lib/lib.go":     "package lib\n\n// Two returns 2.\nfunc Two() int { return 2 }\n",
			},
			pkg: "m", uses: []string{"m", "lib"}, env: "GOFLAGS=", run: true, godebugs: true,
		},
		{
			name: "GOFLAGS with -mod",
			files: map[string]string{
				"m/go.mod":      "module example.com/m\n\ngo 1.22\n",
				"m/tag.go":      "//go:build special\n\npackage m\n",
				"m/m_test.go":   "//go:build special\n\npackage m\n\nimport \"testing\"\n\nfunc TestTag(t *testing.T) {}\n",
				"m/off_test.go": "//go:build !special\n\npackage m\n\nimport \"testing\"\n\nfunc TestTag(t *testing.T) { t.Fatal(\"built without the tag\") }\n",
			},
			pkg: "m", goflags: "-mod=mod -tags=special", uses: []string{"m"}, env: "GOFLAGS=-tags=special", run: true,
		},
		{
			name: "module with a toolchain line",
			files: map[string]string{
				"m/go.mod":       "module example.com/m\n\ngo 1.21\n\ntoolchain go1.21.1\n",
				"m/loop_test.go": sharedLoopTest,
			},
			pkg: "m", uses: []string{"m"}, env: "GOFLAGS=", run: true, toolchain: "go1.21.1",
		},
		{
			name: "go.work with a copy of stdbg",
			files: map[string]string{
				"go.work":          "go 1.22\n\nuse (\n\t./m\n\t./stdbg\n)\n",
				"m/go.mod":         "module example.com/m\n\ngo 1.21\n",
				"m/loop_test.go":   sharedLoopTest,
				"stdbg/go.mod":     "module github.com/stdbg/stdbg\n\ngo 1.21\n",
				"stdbg/sthread.go": "package stdbg\n",
			},
			pkg: "m", uses: []string{"m"}, absent: []string{"stdbg"}, env: "GOFLAGS=", run: true,
			warning: "not used: the copy of stdbg's module at",
		},
		{
			name: "vendored module",
			files: map[string]string{
				"m/go.mod":             "module example.com/m\n\ngo 1.22\n",
				"m/m.go":               "package m\n",
				"m/vendor/modules.txt": "",
			},
			pkg: "m", uses: []string{"m"}, env: "GOFLAGS=", warning: "not used: the vendor directory of",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			dir := filepath.Join(root, tt.pkg)
			// The user's go env -w settings would be in GOFLAGS too.
			t.Setenv("GOENV", "off")
			t.Setenv("GOFLAGS", tt.goflags)
			b, err := Workspace(dir, t.TempDir(), true)
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				t.Fatal("no workspace for another module")
			}
			text, err := os.ReadFile(b.Work)
			if err != nil {
				t.Fatal(err)
			}
			w, err := modfile.ParseWork(b.Work, text, nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			var uses []string
			for _, u := range w.Use {
				uses = append(uses, u.Path)
			}
			for _, want := range append(tt.uses, "") {
				path := src
				if want != "" {
					path = filepath.Join(root, want)
				}
				found := false
				for _, u := range uses {
					found = found || u == path
				}
				if !found {
					t.Errorf("the workspace does not use %s:\n%s", path, text)
				}
			}
			for _, a := range tt.absent {
				if slices.Contains(uses, filepath.Join(root, a)) {
					t.Errorf("the workspace uses %s:\n%s", a, text)
				}
			}
			if got := ""; tt.toolchain != "" {
				if w.Toolchain != nil {
					got = w.Toolchain.Name
				}
				if got != tt.toolchain {
					t.Errorf("the workspace's toolchain is %q, want %q:\n%s", got, tt.toolchain, text)
				}
			}
			if w.Go == nil || w.Go.Version != stdbgGo {
				t.Errorf("the workspace's go line is not stdbg's:\n%s", text)
			}
			if !slices.Contains(b.Env, "GOWORK="+b.Work) || !slices.Contains(b.Env, tt.env) {
				t.Errorf("env %q, want GOWORK and %q", b.Env, tt.env)
			}
			if tt.warning != "" && !strings.Contains(strings.Join(b.Warnings, "\n"), tt.warning) {
				t.Errorf("warnings %q lack %q", b.Warnings, tt.warning)
			}
			if tt.warning == "" && len(b.Warnings) > 0 {
				t.Errorf("warnings %q", b.Warnings)
			}
			if tt.run {
				if out, err := goCmd(t, dir, b.Env, "test", "-count=1", "."); err != nil {
					t.Errorf("go test in the workspace: %v\n%s\n%s", err, out, text)
				}
			}
			if tt.godebugs {
				list := []string{"list", "-test", "-f", "{{if eq .Name \"main\"}}{{.DefaultGODEBUG}}{{end}}", "."}
				want, err := goCmd(t, dir, nil, list...)
				if err != nil {
					t.Fatal(err, want)
				}
				got, err := goCmd(t, dir, b.Env, list...)
				if err != nil {
					t.Fatal(err, got)
				}
				// Go 1.27 dropped asynctimerchan, a default of go 1.21.
				if got != want || runtime.Version() < "go1.27" && !strings.Contains(want, "asynctimerchan=1") {
					t.Errorf("GODEBUG defaults in the workspace:\n%s\nunder go test:\n%s", got, want)
				}
			}
		})
	}

	// stdbg's own packages need no workspace.
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Workspace(filepath.Join(root, "examples", "go", "plain", "counter"), t.TempDir(), false)
	if err != nil || b != nil {
		t.Errorf("Workspace of stdbg's example: %+v, %v; want none", b, err)
	}
}
