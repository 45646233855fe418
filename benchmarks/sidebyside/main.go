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
//	go run ./benchmarks/sidebyside [-rounds 3] [-run REGEXP] [-stdbg PATH]
//
// It builds stdbg from the tree unless -stdbg (or $STDBG) names a binary.
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
	count int64  // executions, traces or states; -1 if not found in the output
	unit  string // what count counts
	rssKB int64  // peak resident set, KB
}

// tool runs one program once.
type tool interface {
	name() string
	run(p program) (run, error)
}

func main() {
	rounds := flag.Int("rounds", 3, "rounds of alternating runs; the table shows medians")
	only := flag.String("run", "", "only the programs whose name matches this regular expression")
	stdbgPath := flag.String("stdbg", os.Getenv("STDBG"), "stdbg binary (default: built from this tree)")
	flag.Parse()
	re, err := regexp.Compile(*only)
	if err != nil || *rounds < 1 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: sidebyside [-rounds n>=1] [-run REGEXP] [-stdbg PATH]")
		os.Exit(2)
	}
	if err := measure(os.Stdout, re, *rounds, *stdbgPath, os.Getenv("SIMGRID_MC"), os.Getenv("SIMGRID_STHREAD"),
		os.Getenv("SIMGRID_MC_ARGS")); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// measure runs the rounds and prints the table.
func measure(w io.Writer, only *regexp.Regexp, rounds int, stdbgPath, mc, sthread, mcArgs string) error {
	tmp, err := os.MkdirTemp("", "stdbg-sidebyside-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if stdbgPath == "" {
		stdbgPath = filepath.Join(tmp, "stdbg")
		if out, err := exec.Command("go", "build", "-o", stdbgPath, "./cmd/stdbg").CombinedOutput(); err != nil {
			return fmt.Errorf("building stdbg (run from the repository root): %v\n%s", err, out)
		}
	}
	tools := []tool{&stdbgTool{bin: stdbgPath}}
	var sg *simgridTool
	if mc != "" && sthread != "" {
		sg = &simgridTool{mc: mc, sthread: sthread, args: mcArgs, dir: tmp}
		tools = append(tools, sg)
	}
	var rows []program
	for _, p := range programs {
		if only.MatchString(p.name) {
			rows = append(rows, p)
		}
	}
	// A first run of each, not measured, builds what the tools cache (the
	// program and stdbg's library, compiled once) and warms the files.
	for _, p := range rows {
		for _, t := range tools {
			if _, err := t.run(p); err != nil {
				return fmt.Errorf("%s, %s: %w", p.name, t.name(), err)
			}
		}
	}
	runs := make(map[string][][]run) // tool name -> row -> runs
	for range rounds {
		for i, p := range rows {
			for _, t := range tools {
				r, err := t.run(p)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", p.name, t.name(), err)
				}
				if runs[t.name()] == nil {
					runs[t.name()] = make([][]run, len(rows))
				}
				runs[t.name()][i] = append(runs[t.name()][i], r)
			}
		}
	}
	fmt.Fprintf(w, "Machine: %s/%s, %d CPUs, %s; a run of each to warm up, then %d rounds, medians; stdbg %s.\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), rounds, stdbgCommand)
	if sg != nil {
		fmt.Fprintf(w, "SimGrid: %s %s PROGRAM ARGS.\n\n", mc, strings.Join(sg.argv(), " "))
		fmt.Fprintln(w, "| program | stdbg | stdbg count | stdbg peak memory | SimGrid | SimGrid count | SimGrid peak memory | stdbg faster |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	} else {
		fmt.Fprint(w, "SimGrid: not installed (set SIMGRID_MC and SIMGRID_STHREAD); its column is as recorded in issue 36, "+
			"not measured now.\n\n")
		fmt.Fprintln(w, "| program | stdbg | stdbg count | stdbg peak memory | SimGrid (recorded, issue 36) |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---|")
	}
	for i, p := range rows {
		s := summarize(runs["stdbg"][i])
		line := fmt.Sprintf("| %s | %s | %s | %s |", p.name, seconds(s.wall), countOf(s), megabytes(s.rssKB))
		if sg != nil {
			g := summarize(runs["SimGrid"][i])
			ratio := "-"
			if s.wall > 0 {
				ratio = fmt.Sprintf("%.1fx", g.wall.Seconds()/s.wall.Seconds())
			}
			line += fmt.Sprintf(" %s | %s | %s | %s |", seconds(g.wall), countOf(g), megabytes(g.rssKB), ratio)
		} else {
			line += " " + p.recorded + " |"
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// summarize returns the median wall time and memory of runs, with the
// count of the first (a search counts the same every time).
func summarize(rs []run) run {
	if len(rs) == 0 {
		return run{count: -1}
	}
	walls := make([]time.Duration, len(rs))
	mems := make([]int64, len(rs))
	for i, r := range rs {
		walls[i], mems[i] = r.wall, r.rssKB
	}
	slices.Sort(walls)
	slices.Sort(mems)
	return run{wall: walls[len(walls)/2], rssKB: mems[len(mems)/2], count: rs[0].count, unit: rs[0].unit}
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func megabytes(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }

func countOf(r run) string {
	if r.count < 0 {
		return "?"
	}
	return fmt.Sprintf("%d %s", r.count, r.unit)
}

// timed runs cmd and returns its wall time, output and peak resident set
// (the largest of the process and the children it waited for). An exit
// status is no error: a tool that found a bug exits with one.
func timed(cmd *exec.Cmd) (time.Duration, string, int64, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 0, "", 0, err
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return wall, out.String(), rss, nil
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
	wall, out, rss, err := timed(exec.Command(t.bin, args...))
	if err != nil {
		return run{}, err
	}
	r := run{wall: wall, rssKB: rss, count: -1, unit: "executions"}
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
	wall, out, rss, err := timed(exec.Command(t.mc, args...))
	if err != nil {
		return run{}, err
	}
	r := run{wall: wall, rssKB: rss, count: -1}
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
func (t *simgridTool) build(src string) (string, error) {
	if b, ok := t.built[src]; ok {
		return b, nil
	}
	if t.built == nil {
		t.built = map[string]string{}
	}
	bin := filepath.Join(t.dir, strings.NewReplacer("/", "-", ".c", "").Replace(src))
	if out, err := exec.Command("cc", "-O0", "-g", "-pthread", "-o", bin, filepath.Join("examples", "c", src)).CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling %s: %v\n%s", src, err, out)
	}
	t.built[src] = bin
	return bin, nil
}
