package sthread_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
	"github.com/stdbg/stdbg/sthread/sync/atomic"
)

// exploreSpin runs DPOR over f in process, within depth.
func exploreSpin(t *testing.T, f func(), depth int) *search.Result {
	t.Helper()
	ex, done := sthread.Executor(f)
	defer done()
	res, err := search.Explore(context.Background(), ex, search.NewDPOR(), search.Options{MaxDepth: depth, MaxExecutions: 20000})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSpinLoopWaits: a loop marked as goinstr marks those whose iterations
// change only what the checker sees (docs/spin.md) waits, after an
// iteration that changed nothing, for a write to what it read: the search
// ends, without the depth bound, where the same loop unmarked runs every
// execution in which the flag is not raised yet to the bound. A marked
// loop that nothing can end is a livelock.
func TestSpinLoopWaits(t *testing.T) {
	const loop = 0x5eed
	wait := func(marked bool) func() {
		return func() {
			var ready atomic.Bool
			sthread.Go(func() { ready.Store(true) })
			if marked {
				lang.SpinEnter(loop)
			}
			for !ready.Load() {
				if marked {
					lang.SpinHead(loop)
				}
			}
		}
	}
	res := exploreSpin(t, wait(true), 200)
	if len(res.Bugs) > 0 || !res.Complete || res.DepthLimited {
		t.Errorf("marked: bugs %v, complete %v, depth limited %v; want none, complete, not limited",
			res.Bugs, res.Complete, res.DepthLimited)
	}
	t.Logf("marked: %d executions", res.Stats.Executions)
	res = exploreSpin(t, wait(false), 200)
	if !res.DepthLimited {
		t.Errorf("unmarked: not depth limited after %d executions: the spin should run on", res.Stats.Executions)
	}

	forever := func() {
		var ready atomic.Bool
		lang.SpinEnter(loop)
		for !ready.Load() {
			lang.SpinHead(loop)
		}
	}
	res = exploreSpin(t, forever, 200)
	if len(res.Bugs) != 1 || res.Bugs[0].Outcome.Kind != search.Livelock ||
		!strings.Contains(res.Bugs[0].Outcome.Message, "thread 1 spins at") {
		t.Fatalf("a spin nothing ends: bugs %+v, want a livelock of thread 1", res.Bugs)
	}
}

// TestSpinLoopCompareAndSwap: a compare-and-swap that fails leaves memory
// as it was, and the goroutine waits; one that swaps changes it, and the
// goroutine goes on.
func TestSpinLoopCompareAndSwap(t *testing.T) {
	const loop = 0xca5
	res := exploreSpin(t, func() {
		var word atomic.Int32
		word.Store(1)
		sthread.Go(func() { word.Store(0) })
		lang.SpinEnter(loop)
		for !word.CompareAndSwap(0, 2) {
			lang.SpinHead(loop)
		}
		if word.Load() != 2 {
			panic("the swap did not happen")
		}
	}, 200)
	if len(res.Bugs) > 0 || !res.Complete || res.DepthLimited {
		t.Errorf("bugs %v, complete %v, depth limited %v; want none, complete, not limited",
			res.Bugs, res.Complete, res.DepthLimited)
	}
}
