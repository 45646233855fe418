package executor_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	ct "github.com/stdbg/stdbg/engine/executor/executortest"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

const flag = 0x601100

// The states a scripted spinning thread claims at its points.
const (
	stLoad  = 0xa1
	stYield = 0xa2
)

func load(pc uint64, sp wire.Spin) ct.Step {
	return ct.Step{Op: syncmodel.Op{Kind: syncmodel.Read, API: syncmodel.APICAtomicLoad, Obj: flag, Arg: 4}, PC: pc, Spin: sp}
}

func store(pc uint64, sp wire.Spin) ct.Step {
	return ct.Step{Op: syncmodel.Op{Kind: syncmodel.Write, API: syncmodel.APICAtomicStore, Obj: flag, Arg: 4}, PC: pc, Spin: sp}
}

func yield(pc uint64, sp wire.Spin) ct.Step {
	return ct.Step{Op: syncmodel.Op{Kind: syncmodel.Yield, API: syncmodel.APISchedYield}, PC: pc, Spin: sp}
}

var at = func(state uint64) wire.Spin { return wire.Spin{State: state, Clean: true} }

// spinner is a program whose thread 2 polls flag, and whose main thread
// yields, stores to flag, yields and joins thread 2.
func spinner(child ...ct.Step) *ct.Runtime {
	return &ct.Runtime{
		Main:     []ct.Step{create, yield(0x101, wire.Spin{}), store(0x102, wire.Spin{}), yield(0x103, wire.Spin{}), joinTwo, exit0},
		Children: [][]ct.Step{child},
	}
}

// enabled returns whether thread tid is enabled at e's point, and its
// operation as the search sees it.
func enabled(t *testing.T, e *executor.Execution, tid int) (bool, syncmodel.Op) {
	t.Helper()
	for _, th := range e.Threads() {
		if th.ID == tid {
			return th.Enabled, th.Op
		}
	}
	t.Fatalf("no thread %d at the point", tid)
	return false, syncmodel.Op{}
}

func TestSpinAwaits(t *testing.T) {
	polls := []ct.Step{load(0x200, at(stLoad)), load(0x200, at(stLoad)), load(0x200, at(stLoad)), tExit}
	tests := []struct {
		name  string
		rt    *ct.Runtime
		sched string
		waits bool // thread 2 waits for a write at the end of sched
	}{
		{"back where it was, nothing written", spinner(polls...), "1;2", true},
		{"its first point", spinner(polls...), "1", false},
		{"the store it waits for", spinner(polls...), "1;2;1;1", false},
		{"another store first", spinner(polls...), "1;1;1;2", true},
		{"a transition not clean", spinner(load(0x200, at(stLoad)), load(0x200, wire.Spin{State: stLoad}), tExit), "1;2", false},
		{"another state", spinner(load(0x200, at(stLoad)), load(0x200, at(stLoad+1)), tExit), "1;2", false},
		{"a plain write of its own", spinner(
			ct.Step{Op: syncmodel.Op{Kind: syncmodel.Read, Obj: flag, Arg: 4}, PC: 0x200, Spin: at(stLoad),
				Logged: []wire.Access{{Addr: 0x601200, Size: 4, Write: true}}},
			load(0x200, at(stLoad)), tExit), "1;2", false},
		{"a plain read joins what it waits for", spinner(
			ct.Step{Op: syncmodel.Op{Kind: syncmodel.Yield}, PC: 0x200, Spin: at(stLoad),
				Logged: []wire.Access{{Addr: flag, Size: 4}}},
			ct.Step{Op: syncmodel.Op{Kind: syncmodel.Yield}, PC: 0x200, Spin: at(stLoad)}, tExit), "1;2", true},
		{"a store that changed memory", spinner(store(0x200, at(stLoad)), store(0x200, at(stLoad)), tExit), "1;2", false},
		{"a compare-and-swap that failed", spinner(store(0x200, at(stLoad)),
			store(0x200, wire.Spin{State: stLoad, Clean: true, Unchanged: true}), tExit), "1;2", true},
		// Two points an iteration: written between the load and the
		// yield, the flag may hold another value when the loop loads
		// it again.
		{"written within the iteration", spinner(load(0x200, at(stLoad)), yield(0x201, at(stYield)),
			load(0x200, at(stLoad)), tExit), "1;2;1;1;2", false},
		{"two points, nothing written", spinner(load(0x200, at(stLoad)), yield(0x201, at(stYield)),
			load(0x200, at(stLoad)), tExit), "1;2;2", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := run(t, tt.rt, executor.Options{}, tt.sched)
			if e.Ended() != nil {
				t.Fatalf("ended: %+v", e.Ended())
			}
			en, op := enabled(t, e, 2)
			if en == tt.waits {
				t.Errorf("thread 2 enabled %v, want waiting %v", en, tt.waits)
			}
			if _, ok := e.World().Awaits(2); ok != tt.waits {
				t.Errorf("World.Awaits(2) = %v, want %v", ok, tt.waits)
			}
			if (op.Eff.Await != nil) != tt.waits {
				t.Errorf("annotation %v, want one iff waiting", op.Eff.Await)
			}
		})
	}
}

func TestSpinWokenByTheWrite(t *testing.T) {
	e := run(t, spinner(load(0x200, at(stLoad)), load(0x200, at(stLoad)), load(0x200, at(stLoad)), tExit),
		executor.Options{}, "1;2;1")
	if en, _ := enabled(t, e, 2); en {
		t.Fatal("thread 2 does not wait")
	}
	// Main's store: the thread that polled the flag goes on.
	if err := e.Step(schedule.Step{Thread: 1, Choice: schedule.NoChoice}); err != nil {
		t.Fatal(err)
	}
	if en, op := enabled(t, e, 2); !en || op.Eff.Await != nil {
		t.Fatalf("after the store: enabled %v, annotation %v", en, op.Eff.Await)
	}
}

func TestSpinForEverIsALivelock(t *testing.T) {
	rt := &ct.Runtime{
		Main:     []ct.Step{create, joinTwo, exit0},
		Children: [][]ct.Step{{load(0x200, at(stLoad)), load(0x200, at(stLoad)), tExit}},
	}
	e := run(t, rt, executor.Options{Locate: locate, Variable: func(a uint64) string {
		if a == flag {
			return "ready"
		}
		return ""
	}}, "1;2")
	o := e.Ended()
	if o == nil || o.Kind != search.Livelock {
		t.Fatalf("outcome %+v, want a livelock", o)
	}
	for _, want := range []string{"thread 2 spins at", "waiting for a write to ready", "thread 1 is blocked"} {
		if !strings.Contains(o.Message, want) {
			t.Errorf("message %q lacks %q", o.Message, want)
		}
	}
	bs := e.BlockedThreads()
	if len(bs) != 2 || bs[0].Thread != 2 || bs[0].Wait.What != "spin" || bs[1].Thread != 1 {
		t.Errorf("blocked threads %+v, want thread 2 spinning, then thread 1", bs)
	}
}

func TestSpinnerAtExitIsNoLeak(t *testing.T) {
	rt := &ct.Runtime{
		Main:     []ct.Step{create, yield(0x101, wire.Spin{}), exit0},
		Children: [][]ct.Step{{load(0x200, at(stLoad)), load(0x200, at(stLoad)), tExit}},
	}
	e := run(t, rt, executor.Options{}, "1;2;1;1")
	if o := e.Ended(); o == nil || o.Kind != search.Exited {
		t.Fatalf("outcome %+v: a thread that spins when the program exits is not blocked", o)
	}
}

func TestSpinnerRunAllTheSame(t *testing.T) {
	// A schedule found without the rule (an older corpus entry) runs the
	// thread that waits: it goes on as it would have.
	rt := spinner(load(0x200, at(stLoad)), load(0x200, at(stLoad)), load(0x200, at(stLoad)), tExit)
	e, err := executor.New(rt, executor.Options{}).Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sched, err := schedule.Parse("1;2;2")
	if err != nil {
		t.Fatal(err)
	}
	rr, err := search.Replay(e, sched, 100)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Outcome != nil && rr.Outcome.Kind == search.Diverged {
		t.Fatalf("the replay diverged: %s", rr.Outcome.Message)
	}
	if got := e.Schedule().String(); !strings.HasPrefix(got, "1;2;2") {
		t.Errorf("ran %s, want 1;2;2 first", got)
	}
}

func TestSpinPokedThreadGoesOn(t *testing.T) {
	rt := &ct.Runtime{
		Main:     []ct.Step{create, yield(0x101, wire.Spin{}), yield(0x102, wire.Spin{Poked: []int{2}}), joinTwo, exit0},
		Children: [][]ct.Step{{load(0x200, at(stLoad)), load(0x200, at(stLoad)), tExit}},
	}
	e := run(t, rt, executor.Options{}, "1;2")
	if en, _ := enabled(t, e, 2); en {
		t.Fatal("thread 2 does not wait")
	}
	// Main's transition touched thread 2's stack.
	if err := e.Step(schedule.Step{Thread: 1, Choice: schedule.NoChoice}); err != nil {
		t.Fatal(err)
	}
	if en, _ := enabled(t, e, 2); !en {
		t.Error("a thread whose stack another touched still waits")
	}
}
