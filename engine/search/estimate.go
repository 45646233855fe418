package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/stdbg/stdbg/model/syncmodel"
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
	w := newEstimatingWalk(opts.Seed, opts.Reduction == ReductionDPOR)
	e := w.est
	o := Options{MaxDepth: opts.MaxDepth, All: true, MaxExecutions: int64(n)}
	if opts.Progress != nil {
		o.Progress = func(s Stats) {
			est := e.estimate()
			est.Stats = s
			est.Stats.Bugs = est.Bugs
			opts.Progress(est)
		}
	}
	res, err := Explore(ctx, ex, w, o)
	est := e.estimate()
	est.Stats = res.Stats
	est.Stats.Bugs = est.Bugs
	if err != nil && !(errors.Is(err, ctx.Err()) && est.Probes > 0) {
		return est, err
	}
	if est.Probes == 0 {
		return est, errors.New("estimate: no probe ran")
	}
	return est, nil
}

// walkEstimator makes a random walk (NewRandom) a probe of Knuth's
// estimator: each execution multiplies, at every point, the inverse of the
// probability of the step the walk took (the enabled threads, times the
// values of the chosen thread's choice), and its product estimates the
// number of executions of the tree of every schedule: the mean over the
// walks is that number.
//
// For DPOR, which runs one execution per Mazurkiewicz trace, the product
// is divided by the number of ways the walk's own trace can be run: at
// each step i, m_i is the number of threads whose next step in the walk
// commutes with every step of other threads before it, and so could run
// at i without changing the trace (the thread that did run is one).
// Choosing at every step one of those m_i uniformly runs the trace's
// schedules with probabilities that sum to 1; so the mean of the product
// divided by the product of the m_i is the number of traces, exactly
// (given that the model's independence is one: DPOR's own premise).
type walkEstimator struct {
	dpor bool

	// The current walk.
	began time.Time
	logW  float64    // log10 of the product of the weights so far
	shown [][]Thread // the threads at each point (copies), for DPOR
	spare [][]Thread

	// The walks' estimates of the executions, transitions and
	// nanoseconds of the whole search.
	exec, trans, nanos knuthMean
	depthLimited       bool
	bugs               int

	next map[int]syncmodel.Op // the backward sweep's state (dporLinearizations)
	held map[int]bool
}

// newEstimatingWalk returns NewRandom's walk that estimates the tree of
// the exhaustive search (DPOR's if dpor, else every schedule's).
func newEstimatingWalk(seed uint64, dpor bool) *randomWalk {
	return &randomWalk{seed: seed, est: &walkEstimator{dpor: dpor}}
}

func (e *walkEstimator) init() {
	e.exec, e.trans, e.nanos = knuthMean{}, knuthMean{}, knuthMean{}
	e.depthLimited, e.bugs = false, 0
}

func (e *walkEstimator) begin() {
	e.began = time.Now()
	e.logW = 0
	e.spare = append(e.spare, e.shown...)
	e.shown = e.shown[:0]
}

// point records a point of the walk and the probability, 1/w, of the step
// taken there.
func (e *walkEstimator) point(p Point, w int) {
	if e.dpor {
		var ts []Thread
		if k := len(e.spare); k > 0 {
			ts, e.spare = e.spare[k-1][:0], e.spare[:k-1]
		}
		e.shown = append(e.shown, append(ts, p.Threads...))
	}
	e.logW += math.Log10(float64(max(w, 1)))
}

func (e *walkEstimator) end(r *Report) {
	logW := e.logW
	if e.dpor {
		logW -= e.dporLinearizations(r)
	}
	spent := time.Since(e.began)
	e.exec.add(logW)
	e.trans.add(logW + math.Log10(float64(max(len(r.Trace), 1))))
	e.nanos.add(logW + math.Log10(float64(max(spent.Nanoseconds(), 1))))
	if r.DepthLimited {
		e.depthLimited = true
	}
	if r.Outcome != nil && r.Outcome.Kind.IsBug() {
		e.bugs++
	}
}

// estimate returns the estimate of the walks so far.
func (e *walkEstimator) estimate() *Estimate {
	est := &Estimate{Reduction: ReductionNone, Probes: e.exec.n, DepthLimited: e.depthLimited, Bugs: e.bugs}
	if e.dpor {
		est.Reduction = ReductionDPOR
	}
	if e.exec.n == 0 {
		return est
	}
	est.Log10Executions, est.RelError = e.exec.log10Mean(), e.exec.relErr()
	est.Executions = math.Pow(10, est.Log10Executions)
	est.Transitions = math.Pow(10, e.trans.log10Mean())
	if ns := math.Pow(10, e.nanos.log10Mean()); ns < float64(math.MaxInt64) {
		est.Time = time.Duration(ns)
	} else {
		est.Time = time.Duration(math.MaxInt64)
	}
	return est
}

// dporLinearizations returns the log10 of the product over the steps of
// the walk of m_i (see walkEstimator). It sweeps the walk backwards,
// keeping for each thread its next step's operation and whether a step of
// another thread between the point and that step depends on it.
func (e *walkEstimator) dporLinearizations(r *Report) float64 {
	if e.next == nil {
		e.next, e.held = make(map[int]syncmodel.Op), make(map[int]bool)
	}
	clear(e.next)
	clear(e.held)
	var logM float64
	for i := min(len(r.Trace), len(e.shown)) - 1; i >= 0; i-- {
		ev := &r.Trace[i]
		c := ev.Step.Thread
		for id, op := range e.next {
			if id != c && !e.held[id] && syncmodel.Dependent(id, op, c, ev.Op) {
				e.held[id] = true
			}
		}
		m := 1 // the thread that ran
		for _, t := range e.shown[i] {
			if _, runs := e.next[t.ID]; t.Enabled && t.ID != c && runs && !e.held[t.ID] {
				m++
			}
		}
		logM += math.Log10(float64(m))
		e.next[c], e.held[c] = ev.Op, false
	}
	return logM
}

// knuthMean is the running mean and spread of numbers given by their
// log10, kept without leaving the logarithms (a product of branchings
// overflows a float64 long before its logarithm does): the numbers scaled
// by 10^-top, top their largest log10.
type knuthMean struct {
	n       int
	top     float64
	sum, sq float64
}

func (k *knuthMean) add(l float64) {
	if k.n == 0 {
		k.top = l
	}
	if l > k.top {
		f := math.Pow(10, k.top-l)
		k.sum *= f
		k.sq *= f * f
		k.top = l
	}
	x := math.Pow(10, l-k.top)
	k.sum += x
	k.sq += x * x
	k.n++
}

// log10Mean is the log10 of the mean.
func (k *knuthMean) log10Mean() float64 { return k.top + math.Log10(k.sum/float64(k.n)) }

// relErr is the relative standard error of the mean.
func (k *knuthMean) relErr() float64 {
	if k.n < 2 {
		return 0
	}
	n := float64(k.n)
	mean := k.sum / n
	variance := max(k.sq/n-mean*mean, 0) * n / (n - 1)
	return math.Sqrt(variance/n) / mean
}
