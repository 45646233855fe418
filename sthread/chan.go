package sthread

import (
	"iter"
	"unsafe"

	"github.com/stdbg/stdbg/syncmodel"
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
type Chan[T any] struct {
	c chan T
	s *chanState[T]
}

// chanState is a channel's state under the checker.
type chanState[T any] struct {
	ref  objRef
	cap  int
	gen  uint32 // the execution whose values buf holds
	buf  []T    // the values in the buffer, oldest first, from head
	head int
}

// MakeChan returns a new channel with room for capacity values (0: an
// unbuffered channel), like make(chan T, capacity). It panics if capacity
// is negative.
//
//go:norace
func MakeChan[T any](capacity int) Chan[T] {
	return Chan[T]{c: make(chan T, capacity), s: &chanState[T]{cap: capacity}}
}

// Send sends v on c, like c <- v.
//
//go:norace
func (c Chan[T]) Send(v T) {
	if hooked.Load() && c.sendChecked(v) {
		return
	}
	c.c <- v
}

// Recv receives a value from c, like <-c: the zero value once c is closed
// and empty.
//
//go:norace
func (c Chan[T]) Recv() T {
	if hooked.Load() {
		if v, _, ok := c.recvChecked(syncmodel.APIChanRecv); ok {
			return v
		}
	}
	return <-c.c
}

// Recv2 receives a value from c, like v, ok := <-c: ok is false if the
// value is the zero value received because c is closed and empty.
//
//go:norace
func (c Chan[T]) Recv2() (T, bool) {
	if hooked.Load() {
		if v, ok, checked := c.recvChecked(syncmodel.APIChanRecv2); checked {
			return v, ok
		}
	}
	v, ok := <-c.c
	return v, ok
}

// Close closes c, like close(c): receivers get the values left, then the
// zero value. It panics if c is nil or already closed.
//
//go:norace
func (c Chan[T]) Close() {
	if hooked.Load() && c.simple(syncmodel.ChanClose, syncmodel.APIChanClose) >= 0 {
		return
	}
	close(c.c)
}

// Len returns the number of values in c's buffer, like len(c).
//
//go:norace
func (c Chan[T]) Len() int {
	if hooked.Load() {
		if n := c.simple(syncmodel.ChanLen, syncmodel.APIChanLen); n >= 0 {
			return int(n)
		}
	}
	return len(c.c)
}

// Cap returns the capacity of c, like cap(c).
//
//go:norace
func (c Chan[T]) Cap() int { return cap(c.c) }

// All returns an iterator over the values received from c until it is
// closed, like for v := range c:
//
//	for v := range ch.All() { ... }
//
//go:norace
func (c Chan[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for {
			var v T
			var ok, checked bool
			if hooked.Load() {
				v, ok, checked = c.recvChecked(syncmodel.APIChanRange)
			}
			if !checked {
				v, ok = <-c.c
			}
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// enter is enter for c; a nil channel has id 0.
//
//go:norace
func (c Chan[T]) enter() (*thread, uint64, bool) {
	if c.s == nil {
		th, ok := enterFree()
		return th, 0, ok
	}
	return enter(&c.s.ref, famChan, unsafe.Pointer(c.s))
}

// op returns the model operation k on c.
//
//go:norace
func (c Chan[T]) op(k syncmodel.Kind, api syncmodel.API, id uint64) syncmodel.Op {
	return syncmodel.Op{Kind: k, API: api, Obj: id, Arg: int64(cap(c.c))}
}

// simple performs Close or Len under the checker and returns the result,
// or -1 when the operation passes through.
//
//go:norace
func (c Chan[T]) simple(k syncmodel.Kind, api syncmodel.API) int64 {
	th, id, ok := c.enter()
	if !ok {
		return -1
	}
	return th.point(c.op(k, api, id))
}

//go:norace
func (c Chan[T]) sendChecked(v T) bool {
	th, id, ok := c.enter()
	if !ok {
		return false
	}
	var buf [framesCap]uintptr
	op := c.op(syncmodel.ChanSend, syncmodel.APIChanSend, id)
	r := syncmodel.DecodeChanResult(th.pointAt(op, th.capture(buf[:])))
	switch r.Via {
	case syncmodel.ViaBuffer:
		c.s.push(th.ex, v)
	case syncmodel.ViaPartner:
		th.ex.threads[r.Partner-1].recvVal = v
	case syncmodel.ViaParked:
		th.sendVal = v
		op.Kind = syncmodel.ChanWake
		th.again(op)
		th.sendVal = nil
	}
	return true
}

// recvChecked receives under the checker; checked is false when the
// receive passes through.
//
//go:norace
func (c Chan[T]) recvChecked(api syncmodel.API) (v T, ok, checked bool) {
	th, id, in := c.enter()
	if !in {
		return v, false, false
	}
	var buf [framesCap]uintptr
	op := c.op(syncmodel.ChanRecv, api, id)
	ex := th.ex
	r := syncmodel.DecodeChanResult(th.pointAt(op, th.capture(buf[:])))
	switch r.Via {
	case syncmodel.ViaBuffer:
		v = c.s.pop(ex)
		if r.Partner != 0 {
			c.s.push(ex, partnerValue[T](ex, r.Partner, r.PartnerCase))
		}
		ok = true
	case syncmodel.ViaPartner:
		v, ok = partnerValue[T](ex, r.Partner, r.PartnerCase), true
	case syncmodel.ViaParked:
		op.Kind = syncmodel.ChanWake
		r = syncmodel.DecodeChanResult(th.again(op))
		if r.OK {
			v, _ = th.recvVal.(T)
			ok = true
		}
		th.recvVal = nil
	}
	return v, ok, true
}

// partnerValue is the value that parked thread tid sends through its case
// cas (its only one for a plain send).
//
//go:norace
func partnerValue[T any](ex *execution, tid, cas int) T {
	p := ex.threads[tid-1]
	x := p.sendVal
	if p.selVals != nil {
		x = p.selVals[cas]
	}
	v, _ := x.(T)
	return v
}

// sync empties the buffer if it holds the values of another execution.
//
//go:norace
func (s *chanState[T]) sync(ex *execution) {
	if s.gen != ex.gen {
		clear(s.buf)
		s.buf, s.head, s.gen = s.buf[:0], 0, ex.gen
	}
}

//go:norace
func (s *chanState[T]) push(ex *execution, v T) {
	s.sync(ex)
	if s.head > 0 && len(s.buf) == cap(s.buf) {
		n := copy(s.buf, s.buf[s.head:])
		clear(s.buf[n:])
		s.buf, s.head = s.buf[:n], 0
	}
	s.buf = append(s.buf, v)
}

//go:norace
func (s *chanState[T]) pop(ex *execution) T {
	s.sync(ex)
	var zero T
	if s.head >= len(s.buf) {
		return zero // the model and the buffer disagree: cannot happen
	}
	v := s.buf[s.head]
	s.buf[s.head] = zero
	s.head++
	return v
}

// chanCore is what a select case needs of a channel under the checker.
type chanCore interface {
	// model returns the channel's id in ex (registering it) and capacity.
	model(ex *execution) (uint64, int64)
	pushAny(ex *execution, v any)
	popAny(ex *execution) any
	partnerAny(ex *execution, tid, cas int) any
}

//go:norace
func (s *chanState[T]) model(ex *execution) (uint64, int64) {
	return s.ref.id(ex, famChan, unsafe.Pointer(s)), int64(s.cap)
}

//go:norace
func (s *chanState[T]) pushAny(ex *execution, v any) {
	x, _ := v.(T)
	s.push(ex, x)
}

//go:norace
func (s *chanState[T]) popAny(ex *execution) any { return s.pop(ex) }

//go:norace
func (s *chanState[T]) partnerAny(ex *execution, tid, cas int) any {
	return partnerValue[T](ex, tid, cas)
}
