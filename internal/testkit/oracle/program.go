package oracle

import (
	"fmt"
	"strconv"
	"strings"
)

// Lang is the runtime a program is written for.
type Lang string

// The two runtimes.
const (
	Go Lang = "go" // run in process under package sthread
	C  Lang = "c"  // compiled and run under the interposition library
)

// Program is a small concurrent program: shared objects and threads, each
// a straight list of operations (with bounded repetitions and conditionals
// on registers). Thread 0 is the main thread (the checked function, or C's
// main); every other thread is started once, by a "go" operation of an
// earlier thread or, in Go, as the function of an AfterFunc timer.
//
// Its text form (String, Parse) is what reproducers hold:
//
//	lang go
//	obj m0 mutex
//	obj ch0 chan 1
//	thread 0
//	  go 1
//	  lock m0
//	  read x0 r0
//	  assert r0 == 1 #3
//	  unlock m0
//	thread 1
//	  send ch0 2
type Program struct {
	Lang    Lang
	Objects []Object
	Threads []Thread
	// Races, for C programs: run with the data race detector
	// (executor.Options.Races), as stdbg find does by default.
	Races bool
	// Memory, for C programs: compiled with the memory instrumentation
	// (ctarget.BuildOptions.Memory), as stdbg find compiles a source by
	// default, and run as it runs one: with Races, plain loads and stores
	// are logged for the race detector (ctarget.MemoryLogEnv), without,
	// every one is a scheduling point. Such a program is also checked in
	// both modes against each other (see checkMemory).
	Memory bool
	// Unroll, when positive, turns every spin of the program into that
	// many turns, after which the thread blocks for ever: the reference
	// the spin check compares the program's search with (checkSpin).
	Unroll int
}

// Object is a shared object of a program.
type Object struct {
	Name string
	// Type is the object's type: mutex, rwmutex, cond, waitgroup, once,
	// chan, var, atomic, timer, ctx (Go); mutex, cond, sem, rwlock,
	// barrier, spin, once, var, atomic, plain (a global long accessed
	// without annotations), heap (the same in a block the main thread
	// allocates first) (C).
	Type string
	// Arg is a type's parameter: a channel's capacity, a semaphore's
	// initial value, a barrier's count, a C mutex's kind (0 normal, 1
	// recursive, 2 error-checking).
	Arg int64
	// Ref is a second object: a condition's mutex (a Go condition's may
	// be an RWMutex: the condition is on its read locker), a context's
	// parent context.
	Ref string
}

// Thread is one thread's code.
type Thread struct {
	Ops []Op
}

// Op is one operation of a thread. Which fields an operation uses is given
// by its code's signature (see codes).
type Op struct {
	Code    string
	Obj     string // the object operated on
	Reg     int    // the register written (or tested), -1 if none
	Val     int64  // a constant: a value, a duration in milliseconds, a count
	Val2    int64  // a second constant
	Thread  int    // the thread started (go, afterfunc) or joined
	ID      int    // an assertion's or a crash's number, shown in its message
	Neg     bool   // assert/if/crash: != instead of ==
	Cases   []Case // select
	Default bool   // select: has a default case
	Body    []Op   // if, repeat, once
}

// Case is a case of a Go select.
type Case struct {
	// Kind is recv, send (on a channel), timer (receive from a timer's
	// channel), after (time.After(Val ms)) or done (a context's Done).
	Kind string
	Obj  string
	Val  int64 // send: the value; after: the duration
	Reg  int   // recv: the register receiving the value, -1 to drop it
}

// NumRegs is the number of registers of each thread.
const NumRegs = 4

// signature describes an operation's text: its fields in order, each one
// letter: o object, r register, v Val, w Val2, t thread, c comparison
// ("==" or "!="), i id ("#N"), s select cases, b body.
type signature struct {
	fields string
	langs  string // "g", "c" or "gc": the runtimes that have it
}

// codes are the operations, by code.
var opCodes = map[string]signature{
	// Threads.
	"go":       {"t", "gc"}, // start a thread (C: pthread_create, joinable)
	"godetach": {"t", "c"},  // C: pthread_create of a detached thread
	"join":     {"t", "c"},
	"detach":   {"t", "c"},
	"exit":     {"", "c"},    // C: pthread_exit
	"progexit": {"v", "c"},   // C: exit(v)
	"yield":    {"", "gc"},   // Go: sthread.Yield; C: sched_yield
	"syield":   {"", "c"},    // C: stdbg_yield
	"sleep":    {"v", "gc"},  // Go: time.Sleep(v ms) on the virtual clock; C: usleep
	"choose":   {"vr", "gc"}, // r = choose(v)
	// Plain shared memory, annotated.
	"read":  {"or", "gc"},
	"write": {"ov", "gc"},
	"incr":  {"o", "gc"}, // read then write x+1: two points
	// Plain shared memory, not annotated (C, plain and heap objects): seen
	// only in a Memory build.
	"pload":  {"or", "c"}, // r = x
	"pstore": {"ov", "c"}, // x = v
	"pincr":  {"o", "c"},  // x = x + 1
	// Atomics.
	"aload":  {"or", "gc"},
	"astore": {"ov", "gc"},
	"aadd":   {"ovr", "gc"}, // r = (x += v)
	"acas":   {"ovwr", "gc"},
	// Loops on an atomic (docs/spin.md): a spin waits until o == v,
	// running its body (a yield, or nothing) at each turn; a retry looks
	// w times at most, yielding between looks, and fails assertion #i if
	// it never saw o == v.
	"spin":  {"ovb", "gc"},
	"retry": {"ovwi", "gc"},
	// Control and checks.
	"assert":  {"rcvi", "gc"},
	"crashif": {"rcvi", "gc"},
	"if":      {"rcvb", "gc"},
	"repeat":  {"vb", "gc"},
	// Mutexes.
	"lock":      {"o", "gc"},
	"unlock":    {"o", "gc"},
	"trylock":   {"or", "gc"},
	"timedlock": {"or", "c"},
	// Reader/writer locks.
	"rlock":    {"o", "gc"},
	"runlock":  {"o", "g"},
	"wlock":    {"o", "gc"},
	"wunlock":  {"o", "g"},
	"rwunlock": {"o", "c"},
	"tryrlock": {"or", "gc"},
	"trywlock": {"or", "gc"},
	// Conditions.
	"wait":      {"o", "gc"},
	"timedwait": {"or", "c"},
	"signal":    {"o", "gc"},
	"broadcast": {"o", "gc"},
	// Once.
	"once": {"ob", "gc"},
	// Go wait groups.
	"wgadd":  {"ov", "g"},
	"wgdone": {"o", "g"},
	"wgwait": {"o", "g"},
	// Go channels.
	"send":   {"ov", "g"},
	"recv":   {"or", "g"},
	"recvok": {"or", "g"}, // r = 1 if a value was received, 0 if closed
	"close":  {"o", "g"},
	"len":    {"or", "g"},
	"select": {"rs", "g"},
	// Go timers.
	"timer":     {"ov", "g"},  // o = time.NewTimer(v ms)
	"afterfunc": {"ovt", "g"}, // o = time.AfterFunc(v ms, thread t)
	"ticker":    {"ov", "g"},  // o = time.NewTicker(v ms)
	"tick":      {"o", "g"},   // <-o.C
	"stop":      {"or", "g"},  // r = o.Stop() (1 if it stopped it); tickers: 0
	"reset":     {"ovr", "g"}, // r = o.Reset(v ms)
	// Go contexts.
	"ctx":     {"ov", "g"}, // o = WithCancel (v 0) or WithTimeout(v ms)
	"cancel":  {"o", "g"},
	"ctxerr":  {"or", "g"}, // r = 1 if o.Err() != nil
	"ctxdone": {"o", "g"},  // <-o.Done()
	// C semaphores, barriers, spin locks.
	"semwait":      {"o", "c"},
	"semtrywait":   {"or", "c"},
	"semtimedwait": {"or", "c"},
	"sempost":      {"o", "c"},
	"semvalue":     {"or", "c"},
	"barrier":      {"or", "c"}, // r = 1 for the serial thread
	"spinlock":     {"o", "c"},
	"spintrylock":  {"or", "c"},
	"spinunlock":   {"o", "c"},
}

// String returns the program's text form.
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lang %s\n", p.Lang)
	if p.Races {
		b.WriteString("races\n")
	}
	if p.Memory {
		b.WriteString("memory\n")
	}
	if p.Unroll > 0 {
		fmt.Fprintf(&b, "unroll %d\n", p.Unroll)
	}
	for _, o := range p.Objects {
		fmt.Fprintf(&b, "obj %s %s", o.Name, o.Type)
		if o.Arg != 0 || o.Type == "chan" {
			fmt.Fprintf(&b, " %d", o.Arg)
		}
		if o.Ref != "" {
			fmt.Fprintf(&b, " %s", o.Ref)
		}
		b.WriteByte('\n')
	}
	for i, t := range p.Threads {
		fmt.Fprintf(&b, "thread %d\n", i)
		writeOps(&b, t.Ops, 1)
	}
	return b.String()
}

func writeOps(b *strings.Builder, ops []Op, depth int) {
	for _, op := range ops {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(op.text())
		b.WriteByte('\n')
		if len(op.Body) > 0 || hasBody(op.Code) {
			writeOps(b, op.Body, depth+1)
			b.WriteString(strings.Repeat("  ", depth))
			b.WriteString("end\n")
		}
	}
}

func hasBody(code string) bool { return strings.Contains(opCodes[code].fields, "b") }

// text is the operation's line, without its body.
func (op *Op) text() string {
	parts := []string{op.Code}
	for _, f := range opCodes[op.Code].fields {
		switch f {
		case 'o':
			parts = append(parts, op.Obj)
		case 'r':
			parts = append(parts, regName(op.Reg))
		case 'v':
			parts = append(parts, strconv.FormatInt(op.Val, 10))
		case 'w':
			parts = append(parts, strconv.FormatInt(op.Val2, 10))
		case 't':
			parts = append(parts, strconv.Itoa(op.Thread))
		case 'c':
			parts = append(parts, map[bool]string{false: "==", true: "!="}[op.Neg])
		case 'i':
			parts = append(parts, "#"+strconv.Itoa(op.ID))
		case 's':
			var cs []string
			for _, c := range op.Cases {
				cs = append(cs, c.text())
			}
			if op.Default {
				cs = append(cs, "default")
			}
			parts = append(parts, "{ "+strings.Join(cs, " | ")+" }")
		}
	}
	return strings.Join(parts, " ")
}

func (c Case) text() string {
	switch c.Kind {
	case "recv":
		return "recv " + c.Obj + " " + regName(c.Reg)
	case "send":
		return fmt.Sprintf("send %s %d", c.Obj, c.Val)
	case "after":
		return fmt.Sprintf("after %d", c.Val)
	}
	return c.Kind + " " + c.Obj // timer, done
}

func regName(r int) string {
	if r < 0 {
		return "_"
	}
	return "r" + strconv.Itoa(r)
}

// Parse reads a program's text form.
func Parse(text string) (*Program, error) {
	p := &Program{}
	lines := strings.Split(text, "\n")
	var stack []*[]Op // where the next operation goes: a thread's ops, then bodies
	for n, line := range lines {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d: %q: %s", n+1, line, fmt.Sprintf(format, args...))
		}
		switch f[0] {
		case "lang":
			if len(f) != 2 || (f[1] != string(Go) && f[1] != string(C)) {
				return nil, fail("want lang go or lang c")
			}
			p.Lang = Lang(f[1])
			continue
		case "races":
			p.Races = true
			continue
		case "memory":
			p.Memory = true
			continue
		case "unroll":
			v, err := strconv.Atoi(f[len(f)-1])
			if len(f) != 2 || err != nil || v < 1 {
				return nil, fail("want unroll N, N > 0")
			}
			p.Unroll = v
			continue
		case "obj":
			o, err := parseObject(f[1:])
			if err != nil {
				return nil, fail("%v", err)
			}
			p.Objects = append(p.Objects, o)
			continue
		case "thread":
			if len(f) != 2 || f[1] != strconv.Itoa(len(p.Threads)) {
				return nil, fail("want thread %d", len(p.Threads))
			}
			p.Threads = append(p.Threads, Thread{})
			stack = []*[]Op{&p.Threads[len(p.Threads)-1].Ops}
			continue
		case "end":
			if len(stack) < 2 {
				return nil, fail("end without a body")
			}
			stack = stack[:len(stack)-1]
			continue
		}
		if len(stack) == 0 {
			return nil, fail("operation outside a thread")
		}
		op, err := parseOp(line)
		if err != nil {
			return nil, fail("%v", err)
		}
		ops := stack[len(stack)-1]
		*ops = append(*ops, op)
		if hasBody(op.Code) {
			last := &(*ops)[len(*ops)-1]
			stack = append(stack, &last.Body)
		}
	}
	if p.Lang == "" {
		return nil, fmt.Errorf("no lang line")
	}
	if len(stack) > 1 {
		return nil, fmt.Errorf("a body is not closed by end")
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return p, nil
}

func parseObject(f []string) (Object, error) {
	if len(f) < 2 {
		return Object{}, fmt.Errorf("want obj NAME TYPE [ARG] [REF]")
	}
	o := Object{Name: f[0], Type: f[1]}
	rest := f[2:]
	if len(rest) > 0 {
		if v, err := strconv.ParseInt(rest[0], 10, 64); err == nil {
			o.Arg = v
			rest = rest[1:]
		}
	}
	if len(rest) > 0 {
		o.Ref = rest[0]
		rest = rest[1:]
	}
	if len(rest) > 0 {
		return Object{}, fmt.Errorf("unexpected %q", rest[0])
	}
	return o, nil
}

// parseOp reads one operation's line (its body follows on other lines).
func parseOp(line string) (Op, error) {
	op := Op{Reg: -1}
	var f []string
	if i := strings.Index(line, "{"); i >= 0 {
		j := strings.LastIndex(line, "}")
		if j < i {
			return op, fmt.Errorf("unclosed {")
		}
		cases, def, err := parseCases(line[i+1 : j])
		if err != nil {
			return op, err
		}
		op.Cases, op.Default = cases, def
		f = strings.Fields(line[:i])
		f = append(f, "{}")
		f = append(f, strings.Fields(line[j+1:])...)
	} else {
		f = strings.Fields(line)
	}
	op.Code = f[0]
	sig, ok := opCodes[op.Code]
	if !ok {
		return op, fmt.Errorf("unknown operation %q", op.Code)
	}
	args := f[1:]
	want := strings.ReplaceAll(sig.fields, "b", "")
	if len(args) != len(want) {
		return op, fmt.Errorf("%s takes %d arguments, not %d", op.Code, len(want), len(args))
	}
	for k, c := range want {
		a := args[k]
		var err error
		switch c {
		case 'o':
			op.Obj = a
		case 'r':
			op.Reg, err = parseReg(a)
		case 'v':
			op.Val, err = strconv.ParseInt(a, 10, 64)
		case 'w':
			op.Val2, err = strconv.ParseInt(a, 10, 64)
		case 't':
			op.Thread, err = strconv.Atoi(a)
		case 'c':
			switch a {
			case "==":
			case "!=":
				op.Neg = true
			default:
				err = fmt.Errorf("want == or !=, not %q", a)
			}
		case 'i':
			if !strings.HasPrefix(a, "#") {
				return op, fmt.Errorf("want #N, not %q", a)
			}
			op.ID, err = strconv.Atoi(a[1:])
		case 's':
			if a != "{}" {
				err = fmt.Errorf("want { cases }")
			}
		}
		if err != nil {
			return op, err
		}
	}
	return op, nil
}

func parseReg(a string) (int, error) {
	if a == "_" {
		return -1, nil
	}
	if !strings.HasPrefix(a, "r") {
		return 0, fmt.Errorf("want a register rN, not %q", a)
	}
	r, err := strconv.Atoi(a[1:])
	if err != nil || r < 0 || r >= NumRegs {
		return 0, fmt.Errorf("no register %q", a)
	}
	return r, nil
}

func parseCases(s string) ([]Case, bool, error) {
	var cases []Case
	def := false
	for _, part := range strings.Split(s, "|") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		c := Case{Kind: f[0], Reg: -1}
		var err error
		switch {
		case f[0] == "default" && len(f) == 1:
			def = true
			continue
		case f[0] == "recv" && len(f) == 3:
			c.Obj = f[1]
			c.Reg, err = parseReg(f[2])
		case f[0] == "send" && len(f) == 3:
			c.Obj = f[1]
			c.Val, err = strconv.ParseInt(f[2], 10, 64)
		case f[0] == "after" && len(f) == 2:
			c.Val, err = strconv.ParseInt(f[1], 10, 64)
		case (f[0] == "timer" || f[0] == "done") && len(f) == 2:
			c.Obj = f[1]
		default:
			return nil, false, fmt.Errorf("bad select case %q", strings.TrimSpace(part))
		}
		if err != nil {
			return nil, false, err
		}
		cases = append(cases, c)
	}
	return cases, def, nil
}
