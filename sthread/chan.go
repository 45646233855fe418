package sthread

import (
	"iter"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Chan is a channel of T values, a drop-in replacement for chan T: a small
// value that is copied freely and compared with ==, whose zero value is the
// nil channel (its operations block for ever, and closing it panics). Make
// one with MakeChan.
//
// Outside Check a Chan is a real channel. Under Check its operations are
// scheduling points run by the model: a send or receive that cannot
// proceed parks the goroutine (a second scheduling point wakes it), and
// sends on a closed channel and closes of closed or nil channels are
// reported as misuses before they would panic. Values sent under Check stay
// within the execution: they are not sent on the real channel.
type Chan[T any] struct{ c rt.Chan[T] }

// MakeChan returns a new channel with room for capacity values (0: an
// unbuffered channel), like make(chan T, capacity). It panics if capacity
// is negative.
//
//go:norace
func MakeChan[T any](capacity int) Chan[T] { return Chan[T]{rt.MakeChan[T](capacity)} }

// The operations that are scheduling points are not inlined into their
// caller (a generic function is compiled with its caller's package, whose
// inlining stdbg does not turn off): the user's call keeps the user's line
// in the binary's line table, where a checker in another process finds the
// operation's place.

// Send sends v on c, like c <- v.
//
//go:noinline
//go:norace
func (c Chan[T]) Send(v T) { c.c.Send(v) }

// Recv receives a value from c, like <-c: the zero value once c is closed
// and empty.
//
//go:noinline
//go:norace
func (c Chan[T]) Recv() T { return c.c.Recv() }

// Recv2 receives a value from c, like v, ok := <-c: ok is false if the
// value is the zero value received because c is closed and empty.
//
//go:noinline
//go:norace
func (c Chan[T]) Recv2() (T, bool) { return c.c.Recv2() }

// Close closes c, like close(c): receivers get the values left, then the
// zero value. It panics if c is nil or already closed.
//
//go:noinline
//go:norace
func (c Chan[T]) Close() { c.c.Close() }

// Len returns the number of values in c's buffer, like len(c).
//
//go:noinline
//go:norace
func (c Chan[T]) Len() int { return c.c.Len() }

// Cap returns the capacity of c, like cap(c).
//
//go:norace
func (c Chan[T]) Cap() int { return cap(c.c.C) }

// All returns an iterator over the values received from c until it is
// closed, like for v := range c:
//
//	for v := range ch.All() { ... }
//
//go:norace
func (c Chan[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for {
			v, ok := c.c.RecvRange()
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// SendCase returns the case of a Select that sends v on c, like case c <- v.
//
//go:norace
func (c Chan[T]) SendCase(v T) SelectCase { return c.c.SendCase(v) }

// RecvCase returns the case of a Select that receives from c, like case
// *v, *ok = <-c. v and ok may be nil to discard them.
//
//go:norace
func (c Chan[T]) RecvCase(v *T, ok *bool) SelectCase { return c.c.RecvCase(v, ok) }

// SelectCase is one case of a Select: a send (Chan.SendCase), a receive
// (Chan.RecvCase) or the default case (Default).
type SelectCase = rt.Case

// Default returns the default case of a Select, which runs when no other
// case can proceed.
//
//go:norace
func Default() SelectCase { return rt.Default() }

// Select waits until one of the cases can proceed, performs it and returns
// its index in cases, like a select statement; when several can, it picks
// one (under Check, the search tries each in turn). With a Default case it
// does not wait. Without cases it blocks for ever. The values to send and
// the channels are those given to the cases, evaluated when the cases were
// made, as Go evaluates them on entering the select:
//
//	var v int
//	switch sthread.Select(results.RecvCase(&v, nil), done.RecvCase(nil, nil)) {
//	case 0:
//		use(v)
//	case 1:
//		return
//	}
//
// It panics if there is more than one Default case.
//
//go:norace
func Select(cases ...SelectCase) int { return rt.Select(cases) }
