// Package sthread makes Go programs checkable by stdbg: it offers drop-in
// equivalents of Go's concurrency API — Go for the go statement, Mutex,
// RWMutex, WaitGroup, Cond, Once, typed channels (Chan, MakeChan) with
// Select, plus Yield, Sleep, Choose, Assert, Read and Write — and Check,
// which explores the schedules of a function inside the test process and
// reports its concurrency bugs with the schedule that causes them.
//
// The packages under sthread mirror the standard library's, with its paths
// and names: sthread/sync (whose types this package re-exports),
// sthread/sync/atomic, sthread/time, sthread/context, sthread/runtime,
// sthread/math/rand, sthread/math/rand/v2 and sthread/testing/synctest. A
// program written for stdbg
// imports them instead of the standard packages (the atomics of
// sthread/sync/atomic, for one); stdbg find rewrites plain Go onto them.
//
// # Outside Check
//
// Every primitive passes straight through to the real one (sync.Mutex, a
// real chan, a go statement): the only extra cost is one atomic load of a
// flag, a few nanoseconds and no allocation. A program can use sthread in
// production and be checked in its tests.
//
// # Under Check
//
//	func TestTransfer(t *testing.T) {
//		sthread.Check(t, func() {
//			var mu sthread.Mutex
//			balance := 100
//			done := sthread.MakeChan[bool](0)
//			sthread.Go(func() {
//				mu.Lock()
//				balance -= 30
//				mu.Unlock()
//				done.Send(true)
//			})
//			mu.Lock()
//			balance -= 50
//			mu.Unlock()
//			done.Recv()
//			sthread.Assert(balance == 20, "lost update")
//		})
//	}
//
// Check runs the function many times, once per schedule it explores (by
// default one per class of schedules that only reorder independent
// operations, as the search's reduction finds them). Its
// goroutine is thread 1 and the goroutines it starts with Go are threads
// 2, 3, ... in creation order. Only one of them runs at a time: each sthread
// call is a scheduling point where the goroutine stops and the search
// decides who goes on. The semantics of every operation (who may go on,
// what it returns, what is a misuse) come from package syncmodel, which the
// C runtime shares.
//
// A bug fails the test with a report: the kind of bug, the schedule
// ("Path = 1;1;2"), each step with its goroutine, the function it runs, the
// operation and its source line, who waits for what, or the failing
// goroutine's stack, and the command that replays it:
//
//	STDBG_REPLAY_SCHEDULE='1;1;2' go test -run '^TestTransfer$' ./bank
//
// With that variable set (see ReplayEnv), Check runs exactly that schedule
// and shows its trace; Replay and RunSchedule do the same from code, and
// Explore returns the bugs instead of failing a test.
//
// Bugs found: deadlocks (no goroutine can go on), leaked goroutines
// (blocked for ever when the checked function returns), failed Asserts and
// failures reported through TB, panics (including those of the Go runtime),
// misuses (unlock of an unlocked Mutex, close of a closed or nil channel,
// send on a closed channel, negative WaitGroup counter, ...) and transition
// timeouts (a goroutine that runs longer than the timeout, default 5s,
// between two sthread calls).
//
// # The corpus
//
// Each bug Check finds is saved, like the failures of Go's fuzzing, as one
// JSON file (see package corpus) under testdata/stdbg/<test name>/ in the
// package directory, and the failure message names the file:
//
//	Saved testdata/stdbg/TestTransfer/deadlock-1a2b3c4d.json
//
// Every later Check of that test replays the stored schedules before any
// search. A schedule that still fails the same way (same kind of bug, same
// place) fails the test at once, with its report and the file's name; one
// that runs cleanly (the bug is fixed) or no longer fits the function
// (diverged) is logged and the search proceeds; corrupt files are logged
// and skipped. Commit the files to keep the bugs as regression tests;
// delete one to drop it. NoSave, or STDBG_NO_SAVE=1, stops the saving.
//
// To fail the check from the checked function, use Assert, or wrap the
// test's t with TB and call its Error or Fatal methods: calling t.Fatal
// directly from a checked goroutine would only be seen as a goroutine that
// ended abruptly.
//
// # Select
//
// Select takes cases made by Chan.SendCase, Chan.RecvCase and Default and
// returns the index of the case that proceeded. When several cases are
// ready, which one proceeds is a choice the search explores like a data
// choice: the schedule writes the step as thread:k, k being the index of
// the case among the ready ones.
//
// # Plain Go
//
// stdbg find checks Go that does not import sthread by rewriting it at
// build time (package goinstr) onto this package and its packages: go
// statements onto Go, main's body into Run, the uses of the standard
// library's concurrency (sync, sync/atomic, runtime.Gosched, time's sleeps,
// timers, tickers and clock, context's cancelable contexts, math/rand's
// top-level functions) onto the same names of the mirrors, and the
// language's channel operations, select statements and test functions onto
// package sthread/lang. Under Check, time is a clock of the execution that
// starts at the Epoch of sthread/time and moves only when a sleeper or a
// timer wakes, and the random numbers, and the order of ranges over maps
// (lang.MapRangeLoop), come from generators of the execution (see
// RandSeedEnv). Built with the race detector, sthread
// reports the program's data races in every explored schedule.
//
// # Rules for checked code
//
// The checked function must behave the same way under the same schedule:
// it must set up the state it checks on each run and must not depend on
// time, randomness or input between sthread calls. Shared memory accessed
// without sthread primitives is not a scheduling point: annotate it with
// Read and Write (or use the atomics of sthread/sync/atomic) to let the
// search interleave around it, and put a Yield in polling loops.
//
// Every goroutine that touches the checked function's sthread objects must
// be started with Go; a goroutine started with a go statement that does so
// stops the check with an explanation. Objects created before Check and
// used in the checked function start afresh in each execution; their state
// under Check (a Mutex locked, values in a Chan) is simulated and does not
// carry over to them outside Check. Checks run one at a time; do not call
// t.Parallel in tests that call Check.
//
// A goroutine that passes the transition timeout cannot be stopped in
// process: it is reported, keeps running in the background, and its next
// sthread call unwinds it. At the end of every execution the goroutines
// still blocked are unwound (their sthread call panics with a value
// sthread recovers), so that their deferred calls run and nothing of one
// execution survives into the next.
package sthread
