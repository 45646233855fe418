package lang

import (
	"iter"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// ChanSend is the statement c <- v.
//
//go:noinline
//go:norace
func ChanSend[T any](c chan<- T, v T) {
	if pc, ok := rt.PlainChan(rt.Bidi[T](c)); ok {
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
//go:norace
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
