// Package executortest provides a scripted executor.Runtime for tests: each
// thread runs a fixed list of operations, so tests can build executions
// without a real target.
package executortest

import (
	"fmt"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// Step is one item of a thread's script: an operation to report, or (with
// Fail set) a failure the thread reports instead of reaching its next
// operation, or (with Die set) the process dying silently.
type Step struct {
	Op   syncmodel.Op
	PC   uint64 // reported as the call's return address
	Fail *wire.Failure
	Die  *wire.Died
	Hang bool // the thread never reaches its next operation
	// Logged are plain accesses the thread makes after this step's
	// operation, reported (wire.Accesses) before its next operation.
	Logged []wire.Access
	// Spin is reported with this step's operation (wire.Pending.Spin):
	// what the runtime saw of the thread since its previous one.
	Spin wire.Spin
}

// Runtime runs scripts. Scripts[0] is thread 1's; a ThreadCreate op's Arg
// is ignored by the model for this purpose, so the child's script is
// Children[i] for the i-th create executed (in execution order).
type Runtime struct {
	Main     []Step
	Children [][]Step
	// Ended records the clean flag of each End call.
	Ended []bool

	scripts  map[int][]Step
	pos      map[int]int
	creates  int
	finished map[int]bool
}

func (r *Runtime) report(tid int) []wire.Event {
	sc := r.scripts[tid]
	i := r.pos[tid]
	if i >= len(sc) {
		r.finished[tid] = true
		return nil
	}
	st := sc[i]
	switch {
	case st.Fail != nil:
		f := *st.Fail
		f.Tid = tid
		return []wire.Event{f}
	case st.Die != nil:
		return []wire.Event{*st.Die}
	case st.Hang:
		return []wire.Event{wire.TimedOut{Tid: tid, After: "1s", Frames: []uint64{st.PC}}}
	}
	return []wire.Event{wire.Pending{Tid: tid, Op: st.Op, Frames: []uint64{st.PC}, Spin: st.Spin}}
}

// Begin implements executor.Runtime.
func (r *Runtime) Begin() ([]wire.Event, error) {
	r.scripts = map[int][]Step{1: r.Main}
	r.pos = map[int]int{1: 0}
	r.finished = map[int]bool{}
	r.creates = 0
	return r.report(1), nil
}

// Resume implements executor.Runtime.
func (r *Runtime) Resume(tid int, code int64) ([]wire.Event, error) {
	sc, ok := r.scripts[tid]
	if !ok || r.pos[tid] >= len(sc) {
		return nil, fmt.Errorf("fake: thread %d has nothing to run", tid)
	}
	op, logged := sc[r.pos[tid]].Op, sc[r.pos[tid]].Logged
	r.pos[tid]++
	var evs []wire.Event
	if len(logged) > 0 {
		evs = append(evs, wire.Accesses{Tid: tid, List: logged})
	}
	if op.Kind == syncmodel.ThreadCreate {
		if r.creates >= len(r.Children) {
			return nil, fmt.Errorf("fake: no script for create #%d", r.creates+1)
		}
		child := int(code)
		r.scripts[child] = r.Children[r.creates]
		r.pos[child] = 0
		r.creates++
		evs = append(evs, r.report(child)...)
	}
	if op.Kind == syncmodel.ThreadExit {
		return evs, nil
	}
	if op.Kind == syncmodel.Exit {
		return append(evs, wire.Died{Description: "exited with status 0"}), nil
	}
	return append(evs, r.report(tid)...), nil
}

// End implements executor.Runtime.
func (r *Runtime) End(clean bool) { r.Ended = append(r.Ended, clean) }

// Op is a shorthand for a scripted operation.
func Op(kind syncmodel.Kind, api syncmodel.API, obj uint64, pc uint64) Step {
	return Step{Op: syncmodel.Op{Kind: kind, API: api, Obj: obj}, PC: pc}
}

// Run starts an execution of rt and follows the schedule sched until it
// ends or the schedule is used up.
func Run(t testing.TB, rt executor.Runtime, opts executor.Options, sched string) *executor.Execution {
	t.Helper()
	e, err := executor.New(rt, opts).Begin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := schedule.Parse(sched)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range s {
		if e.Ended() != nil {
			break
		}
		if err := e.Step(st); err != nil {
			t.Fatal(err)
		}
	}
	return e
}
