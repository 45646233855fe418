// Package goinstr instruments plain Go code for stdbg at build time: it
// loads a program's or a test's packages with their types, rewrites their
// concurrency operations onto package sthread and its packages — go
// statements onto sthread.Go; the uses of sync's Mutex, RWMutex, WaitGroup,
// Once, Cond, Locker and Map, of sync/atomic, runtime's Gosched, Caller and
// Callers, time's
// sleeps, timers, tickers and clock, context's cancelable contexts, the
// top-level functions of math/rand and math/rand/v2 and testing/synctest's
// Test, Wait and Sleep onto the same names in
// sthread's mirrors of those packages (time.Sleep becomes Sleep of
// github.com/stdbg/stdbg/sthread/time, imported under a name of its own);
// channel send, receive, close, len, range and select, and ranges over
// maps (whose order a schedule then determines), onto package
// sthread/lang — wraps main in sthread.Run and each test function's body in
// lang.CheckTest, and writes the rewritten files where the go command's
// -overlay flag substitutes them for the user's, which it never touches.
// Workspace gives a package of another module the go.work to find sthread
// with, which keeps the module's own go.mod, language version and GODEBUG
// defaults.
//
// Every edit replaces a byte range of the user's file by text with as many
// newlines, so that every line keeps its number: traces, panics and
// debuggers show the user's lines. The channel and value expressions of a
// select's cases are the one exception: they are evaluated on the select's
// line, where Go evaluates them anyway.
//
// Channels keep their type chan T: the rewritten operations find a
// channel's state under the checker by its identity, so channels can still
// be passed to any function. Operations that code outside the rewritten
// packages performs on them (the standard library, reflect) are not seen
// by the checker; Instrument warns about what it cannot instrument.
package goinstr

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/stdbg/stdbg/internal/cachedir"
)

// version changes whenever the rewriting changes, to invalidate the cache.
const version = "goinstr-14"

// Config says what to instrument.
type Config struct {
	// Dir is the directory of the package to check.
	Dir string
	// Tests instruments the package's tests too.
	Tests bool
	// Cache is the directory where rewritten files and overlays are kept.
	Cache string
	// Tags are the build tags (go build's -tags: a comma-separated list).
	Tags string
	// Deps says which dependency modules are rewritten too (every one
	// by default, but those the checker itself runs on).
	Deps Deps
}

// ErrNothing is the error of Instrument when no package of the main module
// in the build uses goroutines, sync, channels or what the rewriting
// covers: the package runs as it is.
var ErrNothing = errors.New("nothing to instrument: no package of the main module in the build uses goroutines, sync or channels")

// Result is an instrumented build's overlay.
type Result struct {
	// Overlay is the file to pass to go build -overlay.
	Overlay string
	// Files is the number of files rewritten.
	Files int
	// Warnings list what was not instrumented, one line each.
	Warnings []string
	// Unmodelled lists, one line each (also among Warnings), the
	// constructs whose behaviour a search does not explore: cgo, assembly,
	// sync.Pool, system calls that may block, packages outside the main
	// module. A search of the program is exhaustive over the modelled
	// operations only.
	Unmodelled []string
	// Restored are the package-level variables of the rewritten
	// packages (but those of cgo files, and those reached by
	// //go:linkname): files added to the overlay register them with
	// sthread's runtime (lang.PackageVars), and the search inside the
	// target puts them back before each execution.
	Restored []Var
	// Deps are the dependency modules whose packages were rewritten as
	// the main module's (see Config.Deps).
	Deps []string
	// Replace gives, by module path, the directory of the rewritten copy
	// of each module of Deps, which the build's workspace must put in
	// the module's place (WorkspaceFor): the go command takes no overlay
	// of the module cache's files.
	Replace map[string]string
	// Origins gives, by module path, the directory of the original files
	// of each module of Deps (the module cache's, or that of a replace
	// directive), which the line directives of its copy name: the
	// compiler's messages about a copy's file name the file there.
	Origins map[string]string
	// Cached reports that the rewritten files came from the cache.
	Cached bool
}

// overlayJSON is the format of the go command's -overlay file.
type overlayJSON struct {
	Replace map[string]string
}

// cacheEntry is what the cache keeps next to an overlay.
type cacheEntry struct {
	Files      int
	Warnings   []string
	Unmodelled []string
	Restored   []Var
	Deps       []string
	Replace    map[string]string
	Origins    map[string]string
}

// Instrument rewrites the packages of the module that cfg.Dir's package
// uses (with its tests if cfg.Tests) and returns the overlay. Rewritten
// output is cached under a key made of the contents of every file of the
// module's packages in the build: a second run with the same sources
// skips loading and rewriting.
//
// A package whose toolchain is newer than the Go stdbg was built with is
// read by an instrumenter built with that toolchain (see toolchain.go).
func Instrument(cfg Config) (*Result, error) {
	if v, err := newerToolchain(cfg.Dir); err != nil {
		return nil, err
	} else if v != "" {
		resp, err := remote(cfg.Dir, v, request{Op: "instrument", Config: cfg})
		if err != nil {
			return nil, err
		}
		return resp.Result, nil
	}
	key, pkgs, deps, outside, err := sourceKey(cfg)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cfg.Cache, "goinstr", key)
	overlay := filepath.Join(dir, "overlay.json")
	if res, ok := cached(dir, overlay); ok {
		cachedir.Used(dir)
		return res, nil
	}
	res, files, err := rewritePackages(cfg, pkgs, deps, outside)
	if err != nil {
		return nil, err
	}
	// A directory of this call's own: several finds (processes, or
	// goroutines of one) may instrument the same package at once.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("instrumenting %s: %w", cfg.Dir, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp")
	if err != nil {
		return nil, fmt.Errorf("instrumenting %s: %w", cfg.Dir, err)
	}
	defer os.RemoveAll(tmp)
	if res.Replace, res.Origins, err = writeCopies(tmp, dir, deps, res.Deps, files); err != nil {
		return nil, fmt.Errorf("instrumenting %s: copying the dependencies rewritten: %w", cfg.Dir, err)
	}
	ov := overlayJSON{Replace: map[string]string{}}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		out := filepath.Join(tmp, fmt.Sprintf("%03d_%s", i, filepath.Base(name)))
		if err := os.WriteFile(out, files[name], 0o644); err != nil {
			return nil, fmt.Errorf("instrumenting %s: %w", cfg.Dir, err)
		}
		ov.Replace[name] = filepath.Join(dir, filepath.Base(out))
	}
	if err := writeJSON(filepath.Join(tmp, "overlay.json"), ov); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(tmp, "entry.json"), cacheEntry{Files: res.Files, Warnings: res.Warnings, Unmodelled: res.Unmodelled, Restored: res.Restored, Deps: res.Deps, Replace: res.Replace, Origins: res.Origins}); err != nil {
		return nil, err
	}
	// The key names the content: an entry another call completed
	// meanwhile is as good as this one, and may be in use; only a
	// partial one is replaced.
	if err := os.Rename(tmp, dir); err != nil && !cachedOK(dir) {
		// A partial directory (an older layout, a crash): replace it.
		os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil && !cachedOK(dir) {
			return nil, fmt.Errorf("instrumenting %s: %w", cfg.Dir, err)
		}
	}
	res.Overlay = overlay
	return res, nil
}

func cachedOK(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "entry.json"))
	return err == nil
}

// cached returns the cached result in dir, if there is one.
func cached(dir, overlay string) (*Result, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "entry.json"))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil {
		return nil, false
	}
	if _, err := os.Stat(overlay); err != nil {
		return nil, false
	}
	return &Result{Overlay: overlay, Files: e.Files, Warnings: e.Warnings, Unmodelled: e.Unmodelled, Restored: e.Restored, Deps: e.Deps, Replace: e.Replace, Origins: e.Origins, Cached: true}, true
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// sourceKey hashes the instrumenter's version and every source file of the
// main module's packages in the build, as go list names them, and the
// dependency packages to rewrite: by module path and version when they
// come from the module cache (whose files a version names for good), by
// their files' content when a replace directive points at a directory.
// It returns the main module's packages, the dependency packages to
// rewrite (deps) and the modules whose packages are not rewritten.
func sourceKey(cfg Config) (key string, pkgs []string, deps []depPackage, outside []string, err error) {
	// (One go list for the three readers of a Go target's start:
	// golist.go.)
	lines, err := listed(cfg.Dir, cfg.Tests, cfg.Tags, markKey)
	if err != nil {
		return "", nil, nil, nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00%s\x00%s\x00%s\n", version, cfg.Dir, cfg.Tests, selfStamp(), cfg.Tags, cfg.Deps)
	seen := map[string]bool{}
	hashFile := func(path string) error {
		if seen[path] {
			return nil
		}
		seen[path] = true
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("hashing %s: %w", path, err)
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(h, "%s %x\n", path, sum)
		return nil
	}
	mods := map[string]depModule{}
	var modOrder []string
	var ext []depPackage
	for _, line := range lines {
		parts := strings.Split(line, "|")
		if len(parts) < 2 {
			continue
		}
		if parts[0] == "ext" {
			if len(parts) < 9 {
				continue
			}
			path, _, _ := strings.Cut(parts[1], " ")
			m := depModule{Path: parts[2], Version: parts[3], Dir: parts[4], Local: parts[5] == "local" || parts[3] == ""}
			if _, ok := mods[m.Path]; !ok {
				mods[m.Path] = m
				modOrder = append(modOrder, m.Path)
			}
			if seen["dep:"+path] {
				continue
			}
			seen["dep:"+path] = true
			d := depPackage{Path: path, Module: m.Path, ModDir: m.Dir, Dir: parts[6]}
			for _, f := range strings.Split(parts[7], "\t") {
				if f != "" {
					d.Embeds = append(d.Embeds, filepath.Join(parts[6], f))
				}
			}
			for _, f := range parts[8:] {
				if f != "" {
					d.Files = append(d.Files, filepath.Join(parts[6], f))
				}
			}
			ext = append(ext, d)
			continue
		}
		path, _, _ := strings.Cut(parts[0], " ")
		// A test binary, and an external test package (loaded with the
		// package it tests), are no packages to load by path.
		if !strings.HasSuffix(path, ".test") && !strings.HasSuffix(path, "_test") && !seen["pkg:"+path] {
			seen["pkg:"+path] = true
			pkgs = append(pkgs, path)
		}
		if len(parts) < 3 {
			continue
		}
		// The module's go version decides the language version of the
		// rewritten files.
		fmt.Fprintf(h, "go %s\n", parts[1])
		parts = parts[2:]
		for _, f := range parts[1:] {
			if f == "" || filepath.IsAbs(f) {
				// Absolute: generated by the go command (a test's main).
				continue
			}
			if err := hashFile(filepath.Join(parts[0], f)); err != nil {
				return "", nil, nil, nil, err
			}
		}
	}
	sort.Strings(modOrder)
	rewrite, kept, err := selectDeps(cfg.Deps, modOrder)
	if err != nil {
		return "", nil, nil, nil, err
	}
	for _, m := range modOrder {
		if rewrite[m] {
			fmt.Fprintf(h, "module %s@%s local=%v\n", m, mods[m].Version, mods[m].Local)
		}
	}
	for _, d := range ext {
		if !rewrite[d.Module] {
			continue
		}
		deps = append(deps, d)
		fmt.Fprintf(h, "dep %s\n", d.Path)
		if !mods[d.Module].Local {
			continue
		}
		for _, f := range d.Files {
			if err := hashFile(f); err != nil {
				return "", nil, nil, nil, err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), pkgs, deps, kept, nil
}

// depPackage is a package of a dependency module in the build.
type depPackage struct {
	Path, Module string
	// ModDir is the module's directory; Dir, the package's.
	ModDir, Dir string
	// Files are its Go, cgo and assembly files; Embeds, the files its
	// //go:embed lines name.
	Files, Embeds []string
}

// selfStamp identifies the code that rewrites: the sources this stdbg was
// built from (stdbg.Sources, which hold the instrumenter's packages and
// the module's go.mod and go.sum; TestSourcesComplete checks that every
// package it imports is there) and the Go that compiled it. A stdbg built
// from other sources, or with another Go (the instrumenter of a newer
// toolchain, toolchain.go), does not reuse files another rewrote; two
// executables built from the same sources do (the test binaries of the
// packages of one source tree, which share a cache in a test run). If the
// sources cannot be read, the running executable (its path, size and
// time) stands for them.
func selfStamp() string {
	if key, err := sourcesKey(); err == nil {
		return "sources " + key + " " + runtime.Version()
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d", exe, st.Size(), st.ModTime().UnixNano())
}

// infraPrefix is the import path prefix of stdbg's own packages, which are
// never instrumented (sthread runs on them), apart from its examples and
// test data.
const infraPrefix = "github.com/stdbg/stdbg/"

// isInfra reports whether path is one of stdbg's own packages.
func isInfra(path string) bool {
	return strings.HasPrefix(path, infraPrefix) && !strings.Contains(path, "/examples/") && !strings.Contains(path, "/testdata/")
}

// rewritePackages loads and rewrites the packages of the main module in the
// build (pkgs, as go list named them); it returns the rewritten files by
// path, with the files that register the packages' variables. Only those packages are parsed and type-checked from source: the
// types of the others come from the go command's export data, which is
// much faster than checking the standard library from source.
func rewritePackages(cfg Config, pkgs []string, deps []depPackage, outside []string) (*Result, map[string][]byte, error) {
	pcfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Dir:   cfg.Dir,
		Tests: cfg.Tests,
	}
	if cfg.Tags != "" {
		pcfg.BuildFlags = []string{"-tags=" + cfg.Tags}
	}
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	// The main module's packages, loaded without compiling them (load.go),
	// else by go/packages.
	var roots []*packages.Package
	fast := false
	if !slowLoad {
		roots, fast = loadMain(cfg, pkgs)
	}
	if !fast {
		var err error
		if roots, err = packages.Load(pcfg, pkgs...); err != nil {
			return nil, nil, fmt.Errorf("loading %s: %w", cfg.Dir, err)
		}
	}
	var errs []string
	packages.Visit(roots, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		if len(errs) > 5 {
			errs = append(errs[:5], fmt.Sprintf("and %d more", len(errs)-5))
		}
		return nil, nil, fmt.Errorf("loading %s: %s", cfg.Dir, strings.Join(errs, "; "))
	}
	res := &Result{}
	files := map[string][]byte{}
	warned := map[string]bool{}
	warnf := func(format string, args ...any) {
		w := fmt.Sprintf(format, args...)
		if !warned[w] {
			warned[w] = true
			res.Warnings = append(res.Warnings, w)
		}
	}
	// unmodelled warns of a construct the search does not explore.
	unmodelled := func(format string, args ...any) {
		w := fmt.Sprintf(format, args...)
		if !warned[w] {
			res.Unmodelled = append(res.Unmodelled, w)
		}
		warnf("%s", w)
	}
	root := rootPath(roots, cfg.Dir)
	reg := &registry{pkgs: map[regKey]*regPkg{}, seen: map[string]bool{}}
	// shown names a file in messages: relative to the package checked,
	// or module@version/path for a dependency's.
	shown := func(p *packages.Package, name string) string {
		if p.Module != nil && !p.Module.Main {
			return depModule{Path: p.Module.Path, Version: p.Module.Version, Dir: p.Module.Dir}.where(name)
		}
		return rel(cfg.Dir, name)
	}
	rewritePkg := func(p *packages.Package) {
		for _, f := range p.OtherFiles {
			if strings.HasSuffix(f, ".s") {
				unmodelled("not instrumented: assembly %s", shown(p, f))
			}
		}
		for i, f := range p.Syntax {
			name := p.CompiledGoFiles[i]
			if slices.Contains(p.GoFiles, name) && strings.HasSuffix(name, ".go") && !isCgo(f.Imports) {
				reg.add(p.Module.Path, name, p.Fset, f)
			}
			if _, done := files[name]; done || !strings.HasSuffix(name, ".go") {
				continue
			}
			if isCgo(f.Imports) {
				unmodelled("not instrumented: cgo file %s", shown(p, name))
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				unmodelled("not instrumented: %s: %v", shown(p, name), err)
				continue
			}
			r := &fileRewriter{
				fset: p.Fset, file: f, tf: p.Fset.File(f.Pos()), src: src, info: p.TypesInfo, types: p.Types,
				isTest: strings.HasSuffix(name, "_test.go"),
				isMain: p.Name == "main",
				dir:    cfg.Dir,
				lang:   moduleLang(p.Module.GoVersion),
			}
			r.warn = func(pos token.Pos, format string, args ...any) {
				where := p.Fset.Position(pos)
				warnf("%s:%d: %s", shown(p, where.Filename), where.Line, fmt.Sprintf(format, args...))
			}
			r.notInstrumented = func(pos token.Pos, format string, args ...any) {
				where := p.Fset.Position(pos)
				unmodelled("%s:%d: not instrumented: %s", shown(p, where.Filename), where.Line, fmt.Sprintf(format, args...))
			}
			for _, w := range uncovered(r) {
				unmodelled("%s", w)
			}
			out, err := r.rewrite()
			if err == nil && out != nil && needsLang(r.lang) {
				// sthread's generic functions need a newer language
				// than the module's: the file asks for Go 1.21, whose
				// semantics are those of older versions.
				out, err = withLang(out, name)
			}
			if err != nil {
				unmodelled("not instrumented: %s: %v", shown(p, name), err)
				continue
			}
			if out != nil {
				files[name] = out
			}
		}
	}
	packages.Visit(roots, nil, func(p *packages.Package) {
		switch {
		case p.Module == nil:
			return // the standard library
		case !p.Module.Main:
			return // below, with the dependencies
		case root != "" && otherTests(p.ID, root):
			return // the tests of another package of the module are not in the build
		case isInfra(p.PkgPath), importsSthread(p):
			return
		}
		rewritePkg(p)
	})
	mainFiles := len(files)
	if len(deps) > 0 {
		kept, err := rewriteDeps(cfg, deps, rewritePkg)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range deps {
			if !slices.Contains(kept, d.Module) && !slices.Contains(res.Deps, d.Module) {
				res.Deps = append(res.Deps, d.Module)
			}
		}
		sort.Strings(res.Deps)
		for _, m := range kept {
			if !slices.Contains(outside, m) {
				outside = append(outside, m)
			}
		}
		sort.Strings(outside)
	}
	if len(outside) > 0 {
		mods := outside
		unmodelled("not instrumented: the packages of modules not rewritten (their goroutines, locks and channels run unchecked; %s): %s", DepsEnv, strings.Join(mods, ", "))
	}
	if mainFiles == 0 {
		return nil, nil, ErrNothing
	}
	res.Files = len(files)
	added, restored := reg.files(files)
	for name, src := range added {
		files[name] = src
	}
	res.Restored = restored
	return res, files, nil
}

// importsSthread reports whether package p is written with sthread: it
// imports package sthread or one of its packages (its mirrors of the
// standard library), and is not instrumented.
func importsSthread(p *packages.Package) bool {
	for path := range p.Imports {
		if path == sthreadPath || strings.HasPrefix(path, sthreadPath+"/") {
			return true
		}
	}
	return false
}

// rootPath is the import path of the package in dir among the loaded
// packages and their imports, "" if none is.
func rootPath(roots []*packages.Package, dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	path := ""
	packages.Visit(roots, nil, func(p *packages.Package) {
		if path == "" && !strings.Contains(p.ID, " [") && len(p.GoFiles) > 0 && filepath.Dir(p.GoFiles[0]) == abs {
			path = p.PkgPath
		}
	})
	return path
}

// otherTests reports whether the package of id is a test of another
// package than root (loaded because go list named every package of the
// module in the build): "q [q.test]", "q_test [q.test]" or "q.test".
func otherTests(id, root string) bool {
	if strings.HasSuffix(id, ".test") {
		return id != root+".test"
	}
	if i := strings.Index(id, " ["); i >= 0 {
		return id[i:] != " ["+root+".test]"
	}
	return false
}

func isCgo(specs []*ast.ImportSpec) bool {
	for _, s := range specs {
		if s.Path.Value == `"C"` {
			return true
		}
	}
	return false
}

func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
