package gotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stdbg/stdbg/frontend/session"
)

// A pkg is a package that the patterns matched, as go list describes it.
type pkg struct {
	ImportPath   string
	Dir          string
	Name         string
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Module       *struct {
		Path  string
		Main  bool
		GoMod string
	}
	Error *struct{ Err string }
	// DepsErrors are the errors of the packages it imports.
	DepsErrors []*struct{ Err string }
}

// hasTests reports whether the package has test files.
func (p *pkg) hasTests() bool { return len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 }

// buildError returns what go list found wrong with the package or its
// imports (the package does not build), "" if nothing.
func (p *pkg) buildError() string {
	var errs []string
	if p.Error != nil {
		errs = append(errs, p.Error.Err)
	}
	for _, e := range p.DepsErrors {
		errs = append(errs, e.Err)
	}
	return strings.Join(errs, "\n")
}

// listPackages expands go test's package patterns in dir into the packages
// they match, in go list's order. A pattern that names nothing (a
// directory that does not exist, a pattern that matches no package) is the
// user's mistake: usageError.
func listPackages(ctx context.Context, dir, tags string, patterns []string) ([]*pkg, error) {
	args := []string{"list", "-e", "-json=ImportPath,Dir,Name,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Module,Error,DepsErrors"}
	if tags != "" {
		args = append(args, "-tags="+tags)
	}
	args = append(args, "--")
	args = append(args, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &session.UsageError{Err: fmt.Errorf("go list %s: %v: %s", strings.Join(patterns, " "), err, strings.TrimSpace(stderr.String()))}
	}
	var pkgs []*pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := &pkg{}
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		if p.Error != nil && p.Name == "" && p.Dir == "" {
			// Not a package: a pattern that names nothing.
			return nil, &session.UsageError{Err: fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)}
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = "no packages to test"
		}
		return nil, &session.UsageError{Err: fmt.Errorf("%s: %s", strings.Join(patterns, " "), msg)}
	}
	return pkgs, nil
}

// testNames lists the tests of the package's test files, as go test finds
// them: the top-level functions TestXxx(t *testing.T), Xxx not starting
// with a lower-case letter, in the order of the files and of their
// declarations (TestMain is not a test).
func testNames(p *pkg) ([]string, error) {
	fset := token.NewFileSet()
	var names []string
	files := append(append([]string(nil), p.TestGoFiles...), p.XTestGoFiles...)
	for _, name := range files {
		path := filepath.Join(p.Dir, name)
		// A syntax error is the compiler's to report (the build of the
		// test binary fails with it), and code of a Go newer than the one
		// stdbg was built with (a generic method, Go 1.27) is no error
		// for the go command that builds it: the declarations parsed
		// are enough to find the tests.
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if f == nil {
			return nil, err
		}
		testing := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "testing" {
				testing = "testing"
				if imp.Name != nil {
					testing = imp.Name.Name
				}
			}
		}
		if testing == "" {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Recv == nil && fd.Type.TypeParams == nil && isTestName(fd.Name.Name) && takesT(fd.Type, testing) {
				names = append(names, fd.Name.Name)
			}
		}
	}
	return names, nil
}

// isTestName reports whether name is TestXxx: Test, then nothing or a
// character that is not a lower-case letter.
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok || name == "TestMain" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return rest == "" || !unicode.IsLower(r)
}

// takesT reports whether the function type is func(*testing.T), testing
// being the name the file imports package testing under.
func takesT(ft *ast.FuncType, testing string) bool {
	if ft.Results != nil && len(ft.Results.List) > 0 || len(ft.Params.List) != 1 || len(ft.Params.List[0].Names) > 1 {
		return false
	}
	star, ok := ft.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == testing && sel.Sel.Name == "T"
}

// A selector is go test's -run or -skip: a regular expression per level
// of test names, split at slashes that are outside brackets and
// parentheses ("TestA/sub" selects the subtest sub of TestA).
type selector struct {
	top  *regexp.Regexp // the first level; nil matches everything
	rest string         // the further levels, "" if none
}

// newSelector compiles a -run or -skip value (flag names which).
func newSelector(flag, expr string) (*selector, error) {
	if expr == "" {
		return &selector{}, nil
	}
	parts := splitLevels(expr)
	re, err := regexp.Compile(parts[0])
	if err != nil {
		return nil, &session.UsageError{Err: fmt.Errorf("-%s %q: %v", flag, expr, err)}
	}
	for _, p := range parts[1:] {
		if _, err := regexp.Compile(p); err != nil {
			return nil, &session.UsageError{Err: fmt.Errorf("-%s %q: %v", flag, expr, err)}
		}
	}
	return &selector{top: re, rest: strings.Join(parts[1:], "/")}, nil
}

// matches reports whether the selector's first level matches the test.
func (s *selector) matches(name string) bool { return s.top == nil || s.top.MatchString(name) }

// splitLevels splits a -run value at the slashes outside brackets and
// parentheses, as package testing does.
func splitLevels(expr string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			if depth > 0 {
				depth--
			}
		case '/':
			if depth == 0 {
				parts = append(parts, expr[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, expr[start:])
}
