package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/syncmodel"
)

// How much of a search is left, two ways.
//
// While a depth-first search runs (DFS, DPOR), Explored estimates the
// fraction of its tree done from the path it is on: at the i-th point of
// the path, done_i of b_i children are finished, and the subtree of the
// child under way weighs the product of 1/b_j above it, so the fraction is
// the sum over the path of that weight times done_i/b_i. This is Knuth's
// estimator ("Estimating the efficiency of backtrack programs", 1975)
// taken along the path the search follows: it assumes that siblings have
// subtrees of the same size. DPOR learns the children of a point as it
// explores below it (a race found later plans a new one), so its estimate
// can go down as well as up.
//
// Before a search, EstimateTree runs Knuth's estimator proper: random
// probes from the root, each an execution that at every point takes one of
// the B alternatives uniformly; the product of the B along a probe is an
// estimate of the number of leaves (executions) whose mean over the probes
// is exact in expectation for the tree of every schedule (reduction none),
// and, divided by the orders of the probe that make the same trace, for
// the trees of DPOR.

// Explored implements Progressive: the fraction of the tree explored,
// estimated along the current path.
func (d *dpor) Explored() float64 {
	if d.over {
		return 1
	}
	f, w := 0.0, 1.0
	for i := range d.nodes {
		n := &d.nodes[i]
		cur := 0
		if n.taken || n.pick != nil {
			cur = 1
		}
		b := n.done + cur + len(n.wut)
		if b == 0 {
			break
		}
		f += w * float64(n.done) / float64(b)
		w /= float64(b)
		if w < 1e-300 {
			break
		}
	}
	return f
}

// Explored implements Progressive: the fraction of the tree explored,
// estimated along the current path.
func (d *dfs) Explored() float64 {
	if d.over {
		return 1
	}
	f, w := 0.0, 1.0
	for i := range d.nodes {
		n := &d.nodes[i]
		b, done := 0, 0
		for j, a := range n.alts {
			k := max(a.n, 1)
			b += k
			switch {
			case j < n.cur:
				done += k
			case j == n.cur:
				done += n.val
			}
		}
		if b == 0 {
			break
		}
		f += w * float64(done) / float64(b)
		w /= float64(b)
		if w < 1e-300 {
			break
		}
	}
	return f
}

// EstimateOptions bound an estimate of an exhaustive search.
type EstimateOptions struct {
	// Reduction is the search estimated: ReductionDPOR ("" too) or
	// ReductionNone (every schedule).
	Reduction string
	// MaxDepth is the search's depth bound (<= 0: none): probes are cut
	// there as the search's executions would be.
	MaxDepth int
	// Probes is the most probes to run (0: DefaultProbes).
	Probes int
	// Seed seeds the probes' choices.
	Seed uint64
	// Progress, if not nil, is called with the estimate so far, at most
	// every 100ms.
	Progress func(*Estimate)
}

// DefaultProbes is the number of probes of an estimate when
// EstimateOptions.Probes is 0.
const DefaultProbes = 10000

// Estimate is an estimate of the size of an exhaustive search, from
// random probes (EstimateTree).
type Estimate struct {
	// Reduction is the search estimated (ReductionDPOR, ReductionNone).
	Reduction string
	// Probes is the number of probes run.
	Probes int
	// Log10Executions is the base-10 logarithm of the estimated number of
	// executions of the search; Executions is that number (+Inf past
	// float64's range).
	Log10Executions float64
	Executions      float64
	// RelError is the relative standard error of the estimate of the
	// executions over the probes (the spread of the probes' estimates
	// divided by the mean and the square root of the probes); a large one
	// (> 0.5) says that the probes disagree: the tree is unbalanced and
	// the estimate may be far off.
	RelError float64
	// Transitions is the estimated number of transitions of the search
	// (each execution replays its path from the start).
	Transitions float64
	// Time is the estimated wall time of the search at the probes' own
	// pace (each probe timed from its start to its end).
	Time time.Duration
	// DepthLimited reports that a probe was cut at the depth bound: the
	// tree estimated is the tree up to that depth.
	DepthLimited bool
	// Bugs counts the probes that ended in a bug.
	Bugs int
	// Stats is the probes' work.
	Stats Stats
}

// EstimateTree estimates the number of executions and the time of an
// exhaustive search of the program ex runs, with Knuth's estimator: random
// probes from the root, each multiplying the branching of the tree at the
// points it passes. It runs opts.Probes probes, fewer if ctx ends first
// (then returns the estimate of those it ran, and no error, if it ran at
// least one).
//
// With ReductionNone the branching at a point is the number of its
// alternatives (enabled threads, each value of a data choice counted), and
// the estimate's mean is the number of executions of NewDFS. With
// ReductionDPOR each probe's product is divided by the number of orders of
// its own steps that make the same Mazurkiewicz trace, as a random walk
// over those orders counts them (see prober): the estimate's mean is the
// number of traces, which is the number of executions of NewDPOR, one per
// trace (up to the executions it abandons, which an optimal DPOR does not
// have). Either way the spread can be large when the tree is unbalanced:
// Estimate.RelError says how large.
func EstimateTree(ctx context.Context, ex Executor, opts EstimateOptions) (*Estimate, error) {
	switch opts.Reduction {
	case "", ReductionDPOR:
		opts.Reduction = ReductionDPOR
	case ReductionNone:
	default:
		return nil, fmt.Errorf("estimate: unknown reduction %q: use dpor or none", opts.Reduction)
	}
	n := opts.Probes
	if n <= 0 {
		n = DefaultProbes
	}
	pr := &prober{dpor: opts.Reduction == ReductionDPOR, seed: opts.Seed, est: &Estimate{Reduction: opts.Reduction}}
	o := Options{MaxDepth: opts.MaxDepth, All: true, MaxExecutions: int64(n)}
	if opts.Progress != nil {
		o.Progress = func(s Stats) {
			pr.est.Stats = s
			pr.est.Stats.Bugs = pr.est.Bugs
			pr.finish()
			opts.Progress(pr.est)
		}
	}
	res, err := Explore(ctx, ex, pr, o)
	pr.est.Stats = res.Stats
	pr.est.Stats.Bugs = pr.est.Bugs
	pr.finish()
	if err != nil && !(errors.Is(err, ctx.Err()) && pr.est.Probes > 0) {
		return pr.est, err
	}
	if pr.est.Probes == 0 {
		return pr.est, errors.New("estimate: no probe ran")
	}
	return pr.est, nil
}

// prober is the strategy of EstimateTree's probes: a random walk that
// takes, at each point, one of the point's B alternatives uniformly, and
// multiplies the B along the way: the product's mean is the number of
// executions of the tree of every schedule.
//
// For DPOR, which runs one execution per Mazurkiewicz trace, the product
// is divided by the number of ways the probe's own trace can be run: at
// each step i of the probe, m_i is the number of threads whose next step
// in the probe commutes with every step of other threads before it, and
// so could run at i without changing the trace (the thread that did run
// is one). Choosing at every step one of those m_i uniformly runs the
// trace's schedules with probabilities that sum to 1; so the mean over
// the probes of the product of B_i/m_i is the number of traces, exactly
// (given that the model's independence is one: DPOR's own premise).
type prober struct {
	dpor bool
	seed uint64
	rng  *rand.Rand
	est  *Estimate

	// The current probe.
	began time.Time
	logB  float64    // log10 of the product of the branchings so far
	shown [][]Thread // the threads at each point (copies), for DPOR
	spare [][]Thread

	// The probes' estimates, in log10, of executions, transitions and
	// nanoseconds.
	logExec, logTrans, logTime []float64

	next map[int]syncmodel.Op // the backward sweep's state (dporLinearizations)
	held map[int]bool
}

func (p *prober) Init(Config) {
	p.rng = newRand(p.seed)
	p.logExec, p.logTrans, p.logTime = p.logExec[:0], p.logTrans[:0], p.logTime[:0]
}

func (p *prober) Begin() (schedule.Schedule, bool) {
	p.began = time.Now()
	p.logB = 0
	p.spare = append(p.spare, p.shown...)
	p.shown = p.shown[:0]
	return nil, true
}

func (p *prober) Next(pt Point) (schedule.Step, bool) {
	if p.dpor {
		var ts []Thread
		if k := len(p.spare); k > 0 {
			ts, p.spare = p.spare[k-1][:0], p.spare[:k-1]
		}
		p.shown = append(p.shown, append(ts, pt.Threads...))
	}
	alts := 0
	for i := range pt.Threads {
		if t := &pt.Threads[i]; t.Enabled {
			alts += max(t.Choices(), 1)
		}
	}
	if alts == 0 {
		return schedule.Step{}, false
	}
	p.logB += math.Log10(float64(alts))
	k := p.rng.IntN(alts)
	for i := range pt.Threads {
		t := &pt.Threads[i]
		if !t.Enabled {
			continue
		}
		c := max(t.Choices(), 1)
		if k >= c {
			k -= c
			continue
		}
		if t.Choices() > 0 {
			return schedule.Step{Thread: t.ID, Choice: k}, true
		}
		return schedule.Step{Thread: t.ID, Choice: schedule.NoChoice}, true
	}
	return schedule.Step{}, false
}

func (p *prober) End(r *Report) {
	logB := p.logB
	if p.dpor {
		logB -= p.dporLinearizations(r)
	}
	spent := time.Since(p.began)
	p.logExec = append(p.logExec, logB)
	p.logTrans = append(p.logTrans, logB+math.Log10(float64(max(len(r.Trace), 1))))
	p.logTime = append(p.logTime, logB+math.Log10(float64(max(spent.Nanoseconds(), 1))))
	p.est.Probes++
	if r.DepthLimited {
		p.est.DepthLimited = true
	}
	if r.Outcome != nil && r.Outcome.Kind.IsBug() {
		p.est.Bugs++
	}
}

func (p *prober) Exhausted() bool { return false }

// dporLinearizations returns the log10 of the product over the steps of
// the probe of m_i (see prober). It sweeps the probe backwards, keeping
// for each thread its next step's operation and whether a step of another
// thread between the point and that step depends on it.
func (p *prober) dporLinearizations(r *Report) float64 {
	if p.next == nil {
		p.next, p.held = make(map[int]syncmodel.Op), make(map[int]bool)
	}
	clear(p.next)
	clear(p.held)
	var logM float64
	for i := min(len(r.Trace), len(p.shown)) - 1; i >= 0; i-- {
		ev := &r.Trace[i]
		c := ev.Step.Thread
		for id, op := range p.next {
			if id != c && !p.held[id] && syncmodel.Dependent(id, op, c, ev.Op) {
				p.held[id] = true
			}
		}
		m := 1 // the thread that ran
		for _, t := range p.shown[i] {
			if _, runs := p.next[t.ID]; t.Enabled && t.ID != c && runs && !p.held[t.ID] {
				m++
			}
		}
		logM += math.Log10(float64(m))
		p.next[c], p.held[c] = ev.Op, false
	}
	return logM
}

// finish computes the estimate from the probes so far.
func (p *prober) finish() {
	e := p.est
	if len(p.logExec) == 0 {
		return
	}
	mean, rel := logMean(p.logExec)
	e.Log10Executions = mean
	e.Executions = math.Pow(10, mean)
	e.RelError = rel
	lt, _ := logMean(p.logTrans)
	e.Transitions = math.Pow(10, lt)
	ln, _ := logMean(p.logTime)
	if ns := math.Pow(10, ln); ns < float64(math.MaxInt64) {
		e.Time = time.Duration(ns)
	} else {
		e.Time = time.Duration(math.MaxInt64)
	}
}

// logMean returns the log10 of the mean of the numbers whose log10 are
// given, and the relative standard error of that mean, computed without
// leaving the logarithms (a product of branchings overflows a float64 long
// before its logarithm does).
func logMean(logs []float64) (log10Mean, relErr float64) {
	top := math.Inf(-1)
	for _, l := range logs {
		top = max(top, l)
	}

	// Scaled by 10^-top, the numbers are at most 1.
	var sum, sq float64
	for _, l := range logs {
		x := math.Pow(10, l-top)
		sum += x
		sq += x * x
	}
	n := float64(len(logs))
	mean := sum / n
	log10Mean = top + math.Log10(mean)
	if len(logs) > 1 {
		variance := max(sq/n-mean*mean, 0) * n / (n - 1)
		relErr = math.Sqrt(variance/n) / mean
	}
	return log10Mean, relErr
}
