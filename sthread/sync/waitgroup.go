package sync

import (
	stdsync "sync"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// WaitGroup waits for a collection of goroutines to finish, a drop-in
// replacement for sync.WaitGroup: the zero value is ready and it must not
// be copied after first use. Under a check a negative counter and the reuse
// of a WaitGroup before a released Wait has returned are misuses, and a
// Wait that finds the counter above zero blocks until another goroutine
// brings it to zero (two scheduling points).
//
// It has the size and alignment of sync.WaitGroup, which it holds.
type WaitGroup struct {
	wg stdsync.WaitGroup
}

// Add adds delta, which may be negative, to the counter.
//
//go:norace
func (g *WaitGroup) Add(delta int) {
	if rt.Hooked() && g.add(delta, syncmodel.APIWaitGroupAdd, nil) {
		return
	}
	g.wg.Add(delta)
}

// Done decrements the counter by one.
//
//go:norace
func (g *WaitGroup) Done() {
	if rt.Hooked() && g.add(-1, syncmodel.APIWaitGroupDone, nil) {
		return
	}
	g.wg.Done()
}

// Wait blocks until the counter is zero.
//
//go:norace
func (g *WaitGroup) Wait() {
	if rt.Hooked() && g.waitChecked() {
		return
	}
	g.wg.Wait()
}

// Go calls f in a new goroutine (started as sthread.Go starts one) and adds
// that goroutine to the group: it is Add(1), then sthread.Go of a function
// that calls f and then Done.
//
//go:norace
func (g *WaitGroup) Go(f func()) {
	if rt.Hooked() {
		if th, id, ok := rt.EnterAt(rt.FamWaitGroup, unsafe.Pointer(g)); ok {
			th.Point(syncmodel.Op{Kind: syncmodel.WGAdd, API: syncmodel.APIWaitGroupAdd, Obj: id, Arg: 1})
			done := rt.FuncLine(f)
			th.Spawn(func() {
				defer g.add(-1, syncmodel.APIWaitGroupDone, done)
				f()
			}, f)
			return
		}
	}
	g.wg.Go(f)
}

//go:norace
func (g *WaitGroup) add(delta int, api syncmodel.API, pcs []uintptr) bool {
	th, id, ok := rt.EnterAt(rt.FamWaitGroup, unsafe.Pointer(g))
	if !ok {
		return false
	}
	op := syncmodel.Op{Kind: syncmodel.WGAdd, API: api, Obj: id, Arg: int64(delta)}
	if pcs != nil {
		th.PointAt(op, pcs)
	} else {
		th.Point(op)
	}
	return true
}

//go:norace
func (g *WaitGroup) waitChecked() bool {
	th, id, ok := rt.EnterAt(rt.FamWaitGroup, unsafe.Pointer(g))
	if !ok {
		return false
	}
	op := syncmodel.Op{Kind: syncmodel.WGWait, API: syncmodel.APIWaitGroupWait, Obj: id}
	if th.Point(op) == syncmodel.WaitParked {
		op.Kind = syncmodel.WGWake
		th.Again(op)
	}
	return true
}
