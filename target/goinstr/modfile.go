package goinstr

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	goversion "go/version"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/stdbg/stdbg/internal/cachedir"
)

// Build is how the go command builds an instrumented package of a module
// other than stdbg's: in a workspace of its own.
type Build struct {
	// Work is the go.work file to build with.
	Work string
	// Env is what the go command's environment must say for the build:
	// GOWORK=Work, and GOFLAGS without a -mod flag (a workspace
	// takes none but -mod=readonly).
	Env []string
	// Warnings say where the build differs from go test's.
	Warnings []string
}

// Workspace returns the build of the instrumented package in dir, whose
// code imports sthread: a go.work file that holds the workspace of the
// package's module (its go.work, or the module alone) plus stdbg's module,
// from its sources. It returns nil for a package of stdbg's module, which
// needs none. tests says whether the build is the package's test binary.
//
// The build is the one go test makes. Every module keeps its go.mod, so
// its packages keep their language version (requiring stdbg from the
// module's go.mod would raise its go line to stdbg's: a module at go 1.21
// would get the per-iteration loop variables of Go 1.22), its replace and
// exclude directives and its go.sum. The workspace's go line is stdbg's
// when that is higher, which would change the program's default GODEBUG
// settings: those that the program gets under go test (from the module's go
// line, its godebug block and its //go:debug directives) are written in
// the workspace's godebug block. The module's toolchain line goes to the
// workspace too (the go command reads only the workspace's), so that the
// toolchain go test would build with builds it. stdbg's module is the one
// SourceDir gives: another copy of it that the user's workspace holds
// gives way, with a warning.
func Workspace(dir, cache string, tests bool) (*Build, error) {
	return WorkspaceFor(dir, cache, tests, nil)
}

// WorkspaceFor is Workspace whose go.work also replaces each module of
// replace (by path) by the directory given: the rewritten copies of the
// dependency modules (Result.Replace). For a package of stdbg's module,
// which needs no workspace, it returns nil, and replace cannot be
// honoured: build such a package with no dependency rewritten.
func WorkspaceFor(dir, cache string, tests bool, replace map[string]string) (*Build, error) {
	env, err := GoEnv(dir, "GOMOD", "GOWORK", "GOFLAGS")
	if err != nil {
		return nil, err
	}
	gomod, gowork := env[0], env[1]
	goflags, modFlag := withoutModFlag(env[2])
	if gomod == "" || gomod == os.DevNull {
		return nil, fmt.Errorf("%s is not in a Go module", dir)
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", gomod, err)
	}
	mod, err := modfile.ParseLax(gomod, data, nil)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", gomod, err)
	}
	if mod.Module != nil && mod.Module.Mod.Path == stdbgModule {
		return nil, nil
	}
	src, err := SourceDir()
	if err != nil {
		return nil, err
	}
	own, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("reading stdbg's go.mod: %w", err)
	}
	stdbgMod, err := modfile.ParseLax("go.mod", own, nil)
	if err != nil {
		return nil, fmt.Errorf("reading stdbg's go.mod: %w", err)
	}
	godebug, err := defaultGodebug(dir, tests)
	if err != nil {
		return nil, err
	}

	b := &Build{}
	work := &modfile.WorkFile{Syntax: &modfile.FileSyntax{}}
	var sums []byte
	goLine := modGo(mod)
	if gowork != "" && gowork != "off" {
		if work, err = userWork(gowork); err != nil {
			return nil, err
		}
		if work.Go != nil {
			goLine = work.Go.Version
		}
		sums, _ = os.ReadFile(gowork + ".sum")
	} else {
		moduleDir := filepath.Dir(gomod)
		if err := work.AddUse(moduleDir, ""); err != nil {
			return nil, err
		}
		_, err := os.Stat(filepath.Join(moduleDir, "vendor", "modules.txt"))
		vendored := modFlag == "vendor" || modFlag == "" && err == nil && goversion.Compare("go"+goLine, "go1.14") >= 0
		if vendored {
			b.Warnings = append(b.Warnings, fmt.Sprintf("not used: the vendor directory of %s (the build takes the module's dependencies from the module cache)", moduleDir))
		}
	}
	// stdbg's module is the one that this stdbg carries, which speaks
	// its protocol: another copy of it in the user's workspace gives way.
	var others []string
	for _, u := range work.Use {
		if b, err := os.ReadFile(filepath.Join(u.Path, "go.mod")); err == nil && modfile.ModulePath(b) == stdbgModule {
			others = append(others, u.Path)
		}
	}
	for _, p := range others {
		if err := work.DropUse(p); err != nil {
			return nil, err
		}
		if filepath.Clean(p) != filepath.Clean(src) {
			b.Warnings = append(b.Warnings, fmt.Sprintf("not used: the copy of stdbg's module at %s in the workspace (sthread comes from the stdbg that checks the program)", p))
		}
	}
	if err := work.AddUse(src, stdbgModule); err != nil {
		return nil, err
	}
	if v := modGo(stdbgMod); goversion.Compare("go"+v, "go"+goLine) > 0 {
		goLine = v
	}
	if err := work.AddGoStmt(goLine); err != nil {
		return nil, err
	}
	if strict, err := modfile.Parse(gomod, data, nil); err == nil && strict.Toolchain != nil && work.Toolchain == nil && (gowork == "" || gowork == "off") {
		// The go command ignores the toolchain lines of a workspace's
		// modules: the module's own goes to the workspace, so that the
		// build is made by the toolchain go test makes it with.
		if err := work.AddToolchainStmt(strict.Toolchain.Name); err != nil {
			return nil, err
		}
	}
	for _, kv := range godebug {
		k, v, _ := strings.Cut(kv, "=")
		if err := work.AddGodebug(k, v); err != nil {
			return nil, fmt.Errorf("godebug %s: %w", kv, err)
		}
	}
	var replaced []string
	for m := range replace {
		replaced = append(replaced, m)
	}
	sort.Strings(replaced)
	for _, m := range replaced {
		// The copy stands for whatever version the build selects (one
		// only), and for a replacement the user's workspace made.
		for _, r := range work.Replace {
			if r.Old.Path == m {
				if err := work.DropReplace(r.Old.Path, r.Old.Version); err != nil {
					return nil, err
				}
			}
		}
		if err := work.AddReplace(m, "", replace[m], ""); err != nil {
			return nil, fmt.Errorf("replacing %s by its rewritten copy: %w", m, err)
		}
	}
	work.Cleanup()
	text := modfile.Format(work.Syntax)
	h := sha256.Sum256(append(append([]byte(dir+"\x00"), text...), sums...))
	outDir := filepath.Join(cache, "goinstr", "work-"+hex.EncodeToString(h[:8]))
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	cachedir.Used(outDir)
	b.Work = filepath.Join(outDir, "go.work")
	b.Env = []string{"GOWORK=" + b.Work, "GOFLAGS=" + goflags}
	// Written under names of their own and renamed into place: another
	// process may be building with them.
	if len(sums) > 0 {
		if err := writeOnce(b.Work+".sum", sums); err != nil {
			return nil, err
		}
	}
	if err := writeOnce(b.Work, text); err != nil {
		return nil, err
	}
	return b, nil
}

// modGo returns the go version of a go.mod: 1.16 when it has no go line,
// as the go command assumes.
func modGo(f *modfile.File) string {
	if f.Go == nil || f.Go.Version == "" {
		return "1.16"
	}
	return f.Go.Version
}

// userWork reads the user's go.work, with the paths it names made absolute
// (the copy lives elsewhere).
func userWork(path string) (*modfile.WorkFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	w, err := modfile.ParseWork(path, data, nil)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	base := filepath.Dir(path)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, filepath.FromSlash(p))
	}
	var uses []*modfile.Use
	for _, u := range w.Use {
		uses = append(uses, &modfile.Use{Path: u.Path, ModulePath: u.ModulePath})
	}
	for _, u := range uses {
		if err := w.DropUse(u.Path); err != nil {
			return nil, err
		}
	}
	for _, u := range uses {
		w.AddNewUse(abs(u.Path), u.ModulePath)
	}
	for _, r := range w.Replace {
		if r.New.Version == "" && !filepath.IsAbs(r.New.Path) {
			oldPath, oldVers := r.Old.Path, r.Old.Version
			if err := w.AddReplace(oldPath, oldVers, abs(r.New.Path), ""); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// defaultGodebug returns the default GODEBUG settings, key=value, of the
// program go test (tests) or go build makes of the package in dir, as the
// go command computes them for its main package.
func defaultGodebug(dir string, tests bool) ([]string, error) {
	// (From the go list of the package's build: golist.go.)
	lines, err := listed(dir, tests, "", markGodebug)
	if err != nil {
		return nil, err
	}
	for _, line := range lines {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) < 3 || parts[1] != "main" || tests != strings.HasSuffix(parts[0], ".test") || parts[2] == "" {
			continue
		}
		return strings.Split(parts[2], ","), nil
	}
	return nil, nil
}

// withoutModFlag returns the flags of GOFLAGS without its -mod flag, and
// the flag's value.
func withoutModFlag(goflags string) (rest, mod string) {
	var kept []string
	for _, f := range strings.Fields(goflags) {
		if v, ok := strings.CutPrefix(strings.TrimPrefix(f, "-"), "mod="); ok && strings.HasPrefix(f, "-") {
			mod = v
			continue
		}
		kept = append(kept, f)
	}
	return strings.Join(kept, " "), mod
}
