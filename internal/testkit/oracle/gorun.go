package oracle

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/stdbg/stdbg/sthread"
	scontext "github.com/stdbg/stdbg/sthread/context"
	"github.com/stdbg/stdbg/sthread/lang"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// The Go interpreter runs a Program under package sthread, in process: the
// checked function is thread 0, and each other thread runs in a goroutine
// started with sthread.Go (or as an AfterFunc's function). Every operation
// is the sthread call a Go program would make, so the search sees what it
// would see in a real program; only the call sites are shared, which is why
// the interpreter keeps, for each thread, the operation it is at (its
// site): bugs are told apart by sites, not by source lines (see ident.go).

// posNotStarted and posDone are the positions of a thread that has not
// started yet and of one that finished.
const (
	posNotStarted = -1
	posDone       = -2
)

// goProg is a Program prepared for the interpreter.
type goProg struct {
	p       *Program
	threads [][]gop
	// the number of objects of each kind (an object is known by its index
	// in its kind)
	nvar, natomic, nmutex, nrw, ncond, nwg, nonce, nchan, ntimer, nctx int

	conds        []condDef
	chanCaps     []int
	ctxParents   []int // each context's parent, -1 for Background
	sites        int
	timerThreads map[int]bool // threads run as an AfterFunc's function
}

type condDef struct {
	mutex int  // index of its Mutex, or of its RWMutex if rlocker
	rw    bool // on an RWMutex's read locker
}

// gop is an operation with its object resolved to an index in its kind.
type gop struct {
	*Op
	obj   int
	site  int
	msg   string // assert: the message; crashif: the panic value
	body  []gop
	cases []gcase
}

type gcase struct {
	Case
	obj int
}

// prepareGo resolves a Go program's names.
func prepareGo(p *Program) (*goProg, error) {
	if p.Lang != Go {
		return nil, fmt.Errorf("not a Go program")
	}
	if len(p.Threads) > len(threadFns) {
		return nil, fmt.Errorf("%d threads: the interpreter runs at most %d", len(p.Threads), len(threadFns))
	}
	g := &goProg{p: p, timerThreads: map[int]bool{}}
	index := map[string]int{}
	for _, o := range p.Objects {
		var n *int
		switch o.Type {
		case "var":
			n = &g.nvar
		case "atomic":
			n = &g.natomic
		case "mutex":
			n = &g.nmutex
		case "rwmutex":
			n = &g.nrw
		case "cond":
			n = &g.ncond
			ref, _ := p.object(o.Ref)
			g.conds = append(g.conds, condDef{mutex: index[o.Ref], rw: ref.Type == "rwmutex"})
		case "waitgroup":
			n = &g.nwg
		case "once":
			n = &g.nonce
		case "chan":
			n = &g.nchan
			g.chanCaps = append(g.chanCaps, int(o.Arg))
		case "timer":
			n = &g.ntimer
		case "ctx":
			n = &g.nctx
			parent := -1
			if o.Ref != "" {
				parent = index[o.Ref]
			}
			g.ctxParents = append(g.ctxParents, parent)
		default:
			return nil, fmt.Errorf("object %s: unknown type %s", o.Name, o.Type)
		}
		index[o.Name] = *n
		*n++
	}
	var prep func(ops []Op) []gop
	prep = func(ops []Op) []gop {
		out := make([]gop, len(ops))
		for i := range ops {
			op := &ops[i]
			o := gop{Op: op, obj: index[op.Obj], site: g.sites}
			g.sites++
			switch op.Code {
			case "assert", "retry":
				o.msg = "A" + strconv.Itoa(op.ID)
			case "crashif":
				o.msg = "P" + strconv.Itoa(op.ID)
			case "afterfunc":
				g.timerThreads[op.Thread] = true
			}
			for _, c := range op.Cases {
				o.cases = append(o.cases, gcase{Case: c, obj: index[c.Obj]})
			}
			o.body = prep(op.Body)
			out[i] = o
		}
		return out
	}
	for _, t := range p.Threads {
		g.threads = append(g.threads, prep(t.Ops))
	}
	return g, nil
}

// goRun is one execution of a goProg.
type goRun struct {
	g    *goProg
	regs [][NumRegs]int64
	// pos holds, for each thread, where each of its runs is: its site, or
	// posDone. A thread runs once, but the function of an AfterFunc runs
	// again each time its timer, reset, fires again.
	pos [][]int
	// looks holds, for each thread, the looks of the retry it is in (its
	// count of tries is part of its state).
	looks []int64

	vars    []int64
	atomics []atomic.Int64
	mutexes []sthread.Mutex
	rws     []sthread.RWMutex
	conds   []*sthread.Cond
	wgs     []sthread.WaitGroup
	onces   []sthread.Once
	chans   []chan int
	timers  []*stime.Timer
	tickers []*stime.Ticker
	ctxs    []context.Context
	cancels []context.CancelFunc
	// chanLog records, per channel, the values whose sends returned and
	// those received, in order: with the positions it determines what
	// the buffers hold, for the declared state.
	chanLog [][]int64
	// atomVals shadows the atomics' values: the declared state may not
	// load them (a load is a scheduling point).
	atomVals []int64
}

// cur is the execution under way: the threads' functions find it here.
// Executions run one at a time (sthread runs one check at a time), and
// only one goroutine of an execution runs at once.
var cur *goRun

// threadFns are the functions of the threads: distinct functions, so that
// a thread's start (whose trace shows its function) names it. threadOfEntry
// maps each one's entry to its thread.
var (
	threadFns     [8]func()
	threadOfEntry = make(map[uintptr]int)
)

func init() {
	threadFns = [...]func(){
		func() { cur.thread(0) },
		func() { cur.thread(1) },
		func() { cur.thread(2) },
		func() { cur.thread(3) },
		func() { cur.thread(4) },
		func() { cur.thread(5) },
		func() { cur.thread(6) },
		func() { cur.thread(7) },
	}
	for i, f := range threadFns {
		threadOfEntry[reflect.ValueOf(f).Pointer()] = i
	}
}

// main returns the checked function of the program.
func (g *goProg) main(stateful bool) func() {
	return func() {
		r := g.newRun()
		cur = r
		if stateful {
			sthread.State("oracle", r.state)
		}
		r.thread(0)
	}
}

func (g *goProg) newRun() *goRun {
	n := len(g.threads)
	r := &goRun{g: g, regs: make([][NumRegs]int64, n), pos: make([][]int, n),
		vars: make([]int64, g.nvar), atomics: make([]atomic.Int64, g.natomic),
		mutexes: make([]sthread.Mutex, g.nmutex), rws: make([]sthread.RWMutex, g.nrw),
		conds: make([]*sthread.Cond, g.ncond), wgs: make([]sthread.WaitGroup, g.nwg),
		onces: make([]sthread.Once, g.nonce), chans: make([]chan int, g.nchan),
		timers: make([]*stime.Timer, g.ntimer), tickers: make([]*stime.Ticker, g.ntimer),
		ctxs: make([]context.Context, g.nctx), cancels: make([]context.CancelFunc, g.nctx),
		chanLog: make([][]int64, g.nchan), atomVals: make([]int64, g.natomic), looks: make([]int64, n)}
	for i, c := range g.conds {
		if c.rw {
			r.conds[i] = sthread.NewCond(r.rws[c.mutex].RLocker())
		} else {
			r.conds[i] = sthread.NewCond(&r.mutexes[c.mutex])
		}
	}
	for i, c := range g.chanCaps {
		r.chans[i] = make(chan int, c)
	}
	return r
}

// thread runs thread k to its end.
func (r *goRun) thread(k int) {
	run := len(r.pos[k])
	r.pos[k] = append(r.pos[k], posNotStarted)
	r.exec(k, run, r.g.threads[k])
	r.pos[k][run] = posDone
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// exec runs ops as thread k, in its run-th run.
func (r *goRun) exec(k, run int, ops []gop) {
	regs := &r.regs[k]
	set := func(reg int, v int64) {
		if reg >= 0 {
			regs[reg] = v
		}
	}
	for i := range ops {
		op := &ops[i]
		r.pos[k][run] = op.site
		switch op.Code {
		case "go":
			sthread.Go(threadFns[op.Thread])
		case "yield":
			sthread.Yield()
		case "sleep":
			stime.Sleep(ms(op.Val))
		case "choose":
			set(op.Reg, int64(sthread.Choose(int(op.Val))))
		case "read":
			sthread.Read(&r.vars[op.obj])
			set(op.Reg, r.vars[op.obj])
		case "write":
			sthread.Write(&r.vars[op.obj])
			r.vars[op.obj] = op.Val
		case "incr":
			sthread.Read(&r.vars[op.obj])
			v := r.vars[op.obj]
			sthread.Write(&r.vars[op.obj])
			r.vars[op.obj] = v + 1
		case "aload":
			set(op.Reg, r.atomics[op.obj].Load())
		case "astore":
			r.atomics[op.obj].Store(op.Val)
			r.atomVals[op.obj] = op.Val
		case "aadd":
			v := r.atomics[op.obj].Add(op.Val)
			r.atomVals[op.obj] = v
			set(op.Reg, v)
		case "acas":
			ok := r.atomics[op.obj].CompareAndSwap(op.Val, op.Val2)
			if ok {
				r.atomVals[op.obj] = op.Val2
			}
			set(op.Reg, b2i(ok))
		case "spin":
			r.spin(op)
		case "retry":
			seen := false
			for r.looks[k] = 0; r.looks[k] < op.Val2 && !seen; r.looks[k]++ {
				if seen = r.atomics[op.obj].Load() == op.Val; !seen {
					sthread.Yield()
				}
			}
			r.looks[k] = 0
			sthread.Assert(seen, op.msg)
		case "assert":
			sthread.Assert((regs[op.Reg] == op.Val) != op.Neg, op.msg)
		case "crashif":
			if (regs[op.Reg] == op.Val) != op.Neg {
				panic(op.msg)
			}
		case "if":
			if (regs[op.Reg] == op.Val) != op.Neg {
				r.exec(k, run, op.body)
			}
		case "repeat":
			for range op.Val {
				r.exec(k, run, op.body)
			}
		case "lock":
			r.mutexes[op.obj].Lock()
		case "unlock":
			r.mutexes[op.obj].Unlock()
		case "trylock":
			set(op.Reg, b2i(r.mutexes[op.obj].TryLock()))
		case "rlock":
			r.rws[op.obj].RLock()
		case "runlock":
			r.rws[op.obj].RUnlock()
		case "wlock":
			r.rws[op.obj].Lock()
		case "wunlock":
			r.rws[op.obj].Unlock()
		case "tryrlock":
			set(op.Reg, b2i(r.rws[op.obj].TryRLock()))
		case "trywlock":
			set(op.Reg, b2i(r.rws[op.obj].TryLock()))
		case "wait":
			r.conds[op.obj].Wait()
		case "signal":
			r.conds[op.obj].Signal()
		case "broadcast":
			r.conds[op.obj].Broadcast()
		case "once":
			body := op.body
			r.onces[op.obj].Do(func() { r.exec(k, run, body) })
		case "wgadd":
			r.wgs[op.obj].Add(int(op.Val))
		case "wgdone":
			r.wgs[op.obj].Done()
		case "wgwait":
			r.wgs[op.obj].Wait()
		case "send":
			lang.ChanSend(r.chans[op.obj], int(op.Val))
			r.chanLog[op.obj] = append(r.chanLog[op.obj], op.Val)
		case "recv":
			v := lang.ChanRecv(r.chans[op.obj])
			r.chanLog[op.obj] = append(r.chanLog[op.obj], -1-int64(v))
			set(op.Reg, int64(v))
		case "recvok":
			v, ok := lang.ChanRecv2(r.chans[op.obj])
			r.chanLog[op.obj] = append(r.chanLog[op.obj], -1-int64(v))
			set(op.Reg, b2i(ok))
		case "close":
			lang.ChanClose(r.chans[op.obj])
		case "len":
			set(op.Reg, int64(lang.ChanLen(r.chans[op.obj])))
		case "select":
			set(op.Reg, r.sel(k, op))
		case "timer":
			r.timers[op.obj], r.tickers[op.obj] = stime.NewTimer(ms(op.Val)), nil
		case "afterfunc":
			r.timers[op.obj], r.tickers[op.obj] = stime.AfterFunc(ms(op.Val), threadFns[op.Thread]), nil
		case "ticker":
			r.timers[op.obj], r.tickers[op.obj] = nil, stime.NewTicker(ms(op.Val))
		case "tick":
			if c := r.timerChan(op.obj); c != nil {
				lang.ChanRecv(c)
			}
		case "stop":
			switch {
			case r.timers[op.obj] != nil:
				set(op.Reg, b2i(r.timers[op.obj].Stop()))
			case r.tickers[op.obj] != nil:
				r.tickers[op.obj].Stop()
				set(op.Reg, 0)
			}
		case "reset":
			switch {
			case r.timers[op.obj] != nil:
				set(op.Reg, b2i(r.timers[op.obj].Reset(ms(op.Val))))
			case r.tickers[op.obj] != nil && op.Val > 0:
				r.tickers[op.obj].Reset(ms(op.Val))
				set(op.Reg, 0)
			}
		case "ctx":
			parent := context.Background()
			if i := r.g.ctxParents[op.obj]; i >= 0 && r.ctxs[i] != nil {
				parent = r.ctxs[i]
			}
			if op.Val > 0 {
				r.ctxs[op.obj], r.cancels[op.obj] = scontext.WithTimeout(parent, ms(op.Val))
			} else {
				r.ctxs[op.obj], r.cancels[op.obj] = scontext.WithCancel(parent)
			}
		case "cancel":
			if c := r.cancels[op.obj]; c != nil {
				c()
			}
		case "ctxerr":
			if c := r.ctxs[op.obj]; c != nil {
				set(op.Reg, b2i(c.Err() != nil))
			}
		case "ctxdone":
			if c := r.ctxs[op.obj]; c != nil {
				lang.ChanRecv(c.Done())
			}
		default:
			panic("oracle: the Go interpreter has no operation " + op.Code)
		}
	}
}

// timerChan is the channel of timer or ticker i, nil if not made yet.
func (r *goRun) timerChan(i int) <-chan time.Time {
	switch {
	case r.timers[i] != nil:
		return r.timers[i].C // nil for an AfterFunc timer: blocks for ever
	case r.tickers[i] != nil:
		return r.tickers[i].C
	}
	return nil
}

// sel runs a select and returns the index of the case that proceeded, -1
// for the default case.
func (r *goRun) sel(k int, op *gop) int64 {
	cases := make([]lang.PlainCase, len(op.cases))
	recvs := make([]*lang.RecvCase[int], len(op.cases))
	for i, c := range op.cases {
		switch c.Kind {
		case "recv":
			rc := lang.RecvCaseOf(r.chans[c.obj])
			recvs[i], cases[i] = rc, rc
		case "send":
			cases[i] = lang.SendCaseOf(r.chans[c.obj], int(c.Val))
		case "timer":
			cases[i] = lang.RecvCaseOf(r.timerChan(c.obj))
		case "after":
			cases[i] = lang.RecvCaseOf(stime.After(ms(c.Val)))
		case "done":
			var done <-chan struct{}
			if x := r.ctxs[c.obj]; x != nil {
				done = x.Done()
			}
			cases[i] = lang.RecvCaseOf(done)
		}
	}
	i := lang.SelectOf(op.Default, cases...)
	if i < 0 {
		return -1
	}
	c := op.cases[i]
	switch c.Kind {
	case "recv":
		v, _ := recvs[i].Value()
		r.chanLog[c.obj] = append(r.chanLog[c.obj], -1-int64(v))
		if c.Reg >= 0 {
			r.regs[k][c.Reg] = int64(v)
		}
	case "send":
		r.chanLog[c.obj] = append(r.chanLog[c.obj], c.Val)
	}
	return int64(i)
}

// state is the program's declared state for stateful search: what the
// sthread objects do not hold. Each thread's position and registers, the
// shared variables and atomics, and what the channels carried (a history:
// finer than their buffers, which is safe).
func (r *goRun) state() any {
	var b strings.Builder
	for k := range r.pos {
		fmt.Fprintf(&b, "%v:%v:%d;", r.pos[k], r.regs[k], r.looks[k])
	}
	fmt.Fprintf(&b, "v%v a%v c%v", r.vars, r.atomVals, r.chanLog)
	return b.String()
}

// spin runs a spin: as goinstr marks a loop whose turns can change only
// what the checker sees (the interpreter's own state, its thread's
// position and registers, does not change while it spins), so that a turn
// that changed nothing waits for a write to the atomic; unrolled
// (Program.Unroll), a few turns, after which the thread blocks for ever on
// a nil channel.
func (r *goRun) spin(op *gop) {
	a := &r.atomics[op.obj]
	if n := r.g.p.Unroll; n > 0 {
		for range n {
			if a.Load() == op.Val {
				return
			}
			r.spinBody(op)
		}
		var never chan int
		lang.ChanRecv(never)
		return
	}
	id := uint64(0x5e1<<16 | op.site)
	lang.SpinEnter(id)
	for a.Load() != op.Val {
		lang.SpinHead(id)
		r.spinBody(op)
	}
}

// spinBody runs a spin's turn: its yields.
func (r *goRun) spinBody(op *gop) {
	for range op.body {
		sthread.Yield()
	}
}
