package syncmodel

import "fmt"

// annotPrim is the primitive of the program's annotations and scheduling
// hints: Yield and Sleep (a polling loop's reads, a pause), Read and Write
// (accesses to memory, annotated or instrumented) and Choose (a value the
// search chooses). They touch no synchronization object and are always
// enabled; their dependency is by class (see Dependent), but for two
// accesses to memory.
type annotPrim struct {
	basePrim
	noState
}

func (*annotPrim) kinds() []kindSpec {
	return []kindSpec{
		{kind: Yield, class: classSched, mayWait: true},
		{kind: Sleep, class: classSched, mayWait: true},
		{kind: Read, class: classMem},
		{kind: Write, class: classMem},
		{kind: Choose, class: classLocal, chooses: true},
	}
}

func (*annotPrim) check(_ *World, tid int, _ *thread, op Op) error {
	if op.Kind == Choose && op.Arg < 1 {
		return fmt.Errorf("syncmodel: thread %d: choice among %d values", tid, op.Arg)
	}
	return nil
}

func (*annotPrim) choices(_ *World, _ int, th *thread) int {
	if th.pending.Kind == Choose {
		return int(th.pending.Arg)
	}
	return 0
}

func (*annotPrim) exec(_ *World, tid int, op *Op, choice int) (Result, string, error) {
	if op.Kind != Choose {
		return Result{}, "", nil
	}
	if choice < 0 || int64(choice) >= op.Arg {
		return Result{}, "", fmt.Errorf("syncmodel: thread %d: choice %d out of range 0..%d", tid, choice, op.Arg-1)
	}
	return Result{Code: int64(choice)}, "", nil
}

// dependent decides two accesses to memory (class classMem): dependent iff
// their byte ranges overlap and one of them writes.
func (*annotPrim) dependent(_ int, a *Op, _ int, b *Op, _ bool) bool {
	return (a.Kind == Write || b.Kind == Write) && overlap(a, b)
}
