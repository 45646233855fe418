// Command sidebyside runs the same C programs under stdbg and under SimGrid's
// model checker (simgrid-mc with its sthread library), in alternation,
// a run of each to warm up, then several rounds, and prints a markdown table: the median wall time of
// each tool (start-up included), what each counted (stdbg's executions,
// SimGrid's traces or states), the peak memory of each (the largest
// resident set of the tool and its processes), and how many times faster
// stdbg is.
//
// SimGrid is used when both of these are set:
//
//	SIMGRID_MC       the simgrid-mc executable of a SimGrid build
//	SIMGRID_STHREAD  its libsthread.so
//
// and SIMGRID_MC_ARGS, if set, replaces the arguments given to simgrid-mc
// before the program (default: --cfg=model-check/reduction:odpor
// --cfg=model-check/setenv:LD_PRELOAD={sthread}, where {sthread} stands for
// SIMGRID_STHREAD). Debian's packaged SimGrid has neither simgrid-mc nor
// sthread: build SimGrid with -Denable_model-checking=ON. Without them the
// table has stdbg's side, measured now, and SimGrid's figures as issue 36
// recorded them on the project's machine (SimGrid master, ODPOR), labelled
// as recorded.
//
// Run it from the repository root (benchmarks/versus does):
//
//	go run ./benchmarks/sidebyside [-rounds 3] [-run REGEXP] [-stdbg PATH] [-hogs N]
//
// It builds stdbg from the tree unless -stdbg (or $STDBG) names a binary.
// Each row is printed as soon as it is measured, and what it is running
// goes to the standard error. With -hogs N every run alternates with a run
// beside N CPU hogs (busy loops), and the table adds the times beside the
// hogs and the slowdown: how a tool fares on a busy machine.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/stdbg/stdbg/internal/loadavg"
)

// program is a row of the table: a C program, its arguments, and what is
// asked of the tools.
type program struct {
	name string
	src  string   // under examples/c
	args []string // the program's own
	// firstBug: the search stops at the first bug (a deadlock) and stdbg
	// minimises it; otherwise the search is exhaustive and finds no bug.
	firstBug bool
	// recorded is SimGrid's figure from issue 36, for the table without
	// SimGrid.
	recorded string
}

var programs = []program{
	{name: "counter 3x3", src: "bench/counter.c", args: []string{"3", "3"},
		recorded: "2.24 s (stdbg 0.19 s then: 11.8x)"},
	{name: "counter 4x2", src: "bench/counter.c", args: []string{"4", "2"},
		recorded: "stdbg 16.3x faster (times not recorded)"},
	{name: "bounded buffer 2+2", src: "dpor/prodcons2x2.c",
		recorded: "stdbg 49-58x faster on the 2+2 buffers"},
	{name: "bounded buffer 2+2 (bench)", src: "bench/prodcons.c", args: []string{"2", "2"},
		recorded: "stdbg 49-58x faster on the 2+2 buffers"},
	{name: "6 dining philosophers, first deadlock", src: "dining-philosophers.c", args: []string{"6"}, firstBug: true,
		recorded: "0.16 s, deadlock found in 0.03-0.07 s (stdbg 0.12 s then)"},
}

// run is one measured run of a tool.
type run struct {
	wall  time.Duration
	cpu   time.Duration // user and system time of the tool and its processes
	count int64         // executions, traces or states; -1 if not found in the output
	unit  string        // what count counts
	rssKB int64         // peak resident set, KB
}

// tool runs one program once.
type tool interface {
	name() string
	run(p program) (run, error)
}

func main() {
	var o options
	flag.IntVar(&o.rounds, "rounds", 3, "rounds of alternating runs; the table shows medians")
	only := flag.String("run", "", "only the programs whose name matches this regular expression")
	flag.StringVar(&o.stdbg, "stdbg", os.Getenv("STDBG"), "stdbg binary (default: built from this tree)")
	flag.IntVar(&o.hogs, "hogs", 0, "also run every program beside this many CPU hogs (busy loops), alternating with the runs without them")
	flag.Parse()
	re, err := regexp.Compile(*only)
	if err != nil || o.rounds < 1 || o.hogs < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: sidebyside [-rounds n>=1] [-run REGEXP] [-stdbg PATH] [-hogs n]")
		os.Exit(2)
	}
	o.only = re
	o.mc, o.sthread, o.mcArgs = os.Getenv("SIMGRID_MC"), os.Getenv("SIMGRID_STHREAD"), os.Getenv("SIMGRID_MC_ARGS")
	o.progress = os.Stderr
	if err := measure(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// options are what a measurement runs.
type options struct {
	only        *regexp.Regexp
	rounds      int
	stdbg       string // stdbg binary; empty: built from the tree
	mc, sthread string // SimGrid's simgrid-mc and libsthread.so; empty: not installed
	mcArgs      string // replaces simgrid-mc's default arguments
	hogs        int    // > 0: every run also beside this many CPU hogs
	progress    io.Writer
}

// measure prints the table's header, then measures the rows one after
// the other and prints each as soon as it is measured: for each row a run
// of each tool to warm up, then the rounds, in each of which every tool
// runs once (and once more beside the hogs, with -hogs).
func measure(w io.Writer, o options) error {
	if o.progress == nil {
		o.progress = io.Discard
	}
	tmp, err := os.MkdirTemp("", "stdbg-sidebyside-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.stdbg == "" {
		o.stdbg = filepath.Join(tmp, "stdbg")
		if out, err := exec.Command("go", "build", "-o", o.stdbg, "./cmd/stdbg").CombinedOutput(); err != nil {
			return fmt.Errorf("building stdbg (run from the repository root): %v\n%s", err, out)
		}
	}
	tools := []tool{&stdbgTool{bin: o.stdbg}}
	var sg *simgridTool
	if o.mc != "" && o.sthread != "" {
		sg = &simgridTool{mc: o.mc, sthread: o.sthread, args: o.mcArgs, dir: tmp}
		tools = append(tools, sg)
	}
	var rows []program
	for _, p := range programs {
		if o.only.MatchString(p.name) {
			rows = append(rows, p)
		}
	}
	header(w, o, sg)
	for _, p := range rows {
		// A first run of each, not measured, builds what the tools cache
		// (the program and stdbg's library, compiled once) and warms the
		// files.
		for _, t := range tools {
			fmt.Fprintf(o.progress, "%s: %s, warming up\n", p.name, t.name())
			if _, err := t.run(p); err != nil {
				return fmt.Errorf("%s, %s: %w", p.name, t.name(), err)
			}
		}
		quiet := make([][]run, len(tools))
		loaded := make([][]run, len(tools))
		for r := range o.rounds {
			for i, t := range tools {
				fmt.Fprintf(o.progress, "%s: %s, round %d of %d\n", p.name, t.name(), r+1, o.rounds)
				q, err := t.run(p)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", p.name, t.name(), err)
				}
				quiet[i] = append(quiet[i], q)
				if o.hogs == 0 {
					continue
				}
				fmt.Fprintf(o.progress, "%s: %s, round %d of %d, beside %d CPU hogs\n", p.name, t.name(), r+1, o.rounds, o.hogs)
				h, err := besideHogs(o.hogs, func() (run, error) { return t.run(p) })
				if err != nil {
					return fmt.Errorf("%s, %s beside CPU hogs: %w", p.name, t.name(), err)
				}
				loaded[i] = append(loaded[i], h)
			}
		}
		fmt.Fprintln(w, row(p, o, quiet, loaded, sg != nil))
	}
	return nil
}

// header prints what was measured and how, and the table's header.
func header(w io.Writer, o options, sg *simgridTool) {
	fmt.Fprintf(w, "Machine: %s/%s, %d CPUs, %s, load average %s; a run of each to warm up, then %d rounds, medians; stdbg %s.\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadavg.Read(1),
		o.rounds, stdbgCommand)
	if o.hogs > 0 {
		fmt.Fprintf(w, "Each run alternates with one beside %d CPU hogs (busy loops of /bin/sh at the same priority); "+
			"CPU is the user and system time of the tool and its processes.\n", o.hogs)
	}
	cols := []string{"program", "stdbg", "stdbg CPU"}
	if o.hogs > 0 {
		cols = append(cols, "stdbg beside hogs", "stdbg CPU beside hogs", "slowdown")
	}
	cols = append(cols, "stdbg count", "stdbg peak memory")
	if sg != nil {
		fmt.Fprintf(w, "SimGrid: %s %s PROGRAM ARGS.\n\n", o.mc, strings.Join(sg.argv(), " "))
		cols = append(cols, "SimGrid", "SimGrid CPU")
		if o.hogs > 0 {
			cols = append(cols, "SimGrid beside hogs", "SimGrid CPU beside hogs")
		}
		cols = append(cols, "SimGrid count", "SimGrid peak memory", "stdbg faster")
		if o.hogs > 0 {
			cols = append(cols, "stdbg faster beside hogs")
		}
	} else {
		fmt.Fprint(w, "SimGrid: not installed (set SIMGRID_MC and SIMGRID_STHREAD); its column is as recorded in issue 36, "+
			"not measured now.\n\n")
		cols = append(cols, "SimGrid (recorded, issue 36)")
	}
	fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |")
	align := make([]string, len(cols))
	for i := range cols {
		align[i] = "---:"
	}
	align[0] = "---"
	if sg == nil {
		align[len(align)-1] = "---"
	}
	fmt.Fprintln(w, "|"+strings.Join(align, "|")+"|")
}

// row is the table's line for p: the medians of each tool's runs, quiet
// and (with hogs) beside the hogs.
func row(p program, o options, quiet, loaded [][]run, simgrid bool) string {
	s := summarize(quiet[0])
	cells := []string{p.name, seconds(s.wall), seconds(s.cpu)}
	if o.hogs > 0 {
		h := summarize(loaded[0])
		cells = append(cells, seconds(h.wall), seconds(h.cpu), ratio(h.wall, s.wall))
	}
	cells = append(cells, countOf(s), megabytes(s.rssKB))
	if simgrid {
		g := summarize(quiet[1])
		cells = append(cells, seconds(g.wall), seconds(g.cpu))
		var gh run
		if o.hogs > 0 {
			gh = summarize(loaded[1])
			cells = append(cells, seconds(gh.wall), seconds(gh.cpu))
		}
		cells = append(cells, countOf(g), megabytes(g.rssKB), ratio(g.wall, s.wall))
		if o.hogs > 0 {
			cells = append(cells, ratio(gh.wall, summarize(loaded[0]).wall))
		}
	} else {
		cells = append(cells, p.recorded)
	}
	return "| " + strings.Join(cells, " | ") + " |"
}

// ratio is a/b as "N.Nx", or "-" without b.
func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fx", a.Seconds()/b.Seconds())
}

// besideHogs runs f while n CPU hogs (shell busy loops, at this process's
// priority) run, and stops them when f returns.
func besideHogs(n int, f func() (run, error)) (run, error) {
	var hogs []*exec.Cmd
	defer func() {
		for _, h := range hogs {
			h.Process.Kill()
			h.Wait()
		}
	}()
	for range n {
		h := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := h.Start(); err != nil {
			return run{}, fmt.Errorf("starting a CPU hog: %w", err)
		}
		hogs = append(hogs, h)
	}
	time.Sleep(100 * time.Millisecond) // let the scheduler spread them
	return f()
}

// summarize returns the median wall time, CPU time and memory of runs,
// with the count of the first (a search counts the same every time).
func summarize(rs []run) run {
	if len(rs) == 0 {
		return run{count: -1}
	}
	walls := make([]time.Duration, len(rs))
	cpus := make([]time.Duration, len(rs))
	mems := make([]int64, len(rs))
	for i, r := range rs {
		walls[i], cpus[i], mems[i] = r.wall, r.cpu, r.rssKB
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	slices.Sort(mems)
	return run{wall: walls[len(walls)/2], cpu: cpus[len(cpus)/2], rssKB: mems[len(mems)/2], count: rs[0].count, unit: rs[0].unit}
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func megabytes(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }

func countOf(r run) string {
	if r.count < 0 {
		return "?"
	}
	return fmt.Sprintf("%d %s", r.count, r.unit)
}

// timed runs cmd and returns its wall time, output, CPU time (user and
// system, of the process and the children it waited for) and peak
// resident set (the largest of the process and those children). An exit
// status is no error: a tool that found a bug exits with one.
func timed(cmd *exec.Cmd) (run, string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	r := run{wall: time.Since(t0), count: -1}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return run{}, "", err
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rssKB = ru.Maxrss
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r, out.String(), nil
}

// stdbgCommand is how stdbg is run: one copy of the program, spurious
// wake-ups off (SimGrid does not make them), plain memory not seen (nor
// does SimGrid's sthread see it), no corpus; an exhaustive search by DPOR
// alone (the portfolio's sampling, which shares the time until DPOR ends,
// would add executions that depend on the machine's pace).
const stdbgCommand = "find -j 1 --no-save --spurious-wakeups=false --memory=false [--all --no-minimise --strategy dfs]"

type stdbgTool struct{ bin string }

func (*stdbgTool) name() string { return "stdbg" }

func (t *stdbgTool) run(p program) (run, error) {
	args := []string{"find", "-j", "1", "--no-save", "--spurious-wakeups=false", "--memory=false"}
	if !p.firstBug {
		args = append(args, "--all", "--no-minimise", "--strategy", "dfs")
	}
	args = append(args, filepath.Join("examples", "c", p.src))
	if len(p.args) > 0 {
		args = append(append(args, "--"), p.args...)
	}
	r, out, err := timed(exec.Command(t.bin, args...))
	if err != nil {
		return run{}, err
	}
	r.unit = "executions"
	if m := regexp.MustCompile(`Executions = (\d+)`).FindStringSubmatch(out); m != nil {
		r.count, _ = strconv.ParseInt(m[1], 10, 64)
	} else {
		return run{}, fmt.Errorf("no statistics in stdbg's output:\n%s", out)
	}
	return r, nil
}

type simgridTool struct {
	mc, sthread, args, dir string
	built                  map[string]string
}

func (*simgridTool) name() string { return "SimGrid" }

// argv is what goes to simgrid-mc before the program.
func (t *simgridTool) argv() []string {
	a := t.args
	if a == "" {
		a = "--cfg=model-check/reduction:odpor --cfg=model-check/setenv:LD_PRELOAD={sthread}"
	}
	return strings.Fields(strings.ReplaceAll(a, "{sthread}", t.sthread))
}

// counts are what SimGrid's model checker prints at the end of a search,
// the first that matches being the count reported.
var counts = []struct {
	re   *regexp.Regexp
	unit string
}{
	{regexp.MustCompile(`(\d+) explored traces`), "traces"},
	{regexp.MustCompile(`(\d+) unique states visited`), "states"},
	{regexp.MustCompile(`[Vv]isited (\d+) unique states`), "states"},
}

func (t *simgridTool) run(p program) (run, error) {
	bin, err := t.build(p.src)
	if err != nil {
		return run{}, err
	}
	args := append(t.argv(), append([]string{bin}, p.args...)...)
	r, out, err := timed(exec.Command(t.mc, args...))
	if err != nil {
		return run{}, err
	}
	for _, c := range counts {
		if m := c.re.FindStringSubmatch(out); m != nil {
			r.count, _ = strconv.ParseInt(m[1], 10, 64)
			r.unit = c.unit
			break
		}
	}
	return r, nil
}

// build compiles a program plainly (sthread needs no special build) once.
// The programs' annotations (stdbg.h, target/ctarget/csrc) fall back to their
// plain meaning when stdbg is absent (stdbg_assert is an assertion), so
// the header is on the include path and nothing of stdbg's is linked.
func (t *simgridTool) build(src string) (string, error) {
	if b, ok := t.built[src]; ok {
		return b, nil
	}
	if t.built == nil {
		t.built = map[string]string{}
	}
	bin := filepath.Join(t.dir, strings.NewReplacer("/", "-", ".c", "").Replace(src))
	if out, err := exec.Command("cc", "-O0", "-g", "-pthread", "-I", filepath.Join("target", "ctarget", "csrc"), "-o", bin,
		filepath.Join("examples", "c", src), "-ldl").CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling %s: %v\n%s", src, err, out)
	}
	t.built[src] = bin
	return bin, nil
}
