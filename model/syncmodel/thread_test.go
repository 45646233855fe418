package syncmodel

import (
	"slices"
	"testing"
)

func TestThreads(t *testing.T) {
	exit := Op{Kind: ThreadExit}
	join := func(target int64) Op { return o(ThreadJoin, 0, target) }
	detach := func(target int64) Op { return o(ThreadDetach, 0, target) }
	runScenarios(t, []scenario{
		{
			name:  "create numbers threads in order",
			steps: []step{create(1, 2), create(2, 3), create(1, 4)},
			check: func(t *testing.T, w *World) {
				if w.NumThreads() != 4 {
					t.Errorf("NumThreads() = %d", w.NumThreads())
				}
				if l := w.Live(); !slices.Equal(l, []int{1, 2, 3, 4}) {
					t.Errorf("Live() = %v", l)
				}
				if _, ok := w.Pending(4); ok {
					t.Error("new thread has a pending op")
				}
			},
		},
		{
			name: "create result",
			check: func(t *testing.T, w *World) {
				if err := w.SetPending(1, o(ThreadCreate, 0, 1)); err != nil {
					t.Fatal(err)
				}
				res, err := w.Execute(1, 0)
				if err != nil || res.NewThread != 2 || res.Code != 2 {
					t.Errorf("create: %+v, %v", res, err)
				}
			},
		},
		{
			name: "exit finishes the thread and keeps its op",
			steps: cat(threads(2), []step{
				{tid: 2, op: exit},
			}),
			check: func(t *testing.T, w *World) {
				if !w.Finished(2) || w.Finished(1) {
					t.Error("Finished wrong")
				}
				if op, ok := w.Pending(2); !ok || op.Kind != ThreadExit {
					t.Errorf("Pending(2) = %s, %v", op, ok)
				}
				if w.Enabled(2) {
					t.Error("finished thread enabled")
				}
				if l := w.Live(); !slices.Equal(l, []int{1}) {
					t.Errorf("Live() = %v", l)
				}
			},
		},
		{
			name: "join of finished thread",
			steps: cat(threads(2), []step{
				{tid: 2, op: exit},
				{tid: 1, op: join(2)},
			}),
		},
		{
			name: "join waits for exit",
			steps: cat(threads(2), []step{
				{tid: 1, op: join(2), blocked: true},
				{tid: 2, op: Op{Kind: Yield}},
				{tid: 1, blocked: true},
				{tid: 2, op: exit},
				{tid: 1},
			}),
		},
		{
			name: "join of thread without pending op blocks",
			steps: cat(threads(2), []step{
				{tid: 1, op: join(2), blocked: true},
			}),
		},
		{
			name: "main thread can be joined",
			steps: cat(threads(2), []step{
				{tid: 1, op: exit},
				{tid: 2, op: join(1)},
			}),
		},
		{
			name: "join of unknown thread",
			steps: []step{
				{tid: 1, op: join(2), misuse: "join of unknown thread 2"},
				{tid: 1, op: join(0), misuse: "join of unknown thread 0"},
				{tid: 1, op: join(-1), misuse: "join of unknown thread -1"},
			},
		},
		{
			name:  "join of self",
			steps: []step{{tid: 1, op: join(1), misuse: "thread 1 joins itself"}},
		},
		{
			name: "join of detached thread",
			steps: []step{
				{tid: 1, op: o(ThreadCreate, 0, 1), code: 2},
				{tid: 1, op: join(2), misuse: "join of detached thread 2"},
			},
		},
		{
			name: "join of thread detached later",
			steps: cat(threads(2), []step{
				{tid: 2, op: detach(2)},
				{tid: 1, op: join(2), misuse: "join of detached thread 2"},
			}),
		},
		{
			name: "join twice",
			steps: cat(threads(2), []step{
				{tid: 2, op: exit},
				{tid: 1, op: join(2)},
				{tid: 1, op: join(2), misuse: "join of thread 2, which was already joined"},
			}),
		},
		{
			name: "two threads join the same running thread",
			steps: cat(threads(3), []step{
				{tid: 1, op: join(3), blocked: true},
				{tid: 2, op: join(3), misuse: "join of thread 3, which thread 1 is already joining"},
				{tid: 1, misuse: "join of thread 3, which thread 2 is already joining"},
			}),
		},
		{
			name: "two threads join the same finished thread",
			steps: cat(threads(3), []step{
				{tid: 3, op: exit},
				{tid: 1, op: join(3), hold: true},
				{tid: 2, op: join(3)},
				{tid: 1, misuse: "join of thread 3, which was already joined"},
			}),
		},
		{
			name: "joiner that finished does not count",
			steps: cat(threads(3), []step{
				{tid: 2, op: exit},
				{tid: 1, op: join(3), blocked: true},
			}),
		},
		{
			name: "detach",
			steps: cat(threads(3), []step{
				{tid: 1, op: detach(2)},
				{tid: 3, op: exit},
				{tid: 1, op: detach(3)},
			}),
		},
		{
			name:  "detach of unknown thread",
			steps: []step{{tid: 1, op: detach(5), misuse: "detach of unknown thread 5"}},
		},
		{
			name: "detach twice",
			steps: cat(threads(2), []step{
				{tid: 1, op: detach(2)},
				{tid: 2, op: detach(2), misuse: "detach of thread 2, which is already detached"},
			}),
		},
		{
			name: "detach of thread created detached",
			steps: []step{
				{tid: 1, op: o(ThreadCreate, 0, 1), code: 2},
				{tid: 1, op: detach(2), misuse: "detach of thread 2, which is already detached"},
			},
		},
		{
			name: "detach of joined thread",
			steps: cat(threads(2), []step{
				{tid: 2, op: exit},
				{tid: 1, op: join(2)},
				{tid: 1, op: detach(2), misuse: "detach of thread 2, which was already joined"},
			}),
		},
	})
}
