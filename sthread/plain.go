package sthread

import (
	"iter"
	"testing"
	"unsafe"

	"github.com/stdbg/stdbg/syncmodel"
)

// This file is the API that stdbg's build-time instrumentation (package
// goinstr) rewrites plain Go onto: operations on real chan T values, select
// statements, go statements and test functions. Programs that import
// sthread themselves use Chan, Select and Go instead.
//
// A real channel keeps its type: under Check its state (buffer, closed,
// waiters) lives in the model, keyed by the channel's identity, and values
// sent under Check never enter the real channel. Outside Check every
// function performs the real operation.

// plainChan returns the Chan that stands for the real channel c in the
// running execution, or ok false when c's operations pass through.
//
//go:norace
func plainChan[T any](c chan T) (Chan[T], bool) {
	if !hooked.Load() {
		return Chan[T]{}, false
	}
	r := checking.Load()
	if r == nil {
		return Chan[T]{}, false
	}
	ex := r.ex.Load()
	if ex == nil {
		return Chan[T]{}, false
	}
	if c == nil {
		return Chan[T]{}, true
	}
	key := uint64(uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&c))))
	if p := ex.plain.get(key); p != nil {
		return Chan[T]{c: c, s: (*chanState[T])(p)}, true
	}
	s := &chanState[T]{cap: cap(c)}
	// The entry keeps the channel alive: its address names it for the
	// whole execution.
	ex.plain.put(key, unsafe.Pointer(s), c)
	return Chan[T]{c: c, s: s}, true
}

// bidi returns c as a bidirectional channel: a channel's direction is a
// property of its type, not of the value.
//
//go:norace
func bidi[T any, C ~chan<- T | ~<-chan T | ~chan T](c C) chan T {
	return *(*chan T)(unsafe.Pointer(&c))
}

// ChanSend is the statement c <- v.
//
//go:noinline
//go:norace
func ChanSend[T any](c chan<- T, v T) {
	if pc, ok := plainChan(bidi[T](c)); ok {
		pc.Send(v)
		return
	}
	c <- v
}

// ChanRecv is the expression <-c.
//
//go:noinline
//go:norace
func ChanRecv[T any](c <-chan T) T {
	if pc, ok := plainChan(bidi[T](c)); ok {
		return pc.Recv()
	}
	return <-c
}

// ChanRecv2 is the assignment v, ok := <-c.
//
//go:noinline
//go:norace
func ChanRecv2[T any](c <-chan T) (T, bool) {
	if pc, ok := plainChan(bidi[T](c)); ok {
		return pc.Recv2()
	}
	v, ok := <-c
	return v, ok
}

// ChanClose is close(c).
//
//go:noinline
//go:norace
func ChanClose[T any](c chan<- T) {
	if pc, ok := plainChan(bidi[T](c)); ok {
		pc.Close()
		return
	}
	close(c)
}

// ChanLen is len(c).
//
//go:noinline
//go:norace
func ChanLen[T any](c <-chan T) int {
	if pc, ok := plainChan(bidi[T](c)); ok {
		return pc.Len()
	}
	return len(c)
}

// ChanRange is the range clause of for v := range c.
//
//go:noinline
//go:norace
func ChanRange[T any](c <-chan T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for {
			v, ok := chanRecvRange(c)
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// chanRecvRange is ChanRecv2 for ChanRange, reported as a range.
//
//go:noinline
//go:norace
func chanRecvRange[T any](c <-chan T) (T, bool) {
	if pc, ok := plainChan(bidi[T](c)); ok {
		if v, ok, checked := pc.recvChecked(syncmodel.APIChanRange); checked {
			return v, ok
		}
	}
	v, ok := <-c
	return v, ok
}

// A PlainCase is one communication case of a select statement on real
// channels, made by RecvCaseOf or SendCaseOf and run by SelectOf.
type PlainCase interface {
	selectCase() SelectCase
}

// RecvCase is the case <-c of a select statement; after SelectOf chose it,
// Value returns what it received.
type RecvCase[T any] struct {
	c  chan T
	v  T
	ok bool
}

// RecvCaseOf returns the case that receives from c.
//
//go:noinline
//go:norace
func RecvCaseOf[T any](c <-chan T) *RecvCase[T] { return &RecvCase[T]{c: bidi[T](c)} }

// Value returns the value received and whether it was sent (false: the
// channel was closed), like v, ok := <-c.
//
//go:norace
func (rc *RecvCase[T]) Value() (T, bool) { return rc.v, rc.ok }

// Val returns the value received, like v := <-c.
//
//go:norace
func (rc *RecvCase[T]) Val() T { return rc.v }

//go:norace
func (rc *RecvCase[T]) selectCase() SelectCase {
	pc, ok := plainChan(rc.c)
	if !ok {
		pc = Chan[T]{c: rc.c}
	}
	return pc.RecvCase(&rc.v, &rc.ok)
}

// SendCase is the case c <- v of a select statement.
type SendCase[T any] struct {
	c chan T
	v T
}

// SendCaseOf returns the case that sends v on c.
//
//go:noinline
//go:norace
func SendCaseOf[T any](c chan<- T, v T) *SendCase[T] { return &SendCase[T]{c: bidi[T](c), v: v} }

//go:norace
func (sc *SendCase[T]) selectCase() SelectCase {
	pc, ok := plainChan(sc.c)
	if !ok {
		pc = Chan[T]{c: sc.c}
	}
	return pc.SendCase(sc.v)
}

// SelectOf runs a select statement: it returns the index of the case that
// proceeded, or -1 for the default case when hasDefault is set and no case
// can proceed.
//
//go:norace
func SelectOf(hasDefault bool, cases ...PlainCase) int {
	sc := make([]SelectCase, 0, len(cases)+1)
	for _, c := range cases {
		sc = append(sc, c.selectCase())
	}
	if hasDefault {
		sc = append(sc, Default())
	}
	i := Select(sc...)
	if i == len(cases) {
		return -1
	}
	return i
}

// CheckTest runs the body of a plain test function: under stdbg find it is
// one execution of body, like Check; elsewhere it runs body once. A test
// marked failed (t.Error) when body returns is reported as an assertion
// failure.
//
//go:norace
func CheckTest(t *testing.T, body func()) {
	t.Helper()
	if !remote() && !searching() {
		body()
		return
	}
	Check(t, func() {
		// A test that failed before this execution (the testing package
		// fails a test once the race detector reported a race, found
		// by an earlier execution) says nothing of this one.
		failed := t.Failed()
		returned := false
		defer func() {
			if !returned && t.Skipped() {
				// t.Skip ended the body with runtime.Goexit: the
				// execution ends as if it returned.
				skipping()
			}
		}()
		body()
		returned = true
		if !failed && t.Failed() {
			Assert(false, "the test failed (t.Error or t.Fail)")
		}
	}, func(c *config) { c.shown = body })
}

// skipping records that the checked test, running in the calling thread,
// skipped itself.
//
//go:norace
func skipping() {
	if th, ok := checkedThread(); ok && th.tid == 1 {
		th.ex.skipped = true
	}
}
