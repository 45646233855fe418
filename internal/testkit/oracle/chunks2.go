package oracle

// The idioms of one runtime only: Go's channels, selects, wait groups,
// timers and contexts; C's semaphores, barriers, spin locks and exits.

// partner returns, two times out of three, another thread than k to take
// the other side of an exchange (a receive for a send, a post for a
// wait), so that most waits are answered; -1 otherwise.
func (g *gen) partner(k int) int {
	n := len(g.body)
	if g.rng.IntN(3) == 0 {
		return -1
	}
	p := g.rng.IntN(n - 1)
	if p >= k {
		p++
	}
	return p
}

func (g *gen) channel() string { return g.object("chan", int64(g.rng.IntN(3)), "") }

// message: a send, a receive (checked now and then), and rarely a close,
// a length or a receive that tells a closed channel.
func (g *gen) message(k int) {
	ch := g.channel()
	switch x := g.rng.IntN(20); {
	case x < 8:
		g.emit(k, Op{Code: "send", Obj: ch, Val: int64(1 + g.rng.IntN(2)), Reg: -1})
		if p := g.partner(k); p >= 0 {
			r := g.newReg(p)
			g.emit(p, g.maybeCheck([]Op{{Code: "recv", Obj: ch, Reg: r}}, r, 3)...)
		}
	case x < 16:
		r := g.newReg(k)
		g.emit(k, g.maybeCheck([]Op{{Code: "recv", Obj: ch, Reg: r}}, r, 3)...)
		if p := g.partner(k); p >= 0 {
			g.emit(p, Op{Code: "send", Obj: ch, Val: int64(1 + g.rng.IntN(2)), Reg: -1})
		}
	case x < 18:
		g.emit(k, Op{Code: "close", Obj: ch, Reg: -1})
	case x < 19:
		r := g.newReg(k)
		g.emit(k, g.maybeCheck([]Op{{Code: "len", Obj: ch, Reg: r}}, r, 2)...)
	default:
		r := g.newReg(k)
		g.emit(k, g.maybeCheck([]Op{{Code: "recvok", Obj: ch, Reg: r}}, r, 2)...)
	}
}

// selectChunk: a select over channels, a timer, a timeout or a context,
// with or without a default case; the case taken is checked now and then.
func (g *gen) selectChunk(k int) {
	r := g.newReg(k)
	op := Op{Code: "select", Reg: r, Default: g.rng.IntN(3) == 0}
	n := 1 + g.rng.IntN(2)
	for range n {
		var c Case
		switch x := g.rng.IntN(10); {
		case x < 4:
			c = Case{Kind: "recv", Obj: g.channel(), Reg: -1}
			if g.rng.IntN(2) == 0 {
				c.Reg = g.newReg(k)
			}
		case x < 6:
			c = Case{Kind: "send", Obj: g.channel(), Val: int64(1 + g.rng.IntN(2)), Reg: -1}
		case x < 8:
			c = Case{Kind: "after", Val: int64(1 + g.rng.IntN(3)), Reg: -1}
		case x < 9:
			c = Case{Kind: "timer", Obj: g.object("timer", 0, ""), Reg: -1}
		default:
			c = Case{Kind: "done", Obj: g.object("ctx", 0, ""), Reg: -1}
		}
		op.Cases = append(op.Cases, c)
	}
	ops := []Op{op}
	if g.rng.IntN(2) == 0 {
		ops = append(ops, Op{Code: "assert", Reg: r, Val: int64(g.rng.IntN(n+1)) - b2i(op.Default), Neg: g.rng.IntN(2) == 0, ID: g.id()})
	}
	g.emit(k, ops...)
}

// waitGroup: an Add, a Done or a Wait on a shared WaitGroup.
func (g *gen) waitGroup(k int) {
	wg := g.object("waitgroup", 0, "")
	switch g.rng.IntN(3) {
	case 0:
		g.emit(k, Op{Code: "wgadd", Obj: wg, Val: 1, Reg: -1})
		if p := g.partner(k); p >= 0 {
			g.emit(p, Op{Code: "wgdone", Obj: wg, Reg: -1})
		}
	case 1:
		g.emit(k, Op{Code: "wgdone", Obj: wg, Reg: -1})
		if g.partner(k) >= 0 {
			g.pre = append(g.pre, Op{Code: "wgadd", Obj: wg, Val: 1, Reg: -1})
		}
	default:
		g.emit(k, Op{Code: "wgwait", Obj: wg, Reg: -1})
	}
}

// timerChunk: waits for a timer (made by the main thread first), stops
// or resets it.
func (g *gen) timerChunk(k int) {
	t := g.object("timer", 0, "")
	r := g.newReg(k)
	switch g.rng.IntN(3) {
	case 0:
		g.emit(k, Op{Code: "tick", Obj: t, Reg: -1})
	case 1:
		g.emit(k, g.maybeCheck([]Op{{Code: "stop", Obj: t, Reg: r}}, r, 2)...)
	default:
		g.emit(k, g.maybeCheck([]Op{{Code: "reset", Obj: t, Val: int64(1 + g.rng.IntN(3)), Reg: r}}, r, 2)...)
	}
}

// ctxChunk: cancels a context, checks its error or waits for it.
func (g *gen) ctxChunk(k int) {
	x := g.object("ctx", 0, "")
	r := g.newReg(k)
	switch g.rng.IntN(3) {
	case 0:
		g.emit(k, Op{Code: "cancel", Obj: x, Reg: -1})
	case 1:
		g.emit(k, g.maybeCheck([]Op{{Code: "ctxerr", Obj: x, Reg: r}}, r, 2)...)
	default:
		g.emit(k, Op{Code: "ctxdone", Obj: x, Reg: -1})
		if p := g.partner(k); p >= 0 {
			g.emit(p, Op{Code: "cancel", Obj: x, Reg: -1})
		}
	}
}

// semChunk: a wait or a post on a semaphore, or a try, a timed wait or a
// look at its value, checked now and then.
func (g *gen) semChunk(k int) {
	s := g.object("sem", int64(g.rng.IntN(2)), "")
	r := g.newReg(k)
	switch g.rng.IntN(6) {
	case 0, 1:
		g.emit(k, Op{Code: "semwait", Obj: s, Reg: -1})
		if p := g.partner(k); p >= 0 {
			g.emit(p, Op{Code: "sempost", Obj: s, Reg: -1})
		}
	case 2, 3:
		g.emit(k, Op{Code: "sempost", Obj: s, Reg: -1})
	case 4:
		code := "semtrywait"
		if g.rng.IntN(2) == 0 {
			code = "semtimedwait"
		}
		g.emit(k, g.maybeCheck([]Op{{Code: code, Obj: s, Reg: r}}, r, 2)...)
	default:
		g.emit(k, g.maybeCheck([]Op{{Code: "semvalue", Obj: s, Reg: r}}, r, 2)...)
	}
}

// barrierChunk: a wait at a barrier of two threads.
func (g *gen) barrierChunk(k int) {
	b := g.object("barrier", 2, "")
	r := g.newReg(k)
	g.emit(k, g.maybeCheck([]Op{{Code: "barrier", Obj: b, Reg: r}}, r, 2)...)
}

// spinChunk: a section under a spin lock, or one tried.
func (g *gen) spinChunk(k int) {
	s := g.object("spin", 0, "")
	body := append(g.memOp(k, g.variable()), Op{Code: "spinunlock", Obj: s, Reg: -1})
	if g.rng.IntN(2) == 0 {
		g.emit(k, append([]Op{{Code: "spinlock", Obj: s, Reg: -1}}, body...)...)
		return
	}
	r := g.newReg(k)
	g.emit(k, Op{Code: "spintrylock", Obj: s, Reg: r}, Op{Code: "if", Reg: r, Val: 1, Body: body})
}

// exitChunk: the thread ends early (pthread_exit), or the program exits.
func (g *gen) exitChunk(k int) {
	if g.rng.IntN(3) == 0 {
		g.emit(k, Op{Code: "progexit", Val: int64(g.rng.IntN(2)), Reg: -1})
		return
	}
	g.emit(k, Op{Code: "exit", Reg: -1})
}

// spinWait: a thread spins until an atomic holds a value that another
// thread stores (now and then none does: the spin never ends), yielding at
// each turn or not; or it retries, looking a few times, and fails an
// assertion if it never saw the value. A C program spins only in a Memory
// build, whose spins are vouched for (docs/spin.md), and not in its main
// thread.
func (g *gen) spinWait(k int) {
	a := g.object("atomic", 0, "")
	v := int64(1 + g.rng.IntN(2))
	// (A C spin of the main thread may come before any other thread
	// starts: its loads are no scheduling points then, and it would run
	// past the transition's timeout.)
	if g.rng.IntN(3) == 0 || g.lang == C && (!g.memory || k == 0) {
		g.emit(k, Op{Code: "retry", Obj: a, Val: v, Val2: int64(1 + g.rng.IntN(3)), ID: g.id(), Reg: -1})
	} else {
		op := Op{Code: "spin", Obj: a, Val: v, Reg: -1}
		if g.rng.IntN(2) == 0 {
			op.Body = []Op{{Code: "yield", Reg: -1}}
		}
		g.emit(k, op)
	}
	if p := g.partner(k); p >= 0 {
		g.emit(p, Op{Code: "astore", Obj: a, Val: v, Reg: -1})
	}
}
