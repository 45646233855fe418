package benchmarks

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stdbg/stdbg/checker"
	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/wire"
)

// BenchmarkGoOutOfProcess explores the Go deadly embrace out of process,
// as stdbg find ./examples/go/embrace-prog does: one process per
// execution. (In-process rates: go test -bench . ./sthread.)
func BenchmarkGoOutOfProcess(b *testing.B) {
	exe := filepath.Join(b.TempDir(), "embrace-prog")
	build := exec.Command("go", "build", "-gcflags=github.com/stdbg/stdbg/sthread=-l", "-o", exe, "../examples/go/embrace-prog")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	exploreGo(b, exe)
}

// exploreGo explores a built Go target out of process, one process per
// execution, 200 executions at a time, and reports the rate.
func exploreGo(b *testing.B, exe string) {
	p, err := ctarget.Start(ctarget.Config{Binary: exe, Flags: wire.FlagFastExit, Respawn: true, NoPreload: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	c := checker.New(p, checker.Options{FastExit: true})
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
