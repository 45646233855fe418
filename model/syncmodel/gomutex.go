package syncmodel

import "fmt"

// goMutexState is the world's Go mutexes, by object.
type goMutexState struct {
	gomutexes map[uint64]*gomutex
}

// gomutex is a Go sync.Mutex. Go mutexes have no owner: any thread may
// unlock a locked one; holder only says who locked it, for explanations.
type gomutex struct {
	holder int // 0 when unlocked
}

// goMutexPrim is the primitive of Go's sync.Mutex. Unlocking a mutex
// locked by another thread is allowed; unlocking an unlocked one is a
// misuse; locking a mutex the thread holds blocks for ever.
type goMutexPrim struct{ basePrim }

func (*goMutexPrim) kinds() []kindSpec {
	return []kindSpec{{kind: GoMutexLock}, {kind: GoMutexTryLock}, {kind: GoMutexUnlock, precedes: true}}
}

func (*goMutexPrim) enabled(w *World, _ int, op *Op) bool {
	return op.Kind != GoMutexLock || w.goMutexFree(op.Obj)
}

func (*goMutexPrim) exec(w *World, tid int, op *Op, _ int) (Result, string, error) {
	var (
		code int64
		msg  string
	)
	switch op.Kind {
	case GoMutexLock:
		w.goMutex(op.Obj).holder = tid
	case GoMutexTryLock:
		code = w.goMutexTryLock(tid, op.Obj)
	case GoMutexUnlock:
		msg = w.goMutexUnlock(op.Obj)
	}
	return done(code, msg)
}

func (*goMutexPrim) waitFor(w *World, _ int, op *Op) Wait { return w.goMutexWait(op.Obj) }

// mustPrecede: an unlock, and a lock that waits (the mutex is held until
// then).
func (*goMutexPrim) mustPrecede(_ int, a *Op, _ int, b *Op) bool {
	return a.Kind == GoMutexUnlock && b.Kind == GoMutexLock && b.Obj == a.Obj
}

func (*goMutexPrim) fingerprint(w *World, f fp) fp {
	for _, k := range sortedKeys(w.gomutexes) {
		if m := w.gomutexes[k]; m.holder != 0 {
			f.u(k)
			f.n(m.holder)
		}
	}
	return f
}

func (*goMutexPrim) clone(dst, src *World) { dst.gomutexes = cloneMap(src.gomutexes, copyOf[gomutex]) }

func (*goMutexPrim) reset(w *World) { w.goMutexState = goMutexState{gomutexes: keepMap(w.gomutexes)} }

// goMutexFree reports whether Go mutex obj is unlocked.
func (w *World) goMutexFree(obj uint64) bool {
	m := w.gomutexes[obj]
	return m == nil || m.holder == 0
}

func (w *World) goMutex(obj uint64) *gomutex {
	m := w.gomutexes[obj]
	if m == nil {
		m = &gomutex{}
		put(&w.gomutexes, obj, m)
	}
	return m
}

func (w *World) goMutexTryLock(tid int, obj uint64) int64 {
	m := w.goMutex(obj)
	if m.holder != 0 {
		return 0
	}
	m.holder = tid
	return 1
}

func (w *World) goMutexUnlock(obj uint64) string {
	m := w.gomutexes[obj]
	if m == nil || m.holder == 0 {
		return fmt.Sprintf("unlock of unlocked mutex %#x", obj)
	}
	m.holder = 0
	return ""
}

func (w *World) goMutexWait(obj uint64) Wait {
	m := w.gomutexes[obj]
	return Wait{Obj: obj, What: "mutex", Holders: []int{m.holder}, Detail: "held by " + w.threadName(m.holder)}
}
