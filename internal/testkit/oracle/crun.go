package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/internal/symbolize"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// C programs are compiled with the project's own C build (ctarget's
// compiler, flags and stdbg.h), each source under the cache directory
// (cachedir.Dir) by the hash of its text, and run under the
// interposition library as stdbg find runs them: executions end fast, a
// child serves many of them, threads are kept, spurious wake-ups of
// condition waits are explored, and data races are reported when the
// program asks for it (Program.Races). A Memory program is built with the
// memory instrumentation (ctarget.BuildWith), and its plain accesses are
// logged for the race detector when races are reported (as stdbg find
// runs it), scheduling points otherwise.

// cTarget is a C program in an executable, alone or in a batch (Args then
// select it).
type cTarget struct {
	exe  string
	args []string
	// races: the data race detector is on; memory: the executable is
	// instrumented; logged: its plain accesses are logged
	// (ctarget.MemoryLogEnv), not scheduling points.
	races, memory, logged bool
	// strict: the program's failures each follow a scheduling point
	// (failuresFollowPoints), for checkMemory.
	strict bool
	// noSpin: no turn of a loop waits (STDBG_SPIN=0): every turn is
	// explored (the reference of checkSpin).
	noSpin bool
}

func (t *cTarget) lang() Lang { return C }

// cTargetOf is the target of program p in exe (args select it): run as
// stdbg find runs it.
func cTargetOf(p *Program, exe string, args []string) *cTarget {
	return &cTarget{exe: exe, args: args, races: p.Races, memory: p.Memory, logged: p.Memory && p.Races,
		strict: failuresFollowPoints(p), noSpin: p.Unroll > 0}
}

// mode returns the same program run with the race detector on or off, its
// plain accesses logged or scheduling points.
func (t *cTarget) mode(races, logged bool) *cTarget {
	m := *t
	m.races, m.logged = races, logged
	return &m
}

func (t *cTarget) executor(stateful bool) (search.Executor, func(), error) {
	cfg := targetproc.Config{Binary: t.exe, Args: t.args, Flags: wire.FlagFastExit, KeepThreads: true}
	var env []string
	if stateful {
		// As stdbg find --visited: the library tracks the heap from the
		// start, and every hand-over reports the state.
		env = append(env, "STDBG_STATE=1")
	}
	if t.logged {
		env = append(env, ctarget.MemoryLogEnv)
	}
	if t.noSpin {
		env = append(env, "STDBG_SPIN=0")
	}
	if len(env) > 0 {
		cfg.Env = append(os.Environ(), env...)
	}
	p, err := ctarget.Start(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("starting %s %v: %w", t.exe, t.args, err)
	}
	if stateful {
		p.SetFlags(p.Flags() | wire.FlagState)
	}
	mods := make([]symbolize.Module, 0, len(p.Modules()))
	for _, m := range p.Modules() {
		mods = append(mods, symbolize.Module{Path: m.Path, Bias: m.Bias, Start: m.Start, End: m.End})
	}
	syms := symbolize.New(mods)
	locate := func(pc uint64) string {
		f := syms.Return(pc)
		if filepath.Base(f.File) == "stdbg.h" {
			return "" // an annotation: its caller is the place
		}
		if f.File != "" && f.Line > 0 {
			return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
		}
		return f.Func
	}
	chk := executor.New(p, executor.Options{FastExit: true, Locate: locate, Races: t.races, SpuriousWakeups: true,
		Variable: func(addr uint64) string { n, _ := syms.Data(addr); return n }, CheckThreads: true})
	return chk, func() { p.Close(); syms.Close() }, nil
}

// newCTarget compiles a C program on its own.
func newCTarget(p *Program) (target, func(), error) {
	src, err := CSource(p, "")
	if err != nil {
		return nil, nil, err
	}
	exe, err := compileC(src, p.Memory)
	if err != nil {
		return nil, nil, err
	}
	return cTargetOf(p, exe, nil), func() {}, nil
}

// cBatch holds the programs of several seeds, compiled into few
// executables: one of the plain builds, one of the Memory programs.
type cBatch struct {
	targets map[uint64]*cTarget
}

// newCBatch compiles the programs of seeds.
func newCBatch(seeds []uint64, ps []*Program) (*cBatch, error) {
	b := &cBatch{targets: map[uint64]*cTarget{}}
	for _, memory := range []bool{false, true} {
		var in []*Program
		var of []uint64
		for i, p := range ps {
			if p.Memory == memory {
				in, of = append(in, p), append(of, seeds[i])
			}
		}
		if len(in) == 0 {
			continue
		}
		exe, err := compileC(cBatchSource(in), memory)
		if err != nil {
			return nil, err
		}
		for i, s := range of {
			b.targets[s] = cTargetOf(in[i], exe, []string{strconv.Itoa(i)})
		}
	}
	return b, nil
}

func (b *cBatch) target(seed uint64) (target, bool) {
	t, ok := b.targets[seed]
	return t, ok
}

// compileC compiles a C source into the cache, under the hash of its
// text, and returns the executable; a compiled one is reused. With memory,
// it is built as stdbg find builds a source, with the memory
// instrumentation.
func compileC(src string, memory bool) (string, error) {
	base, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	lib, err := ctarget.Library() // stdbg.h with it, and the hash of both
	if err != nil {
		return "", err
	}
	flags := strings.Join(ctarget.Flags, " ")
	if memory {
		flags += " " + strings.Join(ctarget.MemoryFlags, " ")
	}
	key := sha256.Sum256([]byte(src + "\x00" + lib + "\x00" + flags))
	dir := filepath.Join(base, "oracle", hex.EncodeToString(key[:10]))
	if memory {
		return compileMemory(src, dir)
	}
	exe := filepath.Join(dir, "prog")
	if _, err := os.Stat(exe); err == nil {
		return exe, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cfile := filepath.Join(tmp, "prog.c")
	if err := os.WriteFile(cfile, []byte(src), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(tmp, "prog")
	cc, args, err := ctarget.CompileArgs(cfile, out, nil)
	if err != nil {
		return "", err
	}
	cmd := exec.Command(cc, args...)
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("compiling a generated program: %v\n%s", err, msg.String())
	}
	// The source stays beside the executable, for its line numbers.
	if err := os.Rename(cfile, filepath.Join(dir, "prog.c")); err != nil {
		return "", err
	}
	if err := os.Rename(out, exe); err != nil {
		return "", err
	}
	return exe, nil
}

// compileMemory writes src into dir and builds it with ctarget.BuildWith
// and the memory instrumentation (which keeps the executable in its own
// cache, rebuilt when the source or stdbg.h changes).
func compileMemory(src, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cfile := filepath.Join(dir, "prog.c")
	if old, err := os.ReadFile(cfile); err != nil || string(old) != src {
		tmp, err := os.CreateTemp(dir, "prog-*.c")
		if err != nil {
			return "", err
		}
		_, werr := tmp.WriteString(src)
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), cfile)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return "", werr
		}
	}
	exe, note, err := ctarget.BuildWith(cfile, ctarget.BuildOptions{Memory: true})
	if err != nil {
		return "", fmt.Errorf("compiling a generated program with the memory instrumentation: %w", err)
	}
	if note != "" {
		return "", fmt.Errorf("compiling a generated program: %s", note)
	}
	return exe, nil
}

// PrepareC compiles the C programs of seeds into executables of Batch
// programs each, so that Program finds them compiled.
func (c *Campaign) PrepareC(seeds []uint64) error {
	if c.Lang != C {
		return nil
	}
	ps := make([]*Program, len(seeds))
	for i, s := range seeds {
		ps[i] = Generate(C, s, c.gen(s))
	}
	b, err := newCBatch(seeds, ps)
	if err != nil {
		return err
	}
	c.batch = b
	return nil
}
