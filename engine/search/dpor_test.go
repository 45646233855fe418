package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

func traceKey(tr []Event) string { return TraceKey(tr) }

// traceRecorder wraps a strategy and records what each execution was.
type traceRecorder struct {
	Strategy
	keys     map[string]int // trace key -> executions with that trace (maximal ones)
	cut      map[string]int // the same for executions cut by the depth bound
	complete int            // maximal executions: exited, or deadlocked
	failed   int            // executions stopped by another bug
}

func newTraceRecorder(st Strategy) *traceRecorder {
	return &traceRecorder{Strategy: st, keys: map[string]int{}, cut: map[string]int{}}
}

func (r *traceRecorder) End(rep *Report) {
	switch {
	case rep.Pruned:
	case rep.DepthLimited:
		r.cut[traceKey(rep.Trace)]++
	case rep.Outcome.Kind == Exited || rep.Outcome.Kind == Deadlock:
		// Maximal executions: no thread can go on. An execution stopped
		// by a failure is not: other threads' independent operations
		// could have run before the failing one, which makes other
		// traces with the same bug; the bugs are compared instead.
		r.complete++
		r.keys[traceKey(rep.Trace)]++
	default:
		r.failed++
	}
	r.Strategy.End(rep)
}

// bugKeys returns the sorted Outcome.Key of the bugs.
func bugKeys(bugs []Bug) []string {
	var ks []string
	for _, b := range bugs {
		ks = append(ks, b.Outcome.Key())
	}
	sort.Strings(ks)
	return ks
}

func keysOf(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Programs with a known number of traces.

func write(v uint64, val int64) fop { return fop{kind: syncmodel.Write, obj: v, arg: val} }

// readInto copies variable v into variable reg (a register private to the
// reading thread: no other thread touches it).
func readInto(v, reg uint64) fop {
	return fop{kind: syncmodel.Read, obj: v, do: func(x *fakeVars) { x[reg] = x[v] }}
}

// writeFrom stores register reg plus d into variable v.
func writeFrom(v, reg uint64, d int64) fop {
	return fop{kind: syncmodel.Write, obj: v, do: func(x *fakeVars) { x[v] = x[reg] + d }}
}

// writers: n threads each write a variable of their own: one trace.
func writers(n int) *fakeExecutor {
	scripts := make([][]fop, n)
	for i := range scripts {
		scripts[i] = []fop{write(uint64(i), 1), write(uint64(i), 2)}
	}
	return newFake(n, scripts...)
}

// counter: n threads increment a shared variable under mutex 1 (read into
// a register, write back): n! traces, one per order of the critical
// sections.
func counter(n int) *fakeExecutor {
	scripts := make([][]fop, n)
	for i := range scripts {
		reg := uint64(4 + i)
		scripts[i] = []fop{lock(1), readInto(0, reg), writeFrom(0, reg, 1), unlock(1)}
	}
	return newFake(n, scripts...)
}

// racyCounter: the same without the mutex; the last thread to finish
// cannot check, so the traces are the orders of the 2n accesses that
// respect each thread's order, up to swapping adjacent reads.
func racyCounter(n int) *fakeExecutor {
	scripts := make([][]fop, n)
	for i := range scripts {
		reg := uint64(4 + i)
		scripts[i] = []fop{readInto(0, reg), writeFrom(0, reg, 1)}
	}
	return newFake(n, scripts...)
}

// lastzero: thread 1 scans variables n-1..0 and stops at the first zero
// (here: reads each, the scan's length fixed); thread i (2..n) writes
// variable i-1 from variable i-2. Reads and writes of different variables
// commute.
func lastzero(n int) *fakeExecutor {
	scripts := [][]fop{{}}
	for i := n - 1; i >= 0; i-- {
		scripts[0] = append(scripts[0], readInto(uint64(i), 7))
	}
	for i := 1; i < n; i++ {
		reg := uint64(4 + i%3)
		scripts = append(scripts, []fop{readInto(uint64(i-1), reg), writeFrom(uint64(i), reg, 1)})
	}
	return newFake(n, scripts...)
}

func TestDPORTraceCounts(t *testing.T) {
	tests := []struct {
		name   string
		ex     func() *fakeExecutor
		traces int // known exactly, or 0: brute force only
	}{
		{"independent writers 3", func() *fakeExecutor { return writers(3) }, 1},
		{"yielders 2x2", func() *fakeExecutor { return yielders(2, 2) }, 6},
		{"yielders 3x1", func() *fakeExecutor { return yielders(3, 1) }, 6},
		{"counter 2", func() *fakeExecutor { return counter(2) }, 2},
		{"counter 3", func() *fakeExecutor { return counter(3) }, 6},
		{"counter 4", func() *fakeExecutor { return counter(4) }, 24},
		{"racy counter 2", func() *fakeExecutor { return racyCounter(2) }, 0},
		{"racy counter 3", func() *fakeExecutor { return racyCounter(3) }, 0},
		{"lastzero 3", func() *fakeExecutor { return lastzero(3) }, 0},
		{"lastzero 4", func() *fakeExecutor { return lastzero(4) }, 0},
		{"embrace", embrace, 0},
		{"chooser", chooser, 2},
		{"choice and thread", func() *fakeExecutor { return newFake(2, []fop{choose(4, 2)}, []fop{yield()}) }, 2},
		{"create", func() *fakeExecutor {
			return newFake(1, []fop{create(1), write(0, 1)}, []fop{write(0, 2)})
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dfs := newTraceRecorder(NewDFS())
			if _, err := Explore(context.Background(), tt.ex(), dfs, Options{All: true}); err != nil {
				t.Fatal(err)
			}
			dp := newTraceRecorder(NewDPOR())
			res, err := Explore(context.Background(), tt.ex(), dp, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete {
				t.Errorf("DPOR search not complete")
			}
			if tt.traces > 0 && len(dfs.keys) != tt.traces {
				t.Errorf("brute force found %d traces, want %d", len(dfs.keys), tt.traces)
			}
			if !slices.Equal(keysOf(dfs.keys), keysOf(dp.keys)) {
				t.Errorf("DPOR explored traces %q\nDFS %q", keysOf(dp.keys), keysOf(dfs.keys))
			}
			if dp.complete != len(dfs.keys) {
				t.Errorf("DPOR ran %d executions (%d pruned) for %d traces", dp.complete, res.Stats.Pruned, len(dfs.keys))
			}
		})
	}
}

// randomProgram builds a small random program: 2 or 3 threads (started at
// once, or created by thread 1), each a few operations among mutex
// sections (possibly nested, in either order), writes and checked reads of
// 3 shared variables, yields and data choices into a private register.
func randomProgram(r *rand.Rand) *fakeExecutor {
	nt := 2 + r.IntN(2)
	scripts := make([][]fop, nt)
	for i := range scripts {
		reg := uint64(4 + i)
		var s []fop
		for range 1 + r.IntN(3) {
			switch r.IntN(6) {
			case 0:
				m1, m2 := uint64(1+r.IntN(2)), uint64(0)
				if r.IntN(2) == 0 {
					m2 = 3 - m1
				}
				s = append(s, lock(m1))
				if m2 != 0 {
					s = append(s, lock(m2), writeFrom(uint64(r.IntN(3)), reg, 1), unlock(m2))
				} else {
					s = append(s, readInto(uint64(r.IntN(3)), reg))
				}
				s = append(s, unlock(m1))
			case 1:
				s = append(s, write(uint64(r.IntN(3)), int64(1+r.IntN(2))))
			case 2:
				v, bad, label := uint64(r.IntN(3)), int64(1+r.IntN(3)), fmt.Sprintf("t%d-check-%d", i, len(s))
				s = append(s, fop{kind: syncmodel.Read, obj: v, check: func(x *fakeVars) string {
					if x[v]+x[reg] == bad {
						return label
					}
					return ""
				}})
			case 3:
				s = append(s, yield())
			case 4:
				s = append(s, choose(reg, 2))
			case 5:
				s = append(s, readInto(uint64(r.IntN(3)), reg), writeFrom(uint64(r.IntN(3)), reg, 1))
			}
		}
		scripts[i] = s
	}
	if r.IntN(3) == 0 {
		// Thread 1 creates the others first.
		var pre []fop
		for i := 1; i < nt; i++ {
			pre = append(pre, create(i))
		}
		scripts[0] = append(pre, scripts[0]...)
		return newFake(1, scripts...)
	}
	return newFake(nt, scripts...)
}

// TestDPORRandomPrograms checks DPOR against DFS on random programs: the
// same traces (one execution each) when exhaustive, and the same bugs at
// every depth bound.
func TestDPORRandomPrograms(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 40
	}
	extra := 0
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		prog := randomProgram(r)
		mk := func() *fakeExecutor { return &fakeExecutor{prog: prog.prog} }
		dfs := newTraceRecorder(NewDFS())
		dres, err := Explore(context.Background(), mk(), dfs, Options{All: true, MaxExecutions: 20000})
		if err != nil {
			t.Fatalf("seed %d: DFS: %v", seed, err)
		}
		if !dres.Complete {
			continue // too big to compare with brute force
		}
		dp := newTraceRecorder(NewDPOR())
		pres, err := Explore(context.Background(), mk(), dp, Options{All: true})
		if err != nil {
			t.Fatalf("seed %d: DPOR: %v", seed, err)
		}
		if !slices.Equal(keysOf(dfs.keys), keysOf(dp.keys)) {
			t.Fatalf("seed %d: DPOR explored %d traces, DFS %d:\nDPOR %q\nDFS  %q", seed, len(dp.keys), len(dfs.keys), keysOf(dp.keys), keysOf(dfs.keys))
		}
		if !slices.Equal(bugKeys(dres.Bugs), bugKeys(pres.Bugs)) {
			t.Fatalf("seed %d: bugs: DPOR %q, DFS %q", seed, bugKeys(pres.Bugs), bugKeys(dres.Bugs))
		}
		extra += dp.complete - len(dfs.keys)
		for depth := 1; depth <= 8; depth++ {
			dres, err := Explore(context.Background(), mk(), NewDFS(), Options{All: true, MaxDepth: depth})
			if err != nil {
				t.Fatal(err)
			}
			dcut := newTraceRecorder(NewDPOR())
			pres, err := Explore(context.Background(), mk(), dcut, Options{All: true, MaxDepth: depth})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(bugKeys(dres.Bugs), bugKeys(pres.Bugs)) {
				t.Fatalf("seed %d, max depth %d: bugs: DPOR %q, DFS %q", seed, depth, bugKeys(pres.Bugs), bugKeys(dres.Bugs))
			}
		}
	}
	if extra > 0 {
		t.Errorf("DPOR ran %d executions more than there are traces over %d programs", extra, n)
	}
}

// The deadly embrace at every depth bound: DPOR must find the deadlock
// exactly when DFS does.
func TestDPOREmbraceDepths(t *testing.T) {
	for depth := 1; depth <= 10; depth++ {
		dres, err := Explore(context.Background(), embrace(), NewDFS(), Options{MaxDepth: depth})
		if err != nil {
			t.Fatal(err)
		}
		pres, err := Explore(context.Background(), embrace(), NewDPOR(), Options{MaxDepth: depth})
		if err != nil {
			t.Fatal(err)
		}
		if len(dres.Bugs) != len(pres.Bugs) {
			t.Errorf("max depth %d: DFS found %d bugs, DPOR %d", depth, len(dres.Bugs), len(pres.Bugs))
		}
	}
}

func TestDPORReplaysItsPrefixes(t *testing.T) {
	// The prefixes DPOR returns are schedules the executor can follow
	// (Explore checks every step); and Begin returns false for good.
	st := NewDPOR()
	ex := counter(3)
	res, err := Explore(context.Background(), ex, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Executions != 6 || !res.Complete {
		t.Fatalf("got %d executions, complete %v", res.Stats.Executions, res.Complete)
	}
	if _, ok := st.Begin(); ok {
		t.Fatal("Begin after the end returned an execution")
	}
	if ex.open() != 0 {
		t.Fatalf("%d executions left open", ex.open())
	}
	_ = schedule.NoChoice
}
