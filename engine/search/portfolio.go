package search

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/stdbg/stdbg/model/schedule"
)

// Member is a strategy of a portfolio, with the name a bug it finds is
// reported under and its share of the search.
type Member struct {
	// Name names the strategy in reports: "DPOR", "PCT (depth 3, seed 7)".
	Name string
	// Strategy is the member's own strategy: it serves the portfolio alone
	// and keeps its state across the other members' executions.
	Strategy Strategy
	// Share is the member's weight in the rotation: out of the shares of
	// the members still running, the part of the search it runs.
	Share int
	// Decides marks the member whose end is the search's (an exhaustive
	// strategy): when it runs out of executions the portfolio does, and
	// it is exhausted if the member is. A portfolio without one never
	// runs out while a member can go on.
	Decides bool
}

// Portfolio is a strategy made of several: they take turns, each running
// whole executions for a slice of the search in proportion to its share,
// in one exploration. The first deciding member (the exhaustive one) runs
// alone for a lead at the start, so that a small program is explored
// exhaustively as fast as by that member alone; after that, the members
// rotate. The portfolio ends when the deciding member has no execution
// left (and is then exhausted if that member is), or when every member
// has none.
//
// Every member keeps its state exactly as if it ran alone: Explore runs
// the executions of the members one after the other, and a member sees
// only its own (Begin, Next and End of its executions, in order), so
// interleaving them changes what each explores in no way, only when.
//
// The search is shared in time (Timed, as Spec.New's portfolio is): an
// execution costs its wall time, from its Begin to its End. Executions of
// one program can differ in cost tenfold: a depth-first member replays
// the start it shares with its previous execution in one batch, a random
// walk runs every step on its own. Or it is shared in transitions (the
// default of NewPortfolio): an execution costs its steps and a fixed cost
// for starting it, and the portfolio's schedule is a function of its
// members and the program alone, which tests need.
type Portfolio struct {
	members []*portfolioMember
	// Lead is what the first deciding member runs alone at the start (0:
	// none): transitions, or nanoseconds if Now is set.
	Lead int64
	// Slice is the turn of a member of share 1.
	Slice int64
	// Decay, if positive, is when the deciding member's turns double (the
	// cost of every member's executions so far), and double again each
	// time the total is four times as large, up to eight times its share:
	// a search that runs long is one that the other members did not end
	// early, and is more and more likely to be the deciding member's to
	// finish.
	Decay int64
	// Now, if not nil, makes the costs wall time, in nanoseconds.
	Now func() time.Time

	cur       int  // the member of the execution under way
	inTurn    bool // cur's turn has begun
	leading   bool // cur's turn is the lead
	done      bool
	exhausted bool
	total     int64     // the cost of every member's executions
	began     time.Time // the execution under way began (Now)
}

// portfolioMember is a Member with its account.
type portfolioMember struct {
	Member
	credit      int64 // what is left of its turn
	executions  int64
	transitions int64
	cost        int64 // the cost of its executions
	out         bool  // ran out of executions
}

// Default slices of a portfolio, in transitions (NewPortfolio).
const (
	// DefaultPortfolioLead is the transitions the deciding member runs
	// alone first.
	DefaultPortfolioLead = 20000
	// DefaultPortfolioSlice is the turn of a member of share 1.
	DefaultPortfolioSlice = 2000
	// DefaultPortfolioDecay is when the deciding member's turns begin to
	// grow.
	DefaultPortfolioDecay = 4_000_000
	// startCost is what starting an execution costs, in transitions.
	startCost = 8
)

// Default slices of a portfolio in time (Timed).
const (
	// PortfolioLeadTime is what the deciding member runs alone first: a
	// C program's bundled examples (examples/c) are exhausted, or show
	// their first bug, well within it.
	PortfolioLeadTime = 250 * time.Millisecond
	// PortfolioSliceTime is the turn of a member of share 1.
	PortfolioSliceTime = 25 * time.Millisecond
	// PortfolioDecayTime is when the deciding member's turns begin to
	// grow.
	PortfolioDecayTime = 10 * time.Second
)

// NewPortfolio returns a portfolio of the given members (at least one),
// sharing the search in transitions, with the default lead and slices.
func NewPortfolio(members ...Member) *Portfolio {
	p := &Portfolio{Lead: DefaultPortfolioLead, Slice: DefaultPortfolioSlice, Decay: DefaultPortfolioDecay}
	for _, m := range members {
		if m.Share < 1 {
			m.Share = 1
		}
		p.members = append(p.members, &portfolioMember{Member: m})
	}
	return p
}

// Timed makes p share the search in wall time, read from now (time.Now),
// with the default lead and slices in time; nil shares it in transitions
// again, with their defaults. It returns p.
func (p *Portfolio) Timed(now func() time.Time) *Portfolio {
	p.Now = now
	if now == nil {
		p.Lead, p.Slice, p.Decay = DefaultPortfolioLead, DefaultPortfolioSlice, DefaultPortfolioDecay
	} else {
		p.Lead, p.Slice, p.Decay = int64(PortfolioLeadTime), int64(PortfolioSliceTime), int64(PortfolioDecayTime)
	}
	return p
}

// Members returns the members' names, in order.
func (p *Portfolio) Members() []string {
	names := make([]string, len(p.members))
	for i, m := range p.members {
		names[i] = m.Name
	}
	return names
}

// By returns the name of the member whose execution is under way or
// ended last: the one that found a bug Explore records.
func (p *Portfolio) By() string {
	if p.cur < len(p.members) {
		return p.members[p.cur].Name
	}
	return ""
}

// MemberStats is the work of a member of a portfolio.
type MemberStats struct {
	Name                    string
	Executions, Transitions int64
	// Finished reports a member that ran out of executions.
	Finished bool
}

// Account returns the work of each member so far, in order.
func (p *Portfolio) Account() []MemberStats {
	out := make([]MemberStats, len(p.members))
	for i, m := range p.members {
		out[i] = MemberStats{Name: m.Name, Executions: m.executions, Transitions: m.transitions, Finished: m.out}
	}
	return out
}

// String describes the portfolio: "portfolio of DPOR, PCT (depth 3, seed
// 7), ...".
func (p *Portfolio) String() string { return "portfolio of " + strings.Join(p.Members(), ", ") }

// Init implements Strategy: every member is initialised, and the deciding
// member's lead begins.
func (p *Portfolio) Init(c Config) {
	p.done, p.exhausted, p.total = false, false, 0
	p.cur, p.inTurn, p.leading = 0, false, false
	for i, m := range p.members {
		m.Strategy.Init(c)
		m.credit, m.executions, m.transitions, m.cost, m.out = 0, 0, 0, 0, false
		if m.Decides && !p.inTurn && p.Lead > 0 {
			p.cur, p.inTurn, p.leading = i, true, true
			m.credit = p.Lead
		}
	}
	if !p.inTurn {
		p.turn(0)
	}
}

// turn gives member i its turn.
func (p *Portfolio) turn(i int) {
	p.cur, p.inTurn = i, true
	m := p.members[i]
	share := int64(m.Share)
	switch {
	case m.Decides && p.nearlyDone(m):
		share *= nearlyDoneBoost
	case m.Decides && p.Decay > 0:
		for at := p.Decay; p.total >= at && share < 8*int64(m.Share); at *= 4 {
			share *= 2
		}
	}
	m.credit = max(m.credit, 0) + share*max(p.Slice, 1)
}

// treeSizer is a member that estimates the size of the deciding member's
// tree (the portfolio's random walk, whose walks are Knuth's probes).
type treeSizer interface {
	treeSize() (*Estimate, bool)
}

// sizeEstimate returns the estimate of the deciding member's tree, if a
// member makes one and it has enough probes to trust: 30, and a relative
// error of at most a half.
func (p *Portfolio) sizeEstimate() (*Estimate, bool) { return p.walkEstimate(0.5) }

// walkEstimate is the walks' estimate of the deciding member's tree, once
// they are 30, with a relative error of at most maxErr.
func (p *Portfolio) walkEstimate(maxErr float64) (*Estimate, bool) {
	for _, m := range p.members {
		if ts, ok := m.Strategy.(treeSizer); ok {
			if e, ok := ts.treeSize(); ok && e.Probes >= 30 && e.RelError <= maxErr {
				return e, true
			}
		}
	}
	return nil, false
}

// What a deciding member estimated to finish soon gets (nearlyDone).
const (
	// nearlyDoneWithin is how many times what the search has spent the
	// deciding member's time left may be at most.
	nearlyDoneWithin = 32
	// nearlyDoneBoost multiplies its share: 49 times DPOR's 4 out of the
	// portfolio's 8 shares is 98% of the time.
	nearlyDoneBoost = 49
	// ownEstimateDoubt divides the deciding member's own estimate of the
	// fraction it explored, which runs ahead of the truth early on: at 4%
	// of readers-writers(5) DPOR's estimate along its path read 21%, at
	// 1.4% of crowded-handoff(8) 12%.
	ownEstimateDoubt = 10
)

// nearlyDone reports that the deciding member d is estimated to finish
// soon: within nearlyDoneWithin times what the search has spent so far,
// at its pace so far, even if its tree is as large as the walks' estimate
// plus two standard errors; once d has passed that estimate (or when
// there is none), by its own estimate of the fraction it explored. It
// then gets nearlyDoneBoost times its share: a search about to be
// exhaustive costs little more than the deciding member alone, and its
// others could only find sooner what it is about to find anyway. The
// estimates are asked again at each of its turns, so an estimate that
// proves too low costs the others one turn.
func (p *Portfolio) nearlyDone(d *portfolioMember) bool {
	if d.executions == 0 || d.cost <= 0 {
		return false
	}
	hi := math.Inf(1) // the walks' estimate of its executions, and two standard errors
	if e, ok := p.sizeEstimate(); ok {
		hi = e.Executions * (1 + 2*e.RelError)
	}
	var left float64 // the deciding member's time left
	if done := float64(d.executions); hi > done && !math.IsInf(hi, 0) {
		left = (hi - done) * float64(d.cost) / done
	} else if pr, ok := d.Strategy.(Progressive); ok {
		// No walk's estimate, or one the member has passed (too low:
		// Knuth's estimator is unbiased, but its typical value falls
		// short of a tree whose few heavy subtrees the walks rarely
		// reach): the member's own, along its path, at its pace so far,
		// taken as if its tree were ownEstimateDoubt times larger.
		f := pr.Explored()
		if f <= 0 || f >= 1 {
			return false
		}
		f /= ownEstimateDoubt
		left = float64(d.cost) * (1 - f) / f
	} else {
		return false
	}
	return left <= nearlyDoneWithin*float64(p.total)
}

// Begin implements Strategy: the member whose turn it is begins its next
// execution; a member out of executions, or at the end of its turn, hands
// over to the next.
func (p *Portfolio) Begin() (schedule.Schedule, bool) {
	if p.done || len(p.members) == 0 {
		return nil, false
	}
	for tries := 0; tries <= 2*len(p.members); {
		m := p.members[p.cur]
		if m.out || m.credit <= 0 {
			if p.allOut() {
				break
			}
			if p.leading {
				p.leading = false
				if !m.out && p.nearlyDone(m) {
					// The lead ends with the deciding member
					// about to finish: it goes on, boosted.
					p.turn(p.cur)
					continue
				}
			}
			p.turn((p.cur + 1) % len(p.members))
			tries++
			continue
		}
		prefix, ok := m.Strategy.Begin()
		if ok {
			if p.Now != nil {
				p.began = p.Now()
			}
			return prefix, true
		}
		m.out = true
		if m.Decides {
			p.done, p.exhausted = true, m.Strategy.Exhausted()
			return nil, false
		}
	}
	p.done = true
	return nil, false
}

func (p *Portfolio) allOut() bool {
	for _, m := range p.members {
		if !m.out {
			return false
		}
	}
	return true
}

// Next implements Strategy: the member of the execution chooses.
func (p *Portfolio) Next(pt Point) (schedule.Step, bool) {
	return p.members[p.cur].Strategy.Next(pt)
}

// End implements Strategy: the member of the execution learns how it
// ended, and its turn is charged with its transitions.
func (p *Portfolio) End(r *Report) {
	m := p.members[p.cur]
	m.Strategy.End(r)
	m.executions++
	m.transitions += int64(len(r.Trace))
	cost := int64(len(r.Trace)) + startCost
	if p.Now != nil {
		cost = max(int64(p.Now().Sub(p.began)), 1)
	}
	m.credit -= cost
	m.cost += cost
	p.total += cost
}

// Exhausted implements Strategy: the deciding member ran out of executions
// and was exhausted.
func (p *Portfolio) Exhausted() bool { return p.exhausted }

// Explored implements Progressive: the deciding member's executions out of
// those the walks estimate its tree holds (half an execution when it has
// run none), when a member makes such an estimate (below 1 until that
// member finishes), else the deciding
// member's own estimate along its path. The walks' estimate is taken
// whatever its error, so that what a search shows while it runs and what
// it says at its end come from one estimator: on a tree whose few heavy
// subtrees the walks rarely reach (a spin loop's), the error comes and
// goes as probes reach them, and the estimate along the path read 73%
// where the walks' read 3%.
func (p *Portfolio) Explored() float64 {
	for _, m := range p.members {
		if !m.Decides {
			continue
		}
		if m.out {
			return 1
		}
		if e, ok := p.walkEstimate(math.Inf(1)); ok && float64(m.executions) < e.Executions {
			// A member that has run no execution yet has done less
			// than one: half of one, so that the estimate (near 0)
			// is still said rather than taken for none.
			return max(float64(m.executions), 0.5) / e.Executions
		}
		if pr, ok := m.Strategy.(Progressive); ok {
			return min(pr.Explored(), 0.99)
		}
	}
	return 0
}

// Deciding returns the name of the member whose end is the portfolio's
// ("" if none).
func (p *Portfolio) Deciding() string {
	for _, m := range p.members {
		if m.Decides {
			return m.Name
		}
	}
	return ""
}

// Attributed is implemented by a strategy made of others (Portfolio): By
// names the one whose execution is under way, and Explore records it in
// the bugs that execution finds (Bug.By).
type Attributed interface {
	By() string
}

// Progressive is implemented by the strategies that can estimate how much
// of their search they have done: Explored returns the estimated fraction,
// in [0, 1] (0: no estimate yet). Explore puts it in Stats.Explored.
type Progressive interface {
	Explored() float64
}

// memberName names a member after its spec, as a report says who found a
// bug: "DPOR", "PCT (depth 3, seed 7)", "delay bounding (at most 2
// delays)", "random walk (seed 8)". (Without package fmt: a Go target
// built with the race detector builds its portfolio in process, and fmt's
// printers, pooled, would be shared with the program's goroutines behind
// the detector's back.)
func memberName(s Spec) string {
	switch {
	case s.Strategy == StrategyPCT:
		return "PCT (depth " + strconv.Itoa(s.PCTDepth) + ", seed " + strconv.FormatUint(s.Seed, 10) + ")"
	case s.Strategy == StrategyRandom:
		return "random walk (seed " + strconv.FormatUint(s.Seed, 10) + ")"
	case s.BoundBy == BoundDelays:
		return "delay bounding (at most " + pluralUnit(s.Bound, "delay") + ")"
	case s.BoundBy == BoundPreemptions:
		return "preemption bounding (at most " + pluralUnit(s.Bound, "preemption") + ")"
	case s.Reduction == ReductionDPOR:
		return "DPOR"
	}
	return "DFS"
}

func pluralUnit(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
