package executor_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	ct "github.com/stdbg/stdbg/engine/executor/executortest"
	"github.com/stdbg/stdbg/model/wire"
)

// TestLoops: an execution cut while a thread yields again and again at one
// place says so, with the place; one that did not loop says nothing.
func TestLoops(t *testing.T) {
	var polls []ct.Step
	for range 40 {
		polls = append(polls, yield(0x205, wire.Spin{}))
	}
	rt := &ct.Runtime{Main: []ct.Step{create, joinTwo, exit0}, Children: [][]ct.Step{append(polls, tExit)}}
	sched := "1" + strings.Repeat(";2", 30)
	e := run(t, rt, executor.Options{Locate: locate}, sched)
	loops := e.Loops()
	if len(loops) != 1 || !strings.HasPrefix(loops[0], "thread 2 yields at "+locate(0x205)) {
		t.Errorf("Loops = %q, want thread 2 yielding at %s", loops, locate(0x205))
	}
	e = run(t, embrace(), executor.Options{Locate: locate}, "1;1")
	if loops := e.Loops(); len(loops) != 0 {
		t.Errorf("Loops of a short execution = %q, want none", loops)
	}
}
