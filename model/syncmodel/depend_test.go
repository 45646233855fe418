package syncmodel

import (
	"reflect"
	"slices"
	"testing"
)

func TestDependent(t *testing.T) {
	var (
		lockA   = o(MutexLock, mA, 0)
		unlockA = o(MutexUnlock, mA, 0)
		lockB   = o(MutexLock, mB, 0)
		wait    = o2(CondWait, cv, mA, 0)
		reacq   = o2(CondReacquire, cv, mA, 0)
		signal  = o(CondSignal, cv, 0)
		getv    = o(SemGetvalue, sm, 0)
		post    = o(SemPost, sm, 0)
		yield   = Op{Kind: Yield}
		sleep   = o(Sleep, 0, 10)
		choose  = o(Choose, 0, 2)
		exit    = o(Exit, 0, 0)
		create  = Op{Kind: ThreadCreate}
		start   = Op{Kind: ThreadStart}
		texit   = Op{Kind: ThreadExit}
		join    = func(t int64) Op { return o(ThreadJoin, 0, t) }
		detach  = func(t int64) Op { return o(ThreadDetach, 0, t) }
		rd      = func(addr uint64, n int64) Op { return o(Read, addr, n) }
		wr      = func(addr uint64, n int64) Op { return o(Write, addr, n) }
	)
	cases := []struct {
		name string
		ta   int
		a    Op
		tb   int
		b    Op
		want bool
	}{
		// Same thread.
		{"same thread, unrelated", 1, yield, 1, choose, true},
		{"same thread, different mutexes", 1, lockA, 1, lockB, true},
		{"invalid kind", 1, Op{}, 2, choose, true},
		// Synchronization objects.
		{"same mutex", 1, lockA, 2, lockA, true},
		{"lock and unlock", 1, lockA, 2, unlockA, true},
		{"different mutexes", 1, lockA, 2, lockB, false},
		{"cond wait and its mutex", 1, wait, 2, lockA, true},
		{"cond wait and another mutex", 1, wait, 2, lockB, false},
		{"reacquire and signal", 1, reacq, 2, signal, true},
		{"reacquire and unlock", 1, reacq, 2, unlockA, true},
		{"two waits", 1, wait, 2, o2(CondWait, cv, mB, 0), true},
		{"waits on two conds with one mutex", 1, wait, 2, o2(CondWait, cv+8, mA, 0), true},
		{"signal and another cond", 1, signal, 2, o(CondSignal, cv+8, 0), false},
		{"getvalue and getvalue", 1, getv, 2, getv, false},
		{"getvalue and post", 1, getv, 2, post, true},
		{"getvalue of different sems", 1, getv, 2, o(SemPost, sm+8, 0), false},
		{"failing trylocks", 1, o(MutexTrylock, mA, 0), 2, o(MutexTrylock, mA, 0), true},
		{"once begin and end", 1, o(OnceBegin, onc, 0), 2, o(OnceEnd, onc, 0), true},
		{"barrier wait and leave", 1, o(BarrierWait, bar, 0), 2, o(BarrierLeave, bar, 0), true},
		{"same address, different primitives", 1, o(SemPost, mA, 0), 2, lockA, true},
		{"rwlocks", 1, o(RWRdlock, rw, 0), 2, o(RWRdlock, rw, 0), true},
		// Go primitives.
		{"go mutex lock and unlock", 1, o(GoMutexLock, gm, 0), 2, o(GoMutexUnlock, gm, 0), true},
		{"go mutexes", 1, o(GoMutexLock, gm, 0), 2, o(GoMutexLock, gm+8, 0), false},
		{"go rwmutex drain and runlock", 1, o(GoRWLockDrain, grw, 0), 2, o(GoRWRUnlock, grw, 0), true},
		{"go rwmutex drain and own runlock", 1, o(GoRWLockDrain, grw, 0), 2, effOp(o(GoRWRUnlock, grw, 0), Effect{Known: true, Own: true}), true},
		{"go rwmutex drain and rlock", 1, o(GoRWLockDrain, grw, 0), 2, o(GoRWRLock, grw, 0), false},
		{"go rwmutex drain and tryrlock", 1, o(GoRWLockDrain, grw, 0), 2, o(GoRWTryRLock, grw, 0), false},
		{"go rwmutex drain and unlock", 1, o(GoRWLockDrain, grw, 0), 2, o(GoRWUnlock, grw, 0), true},
		{"waitgroup add and wake", 1, o(WGAdd, wg, -1), 2, o(WGWake, wg, 0), true},
		{"go cond wake and signal", 1, o(GoCondWake, gcv, 0), 2, o(CondSignal, gcv, 0), true},
		{"go cond wait and another cond", 1, o(GoCondWait, gcv, 0), 2, o(CondSignal, gcv+8, 0), false},
		{"sends on one channel", 1, send(ch1, 0), 2, send(ch1, 0), true},
		{"sends on two channels", 1, send(ch1, 0), 2, send(ch2, 0), false},
		{"send and select on another channel", 1, send(ch1, 0), 2, sel(true, rc(ch2, 0)), false},
		{"send and select on its channel", 1, send(ch1, 0), 2, sel(true, rc(ch3, 0), rc(ch1, 0)), true},
		{"close and len of another channel", 1, o(ChanClose, ch1, 0), 2, o(ChanLen, ch2, 0), false},
		{"close and len", 1, o(ChanClose, ch1, 0), 2, o(ChanLen, ch1, 0), true},
		{"sends completing with one parked select", 1, effOp(send(ch1, 0), Effect{Known: true, Partner: 3, Links: []uint64{ch1, ch2}}),
			2, effOp(recv(ch2, 0), Effect{Known: true, Partner: 3, Links: []uint64{ch1, ch2}}), true},
		{"a parked send and the receive that takes it", 1, effOp(send(ch1, 0), Effect{Known: true, Parks: true}),
			2, effOp(recv(ch1, 0), Effect{Known: true, Partner: 1}), true},
		{"a parked send and a receive that takes an earlier one", 1, effOp(send(ch1, 0), Effect{Known: true, Parks: true}),
			2, effOp(recv(ch1, 0), Effect{Known: true, Partner: 3}), false},
		{"unknown effects are dependent", 1, send(ch1, 0), 2, recv(ch1, 0), true},
		{"buffered send and receive in the middle", 1, effOp(send(ch1, 3), Effect{Known: true, Mid: true}),
			2, effOp(recv(ch1, 3), Effect{Known: true, Mid: true}), false},
		{"buffered receive that empties the buffer", 1, effOp(send(ch1, 3), Effect{Known: true, Mid: true}),
			2, effOp(recv(ch1, 3), Effect{Known: true}), true},
		{"two receives", 1, effOp(recv(ch1, 3), Effect{Known: true, Mid: true}), 2, effOp(recv(ch1, 3), Effect{Known: true, Mid: true}), true},
		{"wake and the operation that completed it", 1, effOp(chwake(ch1), Effect{Known: true}), 2, effOp(recv(ch1, 0), Effect{Known: true, Partner: 1}), true},
		{"wake and another receive", 1, effOp(chwake(ch1), Effect{Known: true}), 2, effOp(recv(ch1, 0), Effect{Known: true, Partner: 3}), false},
		{"wake and close", 1, effOp(chwake(ch1), Effect{Known: true}), 2, o(ChanClose, ch1, 0), true},
		{"go rwmutex two rlocks", 1, o(GoRWRLock, grw, 0), 2, o(GoRWRLock, grw, 0), false},
		{"go rwmutex rlock and tryrlock", 1, o(GoRWRLock, grw, 0), 2, o(GoRWTryRLock, grw, 0), false},
		{"go rwmutex rlock and an own runlock", 1, o(GoRWRLock, grw, 0), 2, effOp(o(GoRWRUnlock, grw, 0), Effect{Known: true, Own: true}), false},
		{"go rwmutex rlock and a runlock of another's lock", 1, o(GoRWRLock, grw, 0), 2, effOp(o(GoRWRUnlock, grw, 0), Effect{Known: true}), true},
		{"go rwmutex rlock and a runlock not annotated", 1, o(GoRWRLock, grw, 0), 2, o(GoRWRUnlock, grw, 0), true},
		{"go rwmutex two own runlocks", 1, effOp(o(GoRWRUnlock, grw, 0), Effect{Known: true, Own: true}), 2, effOp(o(GoRWRUnlock, grw, 0), Effect{Known: true, Own: true}), false},
		{"go rwmutex announcement and an own runlock", 1, o(GoRWLock, grw, 0), 2, effOp(o(GoRWRUnlock, grw, 0), Effect{Known: true, Own: true}), false},
		{"go rwmutex announcement and rlock", 1, o(GoRWLock, grw, 0), 2, o(GoRWRLock, grw, 0), true},
		{"go rwmutex announcement and tryrlock", 1, o(GoRWLock, grw, 0), 2, o(GoRWTryRLock, grw, 0), true},
		{"go rwmutex two announcements", 1, o(GoRWLock, grw, 0), 2, o(GoRWLock, grw, 0), true},
		{"go rwmutex unlock and rlock", 1, o(GoRWUnlock, grw, 0), 2, o(GoRWRLock, grw, 0), true},
		{"go rwmutex rlocks of two rwmutexes", 1, o(GoRWLock, grw, 0), 2, o(GoRWRLock, grw+8, 0), false},
		{"go cond wait with its mutex and a lock of it", 1, o2(GoCondWait, gcv, gm, 0), 2, o(GoMutexLock, gm, 0), true},
		{"go cond wake with its mutex and an unlock of it", 1, effOp(o2(GoCondWake, gcv, gm, 0), Effect{Known: true, Partner: 3}), 2, o(GoMutexUnlock, gm, 0), true},
		{"go cond wakes relocking one mutex", 1, effOp(o2(GoCondWake, gcv, gm, 0), Effect{Known: true, Partner: 3}), 2, effOp(o2(GoCondWake, gcv, gm, 0), Effect{Known: true, Partner: 3}), true},
		{"go cond wake with its mutex and another mutex", 1, effOp(o2(GoCondWake, gcv, gm, 0), Effect{Known: true, Partner: 3}), 2, o(GoMutexLock, gm+8, 0), false},
		{"go cond wake with its mutex and another's signal", 1, effOp(o2(GoCondWake, gcv, gm, 0), Effect{Known: true, Partner: 3}), 2, o(CondSignal, gcv, 0), false},
		{"two Dones the counter covers", 1, effOp(o(WGAdd, wg, -1), Effect{Known: true, Counter: 2}), 2, effOp(o(WGAdd, wg, -1), Effect{Known: true, Counter: 2}), false},
		{"two Dones it does not: the second is the misuse", 1, effOp(o(WGAdd, wg, -1), Effect{Known: true, Counter: 1}), 2, effOp(o(WGAdd, wg, -1), Effect{Known: true, Counter: 1}), true},
		{"two Dones, effects unknown", 1, o(WGAdd, wg, -1), 2, o(WGAdd, wg, -1), true},
		{"two Adds", 1, o(WGAdd, wg, 2), 2, o(WGAdd, wg, 1), false},
		{"Add and Done that keep the counter positive", 1, o(WGAdd, wg, 1), 2, effOp(o(WGAdd, wg, -1), Effect{Known: true, Counter: 2}), false},
		{"Add and Done that may go negative", 1, o(WGAdd, wg, 1), 2, effOp(o(WGAdd, wg, -1), Effect{Known: true, Counter: 1}), true},
		{"Add and Done, effect unknown", 1, o(WGAdd, wg, 1), 2, o(WGAdd, wg, -1), true},
		{"Done and Wait", 1, o(WGAdd, wg, -1), 2, o(WGWait, wg, 0), true},
		{"two Waits", 1, o(WGWait, wg, 0), 2, o(WGWait, wg, 0), false},
		{"checked return and a goroutine's operation", 1, Op{Kind: ThreadExit, API: APICheckedReturn}, 2, o(GoMutexLock, gm, 0), false},
		{"exit and a thread's operation", 1, o(Exit, 0, 0), 2, o(GoMutexLock, gm, 0), true},
		{"lens", 1, o(ChanLen, ch1, 0), 2, o(ChanLen, ch1, 0), false},
		{"channel and mutex", 1, send(ch1, 0), 2, o(GoMutexLock, gm, 0), false},
		{"select and the mutex of one of its channels", 1, sel(false, rc(ch1, 0), rc(gm, 0)), 2, o(GoMutexLock, gm, 0), true},
		{"write to a select's channel", 1, sel(false, rc(ch1, 0)), 2, wr(ch1, 8), true},
		{"write elsewhere and select", 1, sel(false, rc(ch1, 0)), 2, wr(ch2, 8), false},
		{"select wake and read of its channel", 1, selwake(rc(ch1, 0)), 2, rd(ch1, 1), true},
		{"channel and thread exit", 1, recv(ch1, 0), 2, texit, false},
		// Memory.
		{"reads", 1, rd(0x1000, 8), 2, rd(0x1000, 8), false},
		{"read and write", 1, rd(0x1000, 8), 2, wr(0x1004, 1), true},
		{"write and read", 1, wr(0x1000, 8), 2, rd(0x1007, 4), true},
		{"writes overlap", 1, wr(0x1000, 8), 2, wr(0x0ffc, 8), true},
		{"writes adjacent", 1, wr(0x1000, 8), 2, wr(0x1008, 8), false},
		{"writes apart", 1, wr(0x1000, 4), 2, wr(0x2000, 4), false},
		{"size 0 is one byte", 1, wr(0x1000, 0), 2, rd(0x1000, 0), true},
		{"size 0 does not reach the next byte", 1, wr(0x1000, 0), 2, rd(0x1001, 1), false},
		{"top of the address space", 1, wr(^uint64(0)-1, 100), 2, rd(^uint64(0), 1), true},
		{"access to a sync object", 1, rd(mA, 40), 2, lockA, true},
		{"access inside a cond wait's mutex", 1, wr(mA-8, 16), 2, wait, true},
		{"access elsewhere", 1, wr(mA+8, 8), 2, lockA, false},
		// Scheduling.
		{"yields", 1, yield, 2, yield, true},
		{"yield and sleep", 1, yield, 2, sleep, true},
		{"sleep and read", 1, sleep, 2, rd(0x1000, 1), true},
		{"yield and write", 1, wr(0x1000, 1), 2, yield, true},
		{"yield and lock", 1, yield, 2, lockA, false},
		{"yield and create", 1, yield, 2, create, false},
		// Choose.
		{"choose and choose", 1, choose, 2, choose, false},
		{"choose and lock", 1, choose, 2, lockA, false},
		{"choose and write", 1, wr(0, 1), 2, choose, false},
		{"choose and yield", 1, choose, 2, yield, false},
		{"choose and join", 1, choose, 2, join(1), false},
		// Thread start.
		{"start and yield", 1, start, 2, yield, true},
		{"start and sleep", 1, sleep, 2, start, true},
		{"starts", 1, start, 2, start, false},
		{"start and lock", 1, start, 2, lockA, false},
		{"start and write", 1, wr(0x1000, 4), 2, start, false},
		{"start and choose", 1, start, 2, choose, false},
		{"start and create", 1, create, 2, start, false},
		{"start and exit", 1, start, 2, exit, true},
		// Exit.
		{"exit and choose", 1, exit, 2, choose, true},
		{"exit and lock", 1, lockA, 2, exit, true},
		{"exit and thread exit", 1, exit, 2, texit, true},
		{"exits", 1, exit, 2, exit, true},
		{"exit and create", 1, create, 2, exit, true},
		// Threads.
		{"join and the target's exit", 1, join(2), 2, texit, true},
		{"target's exit and join", 2, texit, 1, join(2), true},
		{"join and another thread's exit", 1, join(3), 2, texit, false},
		{"detach and the target's exit", 1, detach(2), 2, texit, true},
		{"joins of one thread", 1, join(3), 2, join(3), true},
		{"join and detach of one thread", 1, join(3), 2, detach(3), true},
		{"detaches of one thread", 1, detach(3), 2, detach(3), true},
		{"joins of different threads", 1, join(3), 2, join(4), false},
		{"thread exits", 1, texit, 2, texit, false},
		{"creates", 1, create, 2, create, true},
		{"create and join", 1, create, 2, join(1), false},
		{"create and thread exit", 1, create, 2, texit, false},
		{"join and lock", 1, join(2), 2, lockA, false},
		{"thread exit and unlock", 1, texit, 2, unlockA, false},
		{"thread exit and write", 1, texit, 2, wr(0x1000, 4), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Dependent(c.ta, c.a, c.tb, c.b); got != c.want {
				t.Errorf("Dependent(%d, %s, %d, %s) = %v, want %v", c.ta, c.a, c.tb, c.b, got, c.want)
			}
			if got := Dependent(c.tb, c.b, c.ta, c.a); got != c.want {
				t.Errorf("Dependent(%d, %s, %d, %s) = %v (swapped), want %v", c.tb, c.b, c.ta, c.a, got, c.want)
			}
		})
	}
}

// DependentInOrder knows which of two wait-group Adds ran first: a Done
// followed by an Add always commutes; an Add followed by the Done it made
// possible does not. Every other pair is as Dependent decides.
func TestDependentInOrder(t *testing.T) {
	done := func(counter int64) Op { return effOp(o(WGAdd, wg, -1), Effect{Known: true, Counter: counter}) }
	add := func(counter int64) Op { return effOp(o(WGAdd, wg, 1), Effect{Known: true, Counter: counter}) }
	cases := []struct {
		name string
		a, b Op
		want bool
	}{
		{"a Done to zero, then an Add", done(1), add(0), false},
		{"an Add, then the Done it covers", add(0), done(1), true},
		{"an Add, then a Done with room", add(1), done(2), false},
		{"a Done, then a Wait", done(1), o(WGWait, wg, 0), true},
		{"an Add, then a Wait", add(0), o(WGWait, wg, 0), true},
		{"two Go mutex locks", o(GoMutexLock, gm, 0), o(GoMutexLock, gm, 0), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := DependentInOrder(1, c.a, 2, c.b); got != c.want {
				t.Errorf("DependentInOrder(1, %s, 2, %s) = %v, want %v", c.a, c.b, got, c.want)
			}
			if got, sym := DependentInOrder(1, c.a, 1, c.b), Dependent(1, c.a, 1, c.b); got != sym {
				t.Errorf("same thread: DependentInOrder %v, Dependent %v", got, sym)
			}
		})
	}
}

// Readers of a Go RWMutex commute, as the model executes them: every pair
// that Dependent calls independent, annotated in the state where both are
// pending, gives the same results and world in either order.
func TestGoRWReadersCommute(t *testing.T) {
	// Threads 1 and 2 hold read locks; thread 3 holds none.
	base := func(t *testing.T) *World {
		w := NewWorld()
		run(t, w, cat(threads(4), []step{
			{tid: 1, op: o(GoRWRLock, grw, 0)},
			{tid: 2, op: o(GoRWRLock, grw, 0)},
		}))
		return w
	}
	type pend struct {
		tid int
		op  Op
	}
	pairs := [][2]pend{
		{{3, o(GoRWRLock, grw, 0)}, {4, o(GoRWRLock, grw, 0)}},
		{{3, o(GoRWRLock, grw, 0)}, {1, o(GoRWRUnlock, grw, 0)}},
		{{3, o(GoRWTryRLock, grw, 0)}, {2, o(GoRWRUnlock, grw, 0)}},
		{{1, o(GoRWRUnlock, grw, 0)}, {2, o(GoRWRUnlock, grw, 0)}},
		{{3, o(GoRWLock, grw, 0)}, {1, o(GoRWRUnlock, grw, 0)}},
		{{3, o(GoRWRLock, grw, 0)}, {4, o(GoRWRUnlock, grw, 0)}}, // 4 holds none: dependent
	}
	for _, p := range pairs {
		w := base(t)
		for _, x := range p {
			if err := w.SetPending(x.tid, x.op); err != nil {
				t.Fatal(err)
			}
		}
		a, _ := w.Annotated(p[0].tid)
		b, _ := w.Annotated(p[1].tid)
		dep := Dependent(p[0].tid, a, p[1].tid, b)
		if want := p[1].tid == 4 && p[1].op.Kind == GoRWRUnlock; dep != want {
			t.Errorf("%s by %d and %s by %d: dependent %v, want %v", a, p[0].tid, b, p[1].tid, dep, want)
		}
		if dep {
			continue
		}
		exec := func(order ...pend) (*World, []Result) {
			w := base(t)
			var rs []Result
			for _, x := range order {
				if err := w.SetPending(x.tid, x.op); err != nil {
					t.Fatal(err)
				}
				r, err := w.Execute(x.tid, 0)
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
			return w, rs
		}
		w1, r1 := exec(p[0], p[1])
		w2, r2 := exec(p[1], p[0])
		if r1[0] != r2[1] || r1[1] != r2[0] {
			t.Errorf("%s and %s: results differ with the order", a, b)
		}
		if !reflect.DeepEqual(w1, w2) {
			t.Errorf("%s and %s: the worlds differ with the order", a, b)
		}
	}
}

// TestDependentSymmetric checks symmetry over a sample of operations of
// every kind.
func TestDependentSymmetric(t *testing.T) {
	var ops []Op
	for k := KindInvalid; k <= kindCount; k++ {
		for _, obj := range []uint64{0, mA, mB} {
			ops = append(ops, Op{Kind: k, Obj: obj, Arg: 2}, Op{Kind: k, Obj: obj, Obj2: mA, Arg: 3})
		}
	}
	for _, a := range ops {
		for _, b := range ops {
			for _, ids := range [][2]int{{1, 2}, {2, 3}, {3, 2}} {
				if Dependent(ids[0], a, ids[1], b) != Dependent(ids[1], b, ids[0], a) {
					t.Fatalf("Dependent not symmetric for %d %s, %d %s", ids[0], a, ids[1], b)
				}
			}
			if !Dependent(1, a, 1, b) {
				t.Fatalf("ops of one thread independent: %s, %s", a, b)
			}
		}
	}
}

// TestIndependentOpsCommute checks, on concrete worlds, that operations
// Dependent calls independent commute: both orders are enabled, give the
// same results and reach the same world.
func TestIndependentOpsCommute(t *testing.T) {
	type pend struct {
		tid int
		op  Op
	}
	// base prepares a world with threads 1..4, in which mutex A is held by
	// thread 4, semaphore S has value 1 and thread 3 waits on cv.
	base := func(t *testing.T) *World {
		w := NewWorld()
		run(t, w, cat(threads(4), []step{
			{tid: 4, op: o(MutexLock, mA, 0)},
			{tid: 1, op: o(SemPost, sm, 0)},
			{tid: 3, op: o(MutexLock, mB, 0)},
			{tid: 3, op: o2(CondWait, cv, mB, 0)},
		}))
		return w
	}
	ops := []Op{
		o(MutexTrylock, mA, 0), o(MutexLock, mB, 0), o(SemGetvalue, sm, 0), o(SemTrywait, sm+8, 0),
		o(CondSignal, cv+8, 0), o(RWRdlock, rw, 0), o(Read, 0x1000, 4), o(Write, 0x2000, 4),
		{Kind: Yield}, o(Choose, 0, 2), {Kind: ThreadCreate}, o(ThreadDetach, 0, 4),
		o(GoMutexLock, gm, 0), o(GoRWRLock, grw, 0), o(WGAdd, wg, 1), send(ch1, 1), o(ChanLen, ch2, 0),
		o(GoCondWait, gcv, 0), o(CondSignal, gcv+8, 0), sel(true, rc(ch3, 0)),
	}
	for _, a := range ops {
		for _, b := range ops {
			pa, pb := pend{1, a}, pend{2, b}
			if Dependent(pa.tid, pa.op, pb.tid, pb.op) {
				continue
			}
			w1, w2 := base(t), base(t)
			exec := func(w *World, ps ...pend) []Result {
				var rs []Result
				for _, p := range ps {
					if err := w.SetPending(p.tid, p.op); err != nil {
						t.Fatal(err)
					}
					r, err := w.Execute(p.tid, 1)
					if err != nil {
						t.Fatalf("%s then %s: %v", a, b, err)
					}
					rs = append(rs, r)
				}
				return rs
			}
			r1 := exec(w1, pa, pb)
			r2 := exec(w2, pb, pa)
			if r1[0] != r2[1] || r1[1] != r2[0] {
				t.Errorf("%s and %s: results differ with the order", a, b)
			}
			if !reflect.DeepEqual(w1, w2) {
				t.Errorf("%s and %s: the worlds differ with the order", a, b)
			}
		}
	}
}

// MustPrecede holds exactly when the model disables the second operation
// in the states where the first can run: check each pair it names against
// the World.
func TestMustPrecedeAgainstTheModel(t *testing.T) {
	const m, c = 0x10, 0x20
	tests := []struct {
		name  string
		setup []Op // run by thread 1
		a     Op   // thread 1's next operation
		b     Op   // thread 2's
		want  bool
	}{
		{"unlock, lock", []Op{{Kind: MutexLock, Obj: m}}, Op{Kind: MutexUnlock, Obj: m}, Op{Kind: MutexLock, Obj: m}, true},
		{"unlock, trylock", []Op{{Kind: MutexLock, Obj: m}}, Op{Kind: MutexUnlock, Obj: m}, Op{Kind: MutexTrylock, Obj: m}, false},
		{"unlock, other mutex", []Op{{Kind: MutexLock, Obj: m}}, Op{Kind: MutexUnlock, Obj: m}, Op{Kind: MutexLock, Obj: m + 1}, false},
		{"cond wait, lock", []Op{{Kind: MutexLock, Obj: m}}, Op{Kind: CondWait, Obj: c, Obj2: m}, Op{Kind: MutexLock, Obj: m}, true},
		{"go cond wait, lock", []Op{{Kind: GoMutexLock, Obj: m}}, Op{Kind: GoCondWait, Obj: c, Obj2: m}, Op{Kind: GoMutexLock, Obj: m}, true},
		{"spin", []Op{{Kind: SpinLock, Obj: m}}, Op{Kind: SpinUnlock, Obj: m}, Op{Kind: SpinLock, Obj: m}, true},
		{"go mutex", []Op{{Kind: GoMutexLock, Obj: m}}, Op{Kind: GoMutexUnlock, Obj: m}, Op{Kind: GoMutexLock, Obj: m}, true},
		{"rwlock reader, writer", []Op{{Kind: RWRdlock, Obj: m}}, Op{Kind: RWUnlock, Obj: m}, Op{Kind: RWWrlock, Obj: m}, true},
		{"rwlock reader, reader", []Op{{Kind: RWRdlock, Obj: m}}, Op{Kind: RWUnlock, Obj: m}, Op{Kind: RWRdlock, Obj: m}, false},
		{"rwlock writer, reader", []Op{{Kind: RWWrlock, Obj: m}}, Op{Kind: RWUnlock, Obj: m, Eff: Effect{Known: true, Writer: true}}, Op{Kind: RWRdlock, Obj: m}, true},
		{"sem post, wait", nil, Op{Kind: SemPost, Obj: m}, Op{Kind: SemWait, Obj: m}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MustPrecede(1, tt.a, 2, tt.b); got != tt.want {
				t.Fatalf("MustPrecede = %v, want %v", got, tt.want)
			}
			if !Dependent(1, tt.a, 2, tt.b) && tt.want {
				t.Fatal("MustPrecede of independent operations")
			}
			w := NewWorld()
			if err := w.SetPending(1, Op{Kind: ThreadCreate}); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Execute(1, 0); err != nil {
				t.Fatal(err)
			}
			if tt.b.Kind == SemWait {
				// A semaphore starting at 1: the wait is ready before the post.
				if err := w.SetPending(1, Op{Kind: SemInit, Obj: m, Arg: 1}); err != nil {
					t.Fatal(err)
				}
				if _, err := w.Execute(1, 0); err != nil {
					t.Fatal(err)
				}
			}
			for _, op := range tt.setup {
				if err := w.SetPending(1, op); err != nil {
					t.Fatal(err)
				}
				if _, err := w.Execute(1, 0); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.SetPending(1, tt.a); err != nil {
				t.Fatal(err)
			}
			if err := w.SetPending(2, tt.b); err != nil {
				t.Fatal(err)
			}
			if !w.Enabled(1) {
				t.Fatal("a is not enabled")
			}
			if w.Enabled(2) == tt.want {
				t.Fatalf("b enabled %v while a can run, MustPrecede %v", w.Enabled(2), tt.want)
			}
		})
	}
}

func effOp(op Op, e Effect) Op { op.Eff = e; return op }

// A select that may complete a parked select touches that select's other
// channels: it is dependent with a receive on one of them (whichever comes
// first takes the parked select's only rendezvous). Before, the select's
// effect named no links and the two were taken as independent, and DPOR
// missed the order in which the receive comes first.
func TestSelectCompletingAParkedSelect(t *testing.T) {
	w := NewWorld()
	run(t, w, cat(threads(3), []step{
		// thread 1 parks offering on ch1 and waiting for a stop on ch2
		{tid: 1, op: sel(false, sc(ch1, 0), rc(ch2, 0)), code: parkedCode},
	}))
	stop := sel(false, sc(ch2, 0), rc(ch3, 0))
	if err := w.SetPending(2, stop); err != nil {
		t.Fatal(err)
	}
	if err := w.SetPending(3, recv(ch1, 0)); err != nil {
		t.Fatal(err)
	}
	a, _ := w.Annotated(2)
	b, _ := w.Annotated(3)
	if !slices.Contains(a.Eff.Links, ch1) {
		t.Errorf("the select's links are %v, want the parked select's channels (ch1 among them)", a.Eff.Links)
	}
	if !Dependent(2, a, 3, b) || !Dependent(3, b, 2, a) {
		t.Errorf("%s and %s are independent, but only one of them can complete thread 1's select", a, b)
	}
}

// The wake of a parked channel operation depends only on the operations
// that may end its park: while thread 1 is parked, a select with a ready
// case whose partner it is and a close of its channel are dependent on its
// wake and must precede it; once another thread woke it, they commute with
// it. Before, every select and close of its channels was dependent on the
// wake and taken to precede it, so that DPOR ordered every later operation
// of the woken thread after the select and missed the schedules in which
// one of them comes first (a send a poll with default could have taken).
func TestChanWakeDependsOnWhatEndsItsPark(t *testing.T) {
	parked := func(t *testing.T) *World {
		w := NewWorld()
		run(t, w, cat(threads(3), []step{
			// thread 1 offers on ch1 or waits for a value on ch2
			{tid: 1, op: sel(false, sc(ch1, 0), rc(ch2, 0)), code: parkedCode},
		}))
		if err := w.SetPending(1, selwake(sc(ch1, 0), rc(ch2, 0))); err != nil {
			t.Fatal(err)
		}
		return w
	}
	poll := sel(true, rc(ch1, 0), rc(ch3, 0))
	closeCh2 := o(ChanClose, ch2, 0)
	check := func(t *testing.T, w *World, op Op, want bool) {
		t.Helper()
		if err := w.SetPending(2, op); err != nil {
			t.Fatal(err)
		}
		a, _ := w.Annotated(2)
		wake, _ := w.Annotated(1)
		if got := Dependent(2, a, 1, wake); got != want {
			t.Errorf("Dependent(%s %+v, wake) = %v, want %v", a, a.Eff, got, want)
		}
		if got := MustPrecede(2, a, 1, wake); got != want {
			t.Errorf("MustPrecede(%s %+v, wake) = %v, want %v", a, a.Eff, got, want)
		}
	}
	t.Run("parked", func(t *testing.T) {
		w := parked(t)
		check(t, w, poll, true)     // its receive of ch1 takes thread 1's offer
		check(t, w, closeCh2, true) // wakes thread 1
		check(t, w, sel(true, rc(ch3, 0)), false)
	})
	t.Run("woken", func(t *testing.T) {
		w := parked(t)
		run(t, w, []step{{tid: 3, op: recv(ch1, 0), code: cr(ViaPartner, 0, true, 1, 0)}})
		if !w.Enabled(1) {
			t.Fatal("thread 1 is not woken")
		}
		check(t, w, poll, false)
		check(t, w, closeCh2, false)
		// And they do commute: either order, the same results and world.
		for _, op := range []Op{poll, closeCh2} {
			w1, w2 := w.Clone(), w.Clone()
			r1 := execAll(t, w1, 1, 2, op)
			r2 := execAll(t, w2, 2, 1, op)
			if r1[1] != r2[1] || r1[2] != r2[2] || !reflect.DeepEqual(w1, w2) {
				t.Errorf("the wake and %s do not commute", op)
			}
		}
	})
}

// execAll executes the pending operations of threads first and second of
// w in that order, op being thread 2's, and returns their results by thread.
func execAll(t *testing.T, w *World, first, second int, op Op) map[int]Result {
	t.Helper()
	if err := w.SetPending(2, op); err != nil {
		t.Fatal(err)
	}
	rs := map[int]Result{}
	for _, tid := range []int{first, second} {
		r, err := w.Execute(tid, 0)
		if err != nil {
			t.Fatalf("thread %d: %v", tid, err)
		}
		rs[tid] = r
	}
	return rs
}

// A poll that fails (a try-lock, a semaphore's trywait, a select that takes
// its default case, a length read) depends on every operation that would
// have made it succeed: had that operation come first, the poll would have
// returned something else. Each case sets up a state in which thread 1's
// poll fails, checks that it is dependent on thread 3's enabling operation
// as the model annotates both, and that the two indeed do not commute.
func TestFailedPollDependsOnItsEnabler(t *testing.T) {
	const sp = 0x607000 // spin lock
	tests := []struct {
		name   string
		setup  []step // after threads 1..3 exist
		poll   Op     // thread 1's, failing now
		enable Op     // thread 3's
	}{
		{"Go TryLock, Unlock", []step{{tid: 3, op: o(GoMutexLock, gm, 0)}}, o(GoMutexTryLock, gm, 0), o(GoMutexUnlock, gm, 0)},
		{"C trylock, unlock", []step{{tid: 3, op: o(MutexLock, mA, 0)}}, o(MutexTrylock, mA, 0), o(MutexUnlock, mA, 0)},
		{"spin trylock, unlock", []step{{tid: 3, op: o(SpinLock, sp, 0)}}, o(SpinTrylock, sp, 0), o(SpinUnlock, sp, 0)},
		{"sem trywait, post", nil, o(SemTrywait, sm, 0), o(SemPost, sm, 0)},
		{"rwlock tryrdlock, writer's unlock", []step{{tid: 3, op: o(RWWrlock, rw, 0)}}, o(RWTryRdlock, rw, 0), o(RWUnlock, rw, 0)},
		{"rwlock trywrlock, reader's unlock", []step{{tid: 3, op: o(RWRdlock, rw, 0)}}, o(RWTryWrlock, rw, 0), o(RWUnlock, rw, 0)},
		{"Go TryRLock, writer's Unlock", []step{{tid: 3, op: o(GoRWLock, grw, 0)}, {tid: 3, op: o(GoRWLockDrain, grw, 0)}},
			o(GoRWTryRLock, grw, 0), o(GoRWUnlock, grw, 0)},
		{"Go TryLock, reader's RUnlock", []step{{tid: 3, op: o(GoRWRLock, grw, 0)}}, o(GoRWTryLock, grw, 0), o(GoRWRUnlock, grw, 0)},
		{"select default, send on its receive case", nil, sel(true, rc(ch1, 1)), send(ch1, 1)},
		{"select default, close of its receive case", nil, sel(true, rc(ch1, 0)), o(ChanClose, ch1, 0)},
		{"select default, a select that parks receiving", nil, sel(true, sc(ch1, 0)), sel(false, rc(ch1, 0), sc(ch2, 0))},
		{"select default, a send that parks", nil, sel(true, rc(ch1, 0)), send(ch1, 0)},
		{"select default, a timer offering its time", nil, sel(true, rc(ch1, 0)),
			Op{Kind: Select, API: APITimerFire, Cases: []Case{sc(ch1, 0), rc(ch3, 0)}}},
		{"len, send", nil, o(ChanLen, ch1, 1), send(ch1, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWorld()
			run(t, w, cat(threads(3), tt.setup))
			if err := w.SetPending(1, tt.poll); err != nil {
				t.Fatal(err)
			}
			if err := w.SetPending(3, tt.enable); err != nil {
				t.Fatal(err)
			}
			a, _ := w.Annotated(1)
			b, _ := w.Annotated(3)
			if !Dependent(1, a, 3, b) || !DependentInOrder(1, a, 3, b) || !DependentInOrder(3, b, 1, a) {
				t.Errorf("the failing %s is independent of %s", a, b)
			}
			first := w.Clone()
			r, err := first.Execute(1, 0)
			if err != nil {
				t.Fatal(err)
			}
			after := w.Clone()
			if _, err := after.Execute(3, 0); err != nil {
				t.Fatal(err)
			}
			if after.Enabled(1) {
				r2, err := after.Execute(1, 0)
				if err == nil && r2 == r && reflect.DeepEqual(first, after) {
					t.Errorf("%s returns the same after %s: the case does not show a failed poll", a, b)
				}
			}
		})
	}
}
