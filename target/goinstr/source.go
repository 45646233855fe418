package goinstr

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/stdbg/stdbg"
	"github.com/stdbg/stdbg/internal/cachedir"
	"golang.org/x/mod/modfile"
)

// stdbgModule is the module path of stdbg, which provides sthread.
const stdbgModule = "github.com/stdbg/stdbg"

// An InstallError says that stdbg itself cannot work as installed: the
// sources it builds Go targets with cannot be found or written. It is no
// fault of the program checked.
type InstallError struct{ Err error }

func (e *InstallError) Error() string { return "stdbg is not installed correctly: " + e.Err.Error() }

func (e *InstallError) Unwrap() error { return e.Err }

// SourceDir returns the directory of stdbg's module source that the
// instrumented code of another module imports sthread from: $STDBG_SOURCE
// when it is set (a clone of stdbg, for its development), or else the
// sources this binary carries (stdbg.Sources), written once under stdbg's
// cache directory in a directory named by their content: the very sources
// this binary was built from, whatever became of the tree it was built
// in. That module's go.mod requires only what sthread's packages import,
// so that a workspace with it changes the versions of no other module of
// the program's build that sthread does not need. An error is an
// *InstallError.
func SourceDir() (string, error) {
	if dir := os.Getenv("STDBG_SOURCE"); dir != "" {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil || modfile.ModulePath(b) != stdbgModule {
			return "", &InstallError{fmt.Errorf("STDBG_SOURCE=%s is not a source tree of stdbg (no go.mod of %s there)", dir, stdbgModule)}
		}
		return dir, nil
	}
	return written(treeInject)
}

// toolDir returns the directory of the module that builds the
// instrumenter (see toolchain.go): every source this binary carries, with
// stdbg's own go.mod and go.sum.
func toolDir() (string, error) { return written(treeTool) }

// The trees written from stdbg.Sources.
const (
	treeInject = "inject" // sthread and what it imports, go.mod trimmed to what they need
	treeTool   = "tool"   // everything, with stdbg's go.mod
)

var (
	keyOnce sync.Once
	keyText string
	keyErr  error

	writeMu sync.Mutex // one writer of the trees in this process
)

// sourcesKey names the content of stdbg.Sources.
func sourcesKey() (string, error) {
	keyOnce.Do(func() {
		h := sha256.New()
		keyErr = fs.WalkDir(stdbg.Sources, ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := stdbg.Sources.ReadFile(name)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s %d\n", name, len(b))
			h.Write(b)
			return nil
		})
		keyText = hex.EncodeToString(h.Sum(nil)[:10])
	})
	return keyText, keyErr
}

// written returns the directory of tree under the cache, writing it when
// it is not there: in a directory of its own first, renamed into place
// once complete, so that a reader never sees half of one.
func written(tree string) (string, error) {
	key, err := sourcesKey()
	if err != nil {
		return "", &InstallError{fmt.Errorf("reading the sources stdbg carries: %w", err)}
	}
	cache, err := cachedir.Dir()
	if err != nil {
		return "", &InstallError{err}
	}
	base := filepath.Join(cache, "gosrc", key)
	dir := filepath.Join(base, tree)
	if complete(dir) {
		cachedir.Used(base)
		return dir, nil
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	if complete(dir) {
		return dir, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", &InstallError{fmt.Errorf("writing stdbg's Go sources: %w", err)}
	}
	tmp, err := os.MkdirTemp(base, tree+".tmp")
	if err != nil {
		return "", &InstallError{fmt.Errorf("writing stdbg's Go sources: %w", err)}
	}
	defer os.RemoveAll(tmp)
	if err := writeSources(tmp, tree); err != nil {
		return "", &InstallError{fmt.Errorf("writing stdbg's Go sources into %s: %w", base, err)}
	}
	if err := os.Rename(tmp, dir); err != nil && !complete(dir) {
		// A partial tree (a crash): replace it.
		os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil && !complete(dir) {
			return "", &InstallError{fmt.Errorf("writing stdbg's Go sources: %w", err)}
		}
	}
	return dir, nil
}

// complete reports whether the tree in dir was written whole: its go.sum
// is written last.
func complete(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.sum"))
	return err == nil
}

// writeSources writes tree into dir: the files of stdbg.Sources but tests,
// and for treeInject only sthread's packages and what they import, then
// go.mod and go.sum.
func writeSources(dir, tree string) error {
	var imports []string
	err := fs.WalkDir(stdbg.Sources, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, "_test.go") {
			return err
		}
		if tree == treeInject && (!strings.Contains(name, "/") || strings.HasPrefix(name, "target/goinstr/")) {
			return nil
		}
		b, err := stdbg.Sources.ReadFile(name)
		if err != nil {
			return err
		}
		if tree == treeInject && strings.HasSuffix(name, ".go") {
			f, err := parser.ParseFile(token.NewFileSet(), name, b, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				if p, err := strconv.Unquote(imp.Path.Value); err == nil {
					imports = append(imports, p)
				}
			}
		}
		out := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		return err
	}
	mod, err := stdbg.Sources.ReadFile("go.mod")
	if err != nil {
		return err
	}
	if tree == treeInject {
		if mod, err = trimmedMod(mod, imports); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), mod, 0o644); err != nil {
		return err
	}
	sum, err := stdbg.Sources.ReadFile("go.sum")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// trimmedMod returns stdbg's go.mod (data) with only the requirements of
// the modules that provide imports (import paths): those of the packages
// written. Replacements and exclusions of other modules than those are
// dropped too.
func trimmedMod(data []byte, imports []string) ([]byte, error) {
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return nil, fmt.Errorf("stdbg's go.mod: %w", err)
	}
	need := map[string]bool{}
	for _, imp := range imports {
		first, _, _ := strings.Cut(imp, "/")
		if !strings.Contains(first, ".") || imp == stdbgModule || strings.HasPrefix(imp, stdbgModule+"/") {
			continue // the standard library, or stdbg
		}
		best := ""
		for _, r := range f.Require {
			if p := r.Mod.Path; (imp == p || strings.HasPrefix(imp, p+"/")) && len(p) > len(best) {
				best = p
			}
		}
		if best == "" {
			return nil, fmt.Errorf("stdbg's go.mod requires no module that provides %s", imp)
		}
		need[best] = true
	}
	out := &modfile.File{Syntax: &modfile.FileSyntax{}}
	if err := out.AddModuleStmt(stdbgModule); err != nil {
		return nil, err
	}
	if f.Go != nil {
		if err := out.AddGoStmt(f.Go.Version); err != nil {
			return nil, err
		}
	}
	var paths []string
	for p := range need {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, r := range f.Require {
			if r.Mod.Path == p {
				out.AddNewRequire(p, r.Mod.Version, false)
			}
		}
	}
	for _, r := range f.Replace {
		if need[r.Old.Path] && r.New.Version != "" {
			if err := out.AddReplace(r.Old.Path, r.Old.Version, r.New.Path, r.New.Version); err != nil {
				return nil, err
			}
		}
	}
	for _, x := range f.Exclude {
		if need[x.Mod.Path] {
			if err := out.AddExclude(x.Mod.Path, x.Mod.Version); err != nil {
				return nil, err
			}
		}
	}
	out.Cleanup()
	return modfile.Format(out.Syntax), nil
}
