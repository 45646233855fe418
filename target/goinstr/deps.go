package goinstr

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/stdbg/stdbg"
	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"
)

// DepsEnv is the environment variable that says which dependency modules
// are rewritten (see ParseDeps).
const DepsEnv = "STDBG_GO_DEPS"

// Deps says which modules other than the main module have their packages
// rewritten as the main module's are. The zero value rewrites every
// dependency module of the build.
type Deps struct {
	// None rewrites no dependency: only the main module's packages.
	None bool
	// Only, when not empty, lists the module paths whose packages are
	// rewritten; the packages of other dependency modules are not.
	Only []string
}

// ParseDeps reads a value of STDBG_GO_DEPS: "" or "all" for every
// dependency module, "none" for none, or a comma-separated list of module
// paths (golang.org/x/sync,github.com/jackc/puddle/v2).
func ParseDeps(s string) (Deps, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", "all":
		return Deps{}, nil
	case "none":
		return Deps{None: true}, nil
	}
	var d Deps
	for _, m := range strings.Split(s, ",") {
		m = strings.TrimSpace(m)
		if m == "" || strings.ContainsAny(m, " \t@") || m == "all" || m == "none" {
			return Deps{}, fmt.Errorf("%s=%q: want all, none or a comma-separated list of module paths", DepsEnv, s)
		}
		d.Only = append(d.Only, m)
	}
	return d, nil
}

// String writes d as ParseDeps reads it.
func (d Deps) String() string {
	switch {
	case d.None:
		return "none"
	case len(d.Only) > 0:
		return strings.Join(d.Only, ",")
	}
	return "all"
}

// wants reports whether d selects the packages of module mod.
func (d Deps) wants(mod string) bool {
	if d.None {
		return false
	}
	if len(d.Only) == 0 {
		return true
	}
	for _, m := range d.Only {
		if m == mod {
			return true
		}
	}
	return false
}

var (
	runtimeModsOnce sync.Once
	runtimeMods     []string
	runtimeModsErr  error
)

// runtimeModules returns the paths of the modules, other than the
// standard library and stdbg's, that provide packages imported by
// sthread and the packages it is built with (golang.org/x/sys, ...). Their
// packages are never rewritten: the rewritten code would import sthread,
// which imports them, a cycle; and the checker's own runtime runs on them.
func runtimeModules() ([]string, error) {
	runtimeModsOnce.Do(func() {
		imports, err := injectImports()
		if err != nil {
			runtimeModsErr = err
			return
		}
		mod, err := stdbg.Sources.ReadFile("go.mod")
		if err != nil {
			runtimeModsErr = err
			return
		}
		trimmed, err := trimmedMod(mod, imports)
		if err != nil {
			runtimeModsErr = err
			return
		}
		f, err := modfile.Parse("go.mod", trimmed, nil)
		if err != nil {
			runtimeModsErr = err
			return
		}
		for _, r := range f.Require {
			runtimeMods = append(runtimeMods, r.Mod.Path)
		}
	})
	return runtimeMods, runtimeModsErr
}

// injectImports lists the import paths of the files of the inject tree
// (sthread and what it imports; see writeSources).
func injectImports() ([]string, error) {
	var imports []string
	err := fs.WalkDir(stdbg.Sources, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return err
		}
		if !strings.Contains(name, "/") || strings.HasPrefix(name, "target/goinstr/") {
			return nil
		}
		b, err := stdbg.Sources.ReadFile(name)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, b, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err == nil {
				imports = append(imports, p)
			}
		}
		return nil
	})
	return imports, err
}

// depModule is a module other than the main module that provides
// packages of the build.
type depModule struct {
	Path, Version string
	// Dir is the module's directory (the module cache's, or a local
	// replacement's).
	Dir string
	// Local is set when the module's files are not the module cache's
	// (a replace directive to a directory): they may change under one
	// version.
	Local bool
}

// where names a file of module m in messages: module@version/file.
func (m depModule) where(file string) string {
	r, err := filepath.Rel(m.Dir, file)
	if err != nil || strings.HasPrefix(r, "..") {
		return file
	}
	if m.Version != "" {
		return m.Path + "@" + m.Version + "/" + filepath.ToSlash(r)
	}
	return m.Path + "/" + filepath.ToSlash(r)
}

// selectDeps splits the dependency modules of a build (mods, by path)
// into those whose packages are rewritten and those whose are not (by
// path), as d and the modules the checker runs on say.
func selectDeps(d Deps, mods []string) (rewrite map[string]bool, kept []string, err error) {
	rt, err := runtimeModules()
	if err != nil {
		return nil, nil, &InstallError{fmt.Errorf("reading the sources stdbg carries: %w", err)}
	}
	rewrite = map[string]bool{}
	for _, m := range mods {
		own := m == stdbgModule
		for _, r := range rt {
			own = own || m == r
		}
		if !own && d.wants(m) {
			rewrite[m] = true
		} else {
			kept = append(kept, m)
		}
	}
	return rewrite, kept, nil
}

// rewriteDeps loads the dependency packages to rewrite (deps) from source
// and hands each to rewrite, as the main module's are. A package that does
// not load (its sources do not type-check as the go command builds them,
// say) is left as it is: rewriteDeps returns the modules of those, which
// then run unchecked, and never fails the build for them.
func rewriteDeps(cfg Config, deps []depPackage, rewrite func(*packages.Package)) (kept []string, err error) {
	pcfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Dir: cfg.Dir,
	}
	if cfg.Tags != "" {
		pcfg.BuildFlags = []string{"-tags=" + cfg.Tags}
	}
	want := map[string]bool{}
	paths := make([]string, 0, len(deps))
	for _, d := range deps {
		want[d.Path] = true
		paths = append(paths, d.Path)
	}
	roots, err := packages.Load(pcfg, paths...)
	if err != nil {
		return nil, fmt.Errorf("loading the dependencies of %s: %w", cfg.Dir, err)
	}
	failed := map[string]bool{}
	for _, p := range roots {
		if len(p.Errors) > 0 || p.Module == nil || p.Types == nil {
			mod := ""
			if p.Module != nil {
				mod = p.Module.Path
			}
			for _, d := range deps {
				if d.Path == p.PkgPath {
					mod = d.Module
				}
			}
			if mod != "" {
				failed[mod] = true
			}
		}
	}
	for _, p := range roots {
		if !want[p.PkgPath] || p.Module == nil || failed[p.Module.Path] || importsSthread(p) {
			continue
		}
		rewrite(p)
	}
	for m := range failed {
		kept = append(kept, m)
	}
	return kept, nil
}

// writeCopies writes, under tmp/mod, a copy of each module of mods (the
// dependency modules rewritten): its go.mod and the directories of its
// packages in the build (deps), with the rewritten files of files in place
// of the originals, which it takes out of files. The go command refuses
// an overlay of the module cache's files: a copy replaces the module in
// the build instead (a replace directive of the workspace, which changes
// no version). It returns the copies' directories by module path, as they
// will be once tmp is renamed to final.
func writeCopies(tmp, final string, deps []depPackage, mods []string, files map[string][]byte) (map[string]string, error) {
	replace := map[string]string{}
	for _, m := range mods {
		var pkgs []depPackage
		for _, d := range deps {
			if d.Module == m {
				pkgs = append(pkgs, d)
			}
		}
		if len(pkgs) == 0 {
			continue
		}
		modDir := pkgs[0].ModDir
		name := filepath.FromSlash(m)
		if v := filepath.Base(modDir); strings.Contains(v, "@") {
			name = filepath.Join(filepath.Dir(name), v)
		}
		out := filepath.Join(tmp, "mod", name)
		// compiled are the Go files of the module's packages in the
		// build that no //go:embed line names: their copies say
		// where their lines come from (atOriginal).
		compiled := map[string]bool{}
		for _, d := range pkgs {
			for _, f := range d.Files {
				compiled[f] = true
			}
		}
		for _, d := range pkgs {
			for _, f := range d.Embeds {
				delete(compiled, f)
			}
		}
		copyFile := func(src string) error {
			r, err := filepath.Rel(modDir, src)
			if err != nil || strings.HasPrefix(r, "..") {
				return fmt.Errorf("%s is not in the directory of module %s (%s)", src, m, modDir)
			}
			b, ok := files[src]
			if ok {
				delete(files, src)
			} else if b, err = os.ReadFile(src); err != nil {
				return err
			}
			dst := filepath.Join(out, r)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if compiled[src] {
				b = atOriginal(b, src)
			}
			return os.WriteFile(dst, b, 0o644)
		}
		if _, err := os.Stat(filepath.Join(modDir, "go.mod")); err == nil {
			if err := copyFile(filepath.Join(modDir, "go.mod")); err != nil {
				return nil, err
			}
		} else {
			// A module without a go.mod: the go command makes one up
			// with its path alone.
			if err := os.MkdirAll(out, 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(out, "go.mod"), []byte("module "+m+"\n"), 0o644); err != nil {
				return nil, err
			}
		}
		for _, d := range pkgs {
			entries, err := os.ReadDir(d.Dir)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if e.Type().IsRegular() && e.Name() != "go.mod" {
					if err := copyFile(filepath.Join(d.Dir, e.Name())); err != nil {
						return nil, err
					}
				}
			}
			for _, f := range d.Embeds {
				if filepath.Dir(f) != d.Dir {
					if err := copyEmbed(f, modDir, out); err != nil {
						return nil, err
					}
				}
			}
		}
		// Files added to a package (the registration of its variables)
		// go to the copy too.
		for src := range files {
			if r, err := filepath.Rel(modDir, src); err == nil && !strings.HasPrefix(r, "..") {
				if err := copyFile(src); err != nil {
					return nil, err
				}
			}
		}
		replace[m] = filepath.Join(final, "mod", name)
	}
	return replace, nil
}

// atOriginal returns src, the text of a Go file of a dependency module to
// be compiled from its copy under the cache, with a //line directive
// before its first line that gives its lines the original file's name
// (orig, in the module cache or a replacement's directory) and their own
// numbers, which the rewriting keeps: the compiler's messages, the
// binary's line table, stacks, traces, reports and debuggers then show
// the file a user can open, not the copy. A cgo file is left as it is
// (cgo writes line directives of its own), and so are files that are not
// Go source.
func atOriginal(src []byte, orig string) []byte {
	if !strings.HasSuffix(orig, ".go") {
		return src
	}
	f, err := parser.ParseFile(token.NewFileSet(), orig, src, parser.ImportsOnly)
	if err != nil || isCgo(f.Imports) {
		return src
	}
	return append([]byte("//line "+orig+":1:1\n"), src...)
}

// copyEmbed copies the file or directory src, which a //go:embed line of
// a package of the module in modDir names, into the module's copy out.
func copyEmbed(src, modDir, out string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		r, err := filepath.Rel(modDir, p)
		if err != nil || strings.HasPrefix(r, "..") {
			return fmt.Errorf("%s is not in %s", p, modDir)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(out, r)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}
