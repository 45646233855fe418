package hunt

import (
	"fmt"

	"github.com/stdbg/stdbg/engine/corpus"
)

// Status is the verdict on a stored bug replayed on the program as it is
// now.
type Status string

// The verdicts of a rerun.
const (
	// Reproduces: the same failure (kind and place) happens again; for a
	// lasso, every run of its cycle comes back to the state where it
	// began (or the program still ends after the stem).
	Reproduces Status = "reproduces"
	// FailsDifferently: the schedule now ends in another failure.
	FailsDifferently Status = "fails differently"
	// Fixed: the whole schedule runs and the program then ends cleanly
	// (a lasso: no longer loops).
	Fixed Status = "fixed"
	// Diverged: the schedule no longer fits the program (a thread it
	// names does not exist or cannot run at that step), or the program
	// ends or reaches the depth bound before the schedule does: the bug
	// may survive under another schedule.
	Diverged Status = "diverged"
)

// Failing reports a verdict that fails a regression gate: the bug
// reproduces or the schedule fails differently.
func (s Status) Failing() bool { return s == Reproduces || s == FailsDifferently }

// Verdict is what a replay of a stored bug says of it.
type Verdict struct {
	Status Status
	// Detail says it in one line: the failure, or where and why the
	// schedule no longer fits, or how many runs of a lasso's cycle came
	// back.
	Detail string
	// Replayed is the replay judged.
	Replayed *Replayed
}

// Judge is the verdict of r, a replay of a stored bug that failed as want
// says (its kind and place).
func (r *Replayed) Judge(want corpus.Failure) Verdict {
	v := Verdict{Replayed: r}
	o := r.Outcome
	if r.Replay.Lasso() {
		v.Status, v.Detail = r.judgeLasso(want)
		return v
	}
	switch {
	case r.Diverged():
		v.Status, v.Detail = Diverged, o.Message
	case o != nil && o.Kind.String() == want.Kind && o.Where == want.Where:
		v.Status, v.Detail = Reproduces, fmt.Sprintf("%s: %s", o.Kind, o.Message)
	case o != nil && o.Kind.IsBug():
		v.Status, v.Detail = FailsDifferently, fmt.Sprintf("now %s: %s (was %s at %s)", o.Kind, o.Message, want.Kind, want.Where)
	case r.Leftover > 0:
		// The program ended (or was cut) before the schedule did: the
		// schedule no longer fits, which says nothing of the bug.
		what := "the execution ended"
		if o == nil {
			what = fmt.Sprintf("the depth bound (%d) was reached", r.Replay.MaxDepth)
		}
		n := len(r.Replay.Schedule)
		v.Status, v.Detail = Diverged, fmt.Sprintf("%s after %d of the schedule's %d steps", what, n-r.Leftover, n)
	case o == nil:
		v.Status, v.Detail = Diverged, fmt.Sprintf("the schedule ran, but the program did not end within %d steps", r.Replay.MaxDepth)
	default:
		v.Status, v.Detail = Fixed, "the whole schedule runs and the program ends cleanly: "+o.Message
	}
	return v
}

// judgeLasso judges the replay of a stored livelock or liveness
// violation: it reproduces when every run of the cycle comes back to the
// state where the cycle began (or, for a violation by a program that
// ends, when the stem still ends the program).
func (r *Replayed) judgeLasso(want corpus.Failure) (Status, string) {
	o := r.Outcome
	switch {
	case r.Diverged():
		return Diverged, o.Message
	case len(r.Replay.Cycle) == 0 && o != nil && !o.Kind.IsBug():
		return Reproduces, fmt.Sprintf("%s: the run still ends after the stem", want.Kind)
	case len(r.Replay.Cycle) > 0 && o == nil && r.Back == r.Runs:
		return Reproduces, fmt.Sprintf("%s: the cycle still comes back to its state (%d runs)", want.Kind, r.Runs)
	case o != nil && o.Kind.IsBug():
		return FailsDifferently, fmt.Sprintf("now %s: %s (was %s)", o.Kind, o.Message, want.Kind)
	}
	return Fixed, fmt.Sprintf("the lasso no longer loops: %d of %d runs of the cycle came back to its state", r.Back, r.Runs)
}
