package lang

import (
	"testing"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Bubble runs synctest.Test(t, f) under a check and reports true; outside
// one it does nothing and reports false (package sthread/testing/synctest
// then calls testing/synctest's). Under a check, f runs in a goroutine of
// the checked program, the root of a bubble of the model (syncmodel's
// bubble.go), which every goroutine it starts, and theirs, belongs to:
// they are explored like any others, synctest.Wait and the virtual clock
// follow synctest's rules in the bubble, and Bubble returns once they have
// all ended (a deadlock of the bubble's goroutines is a misuse of the
// model, as synctest.Test panics). As package testing runs f with a test
// of its own, the cleanups that f registers with t (t.Cleanup) and the
// contexts it takes (t.Context) belong to the bubble: they are cancelled
// and run in the root goroutine once f returns.
//
//go:norace
func Bubble(t *testing.T, f func(*testing.T)) bool {
	th, ok := rt.Current()
	if !ok {
		return false
	}
	var buf [rt.FramesCap]uintptr
	pcs := append([]uintptr(nil), th.Capture(buf[:])...)
	b := &bubbleTest{t: t}
	id := th.IDAt(rt.FamBubble, unsafe.Pointer(b))
	// Traces show the root running f (Spawn reads only where the
	// function it shows begins).
	shown := *(*func())(unsafe.Pointer(&f))
	th.Spawn(func() {
		root, ok := rt.Current()
		if !ok {
			return
		}
		root.PointAt(syncmodel.Op{Kind: syncmodel.BubbleEnter, API: syncmodel.APISynctestTest, Obj: id}, pcs)
		root.EnterBubble(id)
		root.SetValue(bubbleOf{t}, b)
		f(t)
		root.SetValue(bubbleOf{t}, nil)
		cancelContexts(b)
		rt.RunCleanups(b)
	}, shown)
	th.PointAt(syncmodel.Op{Kind: syncmodel.BubbleEnd, API: syncmodel.APISynctestTest, Obj: id}, pcs)
	return true
}

// bubbleTest is a bubble's test: the key under which the cleanups and
// contexts registered with t while the bubble's function runs are kept.
type bubbleTest struct{ t *testing.T }

// bubbleOf is the key of an execution's value (rt.Thread.Value) that is
// the bubble whose function runs with t.
type bubbleOf struct{ t testing.TB }

// scope returns the key under which the cleanups and contexts that the
// calling goroutine registers with t go: the bubble whose function runs
// with t, or t.
//
//go:norace
func scope(t testing.TB) any {
	if th, ok := rt.Current(); ok {
		if b, ok := th.Value(bubbleOf{t}).(*bubbleTest); ok {
			return b
		}
	}
	return t
}

// Wait is synctest.Wait under a check, and reports true; outside one it
// does nothing and reports false. Under a check it returns once every
// other goroutine of the caller's bubble is durably blocked (a BubbleWait
// of the model); outside a bubble it is a misuse, as synctest.Wait panics.
//
//go:norace
func Wait() bool {
	th, ok := rt.Current()
	if !ok {
		return false
	}
	// Obj is the bubble, for the race detector (see rt's bubble.go): the
	// model knows which bubble the caller belongs to.
	th.Point(syncmodel.Op{Kind: syncmodel.BubbleWait, API: syncmodel.APISynctestWait, Obj: th.Bubble()})
	return true
}
