// Command table measures stdbg's searches on C programs and prints the
// results as markdown tables:
//
//   - executions to exhaust, executions/s and time, per program and search
//     (the bounded buffer of examples/c/bench/prodcons.c with 1 producer
//     and 1 consumer and with 2 and 2, the dining philosophers of
//     examples/c/bench/philosophers.c with N = 3, 4, 5), each within a time
//     budget;
//   - executions and time to the first bug of the buggy examples of
//     examples/c, per search, averaged over several seeds for the sampling
//     searches.
//
// Run it from the repository root (benchmarks/run does):
//
//	go run ./benchmarks/table [-budget 60s] [-bug-budget 10s] [-seeds 5] [-run REGEXP]
//
// A search is one row per program: add a search to exhaustSearches or
// bugSearches to compare it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// searchKind is a search to measure: a name for the table and its strategy
// for a seed (deterministic searches ignore it).
type searchKind struct {
	name   string
	seeded bool
	new    func(seed uint64) search.Strategy
}

// exhaustSearches are the exhaustive searches compared on the correct
// programs.
var exhaustSearches = []searchKind{
	{name: "dfs, reduction none", new: func(uint64) search.Strategy { return search.NewDFS() }},
	{name: "dfs, DPOR", new: func(uint64) search.Strategy { return search.NewDPOR() }},
}

// bugSearches are the searches compared on the buggy examples.
var bugSearches = []searchKind{
	{name: "dfs", new: func(uint64) search.Strategy { return search.NewDFS() }},
	{name: "dfs, DPOR", new: func(uint64) search.Strategy { return search.NewDPOR() }},
	{name: "dfs, preemptions <= 3", new: func(uint64) search.Strategy { return search.NewPreemptionBounding(3) }},
	{name: "pct d=2", seeded: true, new: func(s uint64) search.Strategy { return search.NewPCT(2, s) }},
	{name: "pct d=3", seeded: true, new: func(s uint64) search.Strategy { return search.NewPCT(3, s) }},
	{name: "random", seeded: true, new: search.NewRandom},
}

// program is an example with its arguments.
type program struct {
	file string // under examples/c
	args []string
}

func (p program) String() string {
	if len(p.args) == 0 {
		return p.file
	}
	return p.file + " " + strings.Join(p.args, " ")
}

var exhaustPrograms = []program{
	{"bench/prodcons.c", []string{"1", "1"}},
	{"bench/prodcons.c", []string{"2", "2"}},
	{"bench/philosophers.c", []string{"3"}},
	{"bench/philosophers.c", []string{"4"}},
	{"bench/philosophers.c", []string{"5"}},
}

var bugPrograms = []program{
	{file: "deadly-embrace.c"},
	{file: "dining-philosophers.c"},
	{file: "producer-consumer-if.c"},
	{file: "leader-election.c"},
	{file: "priority-inversion.c"},
	{file: "aba-stack.c"},
	{file: "cxx-bank.cpp"},
	{file: "c11-counter.c"},
	{file: "cond-timedwait.c"},
	{file: "leak.c"},
}

// maxDepth is find's default depth bound.
const maxDepth = 1000

func main() {
	budget := flag.Duration("budget", time.Minute, "time budget of one exhaustive search")
	bugBudget := flag.Duration("bug-budget", 10*time.Second, "time budget of one search for a first bug")
	seeds := flag.Int("seeds", 5, "runs (seeds 1..n) of each sampling search per program")
	run := flag.String("run", "", "only the programs whose name matches this regular expression")
	flag.Parse()
	only, err := regexp.Compile(*run)
	if err != nil || *seeds < 1 || *budget <= 0 || *bugBudget <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: table [-budget 60s] [-bug-budget 10s] [-seeds n>=1] [-run REGEXP]")
		os.Exit(2)
	}
	runtime.LockOSThread()
	if err := measure(os.Stdout, only, *budget, *bugBudget, *seeds); err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
}

func measure(w io.Writer, only *regexp.Regexp, budget, bugBudget time.Duration, seeds int) error {
	fmt.Fprintf(w, "Machine: %s/%s, %d CPUs, %s. Depth bound %d.\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), maxDepth)
	fmt.Fprintf(w, "### Exhaustive search (budget %s per row)\n\n", budget)
	fmt.Fprintln(w, "| program | search | executions | transitions | time | executions/s | result |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---|")
	for _, p := range exhaustPrograms {
		if !only.MatchString(p.String()) {
			continue
		}
		for _, k := range exhaustSearches {
			res, err := explore(p, k.new(1), budget, true)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", p, k.name, err)
			}
			result := "exhausted"
			switch {
			case len(res.Bugs) > 0:
				result = "bug: " + res.Bugs[0].Outcome.Message
			case !res.Complete:
				result = fmt.Sprintf("not exhausted within %s", budget)
			}
			s := res.Stats
			fmt.Fprintf(w, "| %s | %s | %d | %d | %.1f s | %.0f | %s |\n", p, k.name, s.Executions, s.Transitions,
				s.Elapsed.Seconds(), float64(s.Executions)/s.Elapsed.Seconds(), result)
		}
	}

	fmt.Fprintf(w, "\n### First bug (budget %s per run; seeded searches: mean of seeds 1..%d)\n\n", bugBudget, seeds)
	fmt.Fprintln(w, "| program | search | found | executions to the bug | time to the bug |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|")
	for _, p := range bugPrograms {
		if !only.MatchString(p.String()) {
			continue
		}
		for _, k := range bugSearches {
			runs := 1
			if k.seeded {
				runs = seeds
			}
			found := 0
			var execs int64
			var spent time.Duration
			for seed := 1; seed <= runs; seed++ {
				res, err := explore(p, k.new(uint64(seed)), bugBudget, false)
				if err != nil {
					return fmt.Errorf("%s, %s, seed %d: %w", p, k.name, seed, err)
				}
				if len(res.Bugs) > 0 {
					found++
					execs += res.Stats.Executions
					spent += res.Stats.Elapsed
				}
			}
			if found == 0 {
				fmt.Fprintf(w, "| %s | %s | 0/%d | - | - |\n", p, k.name, runs)
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %d/%d | %.1f | %s |\n", p, k.name, found, runs,
				float64(execs)/float64(found), formatDuration(spent/time.Duration(found)))
		}
	}
	return nil
}

// explore runs one search of p within budget; all keeps going after bugs.
func explore(p program, st search.Strategy, budget time.Duration, all bool) (*search.Result, error) {
	exe, err := ctarget.Build(filepath.Join("examples", "c", p.file))
	if err != nil {
		return nil, err
	}
	proc, err := ctarget.Start(targetproc.Config{Binary: exe, Args: p.args, Flags: wire.FlagFastExit, KeepThreads: true})
	if err != nil {
		return nil, err
	}
	defer proc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	release, err := targetproc.PinAlone(proc)
	if err != nil {
		return nil, err
	}
	defer release()
	chk := executor.New(proc, executor.Options{FastExit: true})
	res, err := search.Explore(ctx, chk, st, search.Options{MaxDepth: maxDepth, All: all})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return res, nil
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
