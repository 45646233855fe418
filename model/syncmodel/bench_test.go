package syncmodel

import "testing"

// The model's share of a search's step: what the checker asks of every
// thread at every scheduling point (Inspect, Status), what DPOR asks of
// every pair of events it compares (Dependent, MustPrecede), and the
// operations themselves (SetPending, Execute).
//
//	go test -run '^$' -bench . ./model/syncmodel

// benchWorld returns a world of twelve threads, each with an operation of
// another primitive pending, some enabled and some blocked.
func benchWorld(tb testing.TB) *World {
	tb.Helper()
	w := NewWorld()
	do := func(tid int, op Op) {
		tb.Helper()
		if err := w.SetPending(tid, op); err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Execute(tid, 0); err != nil {
			tb.Fatal(err)
		}
	}
	pend := func(tid int, op Op) {
		tb.Helper()
		if err := w.SetPending(tid, op); err != nil {
			tb.Fatal(err)
		}
	}
	for range 11 {
		do(1, Op{Kind: ThreadCreate})
	}
	do(1, o(MutexLock, mA, 0))
	pend(2, o(MutexLock, mA, 0))
	pend(3, Op{Kind: Yield})
	pend(4, o(Read, 0x1000, 8))
	do(5, o(ChanSend, 0x10, 1))
	pend(5, o(ChanSend, 0x10, 1))
	pend(6, o(ChanRecv, 0x10, 1))
	pend(7, Op{Kind: Select, Cases: []Case{{Chan: 0x10, Cap: 1}, {Chan: 0x20}}})
	do(8, o(WGAdd, 0x30, 1))
	pend(8, o(WGWait, 0x30, 0))
	do(9, o(MutexLock, mB, 0))
	do(9, o2(CondWait, cv, mB, 0))
	pend(9, o2(CondReacquire, cv, mB, 0))
	pend(10, o(GoMutexLock, 0x40, 0))
	pend(11, o(TimerWait, 0, 1000))
	do(12, o(GoRWRLock, 0x50, 0))
	pend(12, o(GoRWRUnlock, 0x50, 0))
	pend(1, o(SemPost, sm, 0))
	return w
}

func BenchmarkInspect(b *testing.B) {
	w := benchWorld(b)
	n := w.NumThreads()
	ops := make([]Op, n+1)
	b.ReportAllocs()
	for b.Loop() {
		for tid := 1; tid <= n; tid++ {
			w.Inspect(tid, &ops[tid])
		}
	}
}

func BenchmarkStatus(b *testing.B) {
	w := benchWorld(b)
	n := w.NumThreads()
	b.ReportAllocs()
	for b.Loop() {
		for tid := 1; tid <= n; tid++ {
			w.Status(tid)
		}
	}
}

// benchOps returns the annotated pending operations of benchWorld and a
// few more kinds, with the thread of each.
func benchOps(tb testing.TB) ([]int, []Op) {
	w := benchWorld(tb)
	var tids []int
	var ops []Op
	for tid := 1; tid <= w.NumThreads(); tid++ {
		op, _ := w.Annotated(tid)
		tids, ops = append(tids, tid), append(ops, op)
	}
	for i, op := range []Op{
		o(Write, 0x1000, 4), {Kind: ThreadCreate}, {Kind: ThreadStart}, o(ThreadJoin, 0, 3),
		o(Choose, 0, 2), o(WGAdd, 0x30, -1), o(MutexUnlock, mA, 0), o(GoRWLockDrain, 0x50, 0),
	} {
		op.Eff = Effect{Known: true}
		tids, ops = append(tids, 13+i), append(ops, op)
	}
	return tids, ops
}

func BenchmarkDependent(b *testing.B) {
	tids, ops := benchOps(b)
	for _, f := range []struct {
		name string
		rel  func(int, Op, int, Op) bool
	}{
		{"Dependent", Dependent}, {"DependentInOrder", DependentInOrder}, {"MustPrecede", MustPrecede},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range ops {
					for j := range ops {
						f.rel(tids[i], ops[i], tids[j], ops[j])
					}
				}
			}
		})
	}
}

// BenchmarkExecute runs a cycle of operations of most primitives that
// leaves the world as it found it.
func BenchmarkExecute(b *testing.B) {
	cycle := []Op{
		o(MutexLock, mA, 0), o(MutexUnlock, mA, 0),
		o(ChanSend, 0x10, 1), o(ChanRecv, 0x10, 1),
		o(WGAdd, 0x30, 1), o(WGAdd, 0x30, -1), o(WGWait, 0x30, 0),
		{Kind: Yield}, o(Read, 0x1000, 8),
		o(GoMutexLock, 0x40, 0), o(GoMutexUnlock, 0x40, 0),
		o(SemPost, sm, 0), o(SemWait, sm, 0),
		o(RWRdlock, rw, 0), o(RWUnlock, rw, 0),
		o(Choose, 0, 2),
	}
	w := NewWorld()
	b.ReportAllocs()
	for b.Loop() {
		for _, op := range cycle {
			if err := w.SetPending(1, op); err != nil {
				b.Fatal(err)
			}
			if _, err := w.Execute(1, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkClone(b *testing.B) {
	w := benchWorld(b)
	b.ReportAllocs()
	for b.Loop() {
		w.Clone()
	}
}
