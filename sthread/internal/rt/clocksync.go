package rt

import (
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
)

// The logical clock of readings (see clock.go): what each operation of
// the program passes on. A goroutine's count (Thread.clk) goes into the
// objects it releases and comes out of those it acquires, along the edges
// of Go's memory model that the model's dependency relation orders:
//
//   - a mutex's Unlock releases it, and a Lock (or a TryLock that took it)
//     acquires it; a Go condition wait unlocks and relocks its mutex;
//   - an RWMutex's RUnlock releases its readers' side, which the drain of a
//     writer's Lock acquires; its Unlock releases its writers' side, which
//     RLock, TryRLock and the announcement of a Lock acquire;
//   - a wait group's decrement releases it, and a Wait that returns
//     acquires it;
//   - a Once's initialiser releases it as it ends, and a Do that finds it
//     done acquires it;
//   - an atomic load (a Read) acquires its address, and the other atomic
//     operations (Writes) acquire and release it;
//   - a channel's values carry the count of their sender, which their
//     receiver acquires; the two sides of an exchange with a parked
//     goroutine pass their counts as the memory model orders them; a close
//     releases the channel's closing, which a receive that finds it closed
//     acquires;
//   - a go statement gives the new goroutine its creator's count.
//
// Operations that the model takes for independent do not both touch one
// of these (two RLocks, two decrements of a wait group, a buffered send
// and a receive of another value), so their order changes no count: the
// counts, and the times read, are those of the execution's happens-before
// order, the same in every schedule of one trace. (Edges left out — a
// condition variable's Signal to its waiter — only make a reading earlier
// than it could be, never out of order with an edge kept.)

// Key spaces of the clock variables (clockVars): an object's model id or
// address as is, and the variables below. Ids (idBase and up) and
// addresses stay below 1<<48.
//
//go:norace
func clockReaders(obj uint64) uint64 { return 1<<58 | obj } // an RWMutex's readers' side

//go:norace
func clockClose(ch uint64) uint64 { return 1<<59 | ch } // a channel's close

//go:norace
func clockPark(tid int) uint64 { return 1<<60 | uint64(tid) } // thread tid's latest park on channels

//go:norace
func clockWake(tid int) uint64 { return 1<<61 | uint64(tid) } // what woke thread tid's latest park

//go:norace
func clockQueue(ch uint64) uint64 { return 1<<62 | ch } // the counts of a channel's buffered values

// acquire takes into th's count the count released into key.
//
//go:norace
func (ex *Execution) acquire(th *Thread, key uint64) {
	if p := ex.clockVars.get(key); p != nil {
		th.clk = max(th.clk, *(*int64)(p))
	}
}

// release merges th's count into key.
//
//go:norace
func (ex *Execution) release(th *Thread, key uint64) { ex.set(key, th.clk) }

// set raises the count of key to c.
//
//go:norace
func (ex *Execution) set(key uint64, c int64) {
	if p := ex.clockVars.get(key); p != nil {
		v := (*int64)(p)
		*v = max(*v, c)
		return
	}
	v := new(int64)
	*v = c
	ex.clockVars.put(key, unsafe.Pointer(v), nil)
}

// replace sets the count of key to c (a park's, or a wake's: each park
// has a variable of its own).
//
//go:norace
func (ex *Execution) replace(key uint64, c int64) {
	if p := ex.clockVars.get(key); p != nil {
		*(*int64)(p) = c
		return
	}
	ex.set(key, c)
}

// countOf returns the count released into key (0 if none).
//
//go:norace
func (ex *Execution) countOf(key uint64) int64 {
	if p := ex.clockVars.get(key); p != nil {
		return *(*int64)(p)
	}
	return 0
}

// countQueue holds the counts of the values in a channel's buffer, oldest
// first.
type countQueue struct{ counts []int64 }

//go:norace
func (ex *Execution) countQueue(ch uint64) *countQueue {
	if p := ex.clockVars.get(clockQueue(ch)); p != nil {
		return (*countQueue)(p)
	}
	q := &countQueue{}
	ex.clockVars.put(clockQueue(ch), unsafe.Pointer(q), q)
	return q
}

//go:norace
func (q *countQueue) push(c int64) { q.counts = append(q.counts, c) }

//go:norace
func (q *countQueue) pop() int64 {
	if len(q.counts) == 0 {
		return 0 // cannot happen: the model and the buffer agree
	}
	c := q.counts[0]
	q.counts = q.counts[1:]
	return c
}

// clockSync passes th's count along op, which th just performed with
// result code (see the top of this file).
//
//go:norace
func (ex *Execution) clockSync(th *Thread, op syncmodel.Op, code int64) {
	switch op.Kind {
	case syncmodel.GoMutexLock, syncmodel.GoRWRLock, syncmodel.GoRWLock:
		ex.acquire(th, op.Obj)
	case syncmodel.GoMutexTryLock, syncmodel.GoRWTryRLock:
		if code == 1 {
			ex.acquire(th, op.Obj)
		}
	case syncmodel.GoRWTryLock:
		if code == 1 {
			ex.acquire(th, op.Obj)
			ex.acquire(th, clockReaders(op.Obj))
		}
	case syncmodel.GoRWLockDrain:
		ex.acquire(th, clockReaders(op.Obj))
	case syncmodel.GoMutexUnlock, syncmodel.GoRWUnlock, syncmodel.OnceEnd:
		ex.release(th, op.Obj)
	case syncmodel.GoRWRUnlock:
		ex.release(th, clockReaders(op.Obj))
	case syncmodel.WGAdd:
		if op.Arg < 0 {
			ex.release(th, op.Obj)
		}
	case syncmodel.WGWait:
		if code == syncmodel.WaitReturned {
			ex.acquire(th, op.Obj)
		}
	case syncmodel.WGWake:
		ex.acquire(th, op.Obj)
	case syncmodel.OnceBegin:
		if code == 0 {
			ex.acquire(th, op.Obj)
		}
	case syncmodel.GoCondWait:
		if op.Obj2 != 0 {
			ex.release(th, op.Obj2)
		}
	case syncmodel.GoCondWake:
		if op.Obj2 != 0 {
			ex.acquire(th, op.Obj2)
		}
	case syncmodel.Read:
		ex.acquire(th, op.Obj)
	case syncmodel.Write:
		ex.acquire(th, op.Obj)
		ex.release(th, op.Obj)
	case syncmodel.ChanClose:
		if op.Obj != 0 {
			ex.release(th, clockClose(op.Obj))
		}
	case syncmodel.ChanSend, syncmodel.ChanRecv, syncmodel.Select, syncmodel.ChanWake:
		ex.clockChan(th, op, syncmodel.DecodeChanResult(code))
	}
}

// clockChan passes th's count along channel operation op, with result r.
// The edges are the memory model's: a send happens before the receive
// that takes its value completes, and on an unbuffered channel the
// receive happens before the send completes; a close happens before a
// receive that finds the channel closed. (A receive from a buffer of
// capacity C also happens before the C-th send after it completes: left
// out, but for the sender it wakes.)
//
//go:norace
func (ex *Execution) clockChan(th *Thread, op syncmodel.Op, r syncmodel.ChanResult) {
	switch r.Via {
	case syncmodel.ViaDefault:
		return
	case syncmodel.ViaParked:
		// The goroutine that completes this operation takes what th did
		// before it, if the memory model orders it so.
		ex.replace(clockPark(th.tid), th.clk)
		return
	}
	ch, capacity, ok := chanOf(op, r)
	if !ok {
		return
	}
	send := isSend(op, r)
	switch r.Via {
	case syncmodel.ViaClosed:
		ex.acquire(th, clockClose(ch))
	case syncmodel.ViaWoken:
		if !send && !r.OK {
			ex.acquire(th, clockClose(ch))
			return
		}
		ex.acquire(th, clockWake(th.tid))
	case syncmodel.ViaPartner:
		// A value from a parked sender, or one handed to a parked
		// receiver of an unbuffered channel, whose receive completes
		// first.
		if !send || capacity == 0 {
			ex.acquire(th, clockPark(r.Partner))
		}
		ex.replace(clockWake(r.Partner), th.clk)
	case syncmodel.ViaBuffer:
		q := ex.countQueue(ch)
		if send {
			q.push(th.clk)
			return
		}
		th.clk = max(th.clk, q.pop())
		if r.Partner != 0 {
			// The value of the oldest parked sender moves into the
			// buffer; the sender goes on after this receive.
			q.push(ex.countOf(clockPark(r.Partner)))
			ex.replace(clockWake(r.Partner), th.clk)
		}
	}
}
