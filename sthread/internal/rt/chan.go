package rt

import (
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// A Chan is a channel as the runtime runs it: C is the real channel,
// whose operations are performed outside a check; S its state under the
// checker (nil for the nil channel). Under a check its operations are
// scheduling points run by the model: a send or receive that cannot proceed
// parks the goroutine (a second scheduling point wakes it), and sends on a
// closed channel and closes of closed or nil channels are reported as
// misuses before they would panic. Values sent under a check stay within
// the execution: they are not sent on the real channel.
//
// Package sthread's Chan is one; the real channels of plain Go get one
// from PlainChan.
type Chan[T any] struct {
	C chan T
	S *ChanState[T]
}

// ChanState is a channel's state under the checker.
type ChanState[T any] struct {
	ref  ObjRef
	info plainInfo // a real channel of plain Go: the real channel (see outside.go)
	cap  int
	gen  uint32 // the execution whose values buf holds
	buf  []T    // the values in the buffer, oldest first, from head
	head int
}

// MakeChan returns a new channel with room for capacity values, like
// make(chan T, capacity). It panics if capacity is negative.
//
//go:norace
func MakeChan[T any](capacity int) Chan[T] {
	return Chan[T]{C: make(chan T, capacity), S: &ChanState[T]{cap: capacity}}
}

// Send sends v on c, like c <- v.
//
//go:norace
func (c Chan[T]) Send(v T) {
	if hooked.Load() && c.sendChecked(v) {
		return
	}
	c.C <- v
}

// Recv receives a value from c, like <-c.
//
//go:norace
func (c Chan[T]) Recv() T {
	if hooked.Load() {
		if v, _, ok := c.RecvChecked(syncmodel.APIChanRecv); ok {
			return v
		}
	}
	return <-c.C
}

// Recv2 receives a value from c, like v, ok := <-c.
//
//go:norace
func (c Chan[T]) Recv2() (T, bool) {
	if hooked.Load() {
		if v, ok, checked := c.RecvChecked(syncmodel.APIChanRecv2); checked {
			return v, ok
		}
	}
	v, ok := <-c.C
	return v, ok
}

// Close closes c, like close(c). It panics, as Go does, if c is nil or
// closed.
//
//go:norace
func (c Chan[T]) Close() {
	if hooked.Load() {
		if code := c.simple(syncmodel.ChanClose, syncmodel.APIChanClose); code >= 0 {
			if syncmodel.DecodeChanResult(code).Via == syncmodel.ViaPanic {
				th, _ := Current()
				th.chanPanic(panicClose, c.ID(th))
			}
			return
		}
	}
	close(c.C)
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
	return len(c.C)
}

// RecvRange receives a value from c for a range loop, like v, ok := <-c.
//
//go:norace
func (c Chan[T]) RecvRange() (T, bool) {
	if hooked.Load() {
		if v, ok, checked := c.RecvChecked(syncmodel.APIChanRange); checked {
			return v, ok
		}
	}
	v, ok := <-c.C
	return v, ok
}

// Enter is Enter for c; a nil channel has id 0.
//
//go:norace
func (c Chan[T]) Enter() (*Thread, uint64, bool) {
	if c.S == nil {
		th, ok := EnterFree()
		return th, 0, ok
	}
	th, id, ok := Enter(&c.S.ref, FamChan, unsafe.Pointer(c.S))
	if ok {
		c.S.info.attach(th.ex, id)
	}
	return th, id, ok
}

// Op returns the model operation k on c, whose id is id.
//
//go:norace
func (c Chan[T]) Op(k syncmodel.Kind, api syncmodel.API, id uint64) syncmodel.Op {
	return syncmodel.Op{Kind: k, API: api, Obj: id, Arg: int64(cap(c.C))}
}

// ID returns the model's id of c in the execution of th (registering it),
// 0 for the nil channel.
//
//go:norace
func (c Chan[T]) ID(th *Thread) uint64 {
	if c.S == nil {
		return 0
	}
	id, _ := c.S.model(th.ex)
	return id
}

// simple performs Close or Len under the checker and returns the result,
// or -1 when the operation passes through.
//
//go:norace
func (c Chan[T]) simple(k syncmodel.Kind, api syncmodel.API) int64 {
	th, id, ok := c.Enter()
	if !ok {
		return -1
	}
	return th.Point(c.Op(k, api, id))
}

//go:norace
func (c Chan[T]) sendChecked(v T) bool {
	th, id, ok := c.Enter()
	if !ok {
		return false
	}
	var buf [FramesCap]uintptr
	op := c.Op(syncmodel.ChanSend, syncmodel.APIChanSend, id)
	r := syncmodel.DecodeChanResult(th.PointAt(op, th.Capture(buf[:])))
	switch r.Via {
	case syncmodel.ViaBuffer:
		c.S.push(th.ex, v)
	case syncmodel.ViaPartner:
		th.ex.threads[r.Partner-1].recvVal = v
	case syncmodel.ViaParked:
		th.sendVal = v
		op.Kind = syncmodel.ChanWake
		r = syncmodel.DecodeChanResult(th.Again(op))
		th.sendVal = nil
	}
	if r.Via == syncmodel.ViaPanic {
		th.chanPanic(panicSend, id)
	}
	return true
}

// The panics of channel operations that the model says panic (ViaPanic).
const (
	panicSend = iota + 1
	panicClose
)

// chanPanic raises the panic Go raises for a send on a closed channel
// (what panicSend), or for a close of a channel (id 0: nil) that is nil or
// closed, by doing the same to a channel of its own: the program gets Go's
// own value (a runtime.Error), which a deferred recover may take. If
// nothing does, the report says it as Go does, naming the channel (see
// panicFailure).
//
//go:noinline
//go:norace
func (th *Thread) chanPanic(what int, id uint64) {
	defer func() {
		p := recover()
		th.panicVal, th.panicObj = p, id
		panic(p)
	}()
	var c chan struct{}
	if id != 0 {
		c = make(chan struct{})
		close(c)
	}
	if what == panicSend {
		c <- struct{}{}
	}
	close(c)
}

// RecvChecked receives under the checker, reported as api; checked is
// false when the receive passes through.
//
//go:norace
func (c Chan[T]) RecvChecked(api syncmodel.API) (v T, ok, checked bool) {
	th, id, in := c.Enter()
	if !in {
		return v, false, false
	}
	var buf [FramesCap]uintptr
	op := c.Op(syncmodel.ChanRecv, api, id)
	ex := th.ex
	r := syncmodel.DecodeChanResult(th.PointAt(op, th.Capture(buf[:])))
	switch r.Via {
	case syncmodel.ViaBuffer:
		v = c.S.pop(ex)
		if r.Partner != 0 {
			c.S.push(ex, partnerValue[T](ex, r.Partner, r.PartnerCase))
		}
		ok = true
	case syncmodel.ViaPartner:
		v, ok = partnerValue[T](ex, r.Partner, r.PartnerCase), true
	case syncmodel.ViaParked:
		op.Kind = syncmodel.ChanWake
		r = syncmodel.DecodeChanResult(th.Again(op))
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
func partnerValue[T any](ex *Execution, tid, cas int) T {
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
func (s *ChanState[T]) sync(ex *Execution) {
	if s.gen != ex.gen {
		zero(s.buf)
		s.buf, s.head, s.gen = s.buf[:0], 0, ex.gen
	}
}

// The buffer is the runtime's own memory, which the goroutines of an
// execution share: it is moved and cleared by hand, in functions that the
// race detector does not see (copy and clear would tell it of their
// writes), and covered by rtnames.RaceSuppressions besides.

//go:norace
func (s *ChanState[T]) push(ex *Execution, v T) {
	s.sync(ex)
	if s.head > 0 && len(s.buf) == cap(s.buf) {
		n := len(s.buf) - s.head
		for i := 0; i < n; i++ {
			s.buf[i] = s.buf[s.head+i]
		}
		zero(s.buf[n:])
		s.buf, s.head = s.buf[:n], 0
	}
	s.buf = append(s.buf, v)
}

// zero sets the elements of b to T's zero value.
//
//go:norace
func zero[T any](b []T) {
	var z T
	for i := range b {
		b[i] = z
	}
}

//go:norace
func (s *ChanState[T]) pop(ex *Execution) T {
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
	model(ex *Execution) (uint64, int64)
	pushAny(ex *Execution, v any)
	popAny(ex *Execution) any
	partnerAny(ex *Execution, tid, cas int) any
}

//go:norace
func (s *ChanState[T]) model(ex *Execution) (uint64, int64) {
	id := s.ref.id(ex, FamChan, unsafe.Pointer(s))
	s.info.attach(ex, id)
	return id, int64(s.cap)
}

//go:norace
func (s *ChanState[T]) pushAny(ex *Execution, v any) {
	x, _ := v.(T)
	s.push(ex, x)
}

//go:norace
func (s *ChanState[T]) popAny(ex *Execution) any { return s.pop(ex) }

//go:norace
func (s *ChanState[T]) partnerAny(ex *Execution, tid, cas int) any {
	return partnerValue[T](ex, tid, cas)
}
