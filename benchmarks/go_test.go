package benchmarks

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/examples/go/dpor"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/target/targetproc"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// BenchmarkGoOutOfProcess explores the Go deadly embrace out of process,
// as stdbg find ./examples/go/embrace-prog does: the checker in this
// process, the program in another that serves execution after execution.
// BenchmarkGoInProcess runs the same search on the same function in
// process, as sthread.Explore does.
func BenchmarkGoOutOfProcess(b *testing.B) {
	exe := filepath.Join(b.TempDir(), "embrace-prog")
	build := exec.Command("go", "build", "-gcflags=github.com/stdbg/stdbg/sthread=-l", "-o", exe, "../examples/go/embrace-prog")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	exploreGo(b, exe)
}

// BenchmarkGoInProcess is BenchmarkGoOutOfProcess's search in process.
func BenchmarkGoInProcess(b *testing.B) {
	ex, release := sthread.Executor(embrace)
	defer release()
	rateOf(b, ex)
}

// embrace is the checked function of examples/go/embrace-prog.
func embrace() {
	var a, b sthread.Mutex
	transfers := 0
	done := sthread.MakeChan[bool](0)
	sthread.Go(func() {
		b.Lock()
		a.Lock()
		transfers++
		a.Unlock()
		b.Unlock()
		done.Send(true)
	})
	a.Lock()
	b.Lock()
	transfers++
	b.Unlock()
	a.Unlock()
	done.Recv()
}

// exploreGo explores a built Go target out of process, 200 executions at a
// time, and reports the rate. With reuse (the default), one process serves
// the executions; with $STDBG_REUSE=0 each runs in a fresh process.
func exploreGo(b *testing.B, exe string) {
	p, err := targetproc.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit, Respawn: true, NoPreload: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	rateOf(b, executor.New(p, executor.Options{FastExit: true}))
}

// rateOf runs the benchmark's search on c and reports the rate.
func rateOf(b *testing.B, c search.Executor) {
	var execs int64
	var sec float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := search.Explore(context.Background(), c, search.NewDFS(), search.Options{MaxDepth: 1000, All: true, MaxExecutions: 200})
		if err != nil {
			b.Fatal(err)
		}
		execs += res.Stats.Executions
		sec += res.Stats.Elapsed.Seconds()
	}
	b.ReportMetric(float64(execs)/sec, "execs/s")
}

// The same search three ways, on LastZero(3) of examples/go/dpor (every
// schedule, 20,000 executions of about 25 transitions): in this process
// (sthread.Executor), inside the target process as stdbg find runs a Go
// test (package targetsearch; the process start counts), and driven from this
// process transition by transition (stdbg find --in-target=false).
const lastZeroExecutions = 20000

func BenchmarkGoLastZero3InProcess(b *testing.B) {
	ex, release := sthread.Executor(dpor.LastZero(3))
	defer release()
	var execs int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := search.Explore(context.Background(), ex, search.NewDFS(), search.Options{MaxDepth: 20000, All: true, MaxExecutions: lastZeroExecutions})
		if err != nil {
			b.Fatal(err)
		}
		execs += res.Stats.Executions
	}
	b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "execs/s")
}

func BenchmarkGoLastZero3InTarget(b *testing.B) {
	exe := buildDPORTests(b)
	var execs int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		found, err := targetsearch.Run(context.Background(), targetsearch.Config{
			Binary: exe, Args: []string{"-test.run=^TestCheckLastZero3$"},
			Spec: targetsearch.Spec{Request: hunt.Request{Search: search.Spec{Strategy: "dfs", Reduction: "none"}, All: true, MaxDepth: 20000, MaxExecutions: lastZeroExecutions}},
			Replay: func(context.Context, schedule.Schedule) (*search.Outcome, error) {
				return nil, errors.New("no process may die in this benchmark")
			},
		})
		if err != nil {
			b.Fatal(err)
		}
		execs += found.Stats.Executions
	}
	b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "execs/s")
}

func BenchmarkGoLastZero3FromStdbg(b *testing.B) {
	exe := buildDPORTests(b)
	p, err := targetproc.Start(targetproc.Config{Binary: exe, Args: []string{"-test.run=^TestCheckLastZero3$"},
		Flags: wire.FlagFastExit, Respawn: true, NoPreload: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	c := executor.New(p, executor.Options{FastExit: true})
	var execs int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := search.Explore(context.Background(), c, search.NewDFS(), search.Options{MaxDepth: 20000, All: true, MaxExecutions: lastZeroExecutions})
		if err != nil {
			b.Fatal(err)
		}
		execs += res.Stats.Executions
	}
	b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "execs/s")
}

// buildDPORTests builds the test binary of examples/go/dpor.
func buildDPORTests(b *testing.B) string {
	b.Helper()
	exe := filepath.Join(b.TempDir(), "dpor.test")
	build := exec.Command("go", "test", "-c", "-o", exe, "../examples/go/dpor")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go test -c: %v\n%s", err, out)
	}
	return exe
}
