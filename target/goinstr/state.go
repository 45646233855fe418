package goinstr

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
)

// PackageState lists the package-level variables declared by the main
// module's packages that the package in dir builds with (and its tests,
// with tests set): state that one run of the program leaves to the next
// when several run in one process. Variables named _ and error values made
// by errors.New or fmt.Errorf, which programs do not change, are left out.
// Those of the packages Instrument rewrites are also among its
// Result.Restored, which the search inside the target puts back before each
// execution.
func PackageState(dir string, tests bool) ([]Var, error) {
	if v, err := newerToolchain(dir); err != nil {
		return nil, err
	} else if v != "" {
		resp, err := remote(dir, v, request{Op: "state", Dir: dir, Tests: tests})
		if err != nil {
			return nil, err
		}
		return resp.Vars, nil
	}
	// Each package of the main module: its import path, whether it is
	// only a dependency (whose tests are not built), its directory, then
	// its files (one go list for the three readers of a Go target's
	// start: golist.go).
	lines, err := listed(dir, tests, "", markState)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	var vars []Var
	for _, line := range lines {
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
			for _, v := range fileVars(fset, f) {
				if !v.errorValue {
					vars = append(vars, v.Var)
				}
			}
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
