package lang

import (
	"iter"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// ChanSend is the statement c <- v.
//
// It is seen by the race detector, unlike sthread's other functions: its
// frame puts the program's line in the detector's stacks of the access to
// the channel that Go's send makes (see sthread/internal/rt's race.go),
// and so do Sender.Send's, ChanClose's and SelectOf's.
//
//go:noinline
func ChanSend[T any](c chan<- T, v T) {
	if pc, ok := rt.PlainChan(rt.Bidi[T](c)); ok {
		pc.Send(v)
		return
	}
	c <- v
}

// A Sender is a channel to send on, as SendTo returns it. Its methods
// take the value as the channel's element type, so that a value of another
// type assignable to it converts as the send statement converts it: a *T
// sent on a chan I, I an interface that *T implements, for which
// ChanSend(c, v) would infer *T and I for its one type parameter.
type Sender[T any] struct{ c chan<- T }

// SendTo returns c to send on: SendTo(c).Send(v) is the statement c <- v,
// and SendTo(c).Case(v) the case c <- v of a select statement.
//
//go:noinline
//go:norace
func SendTo[T any](c chan<- T) Sender[T] { return Sender[T]{c} }

// Send is the statement c <- v.
//
//go:noinline
func (s Sender[T]) Send(v T) {
	if pc, ok := rt.PlainChan(rt.Bidi[T](s.c)); ok {
		pc.Send(v)
		return
	}
	s.c <- v
}

// Case is the case c <- v of a select statement (SendCaseOf).
//
//go:noinline
//go:norace
func (s Sender[T]) Case(v T) *SendCase[T] { return &SendCase[T]{c: rt.Bidi[T](s.c), v: v} }

// ChanRecv is the expression <-c.
//
//go:noinline
//go:norace
func ChanRecv[T any](c <-chan T) T {
	if pc, ok := rt.PlainChan(rt.Bidi[T](c)); ok {
		return pc.Recv()
	}
	return <-c
}

// ChanRecv2 is the assignment v, ok := <-c.
//
//go:noinline
//go:norace
func ChanRecv2[T any](c <-chan T) (T, bool) {
	if pc, ok := rt.PlainChan(rt.Bidi[T](c)); ok {
		return pc.Recv2()
	}
	v, ok := <-c
	return v, ok
}

// ChanClose is close(c).
//
//go:noinline
func ChanClose[T any](c chan<- T) {
	if pc, ok := rt.PlainChan(rt.Bidi[T](c)); ok {
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
	if pc, ok := rt.PlainChan(rt.Bidi[T](c)); ok {
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
	if pc, ok := rt.PlainChan(rt.Bidi[T](c)); ok {
		return pc.RecvRange()
	}
	v, ok := <-c
	return v, ok
}
