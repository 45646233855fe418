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

const (
	mA = 0x1000
	mB = 0x2000
)

func lock(m, pc uint64) ct.Step {
	return ct.Op(syncmodel.MutexLock, syncmodel.APIMutexLock, m, pc)
}
func unlock(m, pc uint64) ct.Step {
	return ct.Op(syncmodel.MutexUnlock, syncmodel.APIMutexUnlock, m, pc)
}

var (
	create  = ct.Op(syncmodel.ThreadCreate, syncmodel.APIPthreadCreate, 0, 0x10)
	tExit   = ct.Op(syncmodel.ThreadExit, syncmodel.APIThreadReturn, 0, 0x20)
	exit0   = ct.Op(syncmodel.Exit, syncmodel.APIMainReturn, 0, 0x30)
	joinTwo = ct.Step{Op: syncmodel.Op{Kind: syncmodel.ThreadJoin, API: syncmodel.APIPthreadJoin, Arg: 2}, PC: 0x40}
)

func embrace() *ct.Runtime {
	return &ct.Runtime{
		Main:     []ct.Step{create, lock(mA, 0x100), lock(mB, 0x101), unlock(mB, 0x102), unlock(mA, 0x103), joinTwo, exit0},
		Children: [][]ct.Step{{lock(mB, 0x200), lock(mA, 0x201), unlock(mA, 0x202), unlock(mB, 0x203), tExit}},
	}
}

func locate(pc uint64) string { return "line-" + string(rune('a'+pc%26)) }

func run(t *testing.T, rt executor.Runtime, opts executor.Options, sched string) *executor.Execution {
	t.Helper()
	return ct.Run(t, rt, opts, sched)
}

func TestOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		rt      func() *ct.Runtime
		sched   string
		kind    search.Kind
		message string
		blocked int
	}{
		{"deadlock", embrace, "1;1;2", search.Deadlock, "threads 1, 2 are blocked", 2},
		{"one thread deadlocked", func() *ct.Runtime {
			// It said "threads 1 are blocked".
			return &ct.Runtime{Main: []ct.Step{ct.Op(syncmodel.SemWait, syncmodel.APISemWait, 0x9000, 0x100), exit0}}
		}, "", search.Deadlock, "no thread can go on: thread 1 is blocked", 1},
		{"clean run", embrace, "1;1;1;1;1;2;2;2;2;2;1;1", search.Exited, "exit status 0", 0},
		{"leak at exit", func() *ct.Runtime {
			return &ct.Runtime{
				Main:     []ct.Step{lock(mA, 0x100), create, exit0},
				Children: [][]ct.Step{{lock(mA, 0x200), tExit}},
			}
		}, "1;1;1", search.Leak, "while thread 2 was blocked forever", 1},
		{"misuse", func() *ct.Runtime {
			return &ct.Runtime{Main: []ct.Step{unlock(mA, 0x100), exit0}}
		}, "1", search.Misuse, "unlock of unlocked mutex", 0},
		{"assertion", func() *ct.Runtime {
			return &ct.Runtime{Main: []ct.Step{
				ct.Op(syncmodel.Yield, syncmodel.APISchedYield, 0, 0x100),
				{Fail: &wire.Failure{Kind: wire.FailAssert, Message: "x > 0", File: "/src/p.c", Line: 7}},
			}}
		}, "1", search.AssertionFailure, "assertion failed: x > 0", 0},
		{"crash", func() *ct.Runtime {
			return &ct.Runtime{Main: []ct.Step{
				ct.Op(syncmodel.Yield, syncmodel.APISchedYield, 0, 0x100),
				{Fail: &wire.Failure{Kind: wire.FailSignal, Message: "Segmentation fault", Signal: 11, Frames: []uint64{0x123}}},
			}}
		}, "1", search.Crash, "accessing address 0x0 (a null pointer)", 0},
		{"silent death", func() *ct.Runtime {
			return &ct.Runtime{Main: []ct.Step{
				ct.Op(syncmodel.Yield, syncmodel.APISchedYield, 0, 0x100),
				{Die: &wire.Died{Description: "exited with status 3"}},
			}}
		}, "1", search.Crash, "exited with status 3 without reporting why", 0},
		{"timeout", func() *ct.Runtime {
			return &ct.Runtime{Main: []ct.Step{ct.Op(syncmodel.Yield, syncmodel.APISchedYield, 0, 0x100), {Hang: true, PC: 0x150}}}
		}, "1", search.Timeout, "thread 1 did not reach its next scheduling point within 1s", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := tt.rt()
			e := run(t, rt, executor.Options{Locate: locate}, tt.sched)
			o := e.Ended()
			if o == nil || o.Kind != tt.kind || !strings.Contains(o.Message, tt.message) {
				t.Fatalf("outcome %+v, want %v containing %q", o, tt.kind, tt.message)
			}
			if len(e.BlockedThreads()) != tt.blocked {
				t.Errorf("blocked %+v, want %d threads", e.BlockedThreads(), tt.blocked)
			}
			if o.Kind.IsBug() && o.Where == "" {
				t.Errorf("bug without a place: %+v", o)
			}
			if len(rt.Ended) != 1 {
				t.Errorf("runtime ended %d times, want once", len(rt.Ended))
			}
			e.Close()
			if len(rt.Ended) != 1 {
				t.Errorf("Close ended the runtime again")
			}
		})
	}
}

func TestDeadlockPlaceIsStable(t *testing.T) {
	a := run(t, embrace(), executor.Options{Locate: locate}, "1;1;2").Ended()
	b := run(t, embrace(), executor.Options{Locate: locate}, "1;2;1").Ended()
	if a.Where != b.Where {
		t.Errorf("the same deadlock has two places: %q and %q", a.Where, b.Where)
	}
	c := run(t, embrace(), executor.Options{}, "1;1;2").Ended()
	if !strings.Contains(c.Where, "0x") {
		t.Errorf("without a locator the place should be an address: %q", c.Where)
	}
}

func TestTraceAndPreemptions(t *testing.T) {
	e := run(t, embrace(), executor.Options{}, "1;1;2")
	tr := e.Trace()
	if len(tr) != 3 || tr[0].Result.NewThread != 2 || tr[2].Thread != 2 {
		t.Fatalf("trace %+v", tr)
	}
	if tr[1].Preempts || !tr[2].Preempts {
		t.Errorf("preemption flags %v %v, want false true", tr[1].Preempts, tr[2].Preempts)
	}
	if got := e.Schedule().String(); got != "1;1;2" {
		t.Errorf("schedule %q", got)
	}
	if err := e.Step(schedule.Step{Thread: 1, Choice: schedule.NoChoice}); err != executor.ErrEnded {
		t.Errorf("step after the end: %v", err)
	}
}

func TestFastExitSkipsTheExit(t *testing.T) {
	rt := &ct.Runtime{Main: []ct.Step{exit0}}
	e := run(t, rt, executor.Options{FastExit: true}, "1")
	if o := e.Ended(); o == nil || o.Kind != search.Exited {
		t.Fatalf("outcome %+v", o)
	}
	if len(rt.Ended) != 1 || rt.Ended[0] {
		t.Errorf("fast exit should end the runtime uncleanly (killed), got %v", rt.Ended)
	}
}

// The checker drives the search end to end on the fake.
func TestExploreFindsTheEmbrace(t *testing.T) {
	c := executor.New(embrace(), executor.Options{Locate: locate})
	res, err := search.Explore(t.Context(), c, search.NewDFS(), search.Options{MaxDepth: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Outcome.Kind != search.Deadlock {
		t.Fatalf("bugs %+v", res.Bugs)
	}
}
