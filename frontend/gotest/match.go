package gotest

import (
	"context"
	"fmt"
)

// Matching lists the tests of the package that pattern names (an import
// path or a directory, relative to dir) that -run selects, as go test
// selects them at the first level of names, in the order of their files;
// all lists every test of the package. A pattern that names no package,
// or more than one, a package that does not build or a bad -run is the
// user's mistake (UsageError).
func Matching(ctx context.Context, dir, pattern, tags, run string) (matched, all []string, err error) {
	sel, err := newSelector("run", run)
	if err != nil {
		return nil, nil, err
	}
	pkgs, err := listPackages(ctx, dir, tags, []string{pattern})
	if err != nil {
		return nil, nil, err
	}
	if len(pkgs) != 1 {
		return nil, nil, &UsageError{Err: fmt.Errorf("%s names %d packages: name one", pattern, len(pkgs))}
	}
	if msg := pkgs[0].buildError(); msg != "" {
		return nil, nil, &UsageError{Err: fmt.Errorf("%s: %s", pattern, msg)}
	}
	all, err = testNames(pkgs[0])
	if err != nil {
		return nil, nil, err
	}
	for _, name := range all {
		if sel.matches(name) {
			matched = append(matched, name)
		}
	}
	return matched, all, nil
}
