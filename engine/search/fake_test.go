package search

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// The fake executor interprets scripted threads. A program is a list of
// scripts; the first `initial` scripts (at least one) are the threads that
// exist at the start, with ids 1, 2, ...; the others are started by create
// ops and get the next free id. A thread runs the ops of its script one per
// transition and finishes with its last op. The shared state is a few
// abstract mutexes (1..15) and integer variables (0..7).
//
// The execution ends with Exited when no thread is left, with
// AssertionFailure when a check op fails (Where is the check's label), and
// with Deadlock when threads are left but none is enabled.

type fakeVars = [8]int64

// fop is one scripted operation.
type fop struct {
	kind  syncmodel.Kind
	obj   uint64 // mutex or variable
	arg   int64  // create: script index; choose: number of values; set: value
	do    func(v *fakeVars)
	check func(v *fakeVars) string // "" if fine, else the failure's label
}

func yield() fop { return fop{kind: syncmodel.Yield} }

// poll is a Yield that runs f: the memory a polling loop reads around it.
func poll(f func(v *fakeVars)) fop { return fop{kind: syncmodel.Yield, do: f} }
func lock(m uint64) fop            { return fop{kind: syncmodel.MutexLock, obj: m} }
func unlock(m uint64) fop          { return fop{kind: syncmodel.MutexUnlock, obj: m} }
func create(script int) fop        { return fop{kind: syncmodel.ThreadCreate, arg: int64(script)} }

// start is a thread's first operation, running f (if not nil) as the code
// before its next operation.
func start(f func(v *fakeVars)) fop { return fop{kind: syncmodel.ThreadStart, do: f} }

// choose stores a value in 0..n-1 into variable v.
func choose(v uint64, n int64) fop { return fop{kind: syncmodel.Choose, obj: v, arg: n} }

// do runs f on the variables.
func do(f func(v *fakeVars)) fop { return fop{kind: syncmodel.Write, do: f} }

// check fails with the label f returns, if not "".
func check(f func(v *fakeVars) string) fop { return fop{kind: syncmodel.Read, check: f} }

// fail is a check that always fails with the given label.
func fail(label string) fop {
	return check(func(*fakeVars) string { return label })
}

type fakeProg struct {
	scripts [][]fop
	initial int
}

// fakeExecutor starts executions of a fakeProg. It reuses the state of a
// closed execution, so that exploring allocates nothing per execution.
type fakeExecutor struct {
	prog *fakeProg

	starts, closes int

	failStart int                    // the Start with this number (1-based) fails
	failStep  [2]int                 // Step fails at {execution, step} (1-based)
	stuck     bool                   // no ending when no thread is enabled
	vary      func(e *fakeExecution) // called at Start, before the first point
	onStep    func()                 // called at every Step

	free *fakeExecution
}

type fakeThread struct {
	id, script, pc int
}

type fakeExecution struct {
	x       *fakeExecutor
	number  int
	threads []fakeThread
	nextID  int
	owner   [16]int
	vars    fakeVars
	ended   *Outcome
	out     Outcome
	steps   int
	view    []Thread
	closed  bool
}

func newFake(initial int, scripts ...[]fop) *fakeExecutor {
	return &fakeExecutor{prog: &fakeProg{scripts: scripts, initial: max(initial, 1)}}
}

// open is the number of executions started and not closed.
func (x *fakeExecutor) open() int { return x.starts - x.closes }

func (x *fakeExecutor) Start() (Execution, error) {
	if x.failStart == x.starts+1 {
		x.failStart = 0
		return nil, errors.New("fork failed")
	}
	x.starts++
	e := x.free
	x.free = nil
	if e == nil {
		e = &fakeExecution{x: x}
	}
	e.number = x.starts
	e.threads = e.threads[:0]
	e.owner = [16]int{}
	e.vars = fakeVars{}
	e.ended = nil
	e.steps = 0
	e.closed = false
	for i := 0; i < x.prog.initial && i < len(x.prog.scripts); i++ {
		e.threads = append(e.threads, fakeThread{id: i + 1, script: i})
	}
	e.nextID = len(e.threads) + 1
	if x.vary != nil {
		x.vary(e)
	}
	e.settle()
	return e, nil
}

func (e *fakeExecution) Threads() []Thread { return e.view }
func (e *fakeExecution) Ended() *Outcome   { return e.ended }

func (e *fakeExecution) Close() error {
	if e.closed {
		return errors.New("closed twice")
	}
	e.closed = true
	e.x.closes++
	e.x.free = e
	return nil
}

func (e *fakeExecution) op(t *fakeThread) *fop { return &e.x.prog.scripts[t.script][t.pc] }

func (e *fakeExecution) enabled(t *fakeThread) bool {
	o := e.op(t)
	return o.kind != syncmodel.MutexLock || e.owner[o.obj] == 0
}

func (e *fakeExecution) Step(s schedule.Step) error {
	if e.closed || e.ended != nil {
		return errors.New("step after the end")
	}
	e.steps++
	if e.x.onStep != nil {
		e.x.onStep()
	}
	if e.x.failStep == [2]int{e.number, e.steps} {
		return errors.New("target vanished")
	}
	ti := -1
	for i := range e.threads {
		if e.threads[i].id == s.Thread {
			ti = i
		}
	}
	if ti < 0 || !e.enabled(&e.threads[ti]) {
		return fmt.Errorf("thread %d cannot run", s.Thread)
	}
	t := &e.threads[ti]
	o := e.op(t)
	if (o.kind == syncmodel.Choose) != (s.Choice != schedule.NoChoice) ||
		(o.kind == syncmodel.Choose && (s.Choice < 0 || int64(s.Choice) >= o.arg)) {
		return fmt.Errorf("bad choice %v for %v", s, o.kind)
	}
	switch o.kind {
	case syncmodel.MutexLock:
		e.owner[o.obj] = t.id
	case syncmodel.MutexUnlock:
		e.owner[o.obj] = 0
	case syncmodel.Choose:
		e.vars[o.obj] = int64(s.Choice)
	case syncmodel.Write:
		if o.do != nil {
			o.do(&e.vars)
		} else {
			e.vars[o.obj] = o.arg
		}
	case syncmodel.Read:
		if o.do != nil {
			o.do(&e.vars)
		}
		if o.check == nil {
			break
		}
		if label := o.check(&e.vars); label != "" {
			e.out = Outcome{Kind: AssertionFailure, Message: "assertion `" + label + "' failed", Where: label, Step: e.steps}
			e.ended = &e.out
		}
	case syncmodel.ThreadStart, syncmodel.Yield:
		if o.do != nil {
			o.do(&e.vars) // the code before the thread's first operation, or a polling loop's
		}
	case syncmodel.ThreadCreate:
		e.threads = append(e.threads, fakeThread{id: e.nextID, script: int(o.arg)})
		e.nextID++
		t = &e.threads[ti]
	}
	t.pc++
	if t.pc == len(e.x.prog.scripts[t.script]) {
		e.threads = append(e.threads[:ti], e.threads[ti+1:]...)
	}
	e.settle()
	return nil
}

// settle computes the view of the new scheduling point and the ending.
func (e *fakeExecution) settle() {
	e.view = e.view[:0]
	if e.ended != nil {
		return
	}
	some := false
	for i := range e.threads {
		t := &e.threads[i]
		o := e.op(t)
		en := e.enabled(t)
		some = some || en
		op := syncmodel.Op{Kind: o.kind, Obj: o.obj}
		if o.kind == syncmodel.Choose {
			op.Arg = o.arg
		}
		e.view = append(e.view, Thread{ID: t.id, Op: op, Enabled: en})
	}
	switch {
	case len(e.threads) == 0:
		e.out = Outcome{Kind: Exited, Message: "exit 0", Step: e.steps}
		e.ended = &e.out
	case !some && !e.x.stuck:
		var b strings.Builder
		for i, t := range e.view {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%d:%v", t.ID, t.Op)
		}
		e.out = Outcome{Kind: Deadlock, Message: "deadlock", Where: b.String(), Step: e.steps}
		e.ended = &e.out
	}
}

// Programs used by several tests.

// embrace: thread 1 creates thread 2, then both take mutexes 1 and 2 in
// opposite orders.
func embrace() *fakeExecutor {
	return newFake(1,
		[]fop{create(1), lock(1), lock(2), unlock(2), unlock(1)},
		[]fop{lock(2), lock(1), unlock(1), unlock(2)},
	)
}

// yielders: n threads exist from the start, each yielding k times.
func yielders(n, k int) *fakeExecutor {
	scripts := make([][]fop, n)
	for i := range scripts {
		for range k {
			scripts[i] = append(scripts[i], yield())
		}
	}
	return newFake(n, scripts...)
}

// chooser: thread 1 picks a value in 0..2; the assertion fails for 2 only.
func chooser() *fakeExecutor {
	return newFake(1, []fop{
		choose(0, 3),
		check(func(v *fakeVars) string {
			if v[0] == 2 {
				return "v != 2"
			}
			return ""
		}),
	})
}
