package gofind

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// loopTest passes only when its module's code is built as go test builds
// a module at go 1.21: loop variables shared by all iterations, and that
// version's default GODEBUG settings (gotypesalias=0: the predeclared any
// is no *types.Alias).
const loopTest = `package m

import (
	"go/types"
	"sync"
	"testing"
)

func TestOldLoop(t *testing.T) {
	var mu sync.Mutex
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int {
			mu.Lock()
			defer mu.Unlock()
			return i
		})
	}
	if got := fs[0](); got != 3 {
		t.Errorf("fs[0]() = %d, want 3: one loop variable per iteration", got)
	}
	ch := make(chan int, 2)
	ch <- 1
	ch <- 2
	close(ch)
	fs = nil
	for v := range ch {
		fs = append(fs, func() int { return v })
	}
	if got := fs[0](); got != 2 {
		t.Errorf("fs[0]() = %d after a range over a channel, want 2: one loop variable per iteration", got)
	}
	if _, alias := types.Universe.Lookup("any").Type().(*types.Alias); alias {
		t.Error("gotypesalias=1: not the default GODEBUG of a module at go 1.21")
	}
}
`

// TestPlainGoBuildsAsGoTest checks that a plain Go test is built as go
// test builds it, on modules that go test passes: the module's language
// version and GODEBUG defaults (a module at go 1.21 was built at stdbg's
// go version; a module at go 1.16 would not compile once instrumented), a
// module of a go.work (refused by the build: -modfile
// cannot be used in workspace mode), build tags from GOFLAGS, and cgo
// turned off with go env -w (the build failed: -race needs cgo; now the
// race detector is left out and a warning says so). Each setting costs a
// build of sthread of its own: a plain module at go 1.21, which the
// module of a go.work and the one with cgo off are too, is built only
// with -e2e.long.
func TestPlainGoBuildsAsGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests")
	}
	goenv := filepath.Join(t.TempDir(), "goenv")
	if err := os.WriteFile(goenv, []byte("CGO_ENABLED=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files map[string]string
		pkg   string   // the package's directory in the tree
		env   []string // NAME=VALUE for go test and find
		races bool
		warn  string // a warning find gives
		long  bool   // only with -e2e.long
	}{
		{
			name:  "module at go 1.21",
			files: map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n", "m_test.go": loopTest},
			long:  true,
		},
		{
			name: "module of a go.work",
			files: map[string]string{
				"go.work":       "go 1.22\n\nuse (\n\t./m\n\t./lib\n)\n",
				"m/go.mod":      "module example.com/m\n\ngo 1.21\n",
				"m/m_test.go":   loopTest,
				"m/lib_test.go": "package m\n\nimport (\n\t\"testing\"\n\n\t\"example.com/lib\"\n)\n\nfunc TestLib(t *testing.T) {\n\tif lib.Two() != 2 {\n\t\tt.Fail()\n\t}\n}\n",
				"lib/go.mod":    "module example.com/lib\n\ngo 1.22\n",
				"lib/lib.go":    "package lib\n\n// Two returns 2.\nfunc Two() int { return 2 }\n",
			},
			pkg: "m",
		},
		{
			// At go 1.16 too: the rewritten file asks for go 1.21,
			// which sthread's generic functions need.
			name: "tags and -mod in GOFLAGS",
			files: map[string]string{
				"go.mod":      "module example.com/m\n\ngo 1.16\n",
				"m_test.go":   "//go:build special\n\n" + loopTest,
				"off_test.go": "//go:build !special\n\npackage m\n\nimport \"testing\"\n\nfunc TestOldLoop(t *testing.T) { t.Fatal(\"built without the tag\") }\n",
			},
			env: []string{"GOFLAGS=-tags=special -mod=mod"},
		},
		{
			name:  "cgo off in go env",
			files: map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n", "m_test.go": loopTest},
			env:   []string{"GOENV=" + goenv},
			races: true,
			warn:  "not instrumented: data races",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && !clirun.Long() {
				t.Skip("the same build as the other cases: run with -e2e.long")
			}
			root := t.TempDir()
			for name, text := range tt.files {
				path := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dir := filepath.Join(root, tt.pkg)
			for _, kv := range tt.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			// The test passes under go test: find must agree.
			cmd := exec.Command("go", "test", "-count=1", ".")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go test: %v\n%s", err, out)
			}
			args := []string{"find", "--run", "^TestOldLoop$", dir}
			if !tt.races {
				args = append([]string{"find", "--races=false"}, args[1:]...)
			}
			out, errs, code := clirun.Stdbg(t, args...)
			if code != cli.ExitClean || !strings.Contains(out, "No property violation found.") {
				t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
			}
			if tt.warn != "" && !strings.Contains(errs, tt.warn) {
				t.Errorf("find does not warn %q:\n%s", tt.warn, errs)
			}
		})
	}
}
