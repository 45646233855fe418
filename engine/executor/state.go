package executor

import (
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/hashmix"
)

// State implements search.Stateful: the program state at the current
// scheduling point is the runtime's report of the program's memory (or
// declared state), each live thread's position (the place it called its
// pending operation from; the operation itself is part of the model) and
// the synchronization model's state, and with the race detector, what of
// the happens-before order can still make a race (raceFingerprint): two
// paths to the same memory, one where an access is ordered before another
// thread and one where it is not, are not one state. It returns false if the runtime sent
// no state report for this point (it was not asked to: wire.FlagState).
func (e *Execution) State() (search.State, bool) {
	if e.state == nil || e.outcome != nil {
		return search.State{}, false
	}
	h := hashmix.Mix(e.state.Hash ^ 0x9e3779b97f4a7c15)
	h = hashmix.Mix(h ^ e.w.Fingerprint())
	if e.c.opts.Races {
		h = hashmix.Mix(h ^ e.raceFingerprint())
	}
	for _, tid := range e.w.Live() {
		var pc uint64
		if fr := e.PendingFrames(tid); len(fr) > 0 {
			pc = fr[0]
		}
		h = hashmix.Mix(h ^ uint64(tid)<<48 ^ pc)
	}
	st := search.State{Hash: h, Progress: e.state.Progress}
	if len(e.state.Props) > 0 {
		st.Props = make([]search.Prop, len(e.state.Props))
		for i, p := range e.state.Props {
			st.Props[i] = search.Prop{Name: p.Name, Value: p.Value != 0}
			if p.Value != 0 {
				h = hashmix.Mix(h ^ uint64(i+1))
			}
		}
		st.Hash = h
	}
	return st, true
}
