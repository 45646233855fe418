// Package session starts a program of any kind under stdbg's scheduler and
// holds the policy every front end shares (stdbg find, replay and corpus
// run, stdbg test, stdbg grade): it resolves a target (compiling a C or
// C++ source, instrumenting and building a Go package, checking an
// executable), starts it (Start), and runs a search of it the way that
// fits (Session.Explorer): inside a Go target's own process when it can,
// else driven from here, one process per execution when the program keeps
// state from one to the next, with real threads when contexts change what
// a C program does; a small search in one copy of the program, a longer
// one divided among copies. It hands package hunt the executor, the
// search and the replays that explain a bug. It replays one schedule of a
// target, with full stacks and a hook before each step for a debugger
// (Session.Replay), and reruns a corpus entry to judge it (RerunEntry):
// the front ends only print what these return.
package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/goinstr"
	"github.com/stdbg/stdbg/target/targetproc"
)

// Target is a program resolved for checking.
type Target struct {
	Arg    string   // as the user named it
	Binary string   // the executable to run
	Source string   // the source file or Go package, if stdbg built it
	Args   []string // program arguments
	Go     bool     // a Go program or test (no preload; executions may share a process)
	Run    string   // Go tests: the -run pattern
	// Dir is the working directory of the program's processes ("": stdbg's
	// own): a Go test's package directory, where go test runs it.
	Dir string
	// Warnings are what could not be instrumented; Unmodelled, among
	// them, the constructs a search does not explore (a search of the
	// program is exhaustive over the modelled operations only).
	Warnings, Unmodelled []string
	// Env are NAME=VALUE entries every run of the program gets, recorded
	// in the corpus entries of its bugs: for a Go target, the seed of its
	// random numbers (RandSeed, see SeedRand).
	Env      []string
	RandSeed int64
	// MaxStall is the stall bound of a Go target's virtual time
	// (SetMaxStall); nil: the library's default.
	MaxStall *time.Duration
	// Memory: a C source built with the memory instrumentation;
	// MemoryNote says why it could not be, when it was asked for.
	Memory     bool
	MemoryNote string
	// MemoryLogged: the instrumented target's plain accesses are checked
	// for data races between scheduling points, not scheduling points
	// themselves (Build.Memory with Build.Race).
	MemoryLogged bool

	// state: the package-level variables of a Go target's module
	// (goinstr.PackageState), found once; with any, every execution
	// driven from stdbg runs in a fresh process. restored are those
	// the instrumentation registered (goinstr.Result.Restored), which the
	// search inside the target puts back before each execution.
	state      []goinstr.Var
	restored   []goinstr.Var
	stateKnown bool
	stateSoon  chan []goinstr.Var // PackageState's answer, asked while the target builds
}

// Build says how to build a target.
type Build struct {
	// Run selects Go tests (as go test -run): the target is the test
	// binary of the package.
	Run string
	// Race builds a plain Go package with the race detector.
	Race bool
	// Memory compiles a C or C++ source with the memory instrumentation.
	// With Race as well, the program's plain accesses are checked for
	// data races but are not scheduling points (ctarget.MemoryLogEnv);
	// without it, they are scheduling points.
	Memory bool
	// MemoryAsked says the user asked for Memory: an executable built
	// without the instrumentation is then warned about.
	MemoryAsked bool
	// Tags are the build tags of a Go package (go build's -tags: a
	// comma-separated list).
	Tags string
	// NoDWARF links a Go target without its DWARF debugging information
	// (go build -ldflags=-w), which saves a third of the link, for a
	// target that no debugger reads (a grader's): stdbg names its code
	// from the Go line table, as the Go runtime does. A replay under
	// Delve builds the package again, with DWARF (BuildGoDebug).
	NoDWARF bool
}

// UsageError is an error of what the user gave (a file that does not
// exist, a program that does not build): a front end says it in one line
// and exits with status 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// Resolve turns "prog.c", "./prog" or a Go package (with the program's
// arguments after it) into a runnable target, compiling sources.
func Resolve(args []string, b Build) (*Target, error) {
	if len(args) == 0 {
		return nil, usage("missing program: give a C/C++ source file, an executable or a Go package")
	}
	t := &Target{Arg: args[0], Args: args[1:], Run: b.Run}
	if strings.HasSuffix(t.Arg, "/...") || t.Arg == "..." {
		return nil, usage("%s names many packages: stdbg find explores one program or test; stdbg test %s runs every test of every package", t.Arg, t.Arg)
	}
	if IsGoTarget(t.Arg) {
		if b.Run == "" && !strings.HasSuffix(t.Arg, ".go") {
			if name, tests := goPackage(t.Arg); name != "main" && tests {
				return nil, usage("%s is a package with tests and no main: stdbg test %s runs its tests (stdbg find --run TestName %s, one of them)",
					t.Arg, t.Arg, t.Arg)
			}
		}
		t.Source = t.Arg
		if b.Run != "" {
			// go test runs a package's tests in its directory.
			t.Dir = strings.TrimSuffix(t.Arg, string(filepath.Separator))
		}
		t.askState()
		link := linkFull
		if b.NoDWARF {
			link = linkNoDWARF
		}
		built, err := buildShared(t.Arg, b.Run != "", b.Race, link, b.Tags)
		if err != nil {
			return nil, &UsageError{err}
		}
		t.Warnings, t.Unmodelled, t.restored = built.warnings, built.unmodelled, built.restored
		t.Go, t.Binary = true, built.exe
		return t, nil
	}
	if b.Run != "" {
		return nil, usage("--run selects Go tests, but %s is not a Go package", t.Arg)
	}
	if _, err := os.Stat(t.Arg); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usage("%s: no such file", t.Arg)
		}
		return nil, usage("%s: %v", t.Arg, err)
	}
	if ctarget.IsSource(t.Arg) {
		exe, note, err := ctarget.BuildWith(t.Arg, ctarget.BuildOptions{Memory: b.Memory})
		if err != nil {
			return nil, &UsageError{err}
		}
		t.Source, t.Binary, t.Memory, t.MemoryNote = t.Arg, exe, b.Memory && note == "", note
		if note != "" {
			t.Warnings = append(t.Warnings, note)
		}
		t.logMemory(b)
		return t, nil
	}
	abs, err := filepath.Abs(t.Arg)
	if err != nil {
		return nil, usage("%s: %v", t.Arg, err)
	}
	if err := targetproc.CheckBinary(abs); err != nil {
		return nil, &UsageError{err}
	}
	t.Binary = abs
	// Built with stdbg cc --memory: its memory accesses are scheduling
	// points whatever --memory says.
	t.Memory = ctarget.MemoryInstrumented(abs)
	if b.MemoryAsked && b.Memory && !t.Memory {
		t.MemoryNote = fmt.Sprintf("--memory: %s was not built with stdbg cc --memory; its memory accesses are not seen", t.Arg)
		t.Warnings = append(t.Warnings, t.MemoryNote)
	}
	t.logMemory(b)
	return t, nil
}

// logMemory makes an instrumented C target log its plain memory accesses
// for the race detector instead of stopping at each (when races are
// checked): recorded in its Env, so that every replay does the same.
func (t *Target) logMemory(b Build) {
	if t.Memory && b.Race {
		t.MemoryLogged = true
		t.Env = append(t.Env, ctarget.MemoryLogEnv)
	}
}

// FromEntry checks, rebuilds (when needed) and resolves the target of a
// corpus entry at path. An entry is data: it may name only a program
// inside its project, and hold only the environment variables stdbg
// records (corpus.Resolve, corpus.CheckEnv); binary, when set, is the
// program to run instead of a binary entry's own, named by the user.
func FromEntry(path string, e *corpus.Entry, binary string) (*Target, error) {
	if err := corpus.CheckEnv(path, e.Target.Env); err != nil {
		return nil, err
	}
	// The environment the entry records (checked above) is the
	// program's in every run, as it was when the bug was found.
	t := &Target{Args: e.Target.Args, Env: append([]string(nil), e.Target.Env...)}
	var src string
	if e.Target.Kind != "binary" {
		var err error
		if src, err = corpus.Resolve(path, "target.source", e.Target.Source); err != nil {
			return nil, err
		}
	}
	switch e.Target.Kind {
	case "go-test":
		b, err := buildShared(src, true, true, linkFull, "")
		if err != nil {
			return nil, err
		}
		run := e.Target.Run
		if run == "" {
			run = TestPattern(e.Target.Test)
		}
		t.Arg, t.Source, t.Binary, t.Go, t.Run, t.Unmodelled = src, src, b.exe, true, run, b.unmodelled
		t.Dir = src
	case "go-program":
		b, err := buildShared(src, false, true, linkFull, "")
		if err != nil {
			return nil, err
		}
		t.Arg, t.Source, t.Binary, t.Go, t.Unmodelled = src, src, b.exe, true, b.unmodelled
	case "c-source":
		exe, note, err := ctarget.BuildWith(src, ctarget.BuildOptions{Memory: e.Target.Memory})
		if err != nil {
			return nil, fmt.Errorf("rebuilding %s: %w", src, err)
		}
		if note != "" {
			return nil, fmt.Errorf("rebuilding %s as it was built when the bug was found: %s", src, note)
		}
		t.Arg, t.Source, t.Binary, t.Memory = src, src, exe, e.Target.Memory
		t.MemoryLogged = t.Memory && slices.Contains(e.Target.Env, ctarget.MemoryLogEnv)
	default:
		exe := binary
		if exe == "" {
			var err error
			if exe, err = corpus.Resolve(path, "target.binary", e.Target.Binary); err != nil {
				return nil, err
			}
		}
		if err := targetproc.CheckBinary(exe); err != nil {
			return nil, err
		}
		t.Arg, t.Binary = exe, exe
	}
	if t.Go {
		t.RandSeed = DefaultRandSeed
		for _, kv := range t.Env {
			if v, ok := strings.CutPrefix(kv, rtnames.RandSeedEnv+"="); ok {
				if seed, err := strconv.ParseInt(v, 10, 64); err == nil {
					t.RandSeed = seed
				}
			}
		}
	}
	return t, nil
}

// WithRun returns the Go test target t (a test binary) running the tests
// that run selects instead of t's: the same binary, built once for all the
// tests of its package.
func (t *Target) WithRun(run string) *Target {
	t.KeepsState() // found once, for every copy
	c := *t
	c.Run = run
	c.Args = append([]string(nil), t.Args...)
	c.Env = append([]string(nil), t.Env...)
	return &c
}

// Notices are the warnings that the verdict of a search does not say:
// those not among Unmodelled, which a front end lists with the verdict, so
// that each construct not instrumented is listed once.
func (t *Target) Notices() []string {
	var out []string
	for _, w := range t.Warnings {
		if !slices.Contains(t.Unmodelled, w) {
			out = append(out, w)
		}
	}
	return out
}

// SeedRand makes the executions of a Go target draw their random numbers
// from the generator seeded with seed (recorded in its Env).
func (t *Target) SeedRand(seed int64) {
	if !t.Go {
		return
	}
	t.RandSeed = seed
	t.Env = append(t.Env, fmt.Sprintf("%s=%d", rtnames.RandSeedEnv, seed))
}

// SetMaxStall bounds how long virtual time may pass, in the executions of
// a Go target, while a goroutine that can run does not (recorded in its
// Env, see sthread.MaxStall); a negative d: no bound.
func (t *Target) SetMaxStall(d time.Duration) {
	if !t.Go {
		return
	}
	t.MaxStall = &d
	t.Env = append(t.Env, rtnames.MaxStallEnv+"="+rtnames.FormatMaxStall(d))
}

// maxStall is the stall bound of t's executions: MaxStall, or what its
// Env says (a corpus entry's target), or nil (the default).
func (t *Target) maxStall() *time.Duration {
	if t.MaxStall != nil || !t.Go {
		return t.MaxStall
	}
	var d *time.Duration
	for _, kv := range t.Env {
		if v, ok := strings.CutPrefix(kv, rtnames.MaxStallEnv+"="); ok {
			if x, err := rtnames.ParseMaxStall(v); err == nil {
				d = &x
			}
		}
	}
	return d
}

// RunArgs are the arguments the binary runs with: the test selection of a
// Go test binary, then the program's own.
func (t *Target) RunArgs() []string {
	if t.Go && t.Run != "" {
		return append(goTestArgs(t.Run), t.Args...)
	}
	return t.Args
}

// KeepsState reports whether a Go target's module declares package-level
// variables, which one execution could leave changed for the next in a
// process that runs several.
func (t *Target) KeepsState() bool {
	if !t.Go {
		return false
	}
	if !t.stateKnown {
		t.stateKnown = true
		if t.stateSoon == nil {
			t.askState()
		}
		t.state = <-t.stateSoon
	}
	return len(t.state) > 0
}

// State lists the package-level variables KeepsState found, each as
// "name (file:line)".
func (t *Target) State() []string {
	t.KeepsState()
	return varNames(t.state)
}

// KeptState lists, as State, the package-level variables that the search
// inside the target cannot put back before each execution: those of the
// packages the instrumentation of plain Go does not rewrite (a program or
// test written with sthread, a package that imports it, a cgo file), or
// all of them with STDBG_RESTORE=0. A Go target with none can run its
// search inside its process.
func (t *Target) KeptState() []string {
	t.KeepsState()
	if os.Getenv("STDBG_RESTORE") == "0" {
		return varNames(t.state)
	}
	restored := map[goinstr.Var]bool{}
	for _, v := range t.restored {
		restored[v] = true
	}
	var kept []goinstr.Var
	for _, v := range t.state {
		if !restored[v] {
			kept = append(kept, v)
		}
	}
	return varNames(kept)
}

// Restores reports whether the search inside the target puts back
// package-level variables before each execution.
func (t *Target) Restores() bool {
	return t.KeepsState() && len(t.KeptState()) == 0
}

func varNames(vars []goinstr.Var) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = v.String()
	}
	return out
}

// askState starts finding a Go target's package-level variables (a go list
// of its module, tens of milliseconds) in the background, so that it
// overlaps the build; KeepsState takes the answer.
func (t *Target) askState() {
	dir := t.Source
	if strings.HasSuffix(dir, ".go") {
		dir = filepath.Dir(dir)
	}
	t.stateSoon = make(chan []goinstr.Var, 1)
	go func() {
		vars, err := packageState(dir, t.Run != "")
		if err != nil {
			vars = []goinstr.Var{{Name: err.Error()}} // unknown: be safe
		}
		t.stateSoon <- vars
	}()
}

// DefaultRandSeed is the seed of a Go target's random numbers by default.
const DefaultRandSeed = 1

// ReplayCommand renders the command that replays schedule on t.
func (t *Target) ReplayCommand(sched string) string {
	parts := []string{"stdbg", "replay", "--schedule", ShellQuote(sched)}
	if t.Run != "" {
		parts = append(parts, "--run", ShellQuote(t.Run))
	}
	if t.Go && t.RandSeed != DefaultRandSeed {
		parts = append(parts, "--rand-seed", fmt.Sprint(t.RandSeed))
	}
	if d := t.maxStall(); d != nil && *d != syncmodel.DefaultMaxStall {
		parts = append(parts, "--max-stall", rtnames.FormatMaxStall(*d))
	}
	parts = append(parts, ShellQuote(t.Arg))
	if len(t.Args) > 0 {
		parts = append(parts, "--")
		for _, a := range t.Args {
			parts = append(parts, ShellQuote(a))
		}
	}
	return strings.Join(parts, " ")
}

// EntryTarget is the target of the corpus entries of t's bugs, saved in
// dir.
func (t *Target) EntryTarget(dir string) corpus.Target {
	ct := corpus.Target{Args: t.Args, Env: append([]string(nil), t.Env...)}
	switch {
	case t.Go && t.Run != "":
		ct.Kind, ct.Run = "go-test", t.Run
		ct.Source = corpus.RelSource(dir, t.Source)
	case t.Go:
		ct.Kind = "go-program"
		ct.Source = corpus.RelSource(dir, t.Source)
	case t.Source != "":
		ct.Kind = "c-source"
		ct.Source = corpus.RelSource(dir, t.Source)
		ct.Memory = t.Memory
	default:
		ct.Kind = "binary"
		ct.Binary = corpus.RelSource(dir, t.Binary)
	}
	return ct
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestPattern turns a test name (with subtests: "TestBank/two_accounts")
// into the -run pattern that selects exactly it.
func TestPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// GoMaxDepth is the default depth bound of Go targets: ordinary Go setup
// code (a loop that sends a thousand events) takes more transitions than
// C programs usually do before their threads meet.
const GoMaxDepth = 20000
