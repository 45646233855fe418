package goinstr

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
)

// PackageState lists the package-level variables declared by the main
// module's packages that the package in dir builds with (and its tests,
// with tests set): state that one run of the program leaves to the next
// when several run in one process. Each is written "name (file:line)".
// Variables named _ and error values made by errors.New or fmt.Errorf,
// which programs do not change, are left out.
func PackageState(dir string, tests bool) ([]string, error) {
	// Each package of the main module: its import path, whether it is
	// only a dependency (whose tests are not built), its directory, then
	// its files.
	args := []string{"list", "-deps", "-f",
		"{{if .Module}}{{if .Module.Main}}{{.ImportPath}}|{{.DepOnly}}|{{.Dir}}|{{join .GoFiles \"|\"}}|{{join .TestGoFiles \"|\"}}|{{join .XTestGoFiles \"|\"}}{{end}}{{end}}"}
	if tests {
		args = append(args, "-test")
	}
	args = append(args, ".")
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var detail string
		if ee, ok := err.(*exec.ExitError); ok {
			detail = strings.TrimSpace(string(ee.Stderr))
		}
		return nil, fmt.Errorf("listing the packages of %s: %v %s", dir, err, detail)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	var vars []string
	for _, line := range strings.Split(string(out), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) < 4 || isRuntime(parts[0]) {
			continue
		}
		depOnly, dir := parts[1] == "true", parts[2]
		for _, name := range parts[3:] {
			if name == "" || filepath.IsAbs(name) || (!tests || depOnly) && strings.HasSuffix(name, "_test.go") {
				continue
			}
			path := filepath.Join(dir, name)
			if seen[path] {
				continue
			}
			seen[path] = true
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", path, err)
			}
			vars = append(vars, fileState(fset, f)...)
		}
	}
	return vars, nil
}

// isRuntime reports whether the package at importPath is part of stdbg
// itself (its runtime and what it uses), whose state is made to serve
// execution after execution, rather than a program stdbg checks (the
// examples of stdbg's own module).
func isRuntime(importPath string) bool {
	path, _, _ := strings.Cut(importPath, " ")
	return strings.HasPrefix(path, stdbgModule+"/") && !strings.HasPrefix(path, stdbgModule+"/examples/")
}

// fileState lists the package-level variables of f that may hold state.
func fileState(fset *token.FileSet, f *ast.File) []string {
	var vars []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == "_" || i < len(vs.Values) && isErrorValue(vs.Values[i]) {
					continue
				}
				p := fset.Position(n.Pos())
				vars = append(vars, fmt.Sprintf("%s (%s:%d)", n.Name, filepath.Base(p.Filename), p.Line))
			}
		}
	}
	return vars
}

// isErrorValue reports whether e is errors.New(...) or fmt.Errorf(...).
func isErrorValue(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && (pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf")
}
