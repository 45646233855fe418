package rt

import "reflect"

// What a checked test does through its *testing.T that runs code on
// goroutines of package testing: a subtest (t.Run runs its function on a
// goroutine of its own and waits for it) and the cleanups of a test
// (t.Cleanup, run by package testing once the test is over, which under a
// check is once the whole search is over).

// Lent is how a function run by Lend ended.
type Lent struct {
	abort    bool // the execution was unwound
	panicked bool // f panicked with value
	value    any
}

// Lend runs f on the calling goroutine as the checked thread th, whose own
// goroutine waits for it meanwhile outside any sthread call (in t.Run,
// waiting for the subtest whose function f is): f's operations are th's,
// scheduled as they would be on th's goroutine. What ended f (the
// execution unwound, a panic) is given back for Lent.Resume on th's own
// goroutine; a runtime.Goexit of f (t.FailNow) ends the calling goroutine
// as it would without Lend. Meanwhile th's goroutine id (Execution.Thread,
// the stack of a thread that does not come back) is the calling
// goroutine's, where a debugger finds th's operations, and the function
// it shows th running when no frame of the user's is on that stack is
// user, the user's function that f runs (the subtest's).
//
//go:norace
func (th *Thread) Lend(user any, f func()) (l Lent) {
	own, ownID, ownFn := th.g.Load(), th.goid.Load(), th.lentFn
	th.g.Store(getg())
	th.goid.Store(goid())
	th.lentFn = reflect.ValueOf(user).Pointer()
	defer func() {
		th.g.Store(own)
		th.goid.Store(ownID)
		th.lentFn = ownFn
		if p := recover(); p != nil {
			if _, ok := p.(abortSignal); ok {
				l.abort = true
				if raceOn && raceHide && th.raceOff {
					// Unwound from a scheduling point, where this
					// goroutine stopped reporting synchronisation:
					// it goes on in package testing (which reports
					// the subtest with package fmt and signals the
					// lending goroutine), and reports it again.
					// The lending goroutine did not stop.
					raceEnable()
					th.raceOff = false
				}
			} else {
				l.panicked, l.value = true, p
			}
		}
	}()
	f()
	return l
}

// Resume goes on, on the lending thread's own goroutine, as the lent
// function ended: it unwinds the execution or panics again as it did.
//
//go:norace
func (l Lent) Resume() {
	switch {
	case l.abort:
		panic(abortSignal{})
	case l.panicked:
		panic(l.value)
	}
}

// Cleanup registers f to run, in the execution of the calling checked
// goroutine, when test (the *testing.T of the checked test or of one of
// its subtests) ends: RunCleanups. It reports false outside a check.
//
//go:norace
func Cleanup(test any, f func()) bool {
	th, ok := Current()
	if !ok {
		return false
	}
	ex := th.ex
	if ex.cleanups == nil {
		ex.cleanups = map[any][]func(){}
	}
	ex.cleanups[test] = append(ex.cleanups[test], f)
	return true
}

// RunCleanups runs the cleanups registered for test in the execution of the
// calling checked goroutine, the last registered first, as package testing
// runs a test's cleanups when it ends.
//
//go:norace
func RunCleanups(test any) {
	th, ok := Current()
	if !ok {
		return
	}
	ex := th.ex
	for {
		fs := ex.cleanups[test]
		if len(fs) == 0 {
			delete(ex.cleanups, test)
			return
		}
		f := fs[len(fs)-1]
		ex.cleanups[test] = fs[:len(fs)-1]
		f()
	}
}
