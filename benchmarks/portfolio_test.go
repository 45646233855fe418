package benchmarks

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/examples/go/dpor"
	"github.com/stdbg/stdbg/sthread"
)

// BenchmarkPortfolioExhaustive measures what the default search (the
// portfolio) costs on a search its DPOR finishes, against DPOR alone: each
// op exhausts the program once with each, one after the other (so that the
// machine's drift touches both alike), and reports both times, the
// portfolio's overhead in percent, and the executions of each (the
// portfolio's include those of its other members):
//
//	go test -run '^$' -bench PortfolioExhaustive -benchtime 3x ./benchmarks
func BenchmarkPortfolioExhaustive(b *testing.B) {
	portfolio := func() search.Strategy {
		st, err := search.Spec{Seed: 1}.New()
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	for _, pg := range []struct {
		name, file string
		args       []string
	}{
		{"C/counter7", "dpor/counter.c", []string{"7"}},
		{"C/prodcons2x2", "dpor/prodcons2x2.c", nil},
		{"C/readers-writers4", "dpor/readers-writers.c", []string{"4"}},
		{"C/readers-writers5", "dpor/readers-writers.c", []string{"5"}},
	} {
		b.Run(pg.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			p, c := start(b, pg.file, pg.args...)
			defer p.Close()
			explore := func(st search.Strategy) (time.Duration, int64) {
				t0 := time.Now()
				res, err := search.Explore(context.Background(), c, st, search.Options{All: true, MaxDepth: 1000})
				if err != nil || !res.Complete {
					b.Fatalf("%v, complete %v", err, res.Complete)
				}
				return time.Since(t0), res.Stats.Executions
			}
			compare(b, func() (time.Duration, int64) { return explore(search.NewDPOR()) },
				func() (time.Duration, int64) { return explore(portfolio()) })
		})
	}
	b.Run("Go/ProdCons2", func(b *testing.B) {
		explore := func(st search.Strategy) (time.Duration, int64) {
			t0 := time.Now()
			res, err := sthread.Explore(dpor.ProdCons(2), sthread.All(), sthread.Strategy(st))
			if err != nil || !res.Complete {
				b.Fatalf("%v, complete %v", err, res.Complete)
			}
			return time.Since(t0), res.Stats.Executions
		}
		compare(b, func() (time.Duration, int64) { return explore(search.NewDPOR()) },
			func() (time.Duration, int64) { return explore(portfolio()) })
	})
}

// compare runs dpor and then portfolio once per op and reports their times
// and executions and the portfolio's overhead.
func compare(b *testing.B, dpor, portfolio func() (time.Duration, int64)) {
	var td, tp time.Duration
	var ed, ep int64
	for b.Loop() {
		d, e := dpor()
		td, ed = td+d, ed+e
		d, e = portfolio()
		tp, ep = tp+d, ep+e
	}
	n := float64(b.N)
	b.ReportMetric(td.Seconds()/n, "dpor-s/op")
	b.ReportMetric(tp.Seconds()/n, "portfolio-s/op")
	b.ReportMetric(100*(tp.Seconds()/td.Seconds()-1), "overhead-%")
	b.ReportMetric(float64(ed)/n, "dpor-execs/op")
	b.ReportMetric(float64(ep)/n, "portfolio-execs/op")
}
