package search

import (
	"fmt"
	"time"
)

// Spec names a search in the one vocabulary every front end speaks: stdbg
// find's flags and configuration file, sthread's options, the search a Go
// target runs in process, a corpus entry. New builds its strategy; Check
// refuses what cannot be combined, with the reason.
//
// The zero Spec is the default search: the portfolio (Portfolio), in which
// the exhaustive depth-first search with dynamic partial-order reduction
// shares the search with PCT, delay bounding and a random walk, and which
// is exhaustive when the first is.
type Spec struct {
	// Strategy is "portfolio" (the default: "" means portfolio, unless
	// Reduction, BoundBy or Stateful name a dfs), "dfs" (exhaustive,
	// depth first), "random" (a random walk) or "pct" (probabilistic
	// concurrency testing, after Burckhardt et al.).
	Strategy string `json:"strategy,omitempty" yaml:"strategy,omitempty"`
	// Reduction is dfs's, and that of the portfolio's exhaustive member:
	// "dpor" (one execution per class of schedules that differ only in
	// the order of independent operations; "" means dpor) or "none"
	// (every schedule).
	Reduction string `json:"reduction,omitempty" yaml:"reduction,omitempty"`
	// BoundBy, if not "", bounds dfs: "preemptions" explores the schedules
	// with 0 preemptions, then 1, ... up to Bound; "delays" does the same
	// with deviations from a round-robin scheduler.
	BoundBy string `json:"bound_by,omitempty" yaml:"bound_by,omitempty"`
	Bound   int    `json:"bound,omitempty" yaml:"bound,omitempty"`
	// PCTDepth is pct's bug depth d (d-1 priority change points per
	// execution; 0 means 3), and that of the portfolio's PCT.
	PCTDepth int `json:"pct_depth,omitempty" yaml:"pct_depth,omitempty"`
	// Seed seeds random and pct, and the portfolio's PCT (Seed) and random
	// walk (Seed+1): the same seed repeats the same search.
	Seed uint64 `json:"seed,omitempty" yaml:"seed,omitempty"`
	// Stateful cuts executions at program states already explored (a
	// visited set, Options.Visited): dfs only, and without DPOR.
	Stateful bool `json:"stateful,omitempty" yaml:"stateful,omitempty"`
	// Sampling, for a portfolio, leaves its exhaustive member out: the
	// part of a portfolio divided among processes that runs beside the
	// exhaustive member's parts (ExplorePortfolio); it never ends.
	Sampling bool `json:"sampling,omitempty" yaml:"sampling,omitempty"`
}

// The strategies and reductions a Spec names.
const (
	StrategyPortfolio = "portfolio"
	StrategyDFS       = "dfs"
	StrategyRandom    = "random"
	StrategyPCT       = "pct"

	ReductionDPOR = "dpor"
	ReductionNone = "none"

	BoundPreemptions = "preemptions"
	BoundDelays      = "delays"
)

// DefaultPCTDepth is pct's bug depth when Spec.PCTDepth is 0.
const DefaultPCTDepth = 3

// PortfolioDelays is the bound of the portfolio's delay bounding: its
// rounds of 0, 1 and 2 delays, after which it leaves the others the time.
// (A third round keeps a root per step of every execution of the second:
// too many to hold for long executions.)
const PortfolioDelays = 2

// Normal returns s with its defaults made explicit, and notes for what it
// asked that the search does otherwise (DPOR asked with a bound or a
// visited set runs every schedule: the reduction is not sound with them),
// or an error for what cannot be combined or is unknown.
func (s Spec) Normal() (Spec, []string, error) {
	var notes []string
	if s.Strategy == "" {
		s.Strategy = StrategyPortfolio
		if s.Reduction != "" || s.BoundBy != "" || s.Stateful {
			// A reduction, a bound or a visited set is dfs's: asking for
			// one names the dfs.
			s.Strategy = StrategyDFS
		}
	}
	switch s.BoundBy {
	case "", BoundPreemptions, BoundDelays:
	default:
		return s, nil, fmt.Errorf("unknown bound %q: use preemptions or delays", s.BoundBy)
	}
	if s.BoundBy != "" && s.Bound < 0 {
		return s, nil, fmt.Errorf("a bound of %d %s: it must be at least 0", s.Bound, s.BoundBy)
	}
	if s.Sampling && s.Strategy != StrategyPortfolio {
		return s, nil, fmt.Errorf("only a portfolio can leave its exhaustive member out, not %s", s.Strategy)
	}
	switch {
	case s.Stateful && (s.Strategy == StrategyPortfolio || s.Strategy == StrategyRandom || s.Strategy == StrategyPCT):
		// A visited set cuts an execution at a state explored before, which
		// is sound only when every continuation of that state was explored
		// from there: in the exhaustive dfs alone.
		return s, nil, fmt.Errorf("a stateful search needs the full state graph: it cannot be combined with strategy %s (use strategy dfs)", s.Strategy)
	case s.BoundBy != "" && s.Stateful:
		return s, nil, fmt.Errorf("a stateful search cannot be bounded by %s: a state reached with fewer %s is not the same search node", s.BoundBy, s.BoundBy)
	}
	switch s.Strategy {
	case StrategyDFS:
		asked := s.Reduction
		switch asked {
		case "":
			s.Reduction = ReductionDPOR
		case ReductionDPOR, ReductionNone:
		default:
			return s, nil, fmt.Errorf("unknown reduction %q: use dpor or none", asked)
		}
		if s.Reduction == ReductionDPOR && s.BoundBy != "" {
			s.Reduction = ReductionNone
			if asked != "" {
				notes = append(notes, fmt.Sprintf("bounded by %s: running every schedule within the bound (no DPOR)", s.BoundBy))
			}
		}
		if s.Reduction == ReductionDPOR && s.Stateful {
			// A visited set cuts executions at states whose
			// continuations DPOR has not planned (docs/liveness.md).
			s.Reduction = ReductionNone
			if asked != "" {
				notes = append(notes, "stateful search: running every schedule (reduction none); DPOR is not sound with a visited set")
			}
		}
	case StrategyPortfolio:
		if s.BoundBy != "" {
			return s, nil, fmt.Errorf("a bound of %s bounds the dfs strategy, not the portfolio (use --strategy dfs)", s.BoundBy)
		}
		switch s.Reduction {
		case "":
			s.Reduction = ReductionDPOR
		case ReductionDPOR, ReductionNone:
		default:
			return s, nil, fmt.Errorf("unknown reduction %q: use dpor or none", s.Reduction)
		}
		if s.PCTDepth == 0 {
			s.PCTDepth = DefaultPCTDepth
		}
		if s.PCTDepth < 0 {
			return s, nil, fmt.Errorf("pct's bug depth must be at least 1, not %d", s.PCTDepth)
		}
	case StrategyRandom, StrategyPCT:
		switch {
		case s.BoundBy != "":
			return s, nil, fmt.Errorf("a bound of %s bounds the dfs strategy, not %s", s.BoundBy, s.Strategy)
		case s.Reduction == ReductionDPOR:
			return s, nil, fmt.Errorf("the dpor reduction is dfs's, not %s's", s.Strategy)
		}
		s.Reduction = ReductionNone
		if s.Strategy == StrategyPCT && s.PCTDepth == 0 {
			s.PCTDepth = DefaultPCTDepth
		}
		if s.PCTDepth < 0 {
			return s, nil, fmt.Errorf("pct's bug depth must be at least 1, not %d", s.PCTDepth)
		}
	default:
		return s, nil, fmt.Errorf("unknown strategy %q: use portfolio, dfs, random or pct", s.Strategy)
	}
	return s, notes, nil
}

// Check reports what cannot be combined in s (nil if nothing).
func (s Spec) Check() error {
	_, _, err := s.Normal()
	return err
}

// CheckOptions reports what s cannot run soundly with opts, or what cannot
// be combined in s (nil if nothing): a stateful search (opts.Stateful: a
// visited set, the state graph, the detection of livelocks) needs a spec
// that says so (Spec.Stateful), which runs the plain dfs, every schedule
// without a bound: DPOR, a bound or a sampling strategy with a visited set
// would cut executions at states whose continuations were never explored,
// and miss bugs.
func (s Spec) CheckOptions(opts Options) error {
	n, _, err := s.Normal()
	if err != nil {
		return err
	}
	if opts.Stateful() && !n.Stateful {
		return fmt.Errorf("a stateful search (a visited set, the state graph or livelock detection) needs a stateful spec: %s with a visited set would miss bugs", n.Describe())
	}
	return nil
}

// New returns a fresh strategy of s. A strategy serves one search at a
// time; a divided search asks for one per worker.
func (s Spec) New() (Strategy, error) {
	n, _, err := s.Normal()
	if err != nil {
		return nil, err
	}
	switch {
	case n.Strategy == StrategyPortfolio:
		members := n.Members()
		if n.Sampling {
			members = members[1:]
		}
		var ms []Member
		for _, m := range members {
			st, err := m.Spec.New()
			if err != nil {
				return nil, err
			}
			if m.Spec.Strategy == StrategyRandom {
				// The same walk, that also estimates the exhaustive
				// member's tree (Portfolio).
				st = newEstimatingWalk(m.Spec.Seed, n.Reduction == ReductionDPOR)
			}
			ms = append(ms, Member{Name: m.Name, Strategy: st, Share: m.Share, Decides: m.Decides})
		}
		return NewPortfolio(ms...).Timed(time.Now), nil
	case n.Strategy == StrategyRandom:
		return NewRandom(n.Seed), nil
	case n.Strategy == StrategyPCT:
		return NewPCT(n.PCTDepth, n.Seed), nil
	case n.BoundBy == BoundPreemptions:
		return NewPreemptionBounding(n.Bound), nil
	case n.BoundBy == BoundDelays:
		return NewDelayBounding(n.Bound), nil
	case n.Reduction == ReductionDPOR:
		return NewDPOR(), nil
	}
	return NewDFS(), nil
}

// Sampled reports a search that samples schedules (random, pct, a
// portfolio without its exhaustive member): it never says exhaustive, and
// never runs out.
func (s Spec) Sampled() bool {
	return s.Strategy == StrategyRandom || s.Strategy == StrategyPCT || s.Strategy == StrategyPortfolio && s.Sampling
}

// Portfolio reports the portfolio, whole (with its exhaustive member): s
// is normal (Normal) or its strategy is named.
func (s Spec) Portfolio() bool { return s.Strategy == StrategyPortfolio && !s.Sampling }

// Bounded reports a dfs bounded by preemptions or delays.
func (s Spec) Bounded() bool { return !s.Sampled() && s.BoundBy != "" }

// Splittable reports whether the search may be divided among workers and
// shards (search.ExploreSplit): the exhaustive dfs, without a bound or a
// visited set. (A portfolio is divided by ExplorePortfolio: its exhaustive
// member among workers and shards, its others beside.)
func (s Spec) Splittable() bool {
	return !s.Sampled() && !s.Portfolio() && !s.Bounded() && !s.Stateful
}

// MemberSpec is a member of the portfolio, as a Spec.
type MemberSpec struct {
	Name  string
	Spec  Spec
	Share int
	// Decides marks the exhaustive member (Member.Decides).
	Decides bool
}

// Members returns the members of a portfolio spec, normal: the
// exhaustive dfs (with the spec's reduction, DPOR by default), which
// decides and takes half of the time once its lead is over; PCT
// with the spec's depth and seed (a quarter); delay bounding up to
// PortfolioDelays delays and a random walk seeded with Seed+1 (an eighth
// each). Nil for a spec that is not a portfolio.
func (s Spec) Members() []MemberSpec {
	n, _, err := s.Normal()
	if err != nil || n.Strategy != StrategyPortfolio {
		return nil
	}
	specs := []MemberSpec{
		{Spec: n.Exhaustive(), Share: 4, Decides: true},
		{Spec: Spec{Strategy: StrategyPCT, PCTDepth: n.PCTDepth, Seed: n.Seed, Reduction: ReductionNone}, Share: 2},
		{Spec: Spec{Strategy: StrategyDFS, Reduction: ReductionNone, BoundBy: BoundDelays, Bound: PortfolioDelays}, Share: 1},
		{Spec: Spec{Strategy: StrategyRandom, Seed: n.Seed + 1, Reduction: ReductionNone}, Share: 1},
	}
	for i := range specs {
		specs[i].Name = memberName(specs[i].Spec)
	}
	return specs
}

// Exhaustive returns the exhaustive search of s: s itself for a dfs, the
// exhaustive member of a portfolio (the dfs with its reduction).
func (s Spec) Exhaustive() Spec {
	n, _, err := s.Normal()
	if err != nil || n.Strategy != StrategyPortfolio {
		return n
	}
	return Spec{Strategy: StrategyDFS, Reduction: n.Reduction}
}

// WithoutExhaustive returns the portfolio s without its exhaustive member
// (Sampling set): what a divided portfolio runs beside the divided
// exhaustive member (ExplorePortfolio).
func (s Spec) WithoutExhaustive() Spec {
	s.Sampling = true
	return s
}

// Describe names the search as a coverage line does: "portfolio of DPOR,
// PCT (depth 3), ...", "DFS with DPOR", "DFS bounded to 2 preemptions",
// "PCT with bug depth 3, seed 7".
func (s Spec) Describe() string {
	n, _, err := s.Normal()
	if err != nil {
		return s.Strategy
	}
	switch {
	case n.Strategy == StrategyPortfolio && n.Sampling:
		return fmt.Sprintf("portfolio without its exhaustive member: PCT (depth %d), delay bounding (at most %d delays) and a random walk, seed %d",
			n.PCTDepth, PortfolioDelays, n.Seed)
	case n.Portfolio():
		dfs := "DPOR"
		if n.Reduction == ReductionNone {
			dfs = "DFS"
		}
		return fmt.Sprintf("portfolio of %s, PCT (depth %d), delay bounding (at most %d delays) and a random walk, seed %d",
			dfs, n.PCTDepth, PortfolioDelays, n.Seed)
	case n.Strategy == StrategyRandom:
		return fmt.Sprintf("random walk, seed %d", n.Seed)
	case n.Strategy == StrategyPCT:
		return fmt.Sprintf("PCT with bug depth %d, seed %d", n.PCTDepth, n.Seed)
	case n.Bounded():
		unit := "preemption"
		if n.BoundBy == BoundDelays {
			unit = "delay"
		}
		if n.Bound != 1 {
			unit += "s"
		}
		return fmt.Sprintf("DFS bounded to %d %s", n.Bound, unit)
	case n.Reduction == ReductionDPOR:
		return "DFS with DPOR"
	}
	return "DFS"
}

// Name is the search as a corpus entry records it: "portfolio", "dfs",
// "random", "pct (depth 3)", "dfs (at most 2 preemptions)".
func (s Spec) Name() string {
	n, _, err := s.Normal()
	if err != nil {
		return s.Strategy
	}
	switch {
	case n.Strategy == StrategyPCT:
		return fmt.Sprintf("pct (depth %d)", n.PCTDepth)
	case n.Bounded():
		unit := n.BoundBy
		if n.Bound == 1 {
			unit = unit[:len(unit)-1]
		}
		return fmt.Sprintf("dfs (at most %d %s)", n.Bound, unit)
	}
	return n.Strategy
}
