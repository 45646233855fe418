package syncmodel

import "testing"

func TestTimerWait(t *testing.T) {
	at := func(ns int64) Op { return o(TimerWait, 0, ns) }
	runScenarios(t, []scenario{
		{
			name: "the earliest timer fires first",
			steps: cat(threads(3), []step{
				{tid: 2, op: at(2000), hold: true},
				{tid: 3, op: at(1000), hold: true},
				{tid: 3},
				{tid: 2},
			}),
		},
		{
			name: "equal times are both enabled",
			steps: cat(threads(3), []step{
				{tid: 2, op: at(1000), hold: true},
				{tid: 3, op: at(1000), hold: true},
				{tid: 2},
				{tid: 3},
			}),
		},
		{
			name: "a timer races with any other operation",
			steps: cat(threads(2), []step{
				{tid: 2, op: at(5000), hold: true},
				{tid: 1, op: o(GoMutexLock, gm, 0), hold: true},
				{tid: 2},
				{tid: 1},
			}),
		},
	})
	w := NewWorld()
	w.SetPending(1, o(TimerWait, 0, 1000))
	if _, err := w.Execute(1, 0); err != nil {
		t.Fatal(err)
	}
	w.SetPending(1, o(ThreadCreate, 0, 0))
	if _, err := w.Execute(1, 0); err != nil {
		t.Fatal(err)
	}
	w.SetPending(1, o(TimerWait, 0, 10))
	w.SetPending(2, o(TimerWait, 0, 20))
	if w.Enabled(2) || len(w.Blocked()) != 0 {
		t.Errorf("a later timer: enabled %v, blocked %v; want disabled but not blocked", w.Enabled(2), w.Blocked())
	}
	if !Dependent(1, o(TimerWait, 0, 1), 2, o(Yield, 0, 0)) || !Dependent(1, o(ChanSend, 7, 0), 2, o(TimerWait, 0, 1)) {
		t.Error("TimerWait must depend on every operation")
	}
}
