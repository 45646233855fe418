package wire

// Event is what a runtime reports of an execution, in the order it
// happened: a Pending (or a *Pending, as a Decoder hands it), Failure,
// Stack, State, Note, Done or Accesses message, or what the checker saw of the
// process itself: Died, TimedOut. The set is closed: only the types of
// this package implement Event, so that a consumer's type switch over
// them is complete.
type Event interface{ isEvent() }

func (Pending) isEvent()  {}
func (Failure) isEvent()  {}
func (Stack) isEvent()    {}
func (State) isEvent()    {}
func (Note) isEvent()     {}
func (Done) isEvent()     {}
func (Died) isEvent()     {}
func (TimedOut) isEvent() {}

// Died is the event of a target process that ended without reporting why
// (no FAILURE message): killed by a signal, or exited on its own between
// two scheduling points.
type Died struct {
	// Description says how, e.g. "killed by signal 9" or "exited with status 3".
	Description string
	// Signal is the signal that ended it, 0 if it exited.
	Signal int
}

// TimedOut is the event of a transition that did not reach its next
// scheduling point within the transition timeout.
type TimedOut struct {
	Tid int
	// Frames is where the thread was when it was asked (may be empty).
	Frames []uint64
	// After is how long the checker waited.
	After string
	// Cut reports a transition that the end of the search's budget, not
	// the timeout, cut: the execution stops there without a bug.
	Cut bool
}
