package syncmodel

// spinState is the world's POSIX spin locks, by address.
type spinState struct {
	spins map[uint64]*mutex
}

// spinPrim is the primitive of POSIX spin locks, which behave as normal
// mutexes (mutex.go) in a namespace of their own.
type spinPrim struct{ basePrim }

func (*spinPrim) kinds() []kindSpec {
	return []kindSpec{{kind: SpinInit}, {kind: SpinLock}, {kind: SpinTrylock}, {kind: SpinUnlock, precedes: true},
		{kind: SpinDestroy}}
}

func (*spinPrim) enabled(w *World, tid int, op *Op) bool {
	return op.Kind != SpinLock || lockEnabled(w.spins[op.Obj], tid)
}

func (*spinPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case SpinInit:
		msg = w.mutexInit(&w.spins, Op{Obj: op.Obj, Arg: MutexNormal}, "spin lock")
	case SpinLock:
		msg = lock(w.spin(op), tid, "spin lock")
	case SpinTrylock:
		code = trylock(w.spin(op), tid)
	case SpinUnlock:
		msg = w.unlock(w.spins, op.Obj, tid, "spin lock")
	case SpinDestroy:
		msg = w.mutexDestroy(w.spins, *op, "spin lock")
	}
	return done(code, msg)
}

func (*spinPrim) waitFor(w *World, _ int, op *Op) Wait {
	return w.mutexWait(w.spins[op.Obj], op.Obj, 0, "spin lock")
}

// mustPrecede: an unlock, and a lock of the spin lock that waits.
func (*spinPrim) mustPrecede(_ int, a *Op, _ int, b *Op) bool {
	return a.Kind == SpinUnlock && b.Kind == SpinLock && b.Obj == a.Obj
}

func (*spinPrim) fingerprint(w *World, f fp) fp {
	f.mutexes(w.spins)
	return f
}

func (*spinPrim) clone(dst, src *World) { dst.spins = cloneMap(src.spins, copyOf[mutex]) }

func (*spinPrim) reset(w *World) { w.spinState = spinState{spins: keepMap(w.spins)} }

// spin returns the spin lock op operates on, creating it on first use.
func (w *World) spin(op *Op) *mutex {
	return getMutex(&w.spins, op.Obj, MutexNormal)
}
