package goinstr

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"

	"github.com/stdbg/stdbg/internal/atomicfile"
)

// The rewriting needs the types of the main module's packages, which
// go/packages gets by a go list -export of the whole build: that compiles
// every package listed, the program's own included (a third of a CPU
// second for a small program, once more when the program changes: every
// submission of a grading), only for the types of the packages it
// imports. loadMain gets the same from the listing that keys the
// instrumentation (golist.go, marks 'L' and 'D'): it parses and
// type-checks the main module's packages itself, as go/packages would,
// and reads the types of the packages they import from the go command's
// export data, which only those packages need (the standard library's is
// built once and kept). For the standard library, which a Go version
// fixes, where that export data is is kept in stdbg's cache, and no go
// command runs at all when it is there.

// Marks of the listing's lines for loadMain.
const (
	markLoad = 'L' // a main-module package: what loading it needs
	markStd  = 'D' // a package of the standard library in the build
)

// loadTemplate prints the lines of loadMain's marks (see listTemplate).
var loadTemplate = "{{if .Module}}{{if .Module.Main}}" +
	"L{{.ImportPath}}\t{{.Name}}\t{{.Dir}}\t{{.Module.Path}}\t{{.Module.GoVersion}}\t{{join .GoFiles \"|\"}}\t{{join .CgoFiles \"|\"}}\t{{join .SFiles \"|\"}}\t{{join .Imports \"|\"}}\t{{range $k, $v := .ImportMap}}{{$k}}={{$v}}|{{end}}\t{{if .Error}}E{{end}}{{if .DepsErrors}}E{{end}}\n" +
	"{{end}}{{end}}" +
	"{{if .Standard}}D{{.ImportPath}}\n{{end}}"

// slowLoad, set by tests, loads every package with go/packages.
var slowLoad bool

// fastLoads counts the loads loadMain made, exportLists the go lists it
// ran for export data.
var fastLoads, exportLists atomic.Int64

// listedPackage is a main-module package as its 'L' line lists it.
type listedPackage struct {
	path, name, dir, module, goVersion string
	files, cgo, asm, imports           []string
	importMap                          map[string]string // as written -> path
	broken                             bool              // go list saw an error
}

func parseLoadLine(line string) (listedPackage, bool) {
	f := strings.Split(line, "\t")
	if len(f) != 11 {
		return listedPackage{}, false
	}
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, "|")
	}
	p := listedPackage{path: f[0], name: f[1], dir: f[2], module: f[3], goVersion: f[4],
		files: split(f[5]), cgo: split(f[6]), asm: split(f[7]), imports: split(f[8]),
		importMap: map[string]string{}, broken: f[10] != ""}
	for _, kv := range split(f[9]) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			p.importMap[k] = v
		}
	}
	return p, true
}

// loadMain loads the main module's packages of cfg's build (pkgs, as the
// listing names them) with their syntax and types, as packages.Load with
// rewritePackages' mode would, and returns them; ok is false when it
// cannot, and go/packages must: a build of tests (whose test variants it
// does not make), cgo, a package that go list or the type checker finds
// an error in (go/packages words the errors), export data missing.
func loadMain(cfg Config, pkgs []string) (roots []*packages.Package, ok bool) {
	if cfg.Tests {
		return nil, false
	}
	lines, err := listed(cfg.Dir, cfg.Tests, cfg.Tags, markLoad)
	if err != nil {
		return nil, false
	}
	stdLines, err := listed(cfg.Dir, cfg.Tests, cfg.Tags, markStd)
	if err != nil {
		return nil, false
	}
	std := map[string]bool{}
	for _, l := range stdLines {
		std[l] = true
	}
	main := map[string]listedPackage{}
	var order []string
	for _, l := range lines {
		p, ok := parseLoadLine(l)
		if !ok || p.broken || len(p.cgo) > 0 || strings.Contains(p.path, " ") {
			return nil, false
		}
		if _, dup := main[p.path]; !dup {
			order = append(order, p.path)
		}
		main[p.path] = p
	}
	// The packages the main module's import from outside it: their types
	// come from export data.
	var outside []string
	for _, path := range order {
		for _, imp := range main[path].imports {
			if _, in := main[imp]; !in && imp != "unsafe" && imp != "C" && !slices.Contains(outside, imp) {
				outside = append(outside, imp)
			}
		}
	}
	sort.Strings(outside)
	exports, err := exportFiles(cfg, outside, std)
	if err != nil {
		return nil, false
	}
	vals, err := GoEnv(cfg.Dir, "GOARCH")
	if err != nil {
		return nil, false
	}
	sizes := types.SizesFor("gc", vals[0])
	fastLoads.Add(1)
	fset := token.NewFileSet()
	imported := map[string]*types.Package{} // gcexportdata's packages, shared
	stubs := map[string]*packages.Package{}
	stub := func(path string) (*packages.Package, error) {
		if s := stubs[path]; s != nil {
			return s, nil
		}
		tp := imported[path]
		if tp == nil || !tp.Complete() {
			file, ok := exports[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			f, err := os.Open(file)
			if err != nil {
				return nil, err
			}
			// The go command's export files are archives, which only
			// NewReader opens (go/packages reads them so too).
			//lint:ignore SA1019 the go command of this Go writes archives
			r, err := gcexportdata.NewReader(bufio.NewReader(f))
			if err == nil {
				tp, err = gcexportdata.Read(r, fset, imported, path)
			}
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("reading the export data of %s: %w", path, err)
			}
		}
		s := &packages.Package{ID: path, PkgPath: path, Name: tp.Name(), Types: tp, Fset: fset}
		stubs[path] = s
		return s, nil
	}
	loaded := map[string]*packages.Package{}
	var load func(path string, seen []string) (*packages.Package, error)
	load = func(path string, seen []string) (*packages.Package, error) {
		if p := loaded[path]; p != nil {
			return p, nil
		}
		if slices.Contains(seen, path) {
			return nil, fmt.Errorf("import cycle through %s", path)
		}
		lp := main[path]
		p := &packages.Package{ID: path, Name: lp.name, PkgPath: path, Fset: fset, Imports: map[string]*packages.Package{},
			Module: &packages.Module{Path: lp.module, Main: true, GoVersion: lp.goVersion}, TypesSizes: sizes}
		for _, f := range lp.files {
			p.GoFiles = append(p.GoFiles, filepath.Join(lp.dir, f))
		}
		p.CompiledGoFiles = p.GoFiles
		for _, f := range lp.asm {
			p.OtherFiles = append(p.OtherFiles, filepath.Join(lp.dir, f))
		}
		// The import paths as the files write them: an import map's
		// keys (vendoring), else the paths themselves.
		written := map[string]string{}
		for _, imp := range lp.imports {
			written[imp] = imp
		}
		for k, v := range lp.importMap {
			delete(written, v)
			written[k] = v
		}
		for as, imp := range written {
			if imp == "unsafe" {
				continue
			}
			var ip *packages.Package
			var err error
			if _, in := main[imp]; in {
				ip, err = load(imp, append(seen, path))
			} else {
				ip, err = stub(imp)
			}
			if err != nil {
				return nil, err
			}
			p.Imports[as] = ip
		}
		for _, name := range p.GoFiles {
			src, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			f, err := parser.ParseFile(fset, name, src, parser.AllErrors|parser.ParseComments)
			if err != nil {
				return nil, err
			}
			p.Syntax = append(p.Syntax, f)
		}
		p.TypesInfo = &types.Info{
			Types:        map[ast.Expr]types.TypeAndValue{},
			Defs:         map[*ast.Ident]types.Object{},
			Uses:         map[*ast.Ident]types.Object{},
			Implicits:    map[ast.Node]types.Object{},
			Instances:    map[*ast.Ident]types.Instance{},
			Scopes:       map[ast.Node]*types.Scope{},
			Selections:   map[*ast.SelectorExpr]*types.Selection{},
			FileVersions: map[*ast.File]string{},
		}
		var typeErr error
		tc := &types.Config{
			Importer: importerFunc(func(as string) (*types.Package, error) {
				if as == "unsafe" {
					return types.Unsafe, nil
				}
				if ip := p.Imports[as]; ip != nil {
					return ip.Types, nil
				}
				return nil, fmt.Errorf("%s is not among the imports go list names", as)
			}),
			Error: func(err error) {
				if typeErr == nil {
					typeErr = err
				}
			},
			Sizes: sizes,
		}
		if lp.goVersion != "" {
			tc.GoVersion = "go" + lp.goVersion
		}
		p.Types = types.NewPackage(path, lp.name)
		types.NewChecker(tc, fset, p.Types, p.TypesInfo).Files(p.Syntax)
		if typeErr != nil {
			return nil, typeErr
		}
		loaded[path] = p
		return p, nil
	}
	if len(pkgs) == 0 {
		return nil, false
	}
	for _, path := range pkgs {
		if _, in := main[path]; !in {
			return nil, false
		}
		p, err := load(path, nil)
		if err != nil {
			return nil, false
		}
		roots = append(roots, p)
	}
	return roots, true
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// exportFiles returns the export data files of the packages paths (import
// paths of cfg's build, outside its main module), by path: those of the
// standard library (std) from stdbg's cache when it has them all, else
// from one go list -export of the packages, whose answer for the standard
// library's is added to the cache.
func exportFiles(cfg Config, paths []string, std map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	if len(paths) == 0 {
		return out, nil
	}
	var cacheFile string
	known := map[string]string{} // the cache's, by path
	if key, ok := stdExportKey(cfg); ok && cfg.Cache != "" {
		cacheFile = filepath.Join(cfg.Cache, "goinstr", "std-export-"+key+".json")
		if b, err := os.ReadFile(cacheFile); err == nil {
			json.Unmarshal(b, &known)
		}
		hit := true
		for _, p := range paths {
			f := known[p]
			// (The go command's cache removes what it has not used for
			// days.)
			if _, err := os.Stat(f); !std[p] || f == "" || err != nil {
				hit = false
				break
			}
			out[p] = f
		}
		if hit {
			return out, nil
		}
	}
	exportLists.Add(1)
	args := []string{"list", "-export", "-f", "{{.ImportPath}}\t{{.Export}}"}
	if cfg.Tags != "" {
		args = append(args, "-tags="+cfg.Tags)
	}
	args = append(append(args, "--"), paths...)
	cmd := exec.Command("go", args...)
	cmd.Dir = cfg.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the export data of %s: %v: %s", strings.Join(paths, " "), err, strings.TrimSpace(stderr.String()))
	}
	out = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			out[path] = file
		}
	}
	added := false
	for _, p := range paths {
		if out[p] == "" {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		if std[p] && known[p] != out[p] {
			known[p], added = out[p], true
		}
	}
	if cacheFile != "" && added {
		// (Two processes adding at once: one's entries are listed
		// again next time.)
		if js, err := json.Marshal(known); err == nil {
			os.MkdirAll(filepath.Dir(cacheFile), 0o755)
			atomicfile.Write(cacheFile, js) // a cache: a failure costs a go list next time
		}
	}
	return out, nil
}

// stdExportKey names what the export data of the standard library's
// packages depends on, in cfg's build: the Go release that builds
// it (go env in the package's directory: a go.mod's toolchain line may
// choose another) and where it is installed, the build tags, the
// environment (GOFLAGS, GOARCH, CGO_ENABLED, GOEXPERIMENT, ... and
// GOCACHE, where the files are) and the go env -w file. ok is false for a
// Go built from a development tree, whose standard library may change
// under one version.
func stdExportKey(cfg Config) (key string, ok bool) {
	vals, err := GoEnv(cfg.Dir, "GOVERSION", "GOROOT", "GOFLAGS", "CGO_ENABLED")
	if err != nil || !strings.HasPrefix(vals[0], "go1.") || strings.ContainsAny(vals[0], " -+") {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "std-export-1\x00%s\x00%s\x00%s\x00%s\x00%s\x00", vals[0], vals[1], vals[2], vals[3], cfg.Tags)
	env := slices.Clone(os.Environ())
	sort.Strings(env)
	for _, kv := range env {
		fmt.Fprintf(h, "%s\x00", kv)
	}
	stamp := func(p string) {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(h, "%s %d %d\x00", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	stamp(filepath.Join(vals[1], "VERSION"))
	if c, err := os.UserConfigDir(); err == nil {
		stamp(filepath.Join(c, "go", "env"))
	}
	if p := os.Getenv("GOENV"); p != "" {
		stamp(p)
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), true
}
