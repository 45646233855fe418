package oracle

// Memory programs. One C program in memoryShare is a Memory program: built
// with the memory instrumentation, with shared variables that the threads
// load and store without annotation (plain: a global; heap: a block the
// main thread allocates before any thread starts), inside and outside
// critical sections, published through semaphores, atomics and joins. The
// idioms that touch a variable pick one of them most of the time
// (gen.variable), and publish hands one over.

// memoryShare: one C program in memoryShare is a Memory program.
const memoryShare = 3

// publish: a plain variable written, then handed over to a partner thread
// by a semaphore post or an atomic flag; the partner waits for it and reads
// the variable (a race when the hand-over does not order them: a flag read
// before it is set, a semaphore someone else posted).
func (g *gen) publish(k int) {
	x := g.variable()
	for !g.isPlain(x) {
		x = g.variable()
	}
	v := int64(1 + g.rng.IntN(2))
	p := g.partner(k)
	if g.rng.IntN(2) == 0 {
		s := g.object("sem", 0, "")
		g.emit(k, Op{Code: "pstore", Obj: x, Val: v, Reg: -1}, Op{Code: "sempost", Obj: s, Reg: -1})
		if p >= 0 {
			r := g.newReg(p)
			g.emit(p, Op{Code: "semwait", Obj: s, Reg: -1})
			g.emit(p, g.maybeCheck([]Op{{Code: "pload", Obj: x, Reg: r}}, r, 3)...)
		}
		return
	}
	a := g.object("atomic", 0, "")
	g.emit(k, Op{Code: "pstore", Obj: x, Val: v, Reg: -1}, Op{Code: "astore", Obj: a, Val: 1, Reg: -1})
	if p >= 0 {
		r, r2 := g.newReg(p), g.newReg(p)
		body := g.maybeCheck([]Op{{Code: "pload", Obj: x, Reg: r2}}, r2, 3)
		g.emit(p, Op{Code: "aload", Obj: a, Reg: r}, Op{Code: "if", Reg: r, Val: 1, Body: body})
	}
}

// cleanPoint are the operations whose C code ends at a scheduling point
// and makes no plain access after it (a register is a local; the library
// is not instrumented): a failure right after one is in a transition that
// makes no plain access. Not: the accesses (an annotated read loads after
// its point), once (its body runs after), if and repeat.
var cleanPoint = map[string]bool{
	"go": true, "godetach": true, "join": true, "detach": true,
	"yield": true, "syield": true, "sleep": true, "choose": true,
	"aload": true, "astore": true, "aadd": true, "acas": true,
	"lock": true, "unlock": true, "trylock": true, "timedlock": true,
	"rlock": true, "wlock": true, "rwunlock": true, "tryrlock": true, "trywlock": true,
	"wait": true, "timedwait": true, "signal": true, "broadcast": true,
	"semwait": true, "semtrywait": true, "semtimedwait": true, "sempost": true, "semvalue": true,
	"barrier": true, "spinlock": true, "spinunlock": true, "spintrylock": true,
}

// isFailure tells whether an operation may fail the execution by itself.
func isFailure(code string) bool { return code == "assert" || code == "crashif" }

// failuresFollowPoints tells whether every assertion and crash of p comes
// right after an operation of cleanPoint, in the same list of operations:
// then no thread makes a plain access between its last operation and a
// failure (see checkMemory).
func failuresFollowPoints(p *Program) bool {
	ok := true
	var visit func(ops []Op)
	visit = func(ops []Op) {
		for i, op := range ops {
			if isFailure(op.Code) && (i == 0 || !cleanPoint[ops[i-1].Code]) {
				ok = false
			}
			visit(op.Body)
		}
	}
	for _, t := range p.Threads {
		visit(t.Ops)
	}
	return ok
}

// pointBeforeFailures returns ops with a stdbg_yield before every
// assertion and crash that does not follow an operation of cleanPoint, so
// that the program satisfies failuresFollowPoints.
func pointBeforeFailures(ops []Op) []Op {
	var out []Op
	for i, op := range ops {
		if isFailure(op.Code) && (i == 0 || !cleanPoint[ops[i-1].Code]) {
			out = append(out, Op{Code: "syield", Reg: -1})
		}
		op.Body = pointBeforeFailures(op.Body)
		if op.Body == nil && hasBody(op.Code) {
			op.Body = []Op{}
		}
		out = append(out, op)
	}
	return out
}
