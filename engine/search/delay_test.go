package search

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stdbg/stdbg/model/schedule"
)

// delaysOf counts the delays of a schedule: at each step, how many enabled
// threads, in round-robin order from the previous thread (if enabled, else
// the first after it), come before the thread that runs.
func delaysOf(t *testing.T, ex Executor, text string) int {
	t.Helper()
	return replayCost(t, ex, text, func(threads []Thread, prev int, st schedule.Step) int {
		var order []int
		for _, th := range threads {
			if th.Enabled {
				order = append(order, th.ID)
			}
		}
		i := slices.IndexFunc(order, func(id int) bool { return id >= prev })
		if i < 0 {
			i = 0
		}
		order = append(order[i:], order[:i]...)
		return slices.Index(order, st.Thread)
	})
}

func TestDelayBoundingExploresEachScheduleOnce(t *testing.T) {
	checkRounds(t, func() *PreemptionBounding { return NewDelayBounding(100) }, delaysOf)
}

// manyWorkers: thread 1 creates n workers, each of which reads a shared
// counter under a lock, and adds one to the value it read under the lock
// taken again: an update is lost when another worker runs in between (one
// preemption, after the first unlock). The last worker checks the count.
func manyWorkers(n int) *fakeExecutor {
	worker := []fop{
		lock(1), do(func(v *fakeVars) { v[1] = v[0] }), unlock(1),
		lock(1), do(func(v *fakeVars) { v[0] = v[1] + 1 }), unlock(1),
		check(func(v *fakeVars) string {
			// The last worker to finish checks the count.
			if v[2]++; v[2] == int64(n) && v[0] != int64(n) {
				return "lost update"
			}
			return ""
		}),
	}
	main := make([]fop, 0, n)
	for range n {
		main = append(main, create(1))
	}
	return newFake(1, main, worker)
}

// With many threads, a round of preemption bounding is every order of the
// threads at each free switch; delay bounding runs one execution with no
// delay and finds the lost update with one, in as many executions as an
// execution has steps at most.
func TestDelayBoundingScalesWithThreads(t *testing.T) {
	for _, n := range []int{3, 10, 30} {
		t.Run(fmt.Sprint(n, " workers"), func(t *testing.T) {
			db := NewDelayBounding(2)
			res, err := Explore(context.Background(), manyWorkers(n), db, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) != 1 {
				t.Fatalf("bugs %v after %d executions", res.Bugs, res.Stats.Executions)
			}
			b := db.Bounds()
			if b[0].Executions != 1 || !b[0].Complete || !b[0].Delays || len(b) != 2 {
				t.Errorf("rounds %+v: want one execution without delay, the bug in round 1", b)
			}
			steps := int64(n + 7*n)
			if b[1].Executions > steps {
				t.Errorf("round 1 ran %d executions, more than the %d steps of an execution", b[1].Executions, steps)
			}
			pb := NewPreemptionBounding(2)
			pres, err := Explore(context.Background(), manyWorkers(n), pb, Options{MaxExecutions: 2000})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("delays: %d executions; preemptions: %d executions, rounds %+v, bugs %d",
				res.Stats.Executions, pres.Stats.Executions, pb.Bounds(), len(pres.Bugs))
		})
	}
}
