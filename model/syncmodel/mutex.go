package syncmodel

import "fmt"

// mutexState is the world's POSIX and C11 mutexes, by address.
type mutexState struct {
	mutexes map[uint64]*mutex
}

// mutexPrim is the primitive of POSIX and C11 mutexes: normal, recursive
// and error-checking. A lock (not a timed one) waits until the mutex is
// free; a misuse (unlocking a mutex another thread holds, relocking a
// normal one, destroying a locked one) ends the execution.
type mutexPrim struct{ basePrim }

func (*mutexPrim) kinds() []kindSpec {
	return []kindSpec{{kind: MutexInit}, {kind: MutexLock}, {kind: MutexTrylock}, {kind: MutexTimedlock},
		{kind: MutexUnlock, precedes: true}, {kind: MutexDestroy}}
}

func (*mutexPrim) enabled(w *World, tid int, op *Op) bool {
	return op.Kind != MutexLock || lockEnabled(w.mutexes[op.Obj], tid)
}

func (*mutexPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case MutexInit:
		msg = w.mutexInit(&w.mutexes, *op, "mutex")
	case MutexLock:
		msg = lock(w.mutex(op), tid, "mutex")
	case MutexTrylock:
		code = trylock(w.mutex(op), tid)
	case MutexTimedlock:
		code, msg = timedlock(w.mutex(op), tid, "mutex")
	case MutexUnlock:
		msg = w.unlock(w.mutexes, op.Obj, tid, "mutex")
	case MutexDestroy:
		msg = w.mutexDestroy(w.mutexes, *op, "mutex")
	}
	return done(code, msg)
}

func (*mutexPrim) waitFor(w *World, _ int, op *Op) Wait {
	return w.mutexWait(w.mutexes[op.Obj], op.Obj, 0, "mutex")
}

// mustPrecede: an unlock, and a lock of the mutex that waits (it is held
// until then).
func (*mutexPrim) mustPrecede(_ int, a *Op, _ int, b *Op) bool {
	return a.Kind == MutexUnlock && b.Kind == MutexLock && b.Obj == a.Obj
}

func (*mutexPrim) fingerprint(w *World, f fp) fp {
	f.mutexes(w.mutexes)
	return f
}

func (*mutexPrim) clone(dst, src *World) { dst.mutexes = cloneMap(src.mutexes, copyOf[mutex]) }

func (*mutexPrim) reset(w *World) { w.mutexState = mutexState{mutexes: keepMap(w.mutexes)} }

// mutexes hashes the mutexes or spin locks of m that are not in their
// initial state (unlocked, normal).
func (f *fp) mutexes(m map[uint64]*mutex) {
	for _, k := range sortedKeys(m) {
		if x := m[k]; x.owner != 0 || x.count != 0 || x.typ != MutexNormal {
			f.u(k)
			f.i(x.typ)
			f.n(x.owner)
			f.n(x.count)
		}
	}
}

// mutex is a mutex or a spin lock (which behaves like a normal mutex).
type mutex struct {
	addr  uint64
	typ   int64 // MutexNormal, MutexRecursive or MutexErrorCheck
	owner int   // 0 when unlocked
	count int   // lock depth of a recursive mutex; 1 otherwise when locked
}

// mutexType maps the type reported by a runtime to the model's: any type
// other than recursive and error-checking (e.g. glibc's adaptive mutexes)
// behaves like a normal mutex.
func mutexType(arg int64) int64 {
	if arg == MutexRecursive || arg == MutexErrorCheck {
		return arg
	}
	return MutexNormal
}

// mutex returns the mutex op operates on, creating it with the type in
// op.Arg on first use.
func (w *World) mutex(op *Op) *mutex {
	return getMutex(&w.mutexes, op.Obj, op.Arg)
}

func getMutex(ms *map[uint64]*mutex, obj uint64, typ int64) *mutex {
	m := (*ms)[obj]
	if m == nil {
		m = &mutex{addr: obj, typ: mutexType(typ)}
		put(ms, obj, m)
	}
	return m
}

func lockEnabled(m *mutex, tid int) bool {
	return m == nil || m.owner == 0 || m.owner == tid
}

// lock performs a lock that lockEnabled allowed.
func lock(m *mutex, tid int, what string) string {
	switch {
	case m.owner == 0:
		m.owner, m.count = tid, 1
	case m.typ == MutexRecursive:
		m.count++
	case what == "mutex":
		return fmt.Sprintf("relock of non-recursive mutex %#x (self-deadlock)", m.addr)
	default:
		return fmt.Sprintf("relock of %s %#x (self-deadlock)", what, m.addr)
	}
	return ""
}

func trylock(m *mutex, tid int) int64 {
	switch {
	case m.owner == 0:
		m.owner, m.count = tid, 1
	case m.owner == tid && m.typ == MutexRecursive:
		m.count++
	default:
		return EBUSY
	}
	return OK
}

func timedlock(m *mutex, tid int, what string) (int64, string) {
	if m.owner != 0 && m.owner != tid {
		return ETIMEDOUT, ""
	}
	return OK, lock(m, tid, what)
}

// unlock releases mutex obj of ms. It does not create the mutex: an unlock
// of an unknown mutex is a misuse, which must leave the world unchanged.
func (w *World) unlock(ms map[uint64]*mutex, obj uint64, tid int, what string) string {
	m := ms[obj]
	switch {
	case m == nil || m.owner == 0:
		return fmt.Sprintf("unlock of unlocked %s %#x", what, obj)
	case m.owner != tid:
		return fmt.Sprintf("unlock of %s %#x held by %s", what, obj, w.threadName(m.owner))
	}
	m.count--
	if m.count <= 0 {
		m.owner, m.count = 0, 0
	}
	return ""
}

func (w *World) mutexInit(ms *map[uint64]*mutex, op Op, what string) string {
	if m := (*ms)[op.Obj]; m != nil && m.owner != 0 {
		return fmt.Sprintf("init of locked %s %#x (held by %s)", what, op.Obj, w.threadName(m.owner))
	}
	put(ms, op.Obj, &mutex{addr: op.Obj, typ: mutexType(op.Arg)})
	return ""
}

func (w *World) mutexDestroy(ms map[uint64]*mutex, op Op, what string) string {
	if m := ms[op.Obj]; m != nil && m.owner != 0 {
		return fmt.Sprintf("destroy of locked %s %#x (held by %s)", what, op.Obj, w.threadName(m.owner))
	}
	delete(ms, op.Obj)
	return ""
}

func (w *World) mutexWait(m *mutex, obj, obj2 uint64, what string) Wait {
	wt := Wait{Obj: obj, Obj2: obj2, What: what}
	if m != nil && m.owner != 0 {
		wt.Holders = []int{m.owner}
		wt.Detail = "held by " + w.threadName(m.owner)
	}
	return wt
}
