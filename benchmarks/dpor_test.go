package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/examples/go/dpor"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// traceCount wraps a strategy and counts the distinct traces of the
// executions that ran to their end.
type traceCount struct {
	search.Strategy
	keys map[string]bool
}

func (c *traceCount) End(r *search.Report) {
	if r.Outcome != nil && !r.Pruned && !r.DepthLimited {
		c.keys[search.TraceKey(r.Trace)] = true
	}
	c.Strategy.End(r)
}

// run is one exhaustive search: executions, time, and the traces seen.
type run struct {
	execs    int64
	elapsed  time.Duration
	complete bool
	traces   int
	bugs     int
}

func (r run) execCell() string {
	if !r.complete {
		return fmt.Sprintf("> %d (stopped)", r.execs)
	}
	return fmt.Sprint(r.execs)
}

func (r run) timeCell() string {
	rate := float64(r.execs) / r.elapsed.Seconds()
	return fmt.Sprintf("%.2f s (%.0f/s)", r.elapsed.Seconds(), rate)
}

// exploreWith explores ex exhaustively with st, for at most budget.
func exploreWith(t *testing.T, ex search.Executor, st search.Strategy, budget time.Duration) run {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	c := &traceCount{Strategy: st, keys: map[string]bool{}}
	start := time.Now()
	res, err := search.Explore(ctx, ex, c, search.Options{All: true})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	return run{execs: res.Stats.Executions, elapsed: time.Since(start), complete: res.Complete, traces: len(c.keys), bugs: len(res.Bugs)}
}

// cProgram explores a C program of examples/c with arguments.
func cProgram(t *testing.T, path string, args []string, st search.Strategy, budget time.Duration) run {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	exe, err := ctarget.Build(filepath.Join("..", "examples", "c", path))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ctarget.Start(targetproc.Config{Binary: exe, Args: args, Flags: wire.FlagFastExit, KeepThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Placed as stdbg find places one copy of the program.
	release, err := targetproc.PinAlone(p)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	return exploreWith(t, executor.New(p, executor.Options{FastExit: true}), st, budget)
}

// goProgram explores a Go check in process.
func goProgram(t *testing.T, f func(), st search.Strategy, budget time.Duration) run {
	ex, done := sthread.Executor(f)
	defer done()
	return exploreWith(t, ex, st, budget)
}

// TestDPORTable measures reduction none against DPOR on the DPOR programs,
// the bounded buffers and dining philosophers, and prints a table:
//
//	STDBG_BENCH_TABLE=1 go test -run TestDPORTable -v -timeout 60m ./benchmarks
//
// Each search runs for at most STDBG_BENCH_BUDGET (default 60s); a search
// stopped by it shows "> N (stopped)". The trace count is the number of
// distinct Mazurkiewicz traces among the executions of reduction none
// (search.TraceKey), given when none ran to the end.
func TestDPORTable(t *testing.T) {
	if os.Getenv("STDBG_BENCH_TABLE") == "" {
		t.Skip("set STDBG_BENCH_TABLE=1 to measure (minutes)")
	}
	budget := time.Minute
	if b, err := time.ParseDuration(os.Getenv("STDBG_BENCH_BUDGET")); err == nil {
		budget = b
	}
	type row struct {
		name string
		c    string
		args []string
		g    func()
	}
	rows := []row{
		{name: "lastzero(2) C", c: "dpor/lastzero.c", args: []string{"2"}},
		{name: "lastzero(3) C", c: "dpor/lastzero.c", args: []string{"3"}},
		{name: "indexer(2) C", c: "dpor/indexer.c", args: []string{"2"}},
		{name: "indexer(12) C", c: "dpor/indexer.c", args: []string{"12"}},
		{name: "readers-writers(1) C", c: "dpor/readers-writers.c", args: []string{"1"}},
		{name: "readers-writers(2) C", c: "dpor/readers-writers.c", args: []string{"2"}},
		{name: "counter(2) C", c: "dpor/counter.c", args: []string{"2"}},
		{name: "counter(3) C", c: "dpor/counter.c", args: []string{"3"}},
		{name: "counter(4) C", c: "dpor/counter.c", args: []string{"4"}},
		{name: "prodcons 1+1 C", c: "dpor/prodcons.c", args: []string{"1", "1"}},
		{name: "prodcons 2+2 C (prodcons2x2.c)", c: "dpor/prodcons2x2.c"},
		{name: "dining-philosophers.c (N=3)", c: "dining-philosophers.c"},
		{name: "producer-consumer-if.c", c: "producer-consumer-if.c"},
		{name: "LastZero(2) Go", g: dpor.LastZero(2)},
		{name: "LastZero(3) Go", g: dpor.LastZero(3)},
		{name: "Indexer(2) Go", g: dpor.Indexer(2)},
		{name: "ReadersWriters(2) Go", g: dpor.ReadersWriters(2)},
		{name: "Counter(2) Go", g: dpor.Counter(2)},
		{name: "Counter(3) Go", g: dpor.Counter(3)},
		{name: "ProdCons(1) Go", g: dpor.ProdCons(1)},
		{name: "ProdCons(2) Go", g: dpor.ProdCons(2)},
	}
	if only := os.Getenv("STDBG_BENCH_ONLY"); only != "" {
		var keep []row
		for _, r := range rows {
			if strings.Contains(r.name, only) {
				keep = append(keep, r)
			}
		}
		rows = keep
	}
	var b strings.Builder
	b.WriteString("| program | none: executions | none: time | DPOR: executions | DPOR: time | traces (brute force) |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range rows {
		explore := func(st search.Strategy) run {
			if r.g != nil {
				return goProgram(t, r.g, st, budget)
			}
			return cProgram(t, r.c, r.args, st, budget)
		}
		none := explore(search.NewDFS())
		red := explore(search.NewDPOR())
		traces := "?"
		if none.complete {
			traces = fmt.Sprint(none.traces)
		}
		if none.bugs != red.bugs && none.complete && red.complete {
			t.Errorf("%s: none found %d bugs, DPOR %d", r.name, none.bugs, red.bugs)
		}
		line := fmt.Sprintf("| %s | %s | %s | %s | %s | %s |\n", r.name, none.execCell(), none.timeCell(),
			red.execCell(), red.timeCell(), traces)
		t.Log(strings.TrimSpace(line))
		b.WriteString(line)
	}
	fmt.Println(b.String())
}

// BenchmarkDPORProdCons2x2 exhausts the 2-producer, 2-consumer bounded
// buffer under DPOR (the target: under 10 s).
func BenchmarkDPORProdCons2x2(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, c := start(b, filepath.Join("dpor", "prodcons2x2.c"))
	defer p.Close()
	var execs int64
	start := time.Now()
	for b.Loop() {
		res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{All: true})
		if err != nil || !res.Complete {
			b.Fatalf("%v, complete %v", err, res.Complete)
		}
		execs += res.Stats.Executions
	}
	b.ReportMetric(float64(execs)/float64(b.N), "executions/op")
	b.ReportMetric(float64(execs)/time.Since(start).Seconds(), "executions/s")
}

// BenchmarkDPORGo exhausts each program of examples/go/dpor in process
// with DPOR, as sthread.Explore does, and reports its executions (to set
// beside the C twin's traces) and their rate:
//
//	go test -run '^$' -bench DPORGo -benchtime 3x ./benchmarks
func BenchmarkDPORGo(b *testing.B) {
	for _, p := range []struct {
		name string
		f    func()
	}{
		{"LastZero2", dpor.LastZero(2)}, {"LastZero3", dpor.LastZero(3)}, {"Indexer2", dpor.Indexer(2)},
		{"ReadersWriters2", dpor.ReadersWriters(2)}, {"Counter2", dpor.Counter(2)}, {"Counter3", dpor.Counter(3)},
		{"ProdCons1", dpor.ProdCons(1)}, {"ProdCons2", dpor.ProdCons(2)},
	} {
		b.Run(p.name, func(b *testing.B) {
			var execs int64
			start := time.Now()
			for b.Loop() {
				res, err := sthread.Explore(p.f, sthread.All())
				if err != nil || !res.Complete || len(res.Bugs) > 0 {
					b.Fatalf("%v, complete %v, bugs %v", err, res.Complete, res.Bugs)
				}
				execs += res.Stats.Executions
			}
			b.ReportMetric(float64(execs)/float64(b.N), "executions/op")
			b.ReportMetric(float64(execs)/time.Since(start).Seconds(), "executions/s")
		})
	}
}
