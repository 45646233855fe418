package search

import (
	"math/rand/v2"

	"github.com/stdbg/stdbg/model/schedule"
)

// NewRandom returns the random-walk strategy: every execution starts from
// the initial state and, at each scheduling point, runs an enabled thread
// chosen uniformly at random, with a data value (or ready select case)
// chosen uniformly too. It never runs out of executions: bound it with
// Options.MaxExecutions or a context deadline. It samples, so a search that
// ends is never complete (Exhausted is false).
//
// The walks are a function of seed alone (given a deterministic program):
// the same seed repeats the same executions in the same order.
func NewRandom(seed uint64) Strategy { return &randomWalk{seed: seed} }

type randomWalk struct {
	seed uint64
	rng  *rand.Rand
	est  *walkEstimator // if not nil, the walks are Knuth's probes
}

// newRand returns the generator of a seeded strategy: PCG, whose stream
// is fixed by the seed.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

func (r *randomWalk) Init(Config) {
	r.rng = newRand(r.seed)
	if r.est != nil {
		r.est.init()
	}
}

func (r *randomWalk) Begin() (schedule.Schedule, bool) {
	if r.est != nil {
		r.est.begin()
	}
	return nil, true
}

func (r *randomWalk) Next(p Point) (schedule.Step, bool) {
	n := 0
	for i := range p.Threads {
		if p.Threads[i].Enabled {
			n++
		}
	}
	if n == 0 {
		return schedule.Step{}, false
	}
	k := r.rng.IntN(n)
	for i := range p.Threads {
		t := &p.Threads[i]
		if !t.Enabled {
			continue
		}
		if k == 0 {
			if r.est != nil {
				r.est.point(p, n*max(t.Choices(), 1))
			}
			return randomValue(r.rng, t), true
		}
		k--
	}
	return schedule.Step{}, false
}

// randomValue is a step of t with a uniformly chosen value if it has
// several.
func randomValue(rng *rand.Rand, t *Thread) schedule.Step {
	if n := t.Choices(); n > 0 {
		return schedule.Step{Thread: t.ID, Choice: rng.IntN(n)}
	}
	return schedule.Step{Thread: t.ID, Choice: schedule.NoChoice}
}

func (r *randomWalk) End(rep *Report) {
	if r.est != nil {
		r.est.end(rep)
	}
}

// treeSize implements treeSizer for an estimating walk.
func (r *randomWalk) treeSize() (*Estimate, bool) {
	if r.est == nil {
		return nil, false
	}
	return r.est.estimate(), true
}

func (r *randomWalk) Exhausted() bool { return false }
