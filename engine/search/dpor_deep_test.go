package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// pollers: thread 1 creates n threads, each of which polls a flag (reads
// variable 0) and yields, k times: a busy-wait loop whose flag is never
// set, the shape of a test whose goroutines spin on runtime.Gosched. Every
// execution runs to the depth bound.
func pollers(n, k int) *fakeExecutor {
	scripts := [][]fop{{}}
	for i := range n {
		scripts[0] = append(scripts[0], create(i+1))
		s := make([]fop, 0, 2*k)
		for range k {
			s = append(s, fop{kind: syncmodel.Read, obj: 0}, yield())
		}
		scripts = append(scripts, s)
	}
	return newFake(1, scripts...)
}

// dporWork explores pollers(n, ...) with DPOR cut at depth, for at most
// executions executions, and returns the work of its race analysis per
// transition.
func dporWork(t testing.TB, n, depth int, executions int64) float64 {
	st := NewDPOR()
	res, err := Explore(context.Background(), pollers(n, depth), st, Options{MaxDepth: depth, MaxExecutions: executions})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Executions != executions || res.Stats.MaxDepthHit != executions {
		t.Fatalf("%d executions, %d cut at depth %d; want %d, all cut", res.Stats.Executions, res.Stats.MaxDepthHit, depth, executions)
	}
	return float64(st.(*dpor).rs.work) / float64(res.Stats.Transitions)
}

// The race analysis of DPOR costs each step of an execution a bounded
// amount of work, however deep the execution: four times deeper
// executions must not cost much more per step. (It used to cost each step
// the depth: the races of an event were looked for over the whole trace
// before it, a deep thread's pending operation was planned at every point
// with the trace after it scanned anew, and a plan was copied at every
// level of the wakeup tree it was inserted into.)
func TestDPORWorkPerStepDoesNotGrowWithDepth(t *testing.T) {
	tests := []struct {
		threads    int
		executions int64
	}{
		{2, 1},
		{9, 1},
		{3, 20},
		{9, 20},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d pollers, %d executions", tt.threads, tt.executions), func(t *testing.T) {
			shallow := dporWork(t, tt.threads, 250, tt.executions)
			deep := dporWork(t, tt.threads, 1000, tt.executions)
			if deep > 1.5*shallow {
				t.Errorf("work per step: %.1f at depth 1000, %.1f at depth 250", deep, shallow)
			}
		})
	}
}

// BenchmarkDPORDeep runs executions of spinning threads cut at growing
// depths: ns/step (and work/step, the race analysis's) stay flat when the
// cost of a step does not grow with the depth.
func BenchmarkDPORDeep(b *testing.B) {
	for _, depth := range []int{1000, 2000, 4000, 8000} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			prog := pollers(9, depth).prog
			var steps, work int64
			for range b.N {
				st := NewDPOR()
				res, err := Explore(context.Background(), &fakeExecutor{prog: prog}, st, Options{MaxDepth: depth, MaxExecutions: 5})
				if err != nil {
					b.Fatal(err)
				}
				steps += res.Stats.Transitions
				work += st.(*dpor).rs.work
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
			b.ReportMetric(float64(work)/float64(steps), "work/step")
		})
	}
}

// The walk back over the candidate races (candStart, candNext) looks at
// exactly the events the scan of the whole trace back from the event
// looks at, in the same order, whatever clocks the races found join in:
// random traces, clocks and races, checked against that scan.
func TestRaceWalkIsTheScanBack(t *testing.T) {
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		threads := 2 + r.IntN(6)
		n := 1 + r.IntN(60)
		rs := &raceScratch{width: threads + 1}
		rs.threadOf = make([]int, n)
		rs.prev = make([]int, n)
		rs.vc = make([]int32, n*rs.width)
		last := make([]int, rs.width)
		for u := range last {
			last[u] = -1
		}
		for j := range n {
			u := 1 + r.IntN(threads)
			rs.threadOf[j] = u
			rs.prev[j] = last[u]
			last[u] = j
			for v := range rs.width {
				rs.row(j)[v] = int32(r.IntN(j + 1)) // anything before j
			}
		}
		rs.last = last
		t0 := 1 + r.IntN(threads) // the thread of the event at n
		races := make([]bool, n)
		for j := range races {
			races[j] = r.IntN(3) == 0
		}
		start := make([]int32, rs.width)
		for v := range start {
			start[v] = int32(r.IntN(n/2 + 1))
		}

		row := slices.Clone(start)
		var want []int
		for j := n - 1; j >= 0; j-- {
			if u := rs.threadOf[j]; u == t0 || int(row[u]) > j {
				continue
			}
			want = append(want, j)
			if races[j] {
				join(row, rs.row(j))
			}
		}
		wantRow := row

		row = slices.Clone(start)
		var got []int
		for rs.candStart(row, t0); ; {
			j := rs.candNext(row)
			if j < 0 {
				break
			}
			got = append(got, j)
			if races[j] {
				join(row, rs.row(j))
			}
		}
		if !slices.Equal(got, want) || !slices.Equal(row, wantRow) {
			t.Fatalf("seed %d: the walk looked at %v, the scan at %v", seed, got, want)
		}
	}
}
