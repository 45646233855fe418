package benchmarks

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stdbg/stdbg/search"
)

// BenchmarkThroughput exhausts, with DPOR on one copy of the program (as
// stdbg find -j 1 does), the C programs of the throughput table in the
// README (docs/throughput.md): a mutex counter of 3 threads x 3 critical
// sections and of 4 x 2, the bounded buffer with 2 producers and 2
// consumers, and 8 dining philosophers. Beside the rates it reports the
// transitions of one execution and the share of them that replay a prefix
// an earlier execution already ran (transitions that reach no new node of
// the search tree):
//
//	go test -run '^$' -bench Throughput -benchtime 3x ./benchmarks
func BenchmarkThroughput(b *testing.B) {
	for _, p := range []struct {
		name, src string
		args      []string
	}{
		{"counter-3x3", "bench/counter.c", []string{"3", "3"}},
		{"counter-4x2", "bench/counter.c", []string{"4", "2"}},
		{"prodcons-2+2", filepath.Join("dpor", "prodcons2x2.c"), nil},
		{"philosophers-8", "bench/philosophers.c", []string{"8"}},
	} {
		b.Run(p.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			proc, c := start(b, p.src, p.args...)
			defer proc.Close()
			var st search.Stats
			var wall time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{All: true})
				wall += time.Since(t0)
				if err != nil || !res.Complete || len(res.Bugs) > 0 {
					b.Fatalf("%v, complete %v, bugs %v", err, res.Complete, res.Bugs)
				}
				st.Executions += res.Stats.Executions
				st.Transitions += res.Stats.Transitions
				st.States += res.Stats.States
			}
			n := float64(b.N)
			b.ReportMetric(float64(st.Executions)/n, "executions/op")
			b.ReportMetric(float64(st.Executions)/wall.Seconds(), "executions/s")
			b.ReportMetric(wall.Seconds()/n, "s/op")
			b.ReportMetric(float64(st.Transitions)/float64(st.Executions), "transitions/execution")
			replayed := (float64(st.Transitions) - (float64(st.States) - n)) / float64(st.Transitions)
			b.ReportMetric(100*replayed, "%replayed")
		})
	}
}
