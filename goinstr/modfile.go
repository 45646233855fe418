package goinstr

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/mod/modfile"
)

// stdbgModule is the module path of stdbg, which provides sthread.
const stdbgModule = "github.com/stdbg/stdbg"

// SourceDir returns the directory of stdbg's module source, which the
// instrumented code of another module imports sthread from: $STDBG_SOURCE,
// or the directory this package was compiled from.
func SourceDir() (string, error) {
	dir := os.Getenv("STDBG_SOURCE")
	if dir == "" {
		_, file, _, ok := runtime.Caller(0)
		if !ok {
			return "", fmt.Errorf("cannot tell where stdbg's sources are: set STDBG_SOURCE")
		}
		dir = filepath.Dir(filepath.Dir(file))
	}
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || modfile.ModulePath(b) != stdbgModule {
		return "", fmt.Errorf("stdbg's sources are not in %s (no go.mod of %s): set STDBG_SOURCE", dir, stdbgModule)
	}
	return dir, nil
}

// ModFile returns the go.mod to build the instrumented package in dir with
// (go build -modfile): the package's own go.mod plus a requirement of
// stdbg, replaced by its source directory, and a go.sum with stdbg's sums.
// It returns "" when the package is in stdbg's module, which needs none.
func ModFile(dir, cache string) (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("finding the module of %s: %w", dir, err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("%s is not in a Go module", dir)
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", gomod, err)
	}
	f, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", gomod, err)
	}
	if f.Module != nil && f.Module.Mod.Path == stdbgModule {
		return "", nil
	}
	src, err := SourceDir()
	if err != nil {
		return "", err
	}
	if err := f.AddRequire(stdbgModule, "v0.0.0-00010101000000-000000000000"); err != nil {
		return "", err
	}
	if err := f.AddReplace(stdbgModule, "", src, ""); err != nil {
		return "", err
	}
	mod, err := f.Format()
	if err != nil {
		return "", err
	}
	sums, _ := os.ReadFile(strings.TrimSuffix(gomod, ".mod") + ".sum")
	own, _ := os.ReadFile(filepath.Join(src, "go.sum"))
	sums = append(append(sums, '\n'), own...)
	h := sha256.Sum256(append(append([]byte(gomod+"\x00"), mod...), sums...))
	out2 := filepath.Join(cache, "goinstr", "mod-"+hex.EncodeToString(h[:8]))
	if err := os.MkdirAll(out2, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(out2, "go.mod")
	if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, mod) {
		if err := os.WriteFile(filepath.Join(out2, "go.sum"), sums, 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, mod, 0o644); err != nil {
			return "", err
		}
	}
	return path, nil
}
