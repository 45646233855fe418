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

	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/executor"
	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/symbolize"
	"github.com/stdbg/stdbg/targetproc"
	"github.com/stdbg/stdbg/wire"
)

// C programs are compiled with the project's own C build (ctarget's
// compiler, flags and stdbg.h), each source under the cache directory
// (cachedir.Dir) by the hash of its text, and run under the
// interposition library as stdbg find runs them: executions end fast, a
// child serves many of them, threads are kept, spurious wake-ups of
// condition waits are explored, and data races are reported when the
// program asks for it (Program.Races).

// cTarget is a C program in an executable, alone or in a batch (Args then
// select it).
type cTarget struct {
	exe   string
	args  []string
	races bool
}

func (t *cTarget) lang() Lang { return C }

func (t *cTarget) executor(stateful bool) (search.Executor, func(), error) {
	cfg := targetproc.Config{Binary: t.exe, Args: t.args, Flags: wire.FlagFastExit, KeepThreads: true}
	if stateful {
		// As stdbg find --visited: the library tracks the heap from the
		// start, and every hand-over reports the state.
		cfg.Env = append(os.Environ(), "STDBG_STATE=1")
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
		Variable: func(addr uint64) string { n, _ := syms.Data(addr); return n }})
	return chk, func() { p.Close(); syms.Close() }, nil
}

// newCTarget compiles a C program on its own.
func newCTarget(p *Program) (target, func(), error) {
	src, err := CSource(p, "")
	if err != nil {
		return nil, nil, err
	}
	exe, err := compileC(src)
	if err != nil {
		return nil, nil, err
	}
	return &cTarget{exe: exe, races: p.Races}, func() {}, nil
}

// cBatch is an executable that holds the programs of several seeds.
type cBatch struct {
	exe   string
	index map[uint64]int
	races map[uint64]bool
}

// newCBatch compiles the programs of seeds into one executable.
func newCBatch(seeds []uint64, ps []*Program) (*cBatch, error) {
	exe, err := compileC(cBatchSource(ps))
	if err != nil {
		return nil, err
	}
	b := &cBatch{exe: exe, index: map[uint64]int{}, races: map[uint64]bool{}}
	for i, s := range seeds {
		b.index[s] = i
		b.races[s] = ps[i].Races
	}
	return b, nil
}

func (b *cBatch) target(seed uint64) (target, bool) {
	i, ok := b.index[seed]
	if !ok {
		return nil, false
	}
	return &cTarget{exe: b.exe, args: []string{strconv.Itoa(i)}, races: b.races[seed]}, true
}

// compileC compiles a C source into the cache, under the hash of its
// text, and returns the executable; a compiled one is reused.
func compileC(src string) (string, error) {
	base, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	lib, err := ctarget.Library() // stdbg.h with it, and the hash of both
	if err != nil {
		return "", err
	}
	key := sha256.Sum256([]byte(src + "\x00" + lib + "\x00" + strings.Join(ctarget.Flags, " ")))
	dir := filepath.Join(base, "oracle", hex.EncodeToString(key[:10]))
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
