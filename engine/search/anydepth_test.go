package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// loopExecutor runs threads whose scripts may loop for ever, over
// variables kept small (each write adds one modulo 3): a program with
// finitely many states, met again at other depths along other paths, for
// stateful searches. Its states are hashed from everything its future
// depends on; proposition "p" is variable 0 being 2.
type loopExecutor struct {
	scripts [][]fop
	loops   []bool // script i starts again from its first op when done
}

type loopExecution struct {
	x     *loopExecutor
	pcs   []int // -1: finished
	owner [16]int
	vars  fakeVars
	ended *Outcome
	out   Outcome
	steps int
	view  []Thread
}

func (x *loopExecutor) Start() (Execution, error) {
	e := &loopExecution{x: x, pcs: make([]int, len(x.scripts))}
	e.settle()
	return e, nil
}

func (e *loopExecution) Threads() []Thread { return e.view }
func (e *loopExecution) Ended() *Outcome   { return e.ended }
func (e *loopExecution) Close() error      { return nil }

func (e *loopExecution) State() (State, bool) {
	h := uint64(14695981039346656037)
	mix := func(v int64) { h = (h ^ uint64(v)) * 1099511628211 }
	for _, pc := range e.pcs {
		mix(int64(pc))
	}
	for _, o := range e.owner {
		mix(int64(o))
	}
	for _, v := range e.vars {
		mix(v)
	}
	return State{Hash: h, Props: []Prop{{Name: "p", Value: e.vars[0] == 2}}}, true
}

func (e *loopExecution) enabled(i int) bool {
	o := &e.x.scripts[i][e.pcs[i]]
	return o.kind != syncmodel.MutexLock || e.owner[o.obj] == 0
}

func (e *loopExecution) Step(s schedule.Step) error {
	i := s.Thread - 1
	if e.ended != nil || i < 0 || i >= len(e.pcs) || e.pcs[i] < 0 || !e.enabled(i) {
		return fmt.Errorf("thread %d cannot run", s.Thread)
	}
	e.steps++
	o := &e.x.scripts[i][e.pcs[i]]
	switch o.kind {
	case syncmodel.MutexLock:
		e.owner[o.obj] = s.Thread
	case syncmodel.MutexUnlock:
		e.owner[o.obj] = 0
	case syncmodel.Write:
		e.vars[o.obj] = (e.vars[o.obj] + 1) % 3
	case syncmodel.Read:
		if e.vars[o.obj] == 2 {
			where := fmt.Sprintf("v%d", o.obj)
			e.out = Outcome{Kind: AssertionFailure, Message: "assertion `" + where + " < 2' failed", Where: where, Step: e.steps}
			e.ended = &e.out
		}
	}
	e.pcs[i]++
	if e.pcs[i] == len(e.x.scripts[i]) {
		e.pcs[i] = -1
		if e.x.loops[i] {
			e.pcs[i] = 0
		}
	}
	e.settle()
	return nil
}

func (e *loopExecution) settle() {
	e.view = e.view[:0]
	if e.ended != nil {
		return
	}
	live, some := false, false
	for i, pc := range e.pcs {
		if pc < 0 {
			continue
		}
		live = true
		en := e.enabled(i)
		some = some || en
		o := &e.x.scripts[i][pc]
		e.view = append(e.view, Thread{ID: i + 1, Op: syncmodel.Op{Kind: o.kind, Obj: o.obj}, Enabled: en})
	}
	switch {
	case !live:
		e.out = Outcome{Kind: Exited, Message: "exit 0", Step: e.steps}
		e.ended = &e.out
	case !some:
		e.out = Outcome{Kind: Deadlock, Message: "deadlock", Where: "all blocked", Step: e.steps}
		e.ended = &e.out
	}
}

// randomLoops is a program of two or three threads, some looping for
// ever, made of critical sections (one of two mutexes around writes),
// plain writes and reads that fail when their variable is 2 (when
// checks is set).
func randomLoops(seed uint64, checks bool) *loopExecutor {
	r := rand.New(rand.NewPCG(seed, 48))
	x := &loopExecutor{}
	for range 2 + r.IntN(2) {
		var sc []fop
		for range 1 + r.IntN(3) {
			v := uint64(r.IntN(2))
			switch r.IntN(4) {
			case 0:
				m := uint64(1 + r.IntN(2))
				sc = append(sc, lock(m), fop{kind: syncmodel.Write, obj: v}, unlock(m))
			case 1:
				sc = append(sc, fop{kind: syncmodel.Write, obj: v})
			case 2:
				if checks {
					sc = append(sc, fop{kind: syncmodel.Read, obj: v})
					break
				}
				fallthrough
			default:
				sc = append(sc, yield())
			}
		}
		x.scripts = append(x.scripts, sc)
		x.loops = append(x.loops, r.IntN(3) > 0)
	}
	return x
}

// TestStatefulAnyDepth checks that a stateful search pruning at any depth
// (what Explore does first) finds what the one pruning only at a lesser
// or equal depth finds, in fewer executions or as many: the same bugs
// with the same schedules, the same completeness and the same state
// graph, node by node (hash, least depth, enabled threads, propositions,
// end) and edge by edge, when the depth bound cuts nothing; and, when it
// cuts, exactly the depth-aware search's result, which Explore then
// begins again to give.
func TestStatefulAnyDepth(t *testing.T) {
	fewer := 0
	seeds := uint64(60)
	if testing.Short() {
		seeds = 20
	}
	for seed := range seeds {
		x := randomLoops(seed, seed%3 != 0)
		for _, opts := range []Options{
			{Graph: true, All: true, MaxDepth: 1000},
			{Graph: true, MaxDepth: 1000},
			{Visited: true, All: true},
			{Graph: true, All: true, MaxDepth: 5},
		} {
			name := fmt.Sprintf("seed %d, MaxDepth %d, All %v", seed, opts.MaxDepth, opts.All)
			var told []string
			o := opts
			o.OnBug = func(b Bug) { told = append(told, b.Outcome.Key()) }
			got, err := Explore(context.Background(), x, NewDFS(), o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want, err := explore(context.Background(), x, NewDFS(), opts, false)
			if err != nil {
				t.Fatalf("%s: depth-aware: %v", name, err)
			}
			if len(told) != len(got.Bugs) {
				t.Errorf("%s: OnBug told of %v, the result has %d bugs", name, told, len(got.Bugs))
			}
			if want.DepthLimited {
				got.Stats.Elapsed, want.Stats.Elapsed = 0, 0
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: cut by the bound, the result is not the depth-aware search's:\n got %+v\nwant %+v", name, got, want)
				}
				continue
			}
			if got.DepthLimited || got.Complete != want.Complete {
				t.Errorf("%s: depth limited %v complete %v, depth-aware %v %v", name, got.DepthLimited, got.Complete, want.DepthLimited, want.Complete)
			}
			if !reflect.DeepEqual(bugStrings(got.Bugs), bugStrings(want.Bugs)) {
				t.Errorf("%s: bugs %v, depth-aware %v", name, bugStrings(got.Bugs), bugStrings(want.Bugs))
			}
			if got.Stats.Visited != want.Stats.Visited || got.Stats.Executions > want.Stats.Executions {
				t.Errorf("%s: %d states in %d executions, depth-aware %d in %d", name,
					got.Stats.Visited, got.Stats.Executions, want.Stats.Visited, want.Stats.Executions)
			}
			if got.Stats.Executions < want.Stats.Executions {
				fewer++
			}
			if testing.Verbose() {
				t.Logf("%s: %d executions, depth-aware %d", name, got.Stats.Executions, want.Stats.Executions)
			}
			if opts.Graph && got.Complete {
				got.Graph.index, want.Graph.index = nil, nil
				if d := graphDiff(got.Graph, want.Graph); d != "" {
					t.Errorf("%s: the state graphs differ: %s", name, d)
				}
			}
		}
	}
	if fewer == 0 {
		t.Error("no program was explored in fewer executions pruning at any depth")
	}
}

func bugStrings(bugs []Bug) []string {
	var out []string
	for _, b := range bugs {
		out = append(out, b.Schedule.String()+" "+b.Outcome.Key())
	}
	return out
}

// graphDiff says where two state graphs first differ ("" if nowhere).
func graphDiff(a, b *Graph) string {
	if !reflect.DeepEqual(a.Names, b.Names) {
		return fmt.Sprintf("propositions %v, %v", a.Names, b.Names)
	}
	if len(a.Nodes) != len(b.Nodes) {
		return fmt.Sprintf("%d nodes, %d", len(a.Nodes), len(b.Nodes))
	}
	for i := range a.Nodes {
		if !reflect.DeepEqual(a.Nodes[i], b.Nodes[i]) {
			return fmt.Sprintf("node %d:\n%+v\n%+v", i, a.Nodes[i], b.Nodes[i])
		}
	}
	return ""
}
