package oracle

// Chunks are the idioms a generated thread is made of: a critical section,
// a message, a wait on a condition, a timeout... each on objects chosen
// among few, so that threads share them. Most are used correctly; now and
// then one leaves a lock held, unlocks twice or forgets a signal, so that
// misuses, deadlocks and leaks are reachable, in some schedules or all.

// chunkDef is one idiom: its weight and the runtimes that have it.
type chunkDef struct {
	name   string
	weight int
	langs  string // "g", "c" or "gc"
	add    func(g *gen, k int)
}

// memoryChunks are the idioms of Memory programs only.
var memoryChunks = map[string]bool{"publish": true}

var chunkTable = []chunkDef{
	{"critical", 6, "gc", (*gen).critical},
	{"access", 4, "gc", (*gen).access},
	{"atomic", 3, "gc", (*gen).atomic},
	{"try", 2, "gc", (*gen).try},
	{"rw", 2, "gc", (*gen).rw},
	{"condWaiter", 2, "gc", (*gen).condWaiter},
	{"condSignaller", 2, "gc", (*gen).condSignaller},
	{"once", 1, "gc", (*gen).once},
	{"choice", 2, "gc", (*gen).choice},
	{"pause", 1, "gc", (*gen).pause},
	{"message", 5, "g", (*gen).message},
	{"selectChunk", 3, "g", (*gen).selectChunk},
	{"waitGroup", 2, "g", (*gen).waitGroup},
	{"timerChunk", 2, "g", (*gen).timerChunk},
	{"ctxChunk", 2, "g", (*gen).ctxChunk},
	{"semChunk", 3, "c", (*gen).semChunk},
	{"barrierChunk", 1, "c", (*gen).barrierChunk},
	{"spinChunk", 1, "c", (*gen).spinChunk},
	{"exitChunk", 1, "c", (*gen).exitChunk},
	{"publish", 3, "c", (*gen).publish},
	{"spinWait", 2, "gc", (*gen).spinWait},
}

// chunk appends an idiom to thread k.
func (g *gen) chunk(k int) {
	weight := func(c chunkDef) int {
		if !containsLang(c.langs, g.lang) || memoryChunks[c.name] && !g.memory {
			return 0
		}
		if w, ok := g.opts.Weights[c.name]; ok {
			return w
		}
		if g.memory && (c.name == "access" || c.name == "spinWait") {
			// More unprotected plain accesses (races), and spins (a C
			// spin waits only in a Memory build).
			return 2 * c.weight
		}
		return c.weight
	}
	total := 0
	for _, c := range chunkTable {
		total += weight(c)
	}
	x := g.rng.IntN(max(total, 1))
	for _, c := range chunkTable {
		if x < weight(c) {
			c.add(g, k)
			return
		}
		x -= weight(c)
	}
}

func containsLang(langs string, l Lang) bool {
	for i := range len(langs) {
		if langs[i] == l[0] {
			return true
		}
	}
	return false
}

func (g *gen) mutex() string {
	kind := int64(0)
	if g.lang == C {
		kind = int64(g.rng.IntN(3))
	}
	return g.object("mutex", kind, "")
}

// variable returns a shared variable: annotated (var), or in a Memory
// program most of the time a plain one, global or on the heap, more often
// one already used (so that threads share it) than a new one.
func (g *gen) variable() string {
	if !g.memory || g.rng.IntN(4) == 0 {
		return g.object("var", 0, "")
	}
	var plain []string
	for _, o := range g.objects {
		if o.Type == "plain" || o.Type == "heap" {
			plain = append(plain, o.Name)
		}
	}
	if len(plain) > 0 && (len(plain) >= 2 || g.rng.IntN(4) != 0) {
		return plain[g.rng.IntN(len(plain))]
	}
	if g.rng.IntN(3) == 0 {
		return g.object("heap", 0, "")
	}
	return g.object("plain", 0, "")
}

// isPlain tells whether x is a plain or heap variable (accessed without
// annotations), not a var.
func (g *gen) isPlain(x string) bool {
	o, _ := g.find(x)
	return o.Type == "plain" || o.Type == "heap"
}

// readOp, writeOp and incrOp access variable x, annotated or plain as x is.
func (g *gen) readOp(x string, r int) Op {
	if g.isPlain(x) {
		return Op{Code: "pload", Obj: x, Reg: r}
	}
	return Op{Code: "read", Obj: x, Reg: r}
}

func (g *gen) writeOp(x string, v int64) Op {
	if g.isPlain(x) {
		return Op{Code: "pstore", Obj: x, Val: v, Reg: -1}
	}
	return Op{Code: "write", Obj: x, Val: v, Reg: -1}
}

func (g *gen) incrOp(x string) Op {
	if g.isPlain(x) {
		return Op{Code: "pincr", Obj: x, Reg: -1}
	}
	return Op{Code: "incr", Obj: x, Reg: -1}
}

// memOp is an access to shared variable x by thread k.
func (g *gen) memOp(k int, x string) []Op {
	switch g.rng.IntN(4) {
	case 0:
		return []Op{g.writeOp(x, int64(1+g.rng.IntN(2)))}
	case 1:
		r := g.newReg(k)
		return g.maybeCheck([]Op{g.readOp(x, r)}, r, 3)
	}
	return []Op{g.incrOp(x)}
}

// critical: a critical section on a mutex, its unlock now and then
// forgotten or doubled.
func (g *gen) critical(k int) {
	m := g.mutex()
	ops := []Op{{Code: "lock", Obj: m, Reg: -1}}
	ops = append(ops, g.memOp(k, g.variable())...)
	switch g.rng.IntN(16) {
	case 0: // forgotten
	case 1:
		ops = append(ops, Op{Code: "unlock", Obj: m, Reg: -1}, Op{Code: "unlock", Obj: m, Reg: -1})
	default:
		ops = append(ops, Op{Code: "unlock", Obj: m, Reg: -1})
	}
	g.emit(k, ops...)
}

// access: an unprotected access.
func (g *gen) access(k int) { g.emit(k, g.memOp(k, g.variable())...) }

func (g *gen) atomic(k int) {
	a := g.object("atomic", 0, "")
	r := g.newReg(k)
	switch g.rng.IntN(4) {
	case 0:
		g.emit(k, g.maybeCheck([]Op{{Code: "aload", Obj: a, Reg: r}}, r, 3)...)
	case 1:
		g.emit(k, Op{Code: "astore", Obj: a, Val: int64(g.rng.IntN(3)), Reg: -1})
	case 2:
		g.emit(k, g.maybeCheck([]Op{{Code: "aadd", Obj: a, Val: 1, Reg: r}}, r, 3)...)
	default:
		ops := []Op{{Code: "acas", Obj: a, Val: 0, Val2: 1, Reg: r}}
		ops = append(ops, Op{Code: "if", Reg: r, Val: 1, Body: g.memOp(k, g.variable())})
		g.emit(k, ops...)
	}
}

// try: a trylock, and the section only if it was taken (now and then
// unlocked whatever the result: a misuse in the schedules where it failed).
func (g *gen) try(k int) {
	r := g.newReg(k)
	var lock, unlock string
	var obj string
	switch {
	case g.rng.IntN(3) == 0:
		obj = g.object(rwType(g.lang), 0, "")
		lock, unlock = "trywlock", "wunlock"
		if g.rng.IntN(2) == 0 {
			lock, unlock = "tryrlock", "runlock"
		}
		if g.lang == C {
			unlock = "rwunlock"
		}
	case g.lang == C && g.rng.IntN(3) == 0:
		obj = g.mutex()
		lock, unlock = "timedlock", "unlock"
	default:
		obj = g.mutex()
		lock, unlock = "trylock", "unlock"
	}
	body := append(g.memOp(k, g.variable()), Op{Code: unlock, Obj: obj, Reg: -1})
	if g.rng.IntN(6) == 0 {
		g.emit(k, append([]Op{{Code: lock, Obj: obj, Reg: r}}, body...)...)
		return
	}
	g.emit(k, Op{Code: lock, Obj: obj, Reg: r}, Op{Code: "if", Reg: r, Val: 1, Body: body})
}

// rw: a read or a write section of a reader/writer lock.
func (g *gen) rw(k int) {
	rw := g.object(rwType(g.lang), 0, "")
	x := g.variable()
	runlock, wunlock := "runlock", "wunlock"
	if g.lang == C {
		runlock, wunlock = "rwunlock", "rwunlock"
	}
	if g.rng.IntN(2) == 0 {
		r := g.newReg(k)
		ops := []Op{{Code: "rlock", Obj: rw, Reg: -1}, g.readOp(x, r)}
		if g.rng.IntN(8) == 0 {
			ops = append(ops, g.writeOp(x, 2)) // a write under a read lock
		}
		ops = append(ops, Op{Code: runlock, Obj: rw, Reg: -1})
		g.emit(k, g.maybeCheck(ops, r, 3)...)
		return
	}
	g.emit(k, Op{Code: "wlock", Obj: rw, Reg: -1}, g.incrOp(x), Op{Code: wunlock, Obj: rw, Reg: -1})
}

// condition returns a condition variable, its mutex and the operations
// that lock and unlock it: a mutex's, or (Go) an RWMutex's read locker's.
func (g *gen) condition() (c, m, lock, unlock string) {
	if g.count["cond"] > 0 && g.rng.IntN(2) == 0 {
		for _, o := range g.objects {
			if o.Type == "cond" {
				c, m = o.Name, o.Ref
				break
			}
		}
	} else if g.lang == Go && g.rng.IntN(4) == 0 {
		m = g.object("rwmutex", 0, "")
		c = g.object("cond", 0, m)
	} else {
		m = g.object("mutex", 0, "")
		c = g.object("cond", 0, m)
	}
	if o, _ := g.find(m); o.Type == "rwmutex" {
		return c, m, "rlock", "runlock"
	}
	return c, m, "lock", "unlock"
}

// find returns the object named name.
func (g *gen) find(name string) (Object, bool) {
	for _, o := range g.objects {
		if o.Name == name {
			return o, true
		}
	}
	return Object{}, false
}

// condWaiter: waits for a flag under the condition's mutex, with if (the
// bug) or a bounded loop.
func (g *gen) condWaiter(k int) {
	c, m, lock, unlock := g.condition()
	flag := g.variable()
	r := g.newReg(k)
	wait := Op{Code: "wait", Obj: c, Reg: -1}
	if g.lang == C && g.rng.IntN(3) == 0 {
		wait = Op{Code: "timedwait", Obj: c, Reg: g.newReg(k)}
	}
	check := []Op{g.readOp(flag, r), {Code: "if", Reg: r, Val: 0, Body: []Op{wait}}}
	ops := []Op{{Code: lock, Obj: m, Reg: -1}}
	if g.rng.IntN(2) == 0 {
		ops = append(ops, Op{Code: "repeat", Val: 2, Reg: -1, Body: check})
	} else {
		ops = append(ops, check...)
	}
	ops = append(ops, Op{Code: unlock, Obj: m, Reg: -1})
	g.emit(k, ops...)
	if p := g.partner(k); p >= 0 {
		g.signal(p, c, m, flag, lock, unlock)
	}
}

// condSignaller: sets the flag and signals or broadcasts, under the
// mutex or (now and then) after releasing it.
func (g *gen) condSignaller(k int) {
	c, m, lock, unlock := g.condition()
	g.signal(k, c, m, g.variable(), lock, unlock)
}

// signal: thread k sets flag and signals condition c.
func (g *gen) signal(k int, c, m, flag, lock, unlock string) {
	sig := Op{Code: "signal", Obj: c, Reg: -1}
	if g.rng.IntN(3) == 0 {
		sig.Code = "broadcast"
	}
	ops := []Op{{Code: lock, Obj: m, Reg: -1}, g.writeOp(flag, 1)}
	if g.rng.IntN(4) == 0 {
		ops = append(ops, Op{Code: unlock, Obj: m, Reg: -1}, sig)
	} else {
		ops = append(ops, sig, Op{Code: unlock, Obj: m, Reg: -1})
	}
	g.emit(k, ops...)
}

func (g *gen) once(k int) {
	o := g.object("once", 0, "")
	x := g.variable()
	g.emit(k, Op{Code: "once", Obj: o, Reg: -1, Body: []Op{g.writeOp(x, int64(1+g.rng.IntN(2)))}})
}

// choice: a data choice that decides what the thread does.
func (g *gen) choice(k int) {
	r := g.newReg(k)
	n := int64(2 + g.rng.IntN(2))
	if g.rng.IntN(2) == 0 {
		g.emit(k, Op{Code: "choose", Val: n, Reg: r}, g.check(r, int(n)))
		return
	}
	g.emit(k, Op{Code: "choose", Val: n, Reg: r}, Op{Code: "if", Reg: r, Val: 1, Body: g.memOp(k, g.variable())})
}

// pause: a yield or a sleep (in Go also a sleep of no time, a plain
// scheduling point).
func (g *gen) pause(k int) {
	switch g.rng.IntN(3) {
	case 0:
		g.emit(k, Op{Code: "yield", Reg: -1})
	case 1:
		g.emit(k, Op{Code: "sleep", Val: int64(1 + g.rng.IntN(3)), Reg: -1})
	default:
		if g.lang == Go {
			g.emit(k, Op{Code: "sleep", Val: 0, Reg: -1})
		} else {
			g.emit(k, Op{Code: "syield", Reg: -1})
		}
	}
}
