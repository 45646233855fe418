package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/stdbg/stdbg/checker"
	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/goinstr"
	"github.com/stdbg/stdbg/rtnames"
	"github.com/stdbg/stdbg/symbolize"
	"github.com/stdbg/stdbg/wire"
)

// target is a program resolved from the command line.
type target struct {
	arg    string   // as the user wrote it
	binary string   // the executable to run
	source string   // the source file, if stdbg compiled it
	args   []string // program arguments
	goPkg  bool     // a Go package (one process per execution, no preload)
	run    string   // Go tests: the -run pattern
	// warnings are what could not be instrumented in a plain Go target;
	// unmodelled, among them, the constructs a search does not explore.
	warnings, unmodelled []string
	// env are NAME=VALUE entries every run of the program gets, recorded
	// in the corpus entries of its bugs: for a Go target, the seed of its
	// random numbers (randSeed).
	env      []string
	randSeed int64
	// state: the package-level variables of a Go target's module
	// (goinstr.PackageState), found once; with any, every execution runs
	// in a fresh process.
	state      []string
	stateKnown bool
	stateSoon  chan []string // PackageState's answer, asked while the target builds
	// memory: a C source built with the memory instrumentation;
	// memoryNote says why it could not be, when it was asked for.
	memory     bool
	memoryNote string
}

// keepsState reports whether a Go target's module declares package-level
// variables, which one execution could leave changed for the next in a
// process that runs several.
func (t *target) keepsState() bool {
	if !t.goPkg {
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

// askState starts finding a Go target's package-level variables (a go list
// of its module, tens of milliseconds) in the background, so that it
// overlaps the build; keepsState takes the answer.
func (t *target) askState() {
	dir := t.source
	if strings.HasSuffix(dir, ".go") {
		dir = filepath.Dir(dir)
	}
	t.stateSoon = make(chan []string, 1)
	go func() {
		vars, err := goinstr.PackageState(dir, t.run != "")
		if err != nil {
			vars = []string{err.Error()} // unknown: be safe
		}
		t.stateSoon <- vars
	}()
}

// seedRand makes the executions of a Go target draw their random numbers
// from the generator seeded with the rand-seed setting.
func (a *app) seedRand(t *target) {
	if !t.goPkg {
		return
	}
	t.randSeed = a.v.GetInt64("rand-seed")
	t.env = append(t.env, fmt.Sprintf("%s=%d", rtnames.RandSeedEnv, t.randSeed))
}

// runArgs are the arguments the binary runs with: the test selection of a
// Go test binary, then the program's own.
func (t *target) runArgs() []string {
	if t.goPkg && t.run != "" {
		return append(goTestArgs(t.run), t.args...)
	}
	return t.args
}

// resolveTarget turns "prog.c", "./prog" or a Go package (plus arguments)
// into a runnable target, compiling sources. run selects Go tests.
func resolveTarget(args []string, run string, race, memory bool) (*target, error) {
	if len(args) == 0 {
		return nil, usageErr("missing program: give a C/C++ source file, an executable or a Go package")
	}
	t := &target{arg: args[0], args: args[1:], run: run}
	if isGoTarget(t.arg) {
		t.source = t.arg
		t.askState()
		b, err := buildGo(t.arg, run != "", race)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		t.warnings, t.unmodelled = b.warnings, b.unmodelled
		t.goPkg, t.binary = true, b.exe
		return t, nil
	}
	if run != "" {
		return nil, usageErr("--run selects Go tests, but %s is not a Go package", t.arg)
	}
	if _, err := os.Stat(t.arg); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErr("%s: no such file", t.arg)
		}
		return nil, usageErr("%s: %v", t.arg, err)
	}
	if ctarget.IsSource(t.arg) {
		exe, note, err := ctarget.BuildWith(t.arg, ctarget.BuildOptions{Memory: memory})
		if err != nil {
			return nil, usageErr("%v", err)
		}
		t.source, t.binary, t.memory, t.memoryNote = t.arg, exe, memory && note == "", note
		if note != "" {
			t.warnings = append(t.warnings, note)
		}
		return t, nil
	}
	abs, err := filepath.Abs(t.arg)
	if err != nil {
		return nil, usageErr("%s: %v", t.arg, err)
	}
	if err := ctarget.CheckBinary(abs); err != nil {
		return nil, usageErr("%v", err)
	}
	t.binary = abs
	// Built with stdbg cc --memory: its memory accesses are scheduling
	// points whatever --memory says.
	t.memory = ctarget.MemoryInstrumented(abs)
	if memory && !t.memory {
		t.memoryNote = fmt.Sprintf("--memory: %s was not built with stdbg cc --memory; its memory accesses are not scheduling points", t.arg)
		t.warnings = append(t.warnings, t.memoryNote)
	}
	return t, nil
}

// session is a running target with its symbols.
type session struct {
	binary string
	goPkg  bool // a Go program or test: executions may share a process
	proc   *ctarget.Process
	syms   *symbolize.Symbolizer
	chk    *checker.Checker
}

// start launches a target under the library.
func (a *app) start(t *target, out, errw io.Writer, fast bool) (*session, error) {
	return a.startTarget(t, out, errw, fast, nil)
}

// startTarget launches a target with extra environment variables.
func (a *app) startTarget(t *target, out, errw io.Writer, fast bool, env []string) (*session, error) {
	var flags uint32
	if fast {
		flags = wire.FlagFastExit
	}
	out, errw = direct(out), direct(errw)
	p, err := ctarget.Start(ctarget.Config{
		Binary:            t.binary,
		Args:              t.runArgs(),
		Respawn:           t.goPkg,
		NoPreload:         t.goPkg,
		Env:               envWith(append(append([]string(nil), t.env...), env...)),
		Stdout:            out,
		Stderr:            errw,
		TransitionTimeout: a.v.GetDuration("transition-timeout"),
		StartTimeout:      a.v.GetDuration("start-timeout"),
		Flags:             flags,
		NoReuse:           a.noReuse || t.keepsState(),
		KeepThreads:       a.searching,
	})
	if err != nil {
		if errors.Is(err, ctarget.ErrNoCompiler) {
			return nil, usageErr("%v", err)
		}
		return nil, &exitError{code: exitUsage, err: err}
	}
	mods := make([]symbolize.Module, 0, len(p.Modules()))
	for _, m := range p.Modules() {
		mods = append(mods, symbolize.Module{Path: m.Path, Bias: m.Bias, Start: m.Start, End: m.End})
	}
	syms := symbolize.New(mods)
	s := &session{binary: t.binary, goPkg: t.goPkg, proc: p, syms: syms}
	s.chk = checker.New(p, checker.Options{FastExit: fast, Locate: s.locate, Races: !t.goPkg && a.v.GetBool("races"), Variable: s.variable,
		SpuriousWakeups: !t.goPkg && a.v.GetBool("spurious-wakeups")})
	return s, nil
}

// locate names a place stably across runs: file:line of the first frame.
func (s *session) locate(pc uint64) string {
	f := s.syms.Return(pc)
	if filepath.Base(f.File) == "stdbg.h" {
		// An annotation's own code: its caller tells where it is.
		return ""
	}
	if f.File != "" && f.Line > 0 {
		return filepath.Base(f.File) + ":" + fmt.Sprint(f.Line)
	}
	if f.Func != "" {
		return f.Func
	}
	return ""
}

// variable names the variable at a data address, "" if unknown.
func (s *session) variable(addr uint64) string {
	name, _ := s.syms.Data(addr)
	return name
}

func (s *session) close() {
	s.proc.Close()
	s.syms.Close()
}

// replayCommand renders the command that replays schedule on t.
func replayCommand(t *target, sched string) string {
	parts := []string{"stdbg", "replay", "--schedule", shellQuote(sched)}
	if t.run != "" {
		parts = append(parts, "--run", shellQuote(t.run))
	}
	if t.goPkg && t.randSeed != defaultRandSeed {
		parts = append(parts, "--rand-seed", fmt.Sprint(t.randSeed))
	}
	parts = append(parts, shellQuote(t.arg))
	if len(t.args) > 0 {
		parts = append(parts, "--")
		for _, a := range t.args {
			parts = append(parts, shellQuote(a))
		}
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// envWith returns stdbg's environment plus extra NAME=VALUE entries, or nil
// (inherit) when there are none.
func envWith(extra []string) []string {
	if len(extra) == 0 {
		return nil
	}
	return append(os.Environ(), extra...)
}

// goMaxDepth is the default depth bound of Go targets: ordinary Go setup
// code (a loop that sends a thousand events) takes more transitions than
// C programs usually do before their threads meet.
const goMaxDepth = 20000

// maxDepth is the depth bound of a search or replay of t: the setting, or
// for a Go target whose setting was left at its default, goMaxDepth.
func (a *app) maxDepth(t *target) int {
	if t.goPkg && !a.explicit("max-depth") {
		return goMaxDepth
	}
	return a.v.GetInt("max-depth")
}
