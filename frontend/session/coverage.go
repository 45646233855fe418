package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
)

// CoverageKind is the extent of a search, in the words of its verdict.
type CoverageKind string

// The extents of a search.
const (
	// Exhaustive: every schedule the model distinguishes was explored
	// (up to the depth bound when DepthLimited), over the operations of
	// the Scope.
	Exhaustive CoverageKind = "exhaustive"
	// CompleteModelled: the search ran out of schedules, but the program
	// has constructs the model does not see (NotModelled): complete over
	// the modelled operations, never exhaustive.
	CompleteModelled CoverageKind = "complete over the modelled operations"
	// Bounded: every schedule within the bound of a preemption- or
	// delay-bounded search (Bound of its Unit) was explored.
	Bounded CoverageKind = "bounded"
	// Sampled: a random walk or PCT, which explores no set of schedules
	// in full.
	Sampled CoverageKind = "sampled"
	// Part: a part (--shard) of a divided exhaustive search ran out of
	// schedules; the other parts are other searches'.
	Part CoverageKind = "part"
	// Incomplete: the search stopped before it ran out of schedules (Why).
	Incomplete CoverageKind = "incomplete"
)

// Coverage is what a search covered: exhaustive, complete over the
// modelled operations, bounded, sampled or incomplete, with why, up to
// which depth, over which operations, and the constructs the model does
// not see. Session.Find computes it once; every front end renders it:
// stdbg find and stdbg test print Line, the grader says it in a student's
// words from the fields.
type Coverage struct {
	Kind CoverageKind `json:"kind"`
	// Complete reports a search that ran out of schedules within what it
	// was asked: exhaustive, complete over the modelled operations, every
	// round of a bounded search, a part of a divided search.
	Complete bool `json:"complete"`
	// Line says it as stdbg find prints it ("Search: exhaustive (DFS with
	// DPOR): every schedule explored, ...").
	Line string `json:"line"`
	// Search describes the search that ran ("DFS with DPOR", the
	// portfolio with its members).
	Search string `json:"search"`
	// Why says why an incomplete or sampled search stopped ("budget of
	// 30s spent", "stopped at the first bug (--all goes on)").
	Why string `json:"why,omitempty"`
	// Executions counts the executions of the search.
	Executions int64 `json:"executions"`
	// DepthLimited reports executions cut at MaxDepth transitions: what
	// was explored is the schedules up to that depth.
	MaxDepth     int  `json:"max_depth"`
	DepthLimited bool `json:"depth_limited,omitempty"`
	// Unit is what bounds a bounded search ("preemption" or "delay"),
	// Bound the highest bound whose schedules were all explored (-1:
	// none), Bounds its rounds.
	Unit   string         `json:"unit,omitempty"`
	Bound  int            `json:"bound,omitempty"`
	Bounds []search.Bound `json:"bounds,omitempty"`
	// Shard and Shards: the search was part Shard of Shards (Shards > 1).
	Shard  int `json:"shard,omitempty"`
	Shards int `json:"shards,omitempty"`
	// BudgetSpent and Interrupted say what stopped the search, if
	// anything but itself did.
	BudgetSpent bool `json:"budget_spent,omitempty"`
	Interrupted bool `json:"interrupted,omitempty"`
	// NotModelled lists the constructs of the program whose behaviour the
	// search does not explore (cgo, sync.Pool, system calls that may
	// block, ...).
	NotModelled []string `json:"not_modelled,omitempty"`
	// Scope names the operations that were scheduling points ("thread
	// operations", "goroutine operations", ...); ScopeNote says in full
	// what a complete search was complete over, and what it was not.
	Scope     string `json:"scope"`
	ScopeNote string `json:"scope_note"`
}

// String is the coverage's Line.
func (c Coverage) String() string { return c.Line }

// Short says the coverage in a few words, as stdbg test's line of a test
// that found no bug: "exhaustive", "complete over the modelled operations
// (2 constructs are not modelled)", or the Line without its "Search: ".
func (c Coverage) Short() string {
	switch c.Kind {
	case Exhaustive:
		return "exhaustive"
	case CompleteModelled:
		return fmt.Sprintf("complete over the modelled operations (%s %s not modelled)", plural(len(c.NotModelled), "construct"),
			isAre(len(c.NotModelled)))
	}
	return strings.TrimSuffix(strings.TrimPrefix(c.Line, "Search: "), ".")
}

// coverageOf says what the search of plan p (run with strategy st, whose
// bounds a bounded search reports) covered on t, from what it found.
func coverageOf(p *Plan, st search.Strategy, t *Target, found *Found) Coverage {
	res := &found.Search
	c := Coverage{Complete: res.Complete, Search: p.describe(), Executions: res.Stats.Executions, MaxDepth: p.MaxDepth, DepthLimited: res.DepthLimited,
		BudgetSpent: found.BudgetSpent, Interrupted: found.Interrupted, NotModelled: t.Unmodelled, Bound: -1}
	if p.Shards > 1 {
		c.Shard, c.Shards = p.Shard, p.Shards
	}
	c.Scope, c.ScopeNote = scope(t)
	depth := ""
	if res.DepthLimited {
		depth = fmt.Sprintf(" up to depth %d", p.MaxDepth)
	}
	pb, _ := st.(*search.PreemptionBounding)
	switch {
	case p.Search.Sampled():
		c.Kind, c.Why = Sampled, p.why(found)
		c.Line = fmt.Sprintf("Search: sampled (%s): %s, %s; schedules not sampled may hide bugs.",
			c.Search, plural64(res.Stats.Executions, "execution"), c.Why)
	case pb != nil:
		c.bounded(p, pb, found, depth)
	case res.Complete && p.Shards > 1:
		c.Kind = Part
		c.Line = fmt.Sprintf("Search: part %d of %d (--shard %d/%d) of an exhaustive search (%s): every schedule%s of this part explored; "+
			"the other parts are explored by the other shards.", p.Shard+1, p.Shards, p.Shard, p.Shards, c.Search, depth)
	case res.Complete && p.Search.Portfolio():
		// The verdict is the exhaustive member's.
		how := "every schedule" + depth + " explored, up to the order of independent operations"
		if p.Search.Reduction == search.ReductionNone {
			how = "every schedule" + depth + " explored"
		}
		c.Kind = Exhaustive
		c.Line = fmt.Sprintf("Search: exhaustive (the portfolio's %s finished): %s.", p.Search.Exhaustive().Describe(), how)
	case res.Complete && p.Search.Reduction == search.ReductionDPOR:
		c.Kind = Exhaustive
		c.Line = fmt.Sprintf("Search: exhaustive (DFS with DPOR): every schedule%s explored, up to the order of independent operations.", depth)
	case res.Complete:
		c.Kind = Exhaustive
		c.Line = fmt.Sprintf("Search: exhaustive (DFS): every schedule%s explored.", depth)
	case p.Shards > 1:
		c.Kind, c.Why = Incomplete, p.why(found)
		c.Line = fmt.Sprintf("Search: part %d of %d (--shard %d/%d) of a %s search, incomplete: %s%s.", p.Shard+1, p.Shards, p.Shard, p.Shards,
			c.Search, c.Why, explored(res))
	default:
		c.Kind, c.Why = Incomplete, p.why(found)
		c.Line = fmt.Sprintf("Search: %s, incomplete: %s%s.", c.Search, c.Why, explored(res))
	}
	if c.Kind == Exhaustive && len(t.Unmodelled) > 0 {
		// Exhaustive is a promise the search cannot make for what it
		// does not model.
		rest, _ := strings.CutPrefix(c.Line, "Search: exhaustive ")
		n := len(t.Unmodelled)
		c.Kind = CompleteModelled
		c.Line = fmt.Sprintf("Search: complete over the modelled operations %s; not exhaustive: %s %s not modelled (below).",
			strings.TrimSuffix(rest, "."), plural(n, "construct"), isAre(n))
	}
	return c
}

// bounded fills in the coverage of a preemption- or delay-bounded search:
// which bounds were finished.
func (c *Coverage) bounded(p *Plan, pb *search.PreemptionBounding, found *Found, depth string) {
	c.Unit = strings.TrimSuffix(p.Search.BoundBy, "s")
	c.Bounds = pb.Bounds()
	var parts []string
	for _, b := range c.Bounds {
		state := "complete"
		if !b.Complete {
			c.Why = p.why(found)
			state = "incomplete, " + c.Why
		} else {
			c.Bound = b.Preemptions
		}
		parts = append(parts, fmt.Sprintf("%d: %s, %s", b.Preemptions, plural64(b.Executions, "execution"), state))
	}
	var head string
	switch {
	case pb.Saturated():
		c.Kind = Exhaustive
		head = fmt.Sprintf("exhaustive (DFS by %ss): every schedule%s explored, none needs more than %s", c.Unit, depth,
			plural(c.Bound, c.Unit))
	case c.Bound >= 0:
		c.Kind = Bounded
		head = fmt.Sprintf("%s bounded: every schedule%s with at most %s explored", c.Unit, depth, plural(c.Bound, c.Unit))
	default:
		c.Kind = Incomplete
		head = c.Unit + " bounded: no bound finished"
	}
	tail := ""
	if c.Bound < 0 && c.Unit == "preemption" && len(c.Bounds) > 0 && c.Bounds[0].Executions >= manyFreeSwitches {
		// Bound 0 alone is every order of the threads at each free
		// switch: with many threads it does not end.
		tail = " Switches when a thread blocks or ends are free under --preemptions, so with many threads even bound 0 " +
			"has more schedules than can be run; --delays K bounds those switches too."
	}
	c.Line = "Search: " + head + " (" + strings.Join(parts, "; ") + ")." + tail
}

// manyFreeSwitches is the number of executions without a preemption after
// which an unfinished bound 0 is worth explaining.
const manyFreeSwitches = 1000

// describe is the search as the coverage line names it: a part of a
// divided portfolio is a part of its exhaustive member's search.
func (p *Plan) describe() string {
	if p.Shards > 1 {
		return p.Search.Exhaustive().Describe()
	}
	return p.Search.Describe()
}

// why names the limit that stopped an incomplete search.
func (p *Plan) why(found *Found) string {
	res := &found.Search
	switch {
	case found.Interrupted:
		return "interrupted" + cutShort(res.Cut)
	case found.BudgetSpent && p.Minimise:
		// The search had its share of the budget, the rest being kept
		// to minimise a bug: the time it took is said.
		var start time.Time
		until, _ := hunt.Deadlines(start, p.Budget, true)
		share := "the search's share: " + until.Sub(start).String()
		if res.Cut > 0 {
			return fmt.Sprintf("budget of %s spent (the execution under way was cut after %s; %s)", p.Budget, plural(res.Cut, "transition"), share)
		}
		return fmt.Sprintf("budget of %s spent (%s)", p.Budget, share)
	case found.BudgetSpent:
		return fmt.Sprintf("budget of %s spent", p.Budget) + cutShort(res.Cut)
	case p.MaxExecutions > 0 && res.Stats.Executions >= p.MaxExecutions:
		return fmt.Sprintf("execution limit of %d reached", p.MaxExecutions)
	case res.Stats.Bugs > 0:
		if len(res.Bugs) > 0 && res.Bugs[0].By != "" {
			return fmt.Sprintf("stopped at the first bug, found by %s (--all goes on)", res.Bugs[0].By)
		}
		return "stopped at the first bug (--all goes on)"
	}
	return "stopped"
}

// explored says how much of an exhaustive search an incomplete one did,
// as estimated ("" without an estimate, or when it stopped at a bug).
func explored(res *search.Result) string {
	f := res.Stats.Explored
	switch {
	case f <= 0 || res.Complete || len(res.Bugs) > 0:
		return ""
	case f < 0.001:
		return "; under 0.1% of its tree explored (estimated)"
	case f < 0.01:
		return fmt.Sprintf("; about %.1f%% of its tree explored (estimated)", 100*f)
	}
	return fmt.Sprintf("; about %.0f%% of its tree explored (estimated)", 100*f)
}

// cutShort says that the execution under way was cut after n transitions
// ("" if none was).
func cutShort(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (the execution under way was cut after %s)", plural(n, "transition"))
}

// scope names the operations that were scheduling points in a search of
// t, and says in full what a complete search of it was complete over.
func scope(t *Target) (scope, note string) {
	switch {
	case t.Go:
		return "goroutine operations", "Scope: goroutine operations; plain memory accesses were not scheduling points (shared variables read and written " +
			"without a synchronisation between are not reordered; Go's race detector, on by default for plain Go, reports such races)."
	case t.MemoryLogged:
		return "thread operations and atomics; global and heap memory checked for data races",
			"Scope: thread operations and atomic operations; the loads and stores of global variables and the heap " +
				"were checked for data races in every schedule (with none, their order between operations changes nothing); " +
				"accesses to stacks and thread-local storage were not checked."
	case t.Memory:
		return "thread operations and global and heap memory",
			"Scope: thread operations, and the loads, stores and atomic operations on global variables and the heap " +
				"(memory instrumentation); accesses to stacks and thread-local storage were not scheduling points."
	}
	return "thread operations", "Scope: thread operations; plain memory accesses were not scheduling points (memory shared without a thread " +
		"operation between is not reordered: compile the program's source with stdbg, as in stdbg find prog.c, or " +
		"build it with stdbg cc --memory, or annotate it with stdbg_read/stdbg_write)."
}

// plural renders "1 step", "3 steps".
func plural(n int, word string) string { return plural64(int64(n), word) }

// plural64 renders "1 execution", "3 executions".
func plural64(n int64, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// isAre is the verb of n things.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
