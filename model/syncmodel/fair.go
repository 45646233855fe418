package syncmodel

// Fairness, after CHESS's fair stateless model checking, for time: a
// thread that waits for time again (a ticker's goroutine, a goroutine
// that sleeps in a loop) is held back while a thread that could run at its
// previous wait has not run since and can run now. Without it, every
// schedule that leaves a runnable goroutine waiting for its turn would
// tick or sleep on to the depth bound, and a search would spend its whole
// budget on a few such executions.
//
// What the rule leaves out are schedules in which a runnable goroutine is
// starved for a whole period of a ticker, or across two sleeps of another
// goroutine, which no Go scheduler does; a real livelock, in which the
// threads do take turns, is still there for the liveness search.
//
// The rule is state (timeThread.ran and waited count the operations the
// rule is about, which are dependent on every operation, so that two
// independent operations still commute), and a held operation is enabled
// again by any operation of the threads it waits for, on which it depends.

// noProgress reports whether operations of kind k make no progress: a
// thread that performs one again while others wait for their turn is held
// back (earliestTimer: a thread that can run has not run since the
// thread's last one). Only TimerWait for now: a Yield (or a Sleep, or a
// select that takes its default case) is a turn of a polling loop only
// when the thread performed the same one before, which the model cannot
// tell from its operations alone.
func noProgress(k Kind) bool { return k == TimerWait }
