package syncmodel

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Addresses used by the tests.
const (
	mA  = 0x601040 // mutex
	mB  = 0x601080 // another mutex
	cv  = 0x602000 // condition variable
	sm  = 0x603000 // semaphore
	rw  = 0x604000 // rwlock
	bar = 0x605000 // barrier
	onc = 0x606000 // once control
	spn = 0x607000 // spin lock
)

// step is one step of a scripted execution.
type step struct {
	tid int
	// op becomes tid's pending operation; the zero Op keeps the one
	// already pending (to resume a thread that was blocked).
	op     Op
	choice int
	// blocked: the operation must not be enabled; it stays pending.
	// waits: the same, for a TimerWait, which waits for time and is not
	// blocked.
	blocked, waits bool
	// hold: the operation must be enabled but is not executed yet.
	hold bool
	// code is the Result.Code expected.
	code int64
	// misuse, if not empty, is expected in the Misuse message.
	misuse string
}

// o returns an operation with an object and an argument.
func o(k Kind, obj uint64, arg int64) Op { return Op{Kind: k, Obj: obj, Arg: arg} }

// o2 returns an operation with two objects.
func o2(k Kind, obj, obj2 uint64, arg int64) Op { return Op{Kind: k, Obj: obj, Obj2: obj2, Arg: arg} }

// create returns a step in which tid creates thread id.
func create(tid, id int) step { return step{tid: tid, op: Op{Kind: ThreadCreate}, code: int64(id)} }

// threads returns steps in which thread 1 creates threads 2..n.
func threads(n int) []step {
	var s []step
	for id := 2; id <= n; id++ {
		s = append(s, create(1, id))
	}
	return s
}

// run plays steps on w and fails t at the first deviation.
func run(t *testing.T, w *World, steps []step) {
	t.Helper()
	for i, s := range steps {
		if s.op.Kind != KindInvalid {
			if err := w.SetPending(s.tid, s.op); err != nil {
				t.Fatalf("step %d: SetPending(%d, %s): %v", i, s.tid, s.op, err)
			}
		}
		op, _ := w.Pending(s.tid)
		if s.blocked || s.waits {
			if w.Enabled(s.tid) {
				t.Fatalf("step %d: thread %d: %s enabled, want blocked", i, s.tid, op)
			}
			if slices.Contains(w.Blocked(), s.tid) != s.blocked {
				t.Fatalf("step %d: Blocked() = %v, want it to contain %d", i, w.Blocked(), s.tid)
			}
			if _, err := w.Execute(s.tid, s.choice); !errors.Is(err, ErrNotEnabled) {
				t.Fatalf("step %d: Execute of blocked thread %d: err %v, want ErrNotEnabled", i, s.tid, err)
			}
			continue
		}
		if !w.Enabled(s.tid) {
			t.Fatalf("step %d: thread %d: %s not enabled (%+v)", i, s.tid, op, w.WaitFor(s.tid))
		}
		if s.hold {
			continue
		}
		res, err := w.Execute(s.tid, s.choice)
		if s.misuse != "" {
			var m *Misuse
			if !errors.As(err, &m) {
				t.Fatalf("step %d: thread %d: %s: err %v, want misuse %q", i, s.tid, op, err, s.misuse)
			}
			if !strings.Contains(m.Msg, s.misuse) {
				t.Fatalf("step %d: thread %d: %s: misuse %q, want %q", i, s.tid, op, m.Msg, s.misuse)
			}
			if m.Tid != s.tid || !reflect.DeepEqual(m.Op, op) {
				t.Fatalf("step %d: misuse names thread %d op %s, want %d %s", i, m.Tid, m.Op, s.tid, op)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: thread %d: %s: %v", i, s.tid, op, err)
		}
		if res.Code != s.code {
			t.Fatalf("step %d: thread %d: %s: code %d, want %d", i, s.tid, op, res.Code, s.code)
		}
		if _, ok := w.Pending(s.tid); ok && !w.Finished(s.tid) {
			t.Fatalf("step %d: thread %d: pending operation not cleared", i, s.tid)
		}
	}
}

// scenario is a scripted execution with an optional final check.
type scenario struct {
	name  string
	steps []step
	check func(t *testing.T, w *World)
}

func runScenarios(t *testing.T, cases []scenario) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := NewWorld()
			run(t, w, c.steps)
			if c.check != nil {
				c.check(t, w)
			}
		})
	}
}

// cat concatenates step lists.
func cat(lists ...[]step) []step { return slices.Concat(lists...) }

func TestNewWorld(t *testing.T) {
	w := NewWorld()
	if n := w.NumThreads(); n != 1 {
		t.Errorf("NumThreads() = %d, want 1", n)
	}
	if l := w.Live(); !slices.Equal(l, []int{1}) {
		t.Errorf("Live() = %v, want [1]", l)
	}
	if _, ok := w.Pending(1); ok {
		t.Error("thread 1 has a pending operation")
	}
	if w.Enabled(1) {
		t.Error("thread 1 enabled without a pending operation")
	}
	if b := w.Blocked(); len(b) != 0 {
		t.Errorf("Blocked() = %v, want none", b)
	}
	if w.Finished(1) {
		t.Error("thread 1 finished")
	}
	if _, ok := w.Exited(); ok {
		t.Error("Exited() ok in a new world")
	}
	if wt := w.WaitFor(1); !reflect.DeepEqual(wt, Wait{}) {
		t.Errorf("WaitFor(1) = %+v, want zero", wt)
	}
	for _, tid := range []int{-1, 0, 2} {
		if w.Enabled(tid) || w.Finished(tid) {
			t.Errorf("unknown thread %d enabled or finished", tid)
		}
		if _, ok := w.Pending(tid); ok {
			t.Errorf("unknown thread %d has a pending operation", tid)
		}
		if wt := w.WaitFor(tid); !reflect.DeepEqual(wt, Wait{}) {
			t.Errorf("WaitFor(%d) = %+v, want zero", tid, wt)
		}
	}
}

func TestSetPendingErrors(t *testing.T) {
	cases := []struct {
		name  string
		setup []step
		tid   int
		op    Op
	}{
		{"thread 0", nil, 0, Op{Kind: Yield}},
		{"negative thread", nil, -3, Op{Kind: Yield}},
		{"unknown thread", nil, 2, Op{Kind: Yield}},
		{"invalid kind", nil, 1, Op{}},
		{"kind too large", nil, 1, Op{Kind: kindCount}},
		{"choose among 0", nil, 1, o(Choose, 0, 0)},
		{"choose among -1", nil, 1, o(Choose, 0, -1)},
		{"finished thread", []step{{tid: 1, op: Op{Kind: ThreadExit}}}, 1, Op{Kind: Yield}},
		{"after exit", cat(threads(2), []step{{tid: 1, op: o(Exit, 0, 0)}}), 2, Op{Kind: Yield}},
		{"reacquire without wait", nil, 1, o2(CondReacquire, cv, mA, 0)},
		{"leave without wait", nil, 1, o(BarrierLeave, bar, 0)},
		{"other op during cond wait", []step{
			{tid: 1, op: o(MutexLock, mA, 0)},
			{tid: 1, op: o2(CondWait, cv, mA, 0)},
		}, 1, o(MutexUnlock, mA, 0)},
		{"reacquire of another cond", []step{
			{tid: 1, op: o(MutexLock, mA, 0)},
			{tid: 1, op: o2(CondWait, cv, mA, 0)},
		}, 1, o2(CondReacquire, cv+8, mA, 0)},
		{"reacquire of another mutex", []step{
			{tid: 1, op: o(MutexLock, mA, 0)},
			{tid: 1, op: o2(CondWait, cv, mA, 0)},
		}, 1, o2(CondReacquire, cv, mB, 0)},
		{"other op during barrier wait", []step{
			{tid: 1, op: o(BarrierInit, bar, 2)},
			{tid: 1, op: o(BarrierWait, bar, 0)},
		}, 1, Op{Kind: Yield}},
		{"leave of another barrier", []step{
			{tid: 1, op: o(BarrierInit, bar, 2)},
			{tid: 1, op: o(BarrierWait, bar, 0)},
		}, 1, o(BarrierLeave, bar+8, 0)},
		{"select default flag 2", nil, 1, Op{Kind: Select, Arg: 2}},
		{"select default flag -1", nil, 1, Op{Kind: Select, Arg: -1}},
		{"select with too many cases", nil, 1, Op{Kind: Select, Cases: make([]Case, MaxCases+1)}},
		{"drain without lock", nil, 1, o(GoRWLockDrain, grw, 0)},
		{"waitgroup wake without wait", nil, 1, o(WGWake, wg, 0)},
		{"channel wake without park", nil, 1, chwake(ch1)},
		{"go cond wake without wait", nil, 1, o(GoCondWake, gcv, 0)},
		{"other op before drain", []step{{tid: 1, op: o(GoRWLock, grw, 0)}}, 1, Op{Kind: Yield}},
		{"drain of another rwmutex", []step{{tid: 1, op: o(GoRWLock, grw, 0)}}, 1, o(GoRWLockDrain, grw+8, 0)},
		{"other op while parked", []step{{tid: 1, op: send(ch1, 0), code: parkedCode}}, 1, Op{Kind: Yield}},
		{"wake of another channel", []step{{tid: 1, op: send(ch1, 0), code: parkedCode}}, 1, chwake(ch2)},
		{"select wake after a plain park", []step{{tid: 1, op: send(ch1, 0), code: parkedCode}}, 1,
			Op{Kind: ChanWake, Obj: ch1, Cases: []Case{rc(ch1, 0)}}},
		{"select wake with other cases", []step{{tid: 1, op: sel(false, sc(ch1, 0)), code: parkedCode}}, 1,
			selwake(rc(ch1, 0), rc(ch2, 0))},
		{"go cond wake of another cond", []step{{tid: 1, op: o(GoCondWait, gcv, 0)}}, 1, o(GoCondWake, gcv+8, 0)},
		{"go cond wait during a go cond wait", []step{{tid: 1, op: o(GoCondWait, gcv, 0)}}, 1, o(GoCondWait, gcv+8, 0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := NewWorld()
			run(t, w, c.setup)
			before, hadPending := w.Pending(c.tid)
			if err := w.SetPending(c.tid, c.op); err == nil {
				t.Fatalf("SetPending(%d, %s) succeeded", c.tid, c.op)
			}
			after, hasPending := w.Pending(c.tid)
			if !reflect.DeepEqual(before, after) || hadPending != hasPending {
				t.Errorf("failed SetPending changed the pending op from %s to %s", before, after)
			}
		})
	}
}

func TestSetPendingReplaces(t *testing.T) {
	w := NewWorld()
	run(t, w, []step{{tid: 1, op: o(SemWait, sm, 0), blocked: true}})
	if err := w.SetPending(1, Op{Kind: Yield}); err != nil {
		t.Fatal(err)
	}
	if op, _ := w.Pending(1); op.Kind != Yield {
		t.Errorf("pending op %s, want yield", op)
	}
	if !w.Enabled(1) {
		t.Error("yield not enabled")
	}
}

func TestExecuteErrors(t *testing.T) {
	w := NewWorld()
	if _, err := w.Execute(0, 0); err == nil || errors.Is(err, ErrNotEnabled) {
		t.Errorf("Execute(0): err %v, want an unknown-thread error", err)
	}
	if _, err := w.Execute(7, 0); err == nil || errors.Is(err, ErrNotEnabled) {
		t.Errorf("Execute(7): err %v, want an unknown-thread error", err)
	}
	if _, err := w.Execute(1, 0); !errors.Is(err, ErrNotEnabled) {
		t.Errorf("Execute without pending op: err %v, want ErrNotEnabled", err)
	}
	run(t, w, []step{{tid: 1, op: o(SemWait, sm, 0), blocked: true}})
	if _, err := w.Execute(1, 0); !errors.Is(err, ErrNotEnabled) {
		t.Errorf("Execute of blocked op: err %v, want ErrNotEnabled", err)
	}
}

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		n, choice int64
		ok        bool
	}{
		{1, 0, true}, {3, 0, true}, {3, 2, true}, {3, 3, false}, {3, -1, false}, {1, 1, false},
	} {
		w := NewWorld()
		op := o(Choose, 0, c.n)
		if err := w.SetPending(1, op); err != nil {
			t.Fatal(err)
		}
		if !w.Enabled(1) {
			t.Fatalf("choose(%d) not enabled", c.n)
		}
		res, err := w.Execute(1, int(c.choice))
		if !c.ok {
			var m *Misuse
			if err == nil || errors.As(err, &m) || errors.Is(err, ErrNotEnabled) {
				t.Errorf("choose(%d) value %d: err %v, want a plain error", c.n, c.choice, err)
			}
			if p, ok := w.Pending(1); !ok || !reflect.DeepEqual(p, op) {
				t.Errorf("failed choice cleared the pending op")
			}
			continue
		}
		if err != nil || res.Code != c.choice {
			t.Errorf("choose(%d) value %d: %+v, %v", c.n, c.choice, res, err)
		}
	}
}

func TestChoiceIgnoredByOtherKinds(t *testing.T) {
	w := NewWorld()
	for _, k := range []Kind{Yield, Sleep, Read, Write} {
		if err := w.SetPending(1, o(k, 0x1000, 4)); err != nil {
			t.Fatal(err)
		}
		if !w.Enabled(1) {
			t.Fatalf("%s not enabled", k)
		}
		if res, err := w.Execute(1, -5); err != nil || res != (Result{}) {
			t.Errorf("%s: %+v, %v", k, res, err)
		}
	}
}

func TestExit(t *testing.T) {
	w := NewWorld()
	run(t, w, cat(threads(3), []step{
		{tid: 2, op: o(SemWait, sm, 0), blocked: true},
		{tid: 3, op: Op{Kind: Yield}, hold: true},
		{tid: 1, op: o(Exit, 0, 3)},
	}))
	if st, ok := w.Exited(); !ok || st != 3 {
		t.Errorf("Exited() = %d, %v, want 3, true", st, ok)
	}
	if w.Enabled(3) {
		t.Error("thread 3 enabled after exit")
	}
	if b := w.Blocked(); b != nil {
		t.Errorf("Blocked() = %v after exit, want nil", b)
	}
	if _, err := w.Execute(3, 0); !errors.Is(err, ErrNotEnabled) {
		t.Errorf("Execute after exit: err %v, want ErrNotEnabled", err)
	}
	if err := w.SetPending(3, Op{Kind: Yield}); err == nil {
		t.Error("SetPending after exit succeeded")
	}
	if !w.Finished(1) {
		t.Error("the exiting thread is not finished")
	}
	if op, ok := w.Pending(1); !ok || op.Kind != Exit {
		t.Errorf("Pending(1) = %s, %v, want the exit", op, ok)
	}
	if l := w.Live(); !slices.Equal(l, []int{2, 3}) {
		t.Errorf("Live() = %v, want [2 3]", l)
	}
}

func TestMisuseLeavesWorldUnchanged(t *testing.T) {
	w := NewWorld()
	run(t, w, cat(threads(2), []step{
		{tid: 1, op: o(MutexLock, mA, 0)},
		{tid: 2, op: o(MutexUnlock, mA, 0), hold: true},
	}))
	before := w.Clone()
	_, err := w.Execute(2, 0)
	var m *Misuse
	if !errors.As(err, &m) {
		t.Fatalf("err %v, want a misuse", err)
	}
	want := "thread 2: mutex-unlock(0x601040): unlock of mutex 0x601040 held by thread 1"
	if m.Error() != want {
		t.Errorf("Error() = %q, want %q", m.Error(), want)
	}
	if !reflect.DeepEqual(w, before) {
		t.Error("a misuse changed the world")
	}
}

func TestMisuseErrorUsesAPI(t *testing.T) {
	m := &Misuse{Tid: 2, Op: Op{Kind: MutexUnlock, API: APIMutexUnlock, Obj: mA}, Msg: "unlock of unlocked mutex 0x601040"}
	want := "thread 2: pthread_mutex_unlock(0x601040): unlock of unlocked mutex 0x601040"
	if got := m.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestLiveBlockedOrder(t *testing.T) {
	w := NewWorld()
	run(t, w, cat(threads(5), []step{
		{tid: 5, op: o(SemWait, sm, 0), blocked: true},
		{tid: 2, op: o(SemWait, sm, 0), blocked: true},
		{tid: 4, op: Op{Kind: Yield}, hold: true},
		{tid: 3, op: Op{Kind: ThreadExit}},
	}))
	if l := w.Live(); !slices.Equal(l, []int{1, 2, 4, 5}) {
		t.Errorf("Live() = %v", l)
	}
	if b := w.Blocked(); !slices.Equal(b, []int{2, 5}) {
		t.Errorf("Blocked() = %v", b)
	}
}

func TestYieldSleepReadWrite(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "always enabled",
		steps: []step{
			{tid: 1, op: Op{Kind: Yield}},
			{tid: 1, op: o(Sleep, 0, 1000)},
			{tid: 1, op: o(Read, 0x1000, 8)},
			{tid: 1, op: o(Write, 0x1000, 8)},
		},
	}})
}

// richWorld builds a world in which every kind of object has state.
func richWorld(t *testing.T) *World {
	w := NewWorld()
	run(t, w, cat(threads(6), []step{
		{tid: 1, op: o(MutexLock, mA, MutexRecursive)},
		{tid: 1, op: o(MutexLock, mA, MutexRecursive)},
		{tid: 2, op: o(MutexLock, mB, 0)},
		{tid: 2, op: o2(CondWait, cv, mB, 0)},
		{tid: 3, op: o(SemInit, sm, 2)},
		{tid: 3, op: o(RWRdlock, rw, 0)},
		{tid: 4, op: o(BarrierInit, bar, 3)},
		{tid: 4, op: o(BarrierWait, bar, 0)},
		{tid: 5, op: o(OnceBegin, onc, 0), code: 1},
		{tid: 5, op: o(SpinLock, spn, 0)},
		{tid: 6, op: o(MutexLock, mA, 0), blocked: true},
	}))
	run(t, w, cat([]step{create(1, 7), create(1, 8), create(1, 9), create(1, 10), create(1, 11)}, []step{
		{tid: 7, op: o(GoMutexLock, gm, 0)},
		{tid: 7, op: o(GoRWRLock, grw, 0)},
		{tid: 8, op: o(GoRWLock, grw, 0)},
		{tid: 8, op: o(GoRWLockDrain, grw, 0), blocked: true},
		{tid: 9, op: o(WGAdd, wg, 2)},
		{tid: 9, op: o(WGWait, wg, 0), blocked: true},
		{tid: 10, op: send(ch1, 1), code: bufSent},
		{tid: 10, op: send(ch1, 1), code: parkedCode},
		{tid: 11, op: sel(false, rc(ch2, 0), sc(ch3, 0)), code: parkedCode},
		{tid: 7, op: o(GoCondWait, gcv, 0)},
	}))
	return w
}

func TestClone(t *testing.T) {
	mutate := func(t *testing.T, w *World) {
		run(t, w, []step{
			create(1, 12),
			{tid: 1, op: o(MutexUnlock, mA, 0)},
			{tid: 1, op: o(MutexUnlock, mA, 0)},
			{tid: 6},
			{tid: 3, op: o(CondSignal, cv, 0)},
			{tid: 3, op: o(SemWait, sm, 0)},
			{tid: 3, op: o(RWRdlock, rw, 0)},
			{tid: 1, op: o(RWRdlock, rw, 0)},
			{tid: 1, op: o(BarrierWait, bar, 0)},
			{tid: 3, op: o(BarrierWait, bar, 0), code: BarrierSerial},
			{tid: 5, op: o(OnceEnd, onc, 0)},
			{tid: 5, op: o(SpinUnlock, spn, 0)},
			{tid: 7, op: o(GoMutexUnlock, gm, 0)},
			{tid: 7, op: o(CondSignal, gcv, 0)},
			{tid: 7, op: o(GoCondWake, gcv, 0)},
			{tid: 7, op: o(GoRWRUnlock, grw, 0)},
			{tid: 8},
			{tid: 5, op: o(WGAdd, wg, -2)},
			{tid: 9, code: WaitReturned},
			{tid: 5, op: recv(ch1, 1), code: cr(ViaBuffer, 0, true, 10, 0)},
			{tid: 10, op: chwake(ch1), code: woken},
			{tid: 5, op: send(ch2, 0), code: cr(ViaPartner, 0, false, 11, 0)},
			{tid: 11, op: selwake(rc(ch2, 0), sc(ch3, 0)), code: woken},
			{tid: 5, op: o(ChanClose, ch3, 0)},
			{tid: 12, op: o(Exit, 0, 1)},
		})
	}
	t.Run("clone does not change original", func(t *testing.T) {
		w, want := richWorld(t), richWorld(t)
		c := w.Clone()
		if !reflect.DeepEqual(c, w) {
			t.Fatal("clone differs from original")
		}
		mutate(t, c)
		if !reflect.DeepEqual(w, want) {
			t.Error("mutating the clone changed the original")
		}
	})
	t.Run("original does not change clone", func(t *testing.T) {
		w, want := richWorld(t), richWorld(t)
		c := w.Clone()
		mutate(t, w)
		if !reflect.DeepEqual(c, want) {
			t.Error("mutating the original changed the clone")
		}
		// The clone still works on its own.
		mutate(t, c)
	})
}

// TestReset checks that a reset world is a new one: a world that created
// threads, held a mutex, waited on a semaphore and exited, once reset,
// runs the same operations as a new world does.
func TestReset(t *testing.T) {
	run := func(w *World) []Result {
		var out []Result
		step := func(tid int, op Op) {
			if err := w.SetPending(tid, op); err != nil {
				t.Fatalf("thread %d: %v", tid, err)
			}
			res, err := w.Execute(tid, 0)
			if err != nil {
				t.Fatalf("thread %d: %s: %v", tid, op, err)
			}
			out = append(out, res)
		}
		step(1, Op{Kind: ThreadCreate})
		step(1, Op{Kind: MutexLock, Obj: 0x10})
		step(2, Op{Kind: SemPost, Obj: 0x20})
		if err := w.SetPending(2, Op{Kind: MutexLock, Obj: 0x10}); err != nil || w.Enabled(2) {
			t.Fatalf("thread 2 can take the mutex thread 1 holds (%v)", err)
		}
		step(1, Op{Kind: SemWait, Obj: 0x20})
		step(1, Op{Kind: MutexUnlock, Obj: 0x10})
		step(2, Op{Kind: MutexLock, Obj: 0x10})
		step(1, Op{Kind: Exit})
		return out
	}
	fresh := run(NewWorld())
	w := NewWorld()
	w.SetSpuriousWakeups(true)
	run(w)
	w.Reset()
	if w.NumThreads() != 1 || w.Finished(1) || w.Enabled(1) || w.spurious {
		t.Fatalf("reset world: %d threads, thread 1 finished %v, enabled %v, spurious %v", w.NumThreads(), w.Finished(1), w.Enabled(1), w.spurious)
	}
	if _, ok := w.Exited(); ok {
		t.Fatal("a reset world has exited")
	}
	if got := run(w); !reflect.DeepEqual(got, fresh) {
		t.Errorf("after Reset: %+v, new world: %+v", got, fresh)
	}
	// Field by field, a reset world is a new one (its maps empty, which
	// print as nil ones do).
	w.Reset()
	if got, want := fmt.Sprintf("%+v", *w), fmt.Sprintf("%+v", *NewWorld()); got != want {
		t.Errorf("reset world %s\nnew world   %s", got, want)
	}
}

// TestInspect checks that Inspect and Status agree with Finished,
// Annotated, Enabled and Choices, thread by thread, along an execution.
func TestInspect(t *testing.T) {
	w := NewWorld()
	w.SetSpuriousWakeups(true)
	check := func() {
		t.Helper()
		for tid := 0; tid <= w.NumThreads()+1; tid++ {
			var op Op
			live, en, ch := w.Inspect(tid, &op)
			want, _ := w.Annotated(tid)
			wantLive := tid >= 1 && tid <= w.NumThreads() && !w.Finished(tid)
			if live != wantLive || live && (!reflect.DeepEqual(op, want) || en != w.Enabled(tid) || ch != w.Choices(tid)) {
				t.Errorf("thread %d: Inspect %v %v %d %+v; want %v %v %d %+v", tid, live, en, ch, op,
					wantLive, w.Enabled(tid), w.Choices(tid), want)
			}
			if l, e, c := w.Status(tid); l != live || e != en || c != ch {
				t.Errorf("thread %d: Status %v %v %d, Inspect %v %v %d", tid, l, e, c, live, en, ch)
			}
		}
	}
	steps := []struct {
		tid int
		op  Op
	}{
		{1, Op{Kind: ThreadCreate}},
		{1, Op{Kind: MutexLock, Obj: 1}},
		{2, Op{Kind: Choose, Arg: 3}},
		{1, Op{Kind: CondWait, Obj: 2, Obj2: 1}},
		{2, Op{Kind: MutexLock, Obj: 1}},
		{2, Op{Kind: CondSignal, Obj: 2}},
		{2, Op{Kind: MutexUnlock, Obj: 1}},
		{1, Op{Kind: CondReacquire, Obj: 2, Obj2: 1}},
		{2, Op{Kind: ThreadExit}},
		{1, Op{Kind: MutexUnlock, Obj: 1}},
		{1, Op{Kind: Exit}},
	}
	check()
	for _, s := range steps {
		if err := w.SetPending(s.tid, s.op); err != nil {
			t.Fatalf("thread %d: %v", s.tid, err)
		}
		check()
		if _, err := w.Execute(s.tid, 0); err != nil {
			t.Fatalf("thread %d: %s: %v", s.tid, s.op, err)
		}
		check()
	}
}

// TestStateAnnotated checks that a kind StateAnnotated leaves out gets the
// same annotation whatever the state: known, and nothing else.
func TestStateAnnotated(t *testing.T) {
	w := NewWorld()
	for k := KindInvalid + 1; k.Valid(); k++ {
		if StateAnnotated(k) {
			continue
		}
		op := Op{Kind: k, Obj: 8}
		w.annotate(1, &op, &op)
		if !reflect.DeepEqual(op.Eff, Effect{Known: true}) {
			t.Errorf("%s: annotated %+v in a new world", k, op.Eff)
		}
	}
}
