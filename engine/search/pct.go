package search

import (
	"math/rand/v2"
	"slices"

	"github.com/stdbg/stdbg/model/schedule"
)

// NewPCT returns the probabilistic concurrency testing strategy of
// Burckhardt, Kothari, Musuvathi and Nagarakatte ("A Randomized Scheduler
// with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010) for bugs of
// depth d (d >= 1; smaller values count as 1).
//
// Each execution gives the threads distinct random priorities (a thread
// created during the execution gets a uniformly random rank among the
// threads present) and picks d-1 change points among the steps 1..k, k
// being the longest execution seen so far (the depth bound, at most 64, for
// the first one). At every scheduling point the enabled thread of highest
// priority runs; at the i-th change point the thread that would run is
// first lowered below every initial priority (to d-i), so that the next
// one runs instead. A bug that needs d ordering constraints between n
// threads in executions of k steps is found by one execution with
// probability at least 1/(n k^(d-1)). Data values (and ready select cases)
// are chosen uniformly at random.
//
// Like NewRandom it never runs out of executions and is never exhaustive;
// the executions are a function of d and seed alone.
func NewPCT(d int, seed uint64) Strategy {
	return &pct{depth: max(d, 1), seed: seed}
}

// pctFirstLength is the execution length assumed before any execution
// has ended.
const pctFirstLength = 64

type pct struct {
	depth    int
	seed     uint64
	maxDepth int
	rng      *rand.Rand

	longest int // the longest execution seen, in steps

	// Per execution.
	high    []int       // threads with their initial priority, highest first
	low     map[int]int // lowered threads: their priority (1..d-1), all below high
	known   map[int]bool
	changes []int // the change points, as 0-based step indices, increasing
}

func (c *pct) Init(cfg Config) {
	c.maxDepth = cfg.MaxDepth
	c.rng = newRand(c.seed)
	c.longest = 0
	c.low = make(map[int]int)
	c.known = make(map[int]bool)
}

func (c *pct) Begin() (schedule.Schedule, bool) {
	c.high = c.high[:0]
	clear(c.low)
	clear(c.known)
	k := c.longest
	if k == 0 {
		k = pctFirstLength
		if c.maxDepth > 0 {
			k = min(k, c.maxDepth)
		}
	}
	c.changes = c.changes[:0]
	for i := 1; i < c.depth; i++ {
		c.changes = append(c.changes, c.rng.IntN(k))
	}
	slices.Sort(c.changes)
	return nil, true
}

func (c *pct) Next(p Point) (schedule.Step, bool) {
	for i := range p.Threads {
		if id := p.Threads[i].ID; !c.known[id] {
			c.known[id] = true
			at := c.rng.IntN(len(c.high) + 1)
			c.high = slices.Insert(c.high, at, id)
		}
	}
	t := c.best(p)
	if t == nil {
		return schedule.Step{}, false
	}
	// Change points at this step lower the thread that would run. Several
	// change points may fall on the same step; each lowers the best
	// thread of the moment.
	for len(c.changes) > 0 && c.changes[0] <= p.Depth {
		c.changes = c.changes[1:]
		// The i-th change point (1-based) gives priority d-i.
		c.lower(t.ID, c.depth-(c.depth-1-len(c.changes)))
		t = c.best(p)
	}
	return randomValue(c.rng, t), true
}

// lower moves thread id below every initial priority, to priority pri.
func (c *pct) lower(id, pri int) {
	if i := slices.Index(c.high, id); i >= 0 {
		c.high = slices.Delete(c.high, i, i+1)
	}
	c.low[id] = pri
}

// best returns the enabled thread of highest priority.
func (c *pct) best(p Point) *Thread {
	for _, id := range c.high {
		for i := range p.Threads {
			if t := &p.Threads[i]; t.ID == id && t.Enabled {
				return t
			}
		}
	}
	var best *Thread
	for i := range p.Threads {
		t := &p.Threads[i]
		if t.Enabled && (best == nil || c.low[t.ID] > c.low[best.ID]) {
			best = t
		}
	}
	return best
}

func (c *pct) End(r *Report) {
	c.longest = max(c.longest, len(r.Trace))
}

func (c *pct) Exhausted() bool { return false }
