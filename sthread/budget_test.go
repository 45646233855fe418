package sthread_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// slowReplays returns a function that fails when its goroutine runs
// first. The execution that fails first marks it; every later run of a
// failing schedule (the minimisation's, the replay that explains the bug)
// then computes, without a scheduling point, until release is set.
func slowReplays(release *atomic.Bool) func() {
	var found atomic.Bool
	return func() {
		var mu sthread.Mutex
		x := 0
		done := sthread.MakeChan[bool](1)
		sthread.Go(func() {
			mu.Lock()
			x = 1
			mu.Unlock()
			done.Send(true)
		})
		mu.Lock()
		seen := x
		mu.Unlock()
		done.Recv()
		if seen != 1 {
			return
		}
		if found.Swap(true) {
			for !release.Load() {
				time.Sleep(time.Millisecond)
			}
		}
		sthread.Assert(false, "the goroutine ran first")
	}
}

// A Check whose bug's replays are slow ends within its budget, the bug
// reported as the search found it, its report saying that the replay that
// explains it was cut. Before, that replay ran on to the transition
// timeout (here an hour): the budget bounded the search and the
// minimisation only.
func TestSlowExplainWithinBudget(t *testing.T) {
	base := baseline()
	var release atomic.Bool
	defer release.Store(true)
	const budget = 2 * time.Second
	rec := &recorder{TB: t, name: "TestSlowExplainWithinBudget"}
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		sthread.Check(rec, slowReplays(&release), sthread.Budget(budget), sthread.Timeout(time.Hour), sthread.NoSave())
	}()
	// The budget, and time for the reports on a loaded machine: far less
	// than the replay that is not cut.
	const bound = time.Minute
	select {
	case <-done:
	case <-time.After(bound):
		release.Store(true)
		<-done
		t.Fatalf("the check did not end within %s of a %s budget", bound, budget)
	}
	t.Logf("the check took %s", time.Since(start).Round(time.Millisecond))
	if len(rec.errors) != 1 || len(rec.fatals) != 0 {
		t.Fatalf("errors %q, fatals %q; want the bug reported", rec.errors, rec.fatals)
	}
	contains(t, rec.errors[0], "sthread.Check found a bug", "the goroutine ran first", hunt.ExplainCut, "Path = ")
	release.Store(true)
	waitGoroutines(t, base)
}

// A turn clock that jumps a second at every reading, as though other
// goroutines of the process had worked a second between any two: a
// loaded machine's wall time.
type busyClock struct{ t atomic.Int64 }

func (c *busyClock) now() time.Time { return time.Unix(0, c.t.Add(int64(time.Second))) }

// A Check's portfolio takes turns in the CPU time of the process, where
// its executions run: the portfolio's executions are those of its
// exhaustive member (DPOR) alone on a small tree, whatever its clock says.
// Before, its turns were charged the clock's time: the exhaustive
// member's lead was spent in its first execution, the other members took
// turns before it could finish, and their executions were counted with
// its own (go-cache's TestAdd counted 1 execution in one run and 27 in
// the next).
func TestPortfolioTurnsInCPUTime(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"one schedule", func() {
			var mu sthread.Mutex
			n := 0
			mu.Lock()
			n++
			mu.Unlock()
			sthread.Assert(n == 1, "n is not 1")
		}},
		{"two goroutines", func() {
			var mu sthread.Mutex
			n := 0
			done := sthread.MakeChan[bool](1)
			sthread.Go(func() { mu.Lock(); n++; mu.Unlock(); done.Send(true) })
			mu.Lock()
			n++
			mu.Unlock()
			done.Recv()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alone, err := sthread.Explore(tt.f, sthread.Strategy(search.NewDPOR()))
			if err != nil || !alone.Complete {
				t.Fatalf("DPOR alone: %v, complete %v", err, alone.Complete)
			}
			for _, clock := range []struct {
				name string
				now  func() time.Time
			}{{"wall", time.Now}, {"busy", (&busyClock{}).now}} {
				st, err := search.Spec{}.New()
				if err != nil {
					t.Fatal(err)
				}
				p, ok := st.(*search.Portfolio)
				if !ok {
					t.Fatalf("the default search is a %T, not a portfolio", st)
				}
				res, err := sthread.Explore(tt.f, sthread.Strategy(p.Timed(clock.now)))
				if err != nil {
					t.Fatal(err)
				}
				if !res.Complete || res.Stats.Executions != alone.Stats.Executions || len(res.Bugs) != 0 {
					t.Errorf("%s clock: complete %v after %d executions, %d bugs; want complete after %d, as DPOR alone",
						clock.name, res.Complete, res.Stats.Executions, len(res.Bugs), alone.Stats.Executions)
				}
			}
		})
	}
}

// A Check whose stored bug's replay is slow ends within its budget too,
// failing the test: the bug is not known to be fixed. Before, the replay of
// the stored schedule ran on to the transition timeout (here an hour).
func TestSlowCorpusReplayWithinBudget(t *testing.T) {
	inTempDir(t)
	base := baseline()
	var release atomic.Bool
	defer release.Store(true)
	f := slowReplays(&release)
	const budget = 2 * time.Second
	check := func() *recorder {
		rec := &recorder{TB: t, name: "TestSlowCorpusReplay"}
		done := make(chan struct{})
		go func() {
			defer close(done)
			sthread.Check(rec, f, sthread.Budget(budget), sthread.Timeout(time.Hour))
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			release.Store(true)
			<-done
			t.Fatalf("the check did not end within a minute of a %s budget", budget)
		}
		return rec
	}
	// The search finds the bug and saves it as found (its replays cut).
	if rec := check(); len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "Saved ") {
		t.Fatalf("the search: errors %q, fatals %q; want the bug reported and saved", rec.errors, rec.fatals)
	}
	// Its replay, before any search, is cut by the budget.
	rec := check()
	if len(rec.errors) != 1 || len(rec.fatals) != 0 {
		t.Fatalf("the stored bug's replay: errors %q, fatals %q; want one failure", rec.errors, rec.fatals)
	}
	contains(t, rec.errors[0], "ran out before the replay of the bug stored in", "it is not known to be fixed",
		"the goroutine ran first", "Replay: STDBG_REPLAY_SCHEDULE=")
	release.Store(true)
	waitGoroutines(t, base)
}
