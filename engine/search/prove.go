package search

import (
	"errors"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
)

// The proof of a minimisation, by reduction.
//
// Every schedule of a Mazurkiewicz trace has the trace's length and ends as
// the trace does (the same operations, in an order that differs only
// between independent ones, reach the same state). So the shortest
// schedules of a bug are among the schedules of its shortest traces, and
// an exhaustive reducing search (NewDPOR), which runs one schedule of every
// trace, finds all of those: the length is proven by the search itself.
// Among the schedules of those traces, the one with the fewest preemptions
// is found and proven by linear (linearize.go), which runs a few of them to
// learn where threads are enabled. This relies on the model's independence
// (syncmodel.Dependent) exactly as the exhaustive search's own verdict
// does; MinimiseOptions.NoReduction proves without it.

// maxLinWork bounds the nodes the shortest-path searches of one proof
// (linear.solve) may go through together, which bounds its time.
const maxLinWork = 1 << 25

// maxProofTraces bounds the shortest traces of the bug a proof keeps; past
// it the proof gives up (the lower bound on preemptions stays unproven).
const maxProofTraces = 512

// errModel stops a proof when an execution did not do what the model
// says the schedules of a trace do (end as the trace ended, after as many
// steps): the reduction cannot prove anything about this program.
var errModel = errors.New("a schedule of the bug's trace did not end as the trace did")

// failRecorder wraps the reducing strategy of a proof and keeps the
// shortest traces that ended with the bug.
type failRecorder struct {
	Strategy
	key      string
	shortest int // length of the shortest, -1 none yet
	lins     []*linear
	seen     map[string]bool
	overflow bool // more than maxProofTraces of the shortest length
}

func (r *failRecorder) End(rep *Report) {
	r.record(rep)
	r.Strategy.End(rep)
}

// record keeps the execution's trace if it ended with the bug and is
// among its shortest.
func (r *failRecorder) record(rep *Report) {
	if o := rep.Outcome; o != nil && o.Kind.IsBug() && o.Key() == r.key {
		// A deadlock needs every operation of its trace (with one
		// left out, a thread could go on), and so does a leak, found
		// when the program ends (the threads that go on must end or
		// block first); a failure that ends the execution at a step
		// needs only what happens before it.
		tr, final := rep.Trace, rep.Final
		if o.Kind != Deadlock && o.Kind != Leak {
			tr, final = causalPast(tr), nil
		}
		n := len(tr)
		if r.shortest < 0 || n < r.shortest {
			r.shortest, r.lins, r.seen, r.overflow = n, nil, map[string]bool{}, false
		}
		if n == r.shortest {
			if k := TraceKey(tr); !r.seen[k] {
				r.seen[k] = true
				if len(r.lins) < maxProofTraces {
					r.lins = append(r.lins, newLinear(tr, final, r.key, o.Kind))
				} else {
					r.overflow = true
				}
			}
		}
	}
}

// proof is what a proof established: a lower bound on the schedules of the
// bug, in the order (length, preemptions), and the best schedule it ran.
type proof struct {
	length, pre int    // no schedule of the bug is smaller
	best        *trial // the smallest schedule of the bug it ran, or nil
	why         string // why it stopped short, "" if it did not
}

// resumable lets Explore run a strategy in parts: Init is passed on only
// once, and a prefix Begin returned whose execution Explore did not run
// (it stopped at MaxExecutions) is returned again by the next Begin.
type resumable struct {
	Strategy
	inited  bool
	pending schedule.Schedule
	waiting bool // pending was returned and its execution not ended
}

func (r *resumable) Init(c Config) {
	if !r.inited {
		r.inited = true
		r.Strategy.Init(c)
	}
}

func (r *resumable) Begin() (schedule.Schedule, bool) {
	if r.waiting {
		return r.pending, true
	}
	p, ok := r.Strategy.Begin()
	if ok {
		r.pending, r.waiting = append(r.pending[:0], p...), true
	}
	return p, ok
}

func (r *resumable) End(rep *Report) {
	r.waiting = false
	r.Strategy.End(rep)
}

// proofSearch is one exhaustive search of a proof, run in parts
// (shrinker.advance): the reducing search of every trace of the program
// within bound transitions (<= 0: unbounded), or, when bnb is set, the
// branch and bound over every schedule (smallest).
type proofSearch struct {
	bound    int
	rec      *failRecorder
	bnb      *bnb
	st       *resumable
	complete bool
	dead     bool // it cannot prove anything (the model does not fit)
}

func (s *shrinker) newProofSearch(bound int) *proofSearch {
	rec := &failRecorder{Strategy: NewDPOR(), key: s.key, shortest: -1}
	return &proofSearch{bound: bound, rec: rec, st: &resumable{Strategy: rec}}
}

// newBranchAndBound is the search for a schedule of the bug smaller than
// the best, over every schedule.
func (s *shrinker) newBranchAndBound() *proofSearch {
	b := newBnB(s.key, len(s.best.sched), s.best.pre)
	return &proofSearch{bound: len(s.best.sched), bnb: b, st: &resumable{Strategy: b}}
}

// advance runs at most n more executions of ps (fewer if the budget is
// smaller) and reports whether it is complete. It returns errBudget when
// the budget or the context stopped it.
func (s *shrinker) advance(ps *proofSearch, n int64) (bool, error) {
	if ps.complete {
		return true, nil
	}
	n = min(n, s.left)
	if n <= 0 || s.ctx.Err() != nil {
		return false, errBudget
	}
	base := s.stats
	res, err := Explore(s.ctx, s.ex, ps.st, Options{MaxDepth: ps.bound, All: true, MaxExecutions: n,
		Progress: s.progressFrom(base)})
	s.left -= res.Stats.Executions
	s.stats = s.stats.Add(res.Stats)
	switch {
	case err != nil && s.ctx.Err() != nil:
		return false, errBudget
	case err != nil:
		return false, err
	}
	ps.complete = res.Complete && (ps.rec == nil || !ps.rec.overflow)
	return ps.complete, nil
}

// conclude proves what a complete proof search shows: the length of the
// shortest traces of the bug, and the fewest preemptions among their
// schedules. The proof's best is the best schedule it ran. errBudget says
// that the budget or the context stopped it (the proof is then partial).
func (s *shrinker) conclude(ps *proofSearch) (*proof, error) {
	if b := ps.bnb; b != nil {
		p := &proof{length: b.bestLen, pre: b.bestPre}
		if b.best != nil {
			out := b.bestOut
			p.best = &trial{sched: append(schedule.Schedule(nil), b.best...), out: &out, pre: b.bestPre}
		}
		return p, nil
	}
	rec := ps.rec
	if rec.shortest < 0 || rec.shortest > len(s.best.sched) {
		// The bug's own schedule is a trace the search should have run.
		return &proof{why: errModel.Error()}, nil
	}
	p := &proof{length: rec.shortest}
	best, pre, err := s.fewestPreemptions(rec.lins, rec.shortest)
	p.best, p.pre = best, pre
	if errors.Is(err, errModel) {
		p.length, p.pre, p.why = 0, 0, err.Error()
		err = nil
	}
	return p, err
}

// adopt makes the shortest trace of the bug a proof search found so far
// the best schedule, if it is shorter than the best: one execution, to
// count its preemptions.
func (s *shrinker) adopt(rec *failRecorder) {
	if rec.shortest < 0 || rec.shortest >= len(s.best.sched) || len(rec.lins) == 0 {
		return
	}
	l := rec.lins[0]
	sc := make(schedule.Schedule, len(l.ev))
	for i := range l.ev {
		sc[i] = l.ev[i].Step
	}
	if t, err := s.execute(sc, len(sc), false); err == nil && s.better(t) {
		s.best = t
	}
}

// fewestPreemptions finds, among the schedules of the given traces of the
// bug (all of the given length), one with the fewest preemptions. It
// returns the best schedule run (nil if none) and the lower bound it
// proved: no schedule of these traces has fewer preemptions. The bound
// equals the best's preemptions when the search finished; errBudget says
// that the budget or the context stopped it, errModel that an execution
// contradicted the model.
func (s *shrinker) fewestPreemptions(lins []*linear, length int) (*trial, int, error) {
	var best *trial
	floor := false // a trace too big to search: nothing is proven above 0
	for {
		lower, pick := 0, (*linear)(nil)
		for _, l := range lins {
			if l.finished {
				continue
			}
			if !l.solved {
				// The searches of all the traces share a bound on
				// their work: past it a trace counts as too big.
				if n := int64(l.states) * int64(len(l.ids)+1); !l.big && (l.states == 0 || s.linWork+n > maxLinWork) {
					l.big = true
				} else if !l.big {
					s.linWork += n
					if !l.solve() {
						l.big = true
					}
				}
				l.solved = true
			}
			c := l.cost
			if l.big {
				c = 0
			}
			if pick == nil || c < lower {
				pick, lower = l, c
			}
		}
		if floor {
			lower = 0
		}
		if best != nil && (pick == nil || best.pre <= lower) {
			if floor {
				return best, 0, nil
			}
			return best, best.pre, nil
		}
		if pick == nil {
			return best, 0, nil
		}
		cand := pick.path
		if pick.big {
			cand = make(schedule.Schedule, len(pick.ev))
			for i := range pick.ev {
				cand[i] = pick.ev[i].Step
			}
		}
		t, err := s.runLinear(pick, cand)
		if err != nil {
			if best != nil && best.pre < lower {
				lower = best.pre
			}
			return best, lower, err
		}
		if t.out == nil || t.out.Key() != s.key || len(t.sched) != length || !t.sched.Equal(cand) {
			return best, 0, errModel
		}
		if best == nil || t.pre < best.pre {
			best = t
		}
		switch {
		case pick.big:
			pick.finished, floor = true, true
		case pick.exact:
			if t.pre != pick.cost {
				return best, 0, errModel
			}
			pick.finished = true
		default:
			pick.solved = false // what the run showed changes the search
		}
	}
}

// runLinear runs a schedule of l's trace exactly, teaching l what each
// scheduling point shows.
func (s *shrinker) runLinear(l *linear, cand schedule.Schedule) (*trial, error) {
	counts := make([]int, len(l.ids))
	applied := 0
	s.observe = func(k int, ts []Thread) {
		for ; applied < k && applied < len(cand); applied++ {
			if p := l.dense(cand[applied].Thread); p >= 0 {
				counts[p]++
			}
		}
		if applied == k {
			l.learn(counts, ts)
		}
	}
	defer func() { s.observe = nil }()
	return s.execute(cand, len(cand), false)
}

// progressFrom reports an exploration's statistics as the minimisation's,
// added to base (MinimiseOptions.Progress).
func (s *shrinker) progressFrom(base Stats) func(Stats) {
	if s.progress == nil {
		return nil
	}
	return func(st Stats) {
		st.Executions += base.Executions
		st.Transitions += base.Transitions
		st.States += base.States
		st.Elapsed = time.Since(s.start)
		if s.best != nil {
			st.Depth = len(s.best.sched)
		}
		s.progress(st)
	}
}
