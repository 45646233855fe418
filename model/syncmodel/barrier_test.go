package syncmodel

import "testing"

func TestBarrier(t *testing.T) {
	wait := o(BarrierWait, bar, 0)
	leave := o(BarrierLeave, bar, 0)
	runScenarios(t, []scenario{
		{
			name:  "count 0",
			steps: []step{{tid: 1, op: o(BarrierInit, bar, 0), misuse: "barrier 0x605000 initialised with count 0"}},
		},
		{
			name:  "negative count",
			steps: []step{{tid: 1, op: o(BarrierInit, bar, -2), misuse: "barrier 0x605000 initialised with count -2"}},
		},
		{
			name:  "uninitialised",
			steps: []step{{tid: 1, op: wait, misuse: "wait on uninitialised barrier 0x605000"}},
		},
		{
			name: "count 1",
			steps: []step{
				{tid: 1, op: o(BarrierInit, bar, 1)},
				{tid: 1, op: wait, code: BarrierSerial},
				{tid: 1, op: wait, code: BarrierSerial},
			},
		},
		{
			name: "three threads",
			steps: cat(threads(3), []step{
				{tid: 1, op: o(BarrierInit, bar, 3)},
				{tid: 2, op: wait},
				{tid: 2, op: leave, blocked: true},
				{tid: 1, op: wait},
				{tid: 1, op: leave, blocked: true},
				{tid: 2, blocked: true},
				{tid: 3, op: wait, code: BarrierSerial},
				{tid: 2},
				{tid: 1},
			}),
		},
		{
			name: "generations",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(BarrierInit, bar, 2)},
				{tid: 1, op: wait},
				{tid: 2, op: wait, code: BarrierSerial},
				{tid: 2, op: wait}, // next generation
				{tid: 2, op: leave, blocked: true},
				{tid: 1, op: leave}, // released from the first
				{tid: 1, op: wait, code: BarrierSerial},
				{tid: 2},
			}),
		},
		{
			name: "destroy with waiters",
			steps: cat(threads(3), []step{
				{tid: 1, op: o(BarrierInit, bar, 3)},
				{tid: 1, op: wait},
				{tid: 2, op: wait},
				{tid: 3, op: o(BarrierDestroy, bar, 0), misuse: "destroy of barrier 0x605000 while threads 1, 2 wait on it"},
				{tid: 3, op: o(BarrierInit, bar, 2), misuse: "init of barrier 0x605000 while threads 1, 2 wait on it"},
				{tid: 3, op: wait, code: BarrierSerial},
				// Released threads may leave after the barrier is gone.
				{tid: 3, op: o(BarrierDestroy, bar, 0)},
				{tid: 1, op: leave},
				{tid: 2, op: leave},
				{tid: 1, op: wait, misuse: "wait on uninitialised barrier"},
			}),
		},
		{
			name: "destroy with one waiter",
			steps: cat(threads(2), []step{
				{tid: 1, op: o(BarrierInit, bar, 2)},
				{tid: 1, op: wait},
				{tid: 2, op: o(BarrierDestroy, bar, 0), misuse: "while thread 1 waits on it"},
			}),
		},
	})
}
