package oracle

import (
	"fmt"
	"math/rand/v2"
)

// GenOptions shape generated programs.
type GenOptions struct {
	// MaxThreads is the most threads a program has, the main one
	// included (at least 2).
	MaxThreads int
	// MaxOps bounds the operations of a program, bodies included.
	MaxOps int
	// Weights, if set, replace the weights of the idioms programs are
	// made of, by name (see chunkTable): 0 leaves an idiom out.
	Weights map[string]int
}

// DefaultGen keeps programs small enough that running every schedule is
// cheap: 2 to 4 threads, a handful of operations each.
var DefaultGen = GenOptions{MaxThreads: 4, MaxOps: 12}

// LongProfiles are the shapes the long mode takes in turn: the default,
// two threads with longer code, more threads with less, and (Go) programs
// made mostly of timers, selects, contexts and messages.
var LongProfiles = []GenOptions{DefaultGen, {MaxThreads: 2, MaxOps: 16}, {MaxThreads: 4, MaxOps: 9},
	{MaxThreads: 3, MaxOps: 10, Weights: map[string]int{"critical": 1, "access": 2, "atomic": 0, "try": 0, "rw": 0,
		"condWaiter": 0, "condSignaller": 0, "once": 0, "choice": 3, "pause": 3, "message": 3, "selectChunk": 5,
		"waitGroup": 1, "timerChunk": 6, "ctxChunk": 4, "semChunk": 3, "barrierChunk": 1, "spinChunk": 1, "exitChunk": 2}}}

// Generate returns the program of the given seed for a runtime: the same
// seed and options give the same program.
func Generate(lang Lang, seed uint64, o GenOptions) *Program {
	rng := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))
	for {
		g := &gen{rng: rng, lang: lang, opts: o}
		if p := g.program(); p != nil {
			return p
		}
	}
}

// gen builds one program.
type gen struct {
	rng  *rand.Rand
	lang Lang
	opts GenOptions

	objects []Object
	count   map[string]int // objects made, by type
	pre     []Op           // main thread: before any thread starts
	body    [][]Op         // each thread's operations (main: between the starts)
	post    []Op           // main thread: at its end
	starter []int          // who starts each thread (-1: an AfterFunc of main)
	ids     int
	reg     []int  // each thread's next register
	joined  []bool // C: joined by the main thread at its end
	memory  bool   // C: a Memory program, with plain and heap objects
}

// program builds a program, or returns nil if it came out too big.
func (g *gen) program() *Program {
	maxT := max(g.opts.MaxThreads, 2)
	n := 2
	for n < maxT && g.rng.IntN(3) == 0 {
		n++
	}
	g.count = map[string]int{}
	g.memory = g.lang == C && g.rng.IntN(memoryShare) == 0
	g.body = make([][]Op, n)
	g.reg = make([]int, n)
	g.starter = make([]int, n)
	g.joined = make([]bool, n)
	for k := 1; k < n; k++ {
		g.starter[k] = 0
		switch x := g.rng.IntN(10); {
		case x < 2 && k > 1:
			g.starter[k] = 1 + g.rng.IntN(k-1)
			if g.starter[g.starter[k]] < 0 {
				g.starter[k] = 0
			}
		case x == 2 && g.lang == Go:
			g.starter[k] = -1
		}
	}
	joiner := g.rng.IntN(2) == 0
	for k := range n {
		chunks := 1 + g.rng.IntN(max(3, g.opts.MaxOps/(2*n)))
		for range chunks {
			g.chunk(k)
		}
	}
	if joiner {
		g.join(n)
	}
	p := &Program{Lang: g.lang, Threads: make([]Thread, n), Memory: g.memory}
	p.Races = g.lang == C && g.rng.IntN(2) == 0
	// Starts: each thread's start op goes at a random place in its
	// starter's code (main: among its body, after pre).
	for k := 1; k < n; k++ {
		s := g.starter[k]
		op := Op{Code: "go", Thread: k, Reg: -1}
		if s < 0 {
			t := g.afterFuncTimer()
			op = Op{Code: "afterfunc", Obj: t, Val: int64(g.rng.IntN(3)), Thread: k, Reg: -1}
			s = 0
		} else if g.lang == C && !g.joined[k] && g.rng.IntN(5) == 0 {
			op.Code = "godetach"
		}
		at := g.rng.IntN(len(g.body[s]) + 1)
		if g.memory && g.rng.IntN(2) == 0 {
			// Started first, so that more plain accesses are concurrent
			// (before the start, its starter's are single-threaded).
			at = 0
		}
		g.body[s] = insert(g.body[s], at, op)
		if g.lang == C && op.Code == "go" && !g.joined[k] && g.rng.IntN(3) == 0 {
			// Join (or detach) it later, from the same thread.
			j := Op{Code: "join", Thread: k, Reg: -1}
			if g.rng.IntN(4) == 0 {
				j.Code = "detach"
			}
			g.body[s] = insert(g.body[s], at+1+g.rng.IntN(len(g.body[s])-at), j)
		}
	}
	p.Objects = g.objects
	p.Threads[0].Ops = append(append(append([]Op(nil), g.pre...), g.body[0]...), g.post...)
	for k := 1; k < n; k++ {
		p.Threads[k].Ops = g.body[k]
	}
	if p.Memory {
		// (checkMemory's strict requirements need it)
		for k := range p.Threads {
			p.Threads[k].Ops = pointBeforeFailures(p.Threads[k].Ops)
		}
	}
	if p.Size() > g.opts.MaxOps {
		return nil
	}
	if err := p.Check(); err != nil {
		panic(fmt.Sprintf("oracle: generated an invalid program: %v\n%s", err, p))
	}
	return p
}

func insert(ops []Op, at int, op Op) []Op {
	ops = append(ops, Op{})
	copy(ops[at+1:], ops[at:])
	ops[at] = op
	return ops
}

// object returns an object of type typ: one already made (most of the
// time, so that threads share them) or a new one with arg and ref.
func (g *gen) object(typ string, arg int64, ref string) string {
	n := g.count[typ]
	if n > 0 && (n >= 2 || g.rng.IntN(3) != 0) {
		i := g.rng.IntN(n)
		name := fmt.Sprintf("%s%d", objPrefix[typ], i)
		return name
	}
	name := fmt.Sprintf("%s%d", objPrefix[typ], n)
	if typ == "ctx" && n > 0 && g.rng.IntN(2) == 0 {
		ref = fmt.Sprintf("k%d", g.rng.IntN(n)) // a child of another context
	}
	g.count[typ]++
	g.objects = append(g.objects, Object{Name: name, Type: typ, Arg: arg, Ref: ref})
	switch typ {
	case "timer":
		g.pre = append(g.pre, g.makeTimer(name))
	case "ctx":
		g.pre = append(g.pre, Op{Code: "ctx", Obj: name, Val: int64(g.rng.IntN(2) * (1 + g.rng.IntN(3))), Reg: -1})
	}
	return name
}

// afterFuncTimer makes a timer object for an AfterFunc, which makes it.
func (g *gen) afterFuncTimer() string {
	name := fmt.Sprintf("t%d", g.count["timer"])
	g.count["timer"]++
	g.objects = append(g.objects, Object{Name: name, Type: "timer"})
	return name
}

func (g *gen) makeTimer(name string) Op {
	if g.rng.IntN(4) == 0 {
		return Op{Code: "ticker", Obj: name, Val: 1 + int64(g.rng.IntN(2)), Reg: -1}
	}
	return Op{Code: "timer", Obj: name, Val: int64(g.rng.IntN(4)), Reg: -1}
}

var objPrefix = map[string]string{
	"plain": "y", "heap": "h",
	"mutex": "m", "rwmutex": "rw", "rwlock": "rw", "cond": "c", "waitgroup": "wg", "once": "o",
	"chan": "ch", "var": "x", "atomic": "a", "timer": "t", "ctx": "k", "sem": "s", "barrier": "b", "spin": "sp",
}

// newReg returns a register of thread k for a new value.
func (g *gen) newReg(k int) int {
	r := g.reg[k] % NumRegs
	g.reg[k]++
	return r
}

func (g *gen) id() int { g.ids++; return g.ids }

// check returns an assertion or, now and then, a crash on register r.
func (g *gen) check(r int, vals int) Op {
	code := "assert"
	if g.rng.IntN(6) == 0 {
		code = "crashif"
	}
	return Op{Code: code, Reg: r, Val: int64(g.rng.IntN(vals)), Neg: g.rng.IntN(2) == 0, ID: g.id()}
}

// maybeCheck appends a check of register r with probability 1/2.
func (g *gen) maybeCheck(ops []Op, r, vals int) []Op {
	if g.rng.IntN(2) == 0 {
		return append(ops, g.check(r, vals))
	}
	return ops
}

func (g *gen) emit(k int, ops ...Op) { g.body[k] = append(g.body[k], ops...) }

// join makes the main thread wait for the threads it started, with a
// WaitGroup (Go) or by joining (C), then check shared variables.
func (g *gen) join(n int) {
	if g.lang == Go {
		wg := fmt.Sprintf("wg%d", g.count["waitgroup"])
		g.count["waitgroup"]++
		g.objects = append(g.objects, Object{Name: wg, Type: "waitgroup"})
		started := 0
		for k := 1; k < n; k++ {
			g.body[k] = append(g.body[k], Op{Code: "wgdone", Obj: wg, Reg: -1})
			started++
		}
		add := Op{Code: "wgadd", Obj: wg, Val: int64(started), Reg: -1}
		if g.rng.IntN(8) == 0 {
			// The classic mistake: one Add too few, or added late.
			add.Val--
		}
		g.pre = append(g.pre, add)
		g.post = append(g.post, Op{Code: "wgwait", Obj: wg, Reg: -1})
	} else {
		for k := 1; k < n; k++ {
			if g.starter[k] == 0 {
				g.post = append(g.post, Op{Code: "join", Thread: k, Reg: -1})
				g.joined[k] = true
			}
		}
	}
	if g.count["var"] > 0 {
		r := g.newReg(0)
		x := fmt.Sprintf("x%d", g.rng.IntN(g.count["var"]))
		g.post = append(g.post, Op{Code: "read", Obj: x, Reg: r}, g.check(r, 3))
	}
	if g.memory {
		// And a plain variable, as often read after the joins.
		var plain []string
		for _, o := range g.objects {
			if o.Type == "plain" || o.Type == "heap" {
				plain = append(plain, o.Name)
			}
		}
		if len(plain) > 0 {
			r := g.newReg(0)
			x := plain[g.rng.IntN(len(plain))]
			g.post = append(g.post, Op{Code: "pload", Obj: x, Reg: r}, g.check(r, 3))
		}
	}
}
