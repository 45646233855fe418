package goexamples

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// priorityInversion: high polls for the bus, which low holds; low runs only
// while medium is idle, and medium computes until high is served. Once low
// holds the bus nobody progresses, and all three keep yielding forever. With
// inherit, low runs at high's priority while high waits, and it ends.
func priorityInversion(inherit bool) func() {
	return func() {
		var bus sthread.Mutex
		var mediumBusy, served, r, cs = true, false, false, false
		sthread.State("flags", func() any { return [4]bool{mediumBusy, served, r, cs} })
		sthread.Prop("r", func() bool { return r })
		sthread.Prop("cs", func() bool { return cs })
		var wg sthread.WaitGroup
		wg.Add(3)
		sthread.Go(func() { // low
			defer wg.Done()
			bus.Lock()
			for mediumBusy && !(inherit && r) {
				sthread.Yield()
			}
			bus.Unlock()
		})
		sthread.Go(func() { // medium
			defer wg.Done()
			for !served {
				sthread.Yield()
			}
			mediumBusy = false
		})
		sthread.Go(func() { // high
			defer wg.Done()
			r = true
			for !bus.TryLock() {
				sthread.Yield()
			}
			cs, r, served = true, false, true
			sthread.Progress()
			bus.Unlock()
			cs = false
		})
		wg.Wait()
	}
}

func TestPriorityInversionLivelock(t *testing.T) {
	res, err := sthread.Explore(priorityInversion(false), sthread.Livelock())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != search.Livelock {
		t.Fatalf("found %d bugs, want a livelock", len(res.Bugs))
	}
	bug := res.Bugs[0]
	t.Logf("%s", bug)
	if !strings.Contains(bug.Schedule, "(") || !strings.HasSuffix(bug.Schedule, ")*") {
		t.Errorf("schedule %q is not a lasso", bug.Schedule)
	}
	if !strings.Contains(bug.String(), "cycle, repeated forever") {
		t.Errorf("the report does not show the cycle")
	}
	// The paper's property fails the same way.
	res, err = sthread.Explore(priorityInversion(false), sthread.LTL("G(r -> F cs)"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || !strings.Contains(res.Bugs[0].String(), "LIVENESS PROPERTY NOT VALID") {
		t.Fatalf("G(r -> F cs): bugs %v, want a violation", res.Bugs)
	}
	if !strings.Contains(res.Bugs[0].String(), "[r=1 cs=0]") {
		t.Errorf("the violation does not show the propositions:\n%s", res.Bugs[0])
	}
}

func TestPriorityInheritanceLive(t *testing.T) {
	res, err := sthread.Explore(priorityInversion(true), sthread.Livelock(), sthread.LTL("G(r -> F cs)"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		t.Errorf("found %v:\n%s", b.Kind, b)
	}
	if !res.Complete || res.Stats.Visited == 0 {
		t.Errorf("complete %v, %d visited states", res.Complete, res.Stats.Visited)
	}
}

// spinHandoff hands a value over through a flag; the consumer spins.
func spinHandoff() {
	data, ready := 0, false
	sthread.State("vars", func() any { return [2]any{data, ready} })
	done := sthread.MakeChan[bool](1)
	sthread.Go(func() {
		for !ready {
			sthread.Yield()
		}
		sthread.Assert(data == 42, "the consumer sees the data written before the flag")
		done.Send(true)
	})
	data = 42
	sthread.Yield()
	ready = true
	done.Recv()
}

func TestSpinHandoffTerminates(t *testing.T) {
	res, err := sthread.Explore(spinHandoff, sthread.MaxDepth(40))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stateless, depth 40: %+v", res.Stats)
	if !res.DepthLimited {
		t.Errorf("the stateless search of a spin loop was not cut by the depth bound")
	}
	res, err = sthread.Explore(spinHandoff, sthread.Visited(), sthread.Livelock())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with Visited: %+v", res.Stats)
	if len(res.Bugs) > 0 || !res.Complete || res.DepthLimited {
		t.Errorf("bugs %v, complete %v, depth limited %v: want a complete clean search", res.Bugs, res.Complete, res.DepthLimited)
	}
}

// politeBackoff: two goroutines that each withdraw when they see the other
// want the resource, in step forever.
func politeBackoff() {
	var want [2]bool
	uses := 0
	sthread.State("want", func() any { return want })
	var wg sthread.WaitGroup
	wg.Add(2)
	for me := range 2 {
		sthread.Go(func() {
			defer wg.Done()
			for {
				want[me] = true
				sthread.Yield()
				if !want[1-me] {
					break
				}
				want[me] = false
				sthread.Yield()
			}
			uses++
			sthread.Progress()
			want[me] = false
		})
	}
	wg.Wait()
}

func TestPoliteBackoffLivelock(t *testing.T) {
	res, err := sthread.Explore(politeBackoff, sthread.Livelock())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != search.Livelock {
		t.Fatalf("found %d bugs, want a livelock", len(res.Bugs))
	}
	t.Logf("%s", res.Bugs[0])
	if !strings.Contains(res.Bugs[0].Message, "threads 2, 3") {
		t.Errorf("message %q does not name both goroutines", res.Bugs[0].Message)
	}
}

// peterson: Peterson's mutual exclusion, a yield before each shared access.
func peterson() {
	var flag [2]bool
	turn, inside := 0, 0
	var want, enter [2]bool
	sthread.State("vars", func() any { return [4]any{flag, turn, inside, [2][2]bool{want, enter}} })
	sthread.Prop("want0", func() bool { return want[0] })
	sthread.Prop("enter0", func() bool { return enter[0] })
	var wg sthread.WaitGroup
	wg.Add(2)
	for me := range 2 {
		other := 1 - me
		sthread.Go(func() {
			defer wg.Done()
			want[me] = true
			sthread.Yield()
			flag[me] = true
			sthread.Yield()
			turn = other
			sthread.Yield()
			for flag[other] && turn == other {
				sthread.Yield()
			}
			want[me], enter[me] = false, true
			inside++
			sthread.Yield()
			sthread.Assert(inside == 1, "mutual exclusion")
			inside--
			enter[me] = false
			sthread.Yield()
			flag[me] = false
		})
	}
	wg.Wait()
}

func TestPeterson(t *testing.T) {
	res, err := sthread.Explore(peterson, sthread.LTL("G(want0 -> F enter0)"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		t.Errorf("found %v:\n%s", b.Kind, b)
	}
	if !res.Complete {
		t.Errorf("the search did not complete: %+v", res.Stats)
	}
}

// condQueue: a bounded queue with a mutex and two condition variables.
func condQueue() {
	const capacity, items = 2, 3
	var mu sthread.Mutex
	notEmpty, notFull := sthread.NewCond(&mu), sthread.NewCond(&mu)
	var queue []int
	produced, consumed := 0, 0
	sthread.State("queue", func() any { return [3]any{append([]int(nil), queue...), produced, consumed} })
	sthread.Prop("pending", func() bool { return produced > consumed })
	done := sthread.MakeChan[bool](0)
	sthread.Go(func() {
		for i := 1; i <= items; i++ {
			mu.Lock()
			for len(queue) == 0 {
				notEmpty.Wait()
			}
			v := queue[0]
			queue = queue[1:]
			consumed++
			sthread.Assert(v == i, "items come out in order")
			sthread.Progress()
			notFull.Signal()
			mu.Unlock()
		}
		done.Send(true)
	})
	for i := 1; i <= items; i++ {
		mu.Lock()
		for len(queue) == capacity {
			notFull.Wait()
		}
		queue = append(queue, i)
		produced++
		notEmpty.Signal()
		mu.Unlock()
	}
	done.Recv()
}

func TestCondQueueEventuallyConsumed(t *testing.T) {
	res, err := sthread.Explore(condQueue, sthread.LTL("G(pending -> F !pending)"), sthread.Livelock())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		t.Errorf("found %v:\n%s", b.Kind, b)
	}
	if !res.Complete {
		t.Errorf("the search did not complete: %+v", res.Stats)
	}
}
