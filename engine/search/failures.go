package search

// Failures is what a search keeps of its failing executions for the
// proofs of its bugs' minimisations (Options.Failures,
// MinimiseOptions.Failures): for each bug (by Outcome.Key), its shortest
// Mazurkiewicz traces, as the reducing search of a proof keeps them (see
// prove.go).
//
// A minimisation proves its schedule minimal by running the reducing
// search (NewDPOR) over every trace of the program within the depth
// bound, all of them, and looking among the shortest that end with the
// bug. When the search that found the bug was that very search (NewDPOR,
// not stateful, complete, within the same bound, on the whole program),
// it ran the same executions in the same order, and what it kept is the
// proof search's result: the minimisation then runs none of them again
// and ends where the proof would have, with the same schedule.
//
// A Failures is filled by one Explore at a time: Explore empties it when
// it starts. A search divided among workers (ExploreSplit, a divided
// portfolio) keeps nothing in it.
type Failures struct {
	byKey    map[string]*failRecorder
	maxDepth int
	complete bool            // the search was a whole proof search
	used     map[string]bool // the bugs whose proof took their record
}

// reset empties f for a search within maxDepth.
func (f *Failures) reset(maxDepth int) {
	f.byKey, f.maxDepth, f.complete, f.used = nil, maxDepth, false, nil
}

// record keeps a failing execution's trace if it is among the shortest
// of its bug's.
func (f *Failures) record(rep *Report) {
	key := rep.Outcome.Key()
	r := f.byKey[key]
	if r == nil {
		if f.byKey == nil {
			f.byKey = map[string]*failRecorder{}
		}
		r = &failRecorder{key: key, shortest: -1}
		f.byKey[key] = r
	}
	r.record(rep)
}

// finish says whether the search that filled f was a whole proof search:
// the reducing search, complete, without a visited set.
func (f *Failures) finish(st Strategy, res *Result, opts Options) {
	_, reducing := st.(*dpor)
	f.complete = reducing && res.Complete && !opts.Stateful()
}

// proof returns the complete proof search of the bug with the given key
// within bound (<= 0: unbounded) that the search was, once: nil when the
// search was not one, or kept too many shortest traces of the bug, or
// none.
func (f *Failures) proof(key string, bound int) *proofSearch {
	if f == nil || !f.complete || f.used[key] || !(f.maxDepth == bound || f.maxDepth <= 0 && bound <= 0) {
		return nil
	}
	r := f.byKey[key]
	if r == nil || r.overflow {
		return nil
	}
	if f.used == nil {
		f.used = map[string]bool{}
	}
	f.used[key] = true
	return &proofSearch{bound: bound, rec: r, complete: true}
}
