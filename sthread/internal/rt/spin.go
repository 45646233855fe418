package rt

import (
	"sync/atomic"
	"unsafe"

	"github.com/stdbg/stdbg/internal/hashmix"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// Spin loops (docs/spin.md). The rewriting of plain Go (goinstr) marks the
// loops whose iterations can change nothing the checker does not see:
// SpinEnter as the goroutine enters one, SpinHead as it starts an
// iteration. Between two heads of one entry the goroutine's variables
// differ only by what its operations returned, so the runtime claims, at
// the first scheduling point after a head, the state "this loop, this
// entry" (wire.Spin.State): the checker makes a goroutine that comes back
// to a state it claimed, having only read what it sees, wait for a write
// to what it read. An atomic operation that writes in the model (a
// compare-and-swap, a swap, a store, an add) is taken for a read when the
// memory it writes holds at the goroutine's next point what it held when
// the operation began: under a check nothing else runs in between.

// spinThread is what spin loops keep of a thread.
type spinThread struct {
	// entries are the loops the thread entered, with the number of
	// their latest entry.
	entries []spinEntry
	// mark is the state to claim at the thread's next point (0: none).
	mark uint64
	// mem is the memory the operation of its point touches, until it
	// resumes; point is the memory that operation writes in the model,
	// size its size and before what it held when the operation began (nil:
	// no such operation).
	mem, point unsafe.Pointer
	before     uint64
	size       int64
}

type spinEntry struct{ loop, entry uint64 }

// spinEntries numbers the entries of loops in the process.
var spinEntries uint64

// SpinEnter records that the calling goroutine enters the loop named loop
// (goinstr's spin loops); outside a check it does nothing.
//
//go:norace
func SpinEnter(loop uint64) {
	th, ok := Current()
	if !ok {
		return
	}
	n := atomic.AddUint64(&spinEntries, 1)
	sp := &th.spin
	for i := range sp.entries {
		if sp.entries[i].loop == loop {
			sp.entries[i].entry = n
			return
		}
	}
	sp.entries = append(sp.entries, spinEntry{loop, n})
}

// SpinHead records that the calling goroutine starts an iteration of the
// loop named loop: its next scheduling point claims the state of the
// loop's head in this entry. Outside a check it does nothing.
//
//go:norace
func SpinHead(loop uint64) {
	th, ok := Current()
	if !ok {
		return
	}
	sp := &th.spin
	for i := range sp.entries {
		if sp.entries[i].loop == loop {
			sp.mark = hashmix.Mix(loop ^ hashmix.Mix(sp.entries[i].entry))
			if sp.mark == 0 {
				sp.mark = 1
			}
			return
		}
	}
}

// spinMem notes the memory at p that the thread's next operation, a
// memory access, touches (MemPoint).
//
//go:norace
func (th *Thread) spinMem(p unsafe.Pointer) { th.spin.mem = p }

// spinResumed notes, as the thread resumes to perform op, the memory an
// operation that writes it in the model finds: at its next point, the
// thread tells whether the operation left it as it was.
//
//go:norace
func (th *Thread) spinResumed(op *syncmodel.Op) {
	sp := &th.spin
	sp.point = nil
	if op.Kind == syncmodel.Write && sp.mem != nil && uint64(uintptr(sp.mem)) == op.Obj && (op.Arg == 4 || op.Arg == 8) {
		sp.point, sp.size, sp.before = sp.mem, op.Arg, peek(sp.mem, op.Arg)
	}
	sp.mem = nil
}

// peek reads the size bytes (4 or 8) at p.
//
//go:norace
func peek(p unsafe.Pointer, size int64) uint64 {
	if size == 4 {
		return uint64(atomic.LoadUint32((*uint32)(p)))
	}
	return atomic.LoadUint64((*uint64)(p))
}

// spinReport is the thread's report for the point it reaches: the state
// claimed since its last point, and whether its last operation left
// memory unchanged. A stateful search gets no claims.
//
//go:norace
func (th *Thread) spinReport() wire.Spin {
	sp := &th.spin
	var s wire.Spin
	if !th.ex.r.cfg.State {
		unchanged := sp.point != nil && peek(sp.point, sp.size) == sp.before
		s = wire.Spin{State: sp.mark, Clean: true, Unchanged: unchanged}
	}
	sp.mark, sp.point = 0, nil
	return s
}

// reset clears what spin loops kept of a thread of an ended execution.
//
//go:norace
func (sp *spinThread) reset() {
	sp.entries = sp.entries[:0]
	sp.mark, sp.mem, sp.point = 0, nil, nil
}
