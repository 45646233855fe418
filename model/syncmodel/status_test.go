package syncmodel

import (
	"slices"
	"testing"
)

// TestStatusDeps: what a pending operation's status depends on, and what
// a step or a report touches, for kinds of every sort.
func TestStatusDeps(t *testing.T) {
	tests := []struct {
		name    string
		op      Op
		objs    []uint64
		thread  int
		global  bool
		touches []uint64
		touchT  int
	}{
		{"a lock waits for its mutex", Op{Kind: MutexLock, Obj: mA}, []uint64{mA}, 0, false, []uint64{mA}, 0},
		{"a condition wait's second half, for its condition and its mutex", Op{Kind: CondReacquire, Obj: 0x900, Obj2: mA},
			[]uint64{0x900, mA}, 0, false, []uint64{0x900, mA}, 0},
		{"a join, for the thread joined", Op{Kind: ThreadJoin, Arg: 3}, nil, 3, false, nil, 3},
		{"a join of no thread there can be", Op{Kind: ThreadJoin, Arg: -1}, nil, 0, true, nil, 0},
		{"a thread's exit touches its joiners", Op{Kind: ThreadExit}, nil, 0, false, nil, 2},
		{"a creation depends on nothing", Op{Kind: ThreadCreate}, nil, 0, false, nil, 0},
		{"a memory read depends on nothing", Op{Kind: Read, Obj: flagAddr, Arg: 4}, nil, 0, false, nil, 0},
		{"time depends on every step", Op{Kind: TimerWait, Obj: 0x700, Arg: 5}, nil, 0, true, []uint64{0x700}, 0},
		{"a channel receive depends on every step", Op{Kind: ChanRecv, Obj: 0x700}, nil, 0, true, []uint64{0x700}, 0},
		{"an annotation that depends on the state", Op{Kind: RWUnlock, Obj: mA}, nil, 0, true, []uint64{mA}, 0},
		{"a bubble's wait", Op{Kind: BubbleWait}, nil, 0, true, nil, 0},
		{"a Go mutex", Op{Kind: GoMutexLock, Obj: mA}, []uint64{mA}, 0, false, []uint64{mA}, 0},
		{"a select touches its cases' channels", Op{Kind: Select, Cases: []Case{{Chan: 0x700}, {Chan: 0x800}}},
			nil, 0, true, []uint64{0x700, 0x800}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, thread, global := StatusDeps(nil, &tt.op)
			if !slices.Equal(objs, tt.objs) || thread != tt.thread || global != tt.global {
				t.Errorf("StatusDeps(%s) = %v, %d, %v; want %v, %d, %v", tt.op, objs, thread, global, tt.objs, tt.thread, tt.global)
			}
			touched, u := StepTouches(nil, 2, &tt.op)
			if !slices.Equal(touched, tt.touches) || u != tt.touchT {
				t.Errorf("StepTouches(2, %s) = %v, %d; want %v, %d", tt.op, touched, u, tt.touches, tt.touchT)
			}
		})
	}
}
