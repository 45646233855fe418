package executor

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// scripted is a small Runtime: thread 1 creates two workers, which take a
// mutex, post or wait on a semaphore, and finish; thread 1 joins them.
type scripted struct {
	scripts map[int][]syncmodel.Op
	pos     map[int]int
}

func (r *scripted) report(tid int) []wire.Event {
	sc := r.scripts[tid]
	if r.pos[tid] >= len(sc) {
		return nil
	}
	return []wire.Event{wire.Pending{Tid: tid, Op: sc[r.pos[tid]], Frames: []uint64{uint64(0x100 + tid)}}}
}

func (r *scripted) Begin() ([]wire.Event, error) {
	lock := syncmodel.Op{Kind: syncmodel.MutexLock, Obj: 1}
	unlock := syncmodel.Op{Kind: syncmodel.MutexUnlock, Obj: 1}
	worker := func(sem syncmodel.Kind) []syncmodel.Op {
		return []syncmodel.Op{{Kind: syncmodel.ThreadStart}, lock, unlock, {Kind: sem, Obj: 2}, {Kind: syncmodel.ThreadExit}}
	}
	r.scripts = map[int][]syncmodel.Op{
		1: {{Kind: syncmodel.ThreadCreate}, {Kind: syncmodel.ThreadCreate}, lock, unlock,
			{Kind: syncmodel.ThreadJoin, Arg: 2}, {Kind: syncmodel.ThreadJoin, Arg: 3}, {Kind: syncmodel.Exit}},
		2: worker(syncmodel.SemWait),
		3: worker(syncmodel.SemPost),
	}
	r.pos = map[int]int{}
	return r.report(1), nil
}

func (r *scripted) Resume(tid int, code int64) ([]wire.Event, error) {
	op := r.scripts[tid][r.pos[tid]]
	r.pos[tid]++
	var evs []wire.Event
	if op.Kind == syncmodel.ThreadCreate {
		evs = append(evs, r.report(int(code))...)
	}
	if op.Kind == syncmodel.ThreadExit {
		return evs, nil
	}
	return append(evs, r.report(tid)...), nil
}

func (r *scripted) End(bool) {}

// richer is a Runtime whose threads wait on more kinds of objects: a
// condition variable and its mutex, a semaphore, an rwlock, and the exit
// of a thread that two threads join (a misuse when both try). Its scripts
// are those of scripted's, from Begin.
type richer struct{ scripted }

func (r *richer) Begin() ([]wire.Event, error) {
	const m, c, s, rw = 1, 2, 3, 4
	r.scripts = map[int][]syncmodel.Op{
		1: {{Kind: syncmodel.ThreadCreate}, {Kind: syncmodel.ThreadCreate}, {Kind: syncmodel.ThreadCreate},
			{Kind: syncmodel.RWRdlock, Obj: rw}, {Kind: syncmodel.RWUnlock, Obj: rw},
			{Kind: syncmodel.ThreadJoin, Arg: 2}, {Kind: syncmodel.ThreadJoin, Arg: 3}, {Kind: syncmodel.ThreadJoin, Arg: 4},
			{Kind: syncmodel.Exit}},
		2: {{Kind: syncmodel.ThreadStart}, {Kind: syncmodel.MutexLock, Obj: m},
			{Kind: syncmodel.CondWait, Obj: c, Obj2: m}, {Kind: syncmodel.CondReacquire, Obj: c, Obj2: m},
			{Kind: syncmodel.MutexUnlock, Obj: m}, {Kind: syncmodel.SemPost, Obj: s}, {Kind: syncmodel.ThreadExit}},
		3: {{Kind: syncmodel.ThreadStart}, {Kind: syncmodel.MutexLock, Obj: m}, {Kind: syncmodel.CondSignal, Obj: c},
			{Kind: syncmodel.MutexUnlock, Obj: m}, {Kind: syncmodel.SemWait, Obj: s}, {Kind: syncmodel.ThreadExit}},
		4: {{Kind: syncmodel.ThreadStart}, {Kind: syncmodel.RWWrlock, Obj: rw}, {Kind: syncmodel.RWUnlock, Obj: rw},
			{Kind: syncmodel.ThreadJoin, Arg: 3}, {Kind: syncmodel.ThreadExit}},
	}
	r.pos = map[int]int{}
	return r.report(1), nil
}

// TestListThreadsIncremental checks the thread list kept up to date from
// one scheduling point to the next (listThreads) against the list made
// afresh, at every point of random schedules, over executions that reuse
// each other's room, kept both ways: by a pass over the threads, and by
// the index of what each thread's status depends on.
func TestListThreadsIncremental(t *testing.T) {
	for _, rt := range []struct {
		name string
		rt   Runtime
	}{{"mutex and semaphore", &scripted{}}, {"condition, rwlock and joins", &richer{}}} {
		for _, from := range []int{1 << 30, 1, 3} {
			t.Run(fmt.Sprintf("%s/index from %d threads", rt.name, from), func(t *testing.T) {
				testListThreadsIncremental(t, rt.rt, from)
			})
		}
	}
}

func testListThreadsIncremental(t *testing.T, rt Runtime, from int) {
	c := New(rt, Options{FastExit: true})
	c.incrementalFrom = from
	rng := rand.New(rand.NewPCG(36, 36))
	for range 200 {
		se, err := c.StartPrefix(nil)
		if err != nil {
			t.Fatal(err)
		}
		e := se.(*Execution)
		for e.Ended() == nil {
			got := append([]search.Thread(nil), e.Threads()...)
			e.threads = e.threads[:0]
			e.fillThreads(1, e.w.NumThreads())
			if want := e.Threads(); !reflect.DeepEqual(got, want) {
				t.Fatalf("after %v: list %+v, afresh %+v", e.Schedule(), got, want)
			}
			var en []int
			for _, th := range got {
				if th.Enabled {
					en = append(en, th.ID)
				}
			}
			if err := e.Step(schedule.Step{Thread: en[rng.IntN(len(en))], Choice: schedule.NoChoice}); err != nil {
				t.Fatal(err)
			}
		}
		e.Close()
	}
}

// TestCheckThreads: with Options.CheckThreads the executions of random
// schedules go through (the list kept equals the model's at every point),
// and a listed thread that no longer says what the model says fails the
// check.
func TestCheckThreads(t *testing.T) {
	c := New(&scripted{}, Options{FastExit: true, CheckThreads: true})
	rng := rand.New(rand.NewPCG(7, 7))
	for range 50 {
		e, err := c.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for e.Ended() == nil {
			if err := e.checkThreads(); err != nil {
				t.Fatal(err)
			}
			var en []int
			for _, th := range e.Threads() {
				if th.Enabled {
					en = append(en, th.ID)
				}
			}
			if err := e.Step(schedule.Step{Thread: en[rng.IntN(len(en))], Choice: schedule.NoChoice}); err != nil {
				t.Fatal(err)
			}
		}
		e.Close()
	}
	for _, spoil := range []func(*search.Thread){
		func(th *search.Thread) { th.Enabled = !th.Enabled },
		func(th *search.Thread) { th.Op.Obj++ },
		func(th *search.Thread) { th.Alternatives++ },
	} {
		e, err := c.Begin()
		if err != nil {
			t.Fatal(err)
		}
		spoil(&e.threads[0])
		if err := e.checkThreads(); !errors.Is(err, ErrThreadList) {
			t.Errorf("a spoilt list passed the check: %v", err)
		}
		e.Close()
	}
}

// TestSameOpFields keeps sameOp whole: it compares every field of an
// operation and of its effect, and a field added to either must be added
// there (then the counts here).
func TestSameOpFields(t *testing.T) {
	if n := reflect.TypeFor[syncmodel.Op]().NumField(); n != 7 {
		t.Errorf("syncmodel.Op has %d fields, sameOp compares 7", n)
	}
	if n := reflect.TypeFor[syncmodel.Effect]().NumField(); n != 10 {
		t.Errorf("syncmodel.Effect has %d fields, sameOp compares 10", n)
	}
	a := syncmodel.Op{Kind: syncmodel.Select, Obj: 1, Cases: []syncmodel.Case{{Chan: 2}},
		Eff: syncmodel.Effect{Known: true, Links: []uint64{3}, Await: []syncmodel.Span{{Addr: 4, Size: 8}}}}
	b := a
	b.Cases = []syncmodel.Case{{Chan: 2}}
	if !sameOp(&a, &b) {
		t.Error("equal operations differ")
	}
	for _, spoil := range []func(*syncmodel.Op){
		func(o *syncmodel.Op) { o.Cases = []syncmodel.Case{{Chan: 5}} },
		func(o *syncmodel.Op) { o.Eff.Links = nil },
		func(o *syncmodel.Op) { o.Eff.Await = []syncmodel.Span{{Addr: 4, Size: 4}} },
		func(o *syncmodel.Op) { o.Eff.Writer = true },
		func(o *syncmodel.Op) { o.Arg = 1 },
	} {
		c := a
		spoil(&c)
		if sameOp(&a, &c) {
			t.Errorf("%+v and %+v compared the same", a, c)
		}
	}
}
