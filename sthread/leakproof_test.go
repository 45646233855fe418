package sthread_test

import (
	"context"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// forgotten leaves a goroutine blocked forever on a send nobody receives,
// while two others share a mutex and main waits for them.
func forgotten() {
	results := sthread.MakeChan[int](0)
	sthread.Go(func() { results.Send(1) }) // nobody receives
	var mu sthread.Mutex
	var wg sthread.WaitGroup
	total := 0
	for range 2 {
		wg.Add(1)
		sthread.Go(func() {
			defer wg.Done()
			mu.Lock()
			total++
			mu.Unlock()
		})
	}
	wg.Wait()
}

// TestMinimiseLeakProof: the proof that a leak's schedule is minimal runs
// the search of every trace once and is done, as for a deadlock. A leak is
// found when the program ends, so every step of its trace counts; taken
// as a failure at a step (its causal past alone), its shortest trace did
// not end with the leak when run, and the proof fell back to a branch and
// bound over every schedule (dozens of executions more).
func TestMinimiseLeakProof(t *testing.T) {
	ex, release := sthread.Executor(forgotten)
	defer release()
	all, err := search.Explore(context.Background(), ex, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
	if err != nil || !all.Complete || len(all.Bugs) != 1 || all.Bugs[0].Outcome.Kind != search.Leak {
		t.Fatalf("search: complete %v, bugs %v, %v", all.Complete, all.Bugs, err)
	}
	m, err := search.Minimise(context.Background(), ex, all.Bugs[0], search.MinimiseOptions{MaxDepth: 1000,
		Exhaustive: true, SearchExecutions: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d traces; minimised %v (%d steps) to %v (%d), proven %v %q, in %d executions", all.Stats.Executions,
		m.Original, m.OriginalLength, m.Schedule, m.Length, m.Proven, m.Unproven, m.Stats.Executions)
	if !m.Proven {
		t.Errorf("not proven: %s", m.Unproven)
	}
	if limit := all.Stats.Executions + 10; m.Stats.Executions > limit {
		t.Errorf("%d executions to minimise, more than %d (the program has %d traces)", m.Stats.Executions, limit,
			all.Stats.Executions)
	}
}
