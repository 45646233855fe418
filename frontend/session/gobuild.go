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
	return buildGoMode(pkg, test, race, linkFull, "")
}

// goLink is how a Go target is compiled and linked.
type goLink int

const (
	// linkFull optimises, and links the DWARF debugging information in.
	linkFull goLink = iota
	// linkDebug is for a debugger: optimisations and inlining off
	// (-gcflags=all=-N -l), DWARF in.
	linkDebug
	// linkNoDWARF optimises and links without DWARF (-ldflags=-w), for a
	// target that no debugger reads: the link takes a third less CPU
	// time, and stdbg names the target's code from the Go line table that
	// its runtime keeps for stack traces (package symbolize, gopcln.go).
	linkNoDWARF
)

// String names the mode in the key of a shared build.
func (l goLink) String() string {
	return [...]string{"full", "debug", "no-dwarf"}[l]
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
	b, err := buildSharedMode(pkg, test, race, linkDebug, "")
	return b.exe, err
}

// buildGoMode is buildGo with a way to compile and link (link) and the
// build tags of go build's -tags flag (a comma-separated list, "" for
// none).
func buildGoMode(pkg string, test, race bool, link goLink, tags string) (goBuilt, error) {
	return buildGoFiles(pkg, test, race, link, tags)
}

func buildGoFiles(pkg string, test, race bool, link goLink, tags string) (built goBuilt, err error) {
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
	// The calls of sthread and its packages are not inlined into the
	// user's code: a call site then keeps the user's file and line in the
	// binary's line table.
	noInline := "-gcflags=github.com/stdbg/stdbg/sthread/...=-l"
	if link == linkDebug {
		noInline = "-gcflags=all=-N -l"
	}
	// The executable's path (args[outArg]) is set once the arguments are
	// complete: it is named by them (see targetPath).
	args := []string{"build", noInline, "-o", "", target}
	outArg := 3
	if test {
		args = []string{"test", "-c", noInline, "-o", "", target}
		outArg = 4
	}
	if tags != "" {
		args = append(args[:len(args)-1:len(args)-1], "-tags="+tags, target)
	}
	if link == linkNoDWARF && !strings.Contains(os.Getenv("GOFLAGS"), "-ldflags") {
		// (GOFLAGS' own -ldflags, which this one would replace, are kept,
		// with DWARF.)
		args = append(args[:len(args)-1:len(args)-1], "-ldflags=-w", target)
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
	var rewrittenOrigins map[string]string
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
		rewrittenDeps, rewrittenOrigins, instrWarnings = res.Deps, res.Origins, len(res.Warnings)
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
	out, err := targetPath(base, abs, test, args, env)
	if err != nil {
		return built, fmt.Errorf("building %s: %w", pkg, err)
	}
	args[outArg] = out
	err = runGo(goBin, dir, args, env)
	if err != nil && len(rewrittenDeps) > 0 {
		// The rewritten code of a dependency does not build (a
		// construct the rewriting does not handle). The modules whose
		// files the compiler's messages name go unrewritten first,
		// the others still rewritten; if that does not build either,
		// the main module's packages alone: what then runs unchecked
		// is said.
		var tries [][]string // the modules rewritten, in turn
		if bad := failingDeps(err, dir, rewrittenOrigins); len(bad) > 0 && len(bad) < len(rewrittenDeps) {
			var rest []string
			for _, m := range rewrittenDeps {
				if !slices.Contains(bad, m) {
					rest = append(rest, m)
				}
			}
			tries = append(tries, rest)
		}
		tries = append(tries, nil)
		for _, keep := range tries {
			fell, ferr := buildFallback(goBin, dir, base, args, test, instrumented, keep)
			if ferr != nil {
				return built, fmt.Errorf("instrumenting %s: %w", pkg, ferr)
			}
			if fell == nil {
				continue
			}
			var dropped []string
			for _, m := range rewrittenDeps {
				if !slices.Contains(fell.Deps, m) {
					dropped = append(dropped, m)
				}
			}
			w := fmt.Sprintf("not instrumented: the packages of %s (their rewritten code does not build: %s)", strings.Join(dropped, ", "), firstLine(err))
			built.warnings = append(append(slices.Clip(fell.Warnings), w), built.warnings[instrWarnings:]...)
			built.unmodelled, built.restored = fell.Unmodelled, fell.Restored
			err = nil
			break
		}
	}
	if err != nil {
		return built, fmt.Errorf("building %s: %w", pkg, err)
	}
	built.exe = out
	return built, nil
}

// buildEnv are the variables of the environment that the go command, and
// stdbg's instrumentation before it, build a Go target with besides the
// files and the arguments.
var buildEnv = []string{"GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "CC", "GOTOOLCHAIN", "GOEXPERIMENT", "GOWORK", "STDBG_SOURCE", "STDBG_CACHE", goinstr.DepsEnv}

// targetPath returns the path, under stdbg's cache base, of the executable
// that go build (or go test -c, with test) makes of the package at abs
// with args (whose -o argument is left empty) and env added to the
// environment, and makes its directory. The directory is named by all of
// them and by buildEnv's variables: a build with other settings (another
// -overlay, whose path names the instrumented code's content, build tags,
// the race detector, another workspace or GOFLAGS) never writes over an
// executable that another stdbg process (another package of tests, when a
// test run shares one cache among them) may be about to run; the go
// command links the same one again only when its inputs changed.
func targetPath(base, abs string, test bool, args, env []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", abs)
	for _, a := range args {
		fmt.Fprintf(h, "arg %s\x00", a)
	}
	for _, kv := range env {
		fmt.Fprintf(h, "env %s\x00", kv)
	}
	for _, v := range buildEnv {
		fmt.Fprintf(h, "%s=%s\x00", v, os.Getenv(v))
	}
	outDir := filepath.Join(base, "targets", "go-"+hex.EncodeToString(h.Sum(nil)[:8]))
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", err
	}
	cachedir.Used(outDir)
	out := filepath.Join(outDir, filepath.Base(strings.TrimSuffix(abs, ".go")))
	if test {
		out += ".test"
	}
	return out, nil
}

// buildFallback instruments the package again (cfg) with only the
// dependency modules of keep rewritten (none when keep is empty) and
// builds it with args, whose -overlay it replaces. It returns the
// instrumentation when the build succeeded, nil when it did not.
func buildFallback(goBin, dir, cache string, args []string, test bool, cfg goinstr.Config, keep []string) (*goinstr.Result, error) {
	cfg.Deps = goinstr.Deps{None: true}
	if len(keep) > 0 {
		cfg.Deps = goinstr.Deps{Only: keep}
	}
	res, err := goinstr.Instrument(cfg)
	if err != nil {
		return nil, err
	}
	args = slices.Clone(args)
	for i, a := range args {
		if strings.HasPrefix(a, "-overlay=") {
			args[i] = "-overlay=" + res.Overlay
		}
	}
	ws, err := goinstr.WorkspaceFor(dir, cache, test, res.Replace)
	if err != nil {
		return nil, err
	}
	var env []string
	if ws != nil {
		env = ws.Env
	}
	if runGo(goBin, dir, args, env) != nil {
		return nil, nil
	}
	return res, nil
}

// failingDeps returns the modules (of origins: the directories of their
// original files, by module path) whose files the compiler's messages in
// err name, a message of the go command run in dir: the copies' line
// directives give their errors the original files' paths.
func failingDeps(err error, dir string, origins map[string]string) []string {
	var bad []string
	for _, l := range strings.Split(err.Error(), "\n") {
		file, _, ok := strings.Cut(strings.TrimSpace(l), ".go:")
		if !ok {
			continue
		}
		file += ".go"
		if !filepath.IsAbs(file) {
			// The go command names files below its directory
			// relative to it.
			file = filepath.Join(dir, file)
		}
		for m, d := range origins {
			if strings.HasPrefix(file, d+string(filepath.Separator)) && !slices.Contains(bad, m) {
				bad = append(bad, m)
			}
		}
	}
	slices.Sort(bad)
	return bad
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
