package sthread_test

import (
	"testing"

	"github.com/stdbg/stdbg/sthread"
)

// A Once whose action ran before the check (in TestMain, an init
// function) is done in every execution: its action does not run again.
// A Once first used under the check runs its action once per execution.
func TestOnceDoneBeforeCheck(t *testing.T) {
	for _, tt := range []struct {
		name   string
		before bool
		want   int // runs of the action per execution
	}{
		{"done before", true, 0},
		{"first used under the check", false, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var once sthread.Once
			if tt.before {
				once.Do(func() {})
			}
			res, err := sthread.Explore(func() {
				runs := 0
				done := sthread.MakeChan[bool](0)
				sthread.Go(func() { once.Do(func() { runs++ }); done.Send(true) })
				once.Do(func() { runs++ })
				done.Recv()
				sthread.Assert(runs == tt.want, "the action ran a wrong number of times")
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) > 0 {
				t.Errorf("bugs %v in %d executions", res.Bugs, res.Stats.Executions)
			}
		})
	}
}
