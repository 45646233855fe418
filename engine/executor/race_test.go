package executor_test

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	ct "github.com/stdbg/stdbg/engine/executor/executortest"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

const (
	varX    = 0x5000
	varY    = 0x5008
	semS    = 0x3000
	condC   = 0x4000
	barrier = 0x6000
)

func access(kind syncmodel.Kind, api syncmodel.API, addr uint64, size int64, pc uint64) ct.Step {
	return ct.Step{Op: syncmodel.Op{Kind: kind, API: api, Obj: addr, Arg: size}, PC: pc}
}
func read(addr uint64, pc uint64) ct.Step {
	return access(syncmodel.Read, syncmodel.APIStdbgRead, addr, 4, pc)
}
func write(addr uint64, pc uint64) ct.Step {
	return access(syncmodel.Write, syncmodel.APIStdbgWrite, addr, 4, pc)
}
func atomicRead(addr uint64, pc uint64) ct.Step {
	return access(syncmodel.Read, syncmodel.APIStdbgAtomicRead, addr, 4, pc)
}
func atomicWrite(addr uint64, pc uint64) ct.Step {
	return access(syncmodel.Write, syncmodel.APIStdbgAtomicWrite, addr, 4, pc)
}
func op(kind syncmodel.Kind, api syncmodel.API, obj uint64, pc uint64) ct.Step {
	return ct.Op(kind, api, obj, pc)
}

// runToEnd runs the schedule, then the lowest enabled thread at each step,
// until the execution ends.
func runToEnd(t *testing.T, rt executor.Runtime, opts executor.Options, sched string) *executor.Execution {
	t.Helper()
	e := ct.Run(t, rt, opts, sched)
	for i := 0; e.Ended() == nil; i++ {
		if i > 1000 {
			t.Fatal("the execution does not end")
		}
		next := 0
		for _, th := range e.Threads() {
			if th.Enabled {
				next = th.ID
				break
			}
		}
		if next == 0 {
			t.Fatalf("no thread enabled and no outcome")
		}
		if err := e.Step(schedule.Step{Thread: next, Choice: schedule.NoChoice}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// raceCase is a scripted program, a schedule, and the race it must end
// in ("" for a clean end).
type raceCase struct {
	name     string
	main     []ct.Step
	children [][]ct.Step
	sched    string
	race     string // a substring of the race's message, "" for no race
}

// The race detector: a race is two accesses of different threads to the
// same bytes, one a write and not both atomic, that the program's
// synchronization does not order, whatever the schedule that runs them.
func TestDataRaces(t *testing.T) {
	tests := []raceCase{
		{
			name:     "two unordered writes",
			main:     []ct.Step{create, write(varX, 0x100), joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), tExit}},
			sched:    "1;1;2",
			race:     "thread 2 writes 4 bytes at 0x5000 at line-s (step 3), unordered with thread 1's write at line-w (step 2)",
		},
		{
			name:     "the same writes in the other order",
			main:     []ct.Step{create, write(varX, 0x100), joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), tExit}},
			sched:    "1;2;1",
			race:     "thread 1 writes 4 bytes at 0x5000",
		},
		{
			name:     "a read and a write",
			main:     []ct.Step{create, read(varX, 0x100), joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), tExit}},
			sched:    "1;1;2",
			race:     "thread 2 writes",
		},
		{
			name:     "two reads",
			main:     []ct.Step{create, read(varX, 0x100), joinTwo, exit0},
			children: [][]ct.Step{{read(varX, 0x200), tExit}},
			sched:    "1;1;2",
		},
		{
			name:     "different variables",
			main:     []ct.Step{create, write(varX, 0x100), joinTwo, exit0},
			children: [][]ct.Step{{write(varY, 0x200), tExit}},
			sched:    "1;1;2",
		},
		{
			name:     "overlapping bytes",
			main:     []ct.Step{create, access(syncmodel.Write, syncmodel.APIStdbgWrite, varX, 8, 0x100), joinTwo, exit0},
			children: [][]ct.Step{{access(syncmodel.Read, syncmodel.APIStdbgRead, varX+6, 1, 0x200), tExit}},
			sched:    "1;1;2",
			race:     "thread 2 reads 1 byte at 0x5006",
		},
		{
			name:     "both under one mutex",
			main:     []ct.Step{create, lock(mA, 0x100), write(varX, 0x101), unlock(mA, 0x102), joinTwo, exit0},
			children: [][]ct.Step{{lock(mA, 0x200), write(varX, 0x201), unlock(mA, 0x202), tExit}},
			sched:    "1;1;1;1;2;2;2",
		},
		{
			name:     "under different mutexes",
			main:     []ct.Step{create, lock(mA, 0x100), write(varX, 0x101), unlock(mA, 0x102), joinTwo, exit0},
			children: [][]ct.Step{{lock(mB, 0x200), write(varX, 0x201), unlock(mB, 0x202), tExit}},
			sched:    "1;1;1;1;2;2",
			race:     "thread 2 writes",
		},
		{
			name:     "written before the thread is created",
			main:     []ct.Step{write(varX, 0x100), create, joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), tExit}},
			sched:    "1;1;2;2",
		},
		{
			name:     "read after the join",
			main:     []ct.Step{create, joinTwo, read(varX, 0x100), exit0},
			children: [][]ct.Step{{write(varX, 0x200), tExit}},
			sched:    "1;2;2;1;1",
		},
		{
			name:     "a semaphore orders them",
			main:     []ct.Step{op(syncmodel.SemInit, syncmodel.APISemInit, semS, 0x100), create, op(syncmodel.SemWait, syncmodel.APISemWait, semS, 0x101), read(varX, 0x102), joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), op(syncmodel.SemPost, syncmodel.APISemPost, semS, 0x201), tExit}},
			sched:    "1;1;2;2;1;1",
		},
		{
			name:     "publication through an atomic flag",
			main:     []ct.Step{create, atomicRead(varY, 0x100), read(varX, 0x101), joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), atomicWrite(varY, 0x201), tExit}},
			sched:    "1;2;2;1;1",
		},
		{
			name:     "the flag read before it is set",
			main:     []ct.Step{create, atomicRead(varY, 0x100), read(varX, 0x101), joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), atomicWrite(varY, 0x201), tExit}},
			sched:    "1;1;2;1",
			race:     "thread 1 reads 4 bytes at 0x5000",
		},
		{
			name:     "two atomic writes",
			main:     []ct.Step{create, atomicWrite(varX, 0x100), joinTwo, exit0},
			children: [][]ct.Step{{atomicWrite(varX, 0x200), tExit}},
			sched:    "1;1;2",
		},
		{
			name:     "an atomic and a plain write",
			main:     []ct.Step{create, atomicWrite(varX, 0x100), joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), tExit}},
			sched:    "1;1;2",
			race:     "thread 2 writes",
		},
		{
			name: "a condition wait reacquires the mutex",
			main: []ct.Step{create, lock(mA, 0x100),
				ct.Step{Op: syncmodel.Op{Kind: syncmodel.CondWait, API: syncmodel.APICondWait, Obj: condC, Obj2: mA}, PC: 0x101},
				ct.Step{Op: syncmodel.Op{Kind: syncmodel.CondReacquire, API: syncmodel.APICondWait, Obj: condC, Obj2: mA}, PC: 0x101},
				read(varX, 0x102), unlock(mA, 0x103), joinTwo, exit0},
			children: [][]ct.Step{{lock(mA, 0x200), write(varX, 0x201), op(syncmodel.CondSignal, syncmodel.APICondSignal, condC, 0x202), unlock(mA, 0x203), tExit}},
			sched:    "1;1;1;2;2;2;2;1;1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := func() *ct.Runtime { return &ct.Runtime{Main: tt.main, Children: tt.children} }
			e := runToEnd(t, rt(), executor.Options{Races: true, Locate: locate}, tt.sched)
			o := e.Ended()
			switch {
			case tt.race == "" && o.Kind == search.DataRace:
				t.Fatalf("reported %q, want no race", o.Message)
			case tt.race == "" && o.Kind != search.Exited:
				t.Fatalf("ended with %s %q, want a clean end", o.Kind, o.Message)
			case tt.race != "" && (o.Kind != search.DataRace || !strings.Contains(o.Message, tt.race)):
				t.Fatalf("ended with %s %q, want a data race %q", o.Kind, o.Message, tt.race)
			}
			if tt.race != "" {
				if !strings.Contains(o.Where, ",") {
					t.Errorf("where %q", o.Where)
				}
				// Turned off, the same schedule runs to its end.
				off := runToEnd(t, rt(), executor.Options{Locate: locate}, tt.sched)
				if k := off.Ended().Kind; k != search.Exited {
					t.Errorf("with races off: %s", k)
				}
			}
		})
	}
}

// The same race reached by two schedules is one bug: its key names both
// places, in a fixed order.
func TestDataRaceKey(t *testing.T) {
	rt := func() *ct.Runtime {
		return &ct.Runtime{Main: []ct.Step{create, write(varX, 0x100), joinTwo, exit0}, Children: [][]ct.Step{{write(varX, 0x200), tExit}}}
	}
	a := runToEnd(t, rt(), executor.Options{Races: true, Locate: locate}, "1;1;2").Ended()
	b := runToEnd(t, rt(), executor.Options{Races: true, Locate: locate}, "1;2;1").Ended()
	if a.Key() != b.Key() || a.Where != "line-s,line-w" {
		t.Errorf("keys %q and %q, where %q", a.Key(), b.Key(), a.Where)
	}
}

// then makes step st log plain accesses after its operation (an
// instrumented C program with STDBG_MEM_LOG=1).
func then(st ct.Step, accesses ...wire.Access) ct.Step {
	st.Logged = accesses
	return st
}

func plainWrite(addr, pc uint64) wire.Access {
	return wire.Access{Addr: addr, Size: 4, Write: true, PC: pc}
}
func plainRead(addr, pc uint64) wire.Access { return wire.Access{Addr: addr, Size: 4, PC: pc} }

// Plain accesses logged between operations are checked at the clock of
// their thread after the operation before them: ordered as the
// synchronization around them orders them, and named with the step after
// which they were made.
func TestLoggedAccessRaces(t *testing.T) {
	tests := []raceCase{
		{
			name:     "two unordered writes",
			main:     []ct.Step{then(create, plainWrite(varX, 0x100)), joinTwo, exit0},
			children: [][]ct.Step{{then(ct.Op(syncmodel.ThreadStart, syncmodel.APIThreadStart, 0, 0x1ff), plainWrite(varX, 0x200)), tExit}},
			sched:    "1;2",
			race:     "thread 2 writes 4 bytes at 0x5000 at line-s (after step 2), unordered with thread 1's write at line-w (after step 1)",
		},
		{
			name:     "a logged read against a write that is a point",
			main:     []ct.Step{then(create, plainRead(varX, 0x100)), joinTwo, exit0},
			children: [][]ct.Step{{write(varX, 0x200), tExit}},
			sched:    "1;2",
			race:     "thread 2 writes 4 bytes at 0x5000 at line-s (step 2), unordered with thread 1's read at line-w (after step 1)",
		},
		{
			name:     "both under one mutex",
			main:     []ct.Step{create, then(lock(mA, 0x100), plainWrite(varX, 0x101)), unlock(mA, 0x102), joinTwo, exit0},
			children: [][]ct.Step{{then(lock(mA, 0x200), plainWrite(varX, 0x201)), unlock(mA, 0x202), tExit}},
			sched:    "1;1;1;2;2",
		},
		{
			name:     "under different mutexes",
			main:     []ct.Step{create, then(lock(mA, 0x100), plainWrite(varX, 0x101)), unlock(mA, 0x102), joinTwo, exit0},
			children: [][]ct.Step{{then(lock(mB, 0x200), plainWrite(varX, 0x201)), unlock(mB, 0x202), tExit}},
			sched:    "1;1;1;2",
			race:     "thread 2 writes",
		},
		{
			name:     "written before the create",
			main:     []ct.Step{then(ct.Op(syncmodel.Yield, syncmodel.APISchedYield, 0, 0x99), plainWrite(varX, 0x100)), create, joinTwo, exit0},
			children: [][]ct.Step{{then(ct.Op(syncmodel.ThreadStart, syncmodel.APIThreadStart, 0, 0x1ff), plainWrite(varX, 0x200)), tExit}},
			sched:    "1;1;2",
		},
		{
			name:     "read after the join",
			main:     []ct.Step{create, then(joinTwo, plainRead(varX, 0x100)), exit0},
			children: [][]ct.Step{{then(ct.Op(syncmodel.ThreadStart, syncmodel.APIThreadStart, 0, 0x1ff), plainWrite(varX, 0x200)), tExit}},
			sched:    "1;2;2;1",
		},
		{
			name:     "published through an atomic flag",
			main:     []ct.Step{create, then(atomicRead(varY, 0x100), plainRead(varX, 0x101)), joinTwo, exit0},
			children: [][]ct.Step{{then(ct.Op(syncmodel.ThreadStart, syncmodel.APIThreadStart, 0, 0x1ff), plainWrite(varX, 0x200)), atomicWrite(varY, 0x201), tExit}},
			sched:    "1;2;2;1",
		},
		{
			name:     "the flag read before it is set",
			main:     []ct.Step{create, then(atomicRead(varY, 0x100), plainRead(varX, 0x101)), joinTwo, exit0},
			children: [][]ct.Step{{then(ct.Op(syncmodel.ThreadStart, syncmodel.APIThreadStart, 0, 0x1ff), plainWrite(varX, 0x200)), atomicWrite(varY, 0x201), tExit}},
			sched:    "1;2;1",
			race:     "thread 1 reads 4 bytes at 0x5000",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := &ct.Runtime{Main: tt.main, Children: tt.children}
			e := runToEnd(t, rt, executor.Options{Races: true, Locate: locate}, tt.sched)
			o := e.Ended()
			switch {
			case tt.race == "" && o.Kind != search.Exited:
				t.Fatalf("ended with %s %q, want a clean end", o.Kind, o.Message)
			case tt.race != "" && (o.Kind != search.DataRace || !strings.Contains(o.Message, tt.race)):
				t.Fatalf("ended with %s %q, want a data race %q", o.Kind, o.Message, tt.race)
			}
		})
	}
}
