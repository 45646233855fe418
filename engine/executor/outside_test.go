package executor_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	ct "github.com/stdbg/stdbg/engine/executor/executortest"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// outsiderRT is a runtime that knows of code outside the model (Outside).
type outsiderRT struct {
	*ct.Runtime
	why string
}

func (r *outsiderRT) Outside() string { return r.why }

// notingRT is a runtime in another process: it says what is outside the
// model with notes, the first as the execution begins and the second
// after the first step.
type notingRT struct {
	*ct.Runtime
	notes []string
}

func (r *notingRT) Begin() ([]wire.Event, error) {
	evs, err := r.Runtime.Begin()
	return append([]wire.Event{wire.Note{Text: wire.NoteOutside + r.notes[0]}}, evs...), err
}

func (r *notingRT) Resume(tid int, code int64) ([]wire.Event, error) {
	evs, err := r.Runtime.Resume(tid, code)
	if len(r.notes) > 1 {
		evs = append([]wire.Event{wire.Note{Text: wire.NoteOutside + r.notes[1]}}, evs...)
	}
	return evs, err
}

// A deadlock or a leak is a claim that nothing can wake the blocked
// threads: while the runtime knows of code outside the model that may,
// the executor does not make it, and the step that reached the state
// fails with search.ErrCannotJudge, saying what.
func TestCannotJudge(t *testing.T) {
	blockedAtOnce := func() *ct.Runtime {
		return &ct.Runtime{Main: []ct.Step{ct.Op(syncmodel.SemWait, syncmodel.APISemWait, 0x9000, 0x100), exit0}}
	}
	leak := func() *ct.Runtime {
		return &ct.Runtime{
			Main:     []ct.Step{lock(mA, 0x100), create, exit0},
			Children: [][]ct.Step{{lock(mA, 0x200), tExit}},
		}
	}
	const why = "goroutine 7, started at serve.go:10 before the check, is alive"
	tests := []struct {
		name  string
		rt    executor.Runtime
		sched string
		want  string // in the error; "" for a verdict (kind)
		kind  search.Kind
	}{
		{"deadlock, something outside", &outsiderRT{blockedAtOnce(), why}, "",
			"no thread can go on: thread 1 is blocked, but " + why, 0},
		{"deadlock, nothing outside", &outsiderRT{blockedAtOnce(), ""}, "", "", search.Deadlock},
		{"leak, something outside", &outsiderRT{leak(), why}, "1;1;1",
			"the program exits while thread 2 is blocked, but " + why, 0},
		{"deadlock, a note says something is outside", &notingRT{blockedAtOnce(), []string{why}}, "",
			"no thread can go on: thread 1 is blocked, but " + why, 0},
		{"leak, a later note says nothing is outside any more", &notingRT{leak(), []string{why, ""}}, "1;1;1", "", search.Leak},
		{"the runtime cannot judge", &ct.Runtime{Main: []ct.Step{
			{Fail: &wire.Failure{Kind: wire.FailCannotJudge, Message: why}}}}, "", why, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := executor.New(tt.rt, executor.Options{})
			e, err := ex.Begin()
			if err == nil {
				s, perr := schedule.Parse(tt.sched)
				if perr != nil {
					t.Fatal(perr)
				}
				for _, st := range s {
					if err = e.Step(st); err != nil {
						break
					}
				}
				defer e.Close()
			}
			if tt.want == "" {
				if err != nil || e.Ended() == nil || e.Ended().Kind != tt.kind {
					t.Fatalf("err %v, outcome %+v, want a %s", err, e.Ended(), tt.kind)
				}
				return
			}
			if !errors.Is(err, search.ErrCannotJudge) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want search.ErrCannotJudge with %q", err, tt.want)
			}
		})
	}
}
