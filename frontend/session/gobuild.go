package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/target/goinstr"
)

// IsGoTarget reports whether arg names a Go package: a directory holding
// .go files (or a path ending in /...).
func IsGoTarget(arg string) bool {
	if strings.HasSuffix(arg, ".go") {
		return true
	}
	st, err := os.Stat(arg)
	if err != nil || !st.IsDir() {
		return false
	}
	matches, _ := filepath.Glob(filepath.Join(arg, "*.go"))
	return len(matches) > 0
}

// buildGo builds a Go package into stdbg's cache: a program with go build,
// or, when test is set, its test binary with go test -c. The program must
// use package sthread (sthread.Run around main, sthread.Check in tests).
//
// A package that does not import sthread is plain Go: package goinstr
// instruments it into an overlay first, and what it could not instrument
// comes back as warnings, one line each.
//
// race builds a plain package with the race detector.
func buildGo(pkg string, test, race bool) (goBuilt, error) {
	return buildGoMode(pkg, test, race, false, "")
}

// goBuilt is a Go target built: its executable, what could not be
// instrumented (one line each), among that what a search does not
// explore (goinstr.Result.Unmodelled), and the package-level variables
// registered to be put back (goinstr.Result.Restored).
type goBuilt struct {
	exe                  string
	warnings, unmodelled []string
	restored             []goinstr.Var
}

// BuildGoDebug is buildGo for a debugger: optimisations and inlining are
// off in every package (-gcflags=all=-N -l), so that Delve shows every
// variable and every call. race builds plain Go with the race detector,
// as the search and the native replay build it, so that a data race the
// search reported is reported under the debugger too.
func BuildGoDebug(pkg string, test, race bool) (string, error) {
	b, err := buildSharedMode(pkg, test, race, true, "")
	return b.exe, err
}

// buildGoMode is buildGo with the debugger's build (debug) and the build
// tags of go build's -tags flag (a comma-separated list, "" for none).
func buildGoMode(pkg string, test, race, debug bool, tags string) (goBuilt, error) {
	return buildGoFiles(pkg, test, race, debug, tags)
}

func buildGoFiles(pkg string, test, race, debug bool, tags string) (built goBuilt, err error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return built, fmt.Errorf("building %s: the go command is not on PATH", pkg)
	}
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return built, fmt.Errorf("building %s: %w", pkg, err)
	}
	dir := abs
	target := "."
	if strings.HasSuffix(abs, ".go") {
		dir, target = filepath.Dir(abs), filepath.Base(abs)
	}
	base, err := cachedir.Dir()
	if err != nil {
		return built, err
	}
	key := fmt.Sprintf("%s\x00%v\x00%v", abs, test, race)
	if debug {
		key += "\x00debug"
	}
	if tags != "" {
		key += "\x00tags=" + tags
	}
	sum := sha256.Sum256([]byte(key))
	outDir := filepath.Join(base, "targets", "go-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return built, fmt.Errorf("building %s: %w", pkg, err)
	}
	cachedir.Used(outDir)
	name := filepath.Base(strings.TrimSuffix(abs, ".go"))
	out := filepath.Join(outDir, name)
	// The calls of sthread and its packages are not inlined into the
	// user's code: a call site then keeps the user's file and line in the
	// binary's line table.
	noInline := "-gcflags=github.com/stdbg/stdbg/sthread/...=-l"
	if debug {
		noInline = "-gcflags=all=-N -l"
	}
	args := []string{"build", noInline, "-o", out, target}
	if test {
		out += ".test"
		args = []string{"test", "-c", noInline, "-o", out, target}
	}
	if tags != "" {
		args = append(args[:len(args)-1:len(args)-1], "-tags="+tags, target)
	}
	if !test && !strings.HasSuffix(abs, ".go") && usesSthread(dir) {
		// A program written with sthread whose main does not call
		// sthread.Run: run main's body inside it.
		overlay, err := goinstr.WrapMain(dir, base)
		if err != nil {
			return built, fmt.Errorf("building %s: %w", pkg, err)
		}
		if overlay != "" {
			args = append(args[:len(args)-1:len(args)-1], "-overlay="+overlay, target)
			built.warnings = append(built.warnings, "main does not call sthread.Run: stdbg runs its body inside it")
		}
	}
	var env []string
	// The instrumentation of plain Go, and the dependency modules it
	// rewrote.
	var instrumented goinstr.Config
	var rewrittenDeps []string
	instrWarnings := 0
	if !strings.HasSuffix(abs, ".go") && !usesSthread(dir) {
		// Plain Go: instrument it into an overlay.
		deps, err := goinstr.ParseDeps(os.Getenv(goinstr.DepsEnv))
		if err != nil {
			return built, err
		}
		icfg := goinstr.Config{Dir: dir, Tests: test, Cache: base, Tags: tags, Deps: deps}
		res, err := goinstr.Instrument(icfg)
		if err != nil {
			return built, fmt.Errorf("instrumenting %s: %w", pkg, err)
		}
		instrumented = icfg
		rewrittenDeps, instrWarnings = res.Deps, len(res.Warnings)
		built.warnings, built.unmodelled, built.restored = res.Warnings, res.Unmodelled, res.Restored
		args = append(args[:len(args)-1:len(args)-1], "-overlay="+res.Overlay)
		ws, err := goinstr.WorkspaceFor(dir, base, test, res.Replace)
		if err != nil {
			return built, fmt.Errorf("instrumenting %s: %w", pkg, err)
		}
		if ws == nil && len(res.Replace) > 0 {
			// stdbg's own module builds without a workspace, where no
			// module can be replaced: its dependencies run as they are.
			icfg.Deps = goinstr.Deps{None: true}
			if res, err = goinstr.Instrument(icfg); err != nil {
				return built, fmt.Errorf("instrumenting %s: %w", pkg, err)
			}
			instrumented, rewrittenDeps, instrWarnings = icfg, nil, len(res.Warnings)
			built.warnings, built.unmodelled, built.restored = res.Warnings, res.Unmodelled, res.Restored
			args[len(args)-1] = "-overlay=" + res.Overlay
		}
		if ws != nil {
			// Another module: sthread comes from stdbg's sources, in a
			// workspace with the module.
			env = ws.Env
			built.warnings = append(built.warnings, ws.Warnings...)
		}
		switch {
		case !race:
		case raceSupported(dir):
			// Data races in every explored schedule (see sthread's
			// race.go).
			args = append(args, "-race")
		default:
			built.warnings = append(built.warnings, "not instrumented: data races (go build -race needs cgo and a C compiler)")
		}
		args = append(args, target)
	}
	err = runGo(goBin, dir, args, env)
	if err != nil && len(rewrittenDeps) > 0 {
		// The rewritten code of a dependency does not build (a
		// construct the rewriting does not handle): build with the
		// main module's packages alone rewritten, and say what then
		// runs unchecked.
		instrumented.Deps = goinstr.Deps{None: true}
		res, ierr := goinstr.Instrument(instrumented)
		if ierr != nil {
			return built, fmt.Errorf("instrumenting %s: %w", pkg, ierr)
		}
		for i, a := range args {
			if strings.HasPrefix(a, "-overlay=") {
				args[i] = "-overlay=" + res.Overlay
			}
		}
		ws, werr := goinstr.WorkspaceFor(dir, base, test, nil)
		if werr != nil {
			return built, fmt.Errorf("instrumenting %s: %w", pkg, werr)
		}
		if ws != nil {
			env = ws.Env
		}
		if err2 := runGo(goBin, dir, args, env); err2 == nil {
			w := fmt.Sprintf("not instrumented: the packages of %s (their rewritten code does not build: %s)", strings.Join(rewrittenDeps, ", "), firstLine(err))
			built.warnings = append(append(slices.Clip(res.Warnings), w), built.warnings[instrWarnings:]...)
			built.unmodelled, built.restored = res.Unmodelled, res.Restored
			err = nil
		}
	}
	if err != nil {
		return built, fmt.Errorf("building %s: %w", pkg, err)
	}
	built.exe = out
	return built, nil
}

// runGo runs the go command with args in dir, with env added to the
// environment; its error holds the command and its output.
func runGo(goBin, dir string, args, env []string) error {
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, strings.TrimSpace(buf.String()))
	}
	return nil
}

// firstLine returns the first line of err's output from the compiler:
// the first line after the command's that names a file, else the
// error's first line.
func firstLine(err error) string {
	lines := strings.Split(err.Error(), "\n")
	for _, l := range lines[1:] {
		if strings.Contains(l, ".go:") {
			return strings.TrimSpace(l)
		}
	}
	return lines[0]
}

// raceSupported reports whether go build -race can work in dir: it needs
// cgo, hence a C compiler, as the go command's settings there say (the
// environment, or go env -w).
func raceSupported(dir string) bool {
	vals, err := goinstr.GoEnv(dir, "CGO_ENABLED", "CC")
	if err != nil || vals[0] != "1" {
		return false
	}
	cc := strings.Fields(vals[1])
	if len(cc) == 0 {
		return false
	}
	_, err = exec.LookPath(cc[0])
	return err == nil
}

// goPackage returns the name of the Go package in dir (its files that are
// not tests) and whether it has test files: "" when it has only tests.
func goPackage(dir string) (name string, tests bool) {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, m := range matches {
		if strings.HasSuffix(m, "_test.go") {
			tests = true
			continue
		}
		if name != "" {
			continue
		}
		if f, err := parser.ParseFile(fset, m, nil, parser.PackageClauseOnly); err == nil {
			name = f.Name.Name
		}
	}
	return name, tests
}

// usesSthread reports whether the Go package in dir (or its tests)
// imports package sthread or one of its packages (sthread/sync/atomic,
// ...): such a package is built as it is, and any other is instrumented by
// package goinstr.
func usesSthread(dir string) bool {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, m := range matches {
		f, err := parser.ParseFile(fset, m, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == rtnames.Package || strings.HasPrefix(p, rtnames.Package+"/") {
				return true
			}
		}
	}
	return false
}

// goTestArgs are the test binary's flags that run the tests matching run.
func goTestArgs(run string) []string {
	return []string{"-test.run=" + run, "-test.count=1"}
}
