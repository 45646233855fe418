package main

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/stdbg/stdbg/search"
)

// defaultSampleExecutions bounds a random or PCT search given neither
// --executions nor --budget.
const defaultSampleExecutions = 10000

// plan is how find searches: the search (one search.Spec, from the
// strategy, reduction, preemptions, delays, pct-depth, seed and stateful
// settings) and its limits.
type plan struct {
	spec       search.Spec // normal: its defaults explicit
	st         search.Strategy
	pb         *search.PreemptionBounding // a bounded dfs
	executions int64
	budget     time.Duration
	// split: the search may be divided among -j workers and --shard parts
	// (exhaustive searches without a profile).
	split bool
	// shard and shards: this search is part shard of shards (--shard).
	shard, shards int
	// notes explain settings the search does not use as given.
	notes []string
}

// stateful reports whether the settings ask for a stateful search.
func (a *app) stateful() bool {
	return a.v.GetBool("visited") || a.v.GetBool("livelock") || a.v.GetString("ltl") != ""
}

// searchSpec is the search the settings name (its seed not yet chosen).
// Without a strategy named, it is the portfolio, unless a reduction, a
// bound or a stateful search names the dfs (search.Spec.Normal).
func (a *app) searchSpec() (search.Spec, error) {
	spec := search.Spec{PCTDepth: a.v.GetInt("pct-depth"), Stateful: a.stateful()}
	if s := a.v.GetString("strategy"); a.explicit("strategy") || s != search.StrategyPortfolio {
		spec.Strategy = s
	}
	if a.explicit("reduction") || a.v.GetString("reduction") != search.ReductionDPOR {
		spec.Reduction = a.v.GetString("reduction")
	}
	if k := a.v.GetInt("preemptions"); k >= 0 {
		spec.BoundBy, spec.Bound = search.BoundPreemptions, k
	}
	if d := a.v.GetInt("delays"); d >= 0 {
		if spec.BoundBy != "" {
			return spec, usageErr("--preemptions and --delays are two bounds of one search: give one")
		}
		spec.BoundBy, spec.Bound = search.BoundDelays, d
	}
	if err := spec.Check(); err != nil {
		return spec, usageErr("%s", flagWords(err.Error()))
	}
	return spec, nil
}

// plan builds the search of find from the settings.
func (a *app) plan() (*plan, error) {
	spec, err := a.searchSpec()
	if err != nil {
		return nil, err
	}
	p := &plan{executions: int64(a.v.GetInt("executions")), budget: a.v.GetDuration("budget")}
	if n, _, err := spec.Normal(); err == nil && (n.Sampled() || n.Portfolio()) {
		if s := a.v.GetInt64("seed"); s != 0 {
			spec.Seed = uint64(s)
		} else {
			var b [8]byte
			if _, err := rand.Read(b[:]); err != nil {
				return nil, fmt.Errorf("choosing a seed: %w", err)
			}
			// Keep it positive as an int64, so that --seed takes it back.
			spec.Seed = binary.LittleEndian.Uint64(b[:])>>1 | 1
		}
		if p.executions == 0 && p.budget == 0 && n.Sampled() {
			p.executions = defaultSampleExecutions
		}
	}
	if p.spec, p.notes, err = spec.Normal(); err != nil {
		return nil, usageErr("%s", flagWords(err.Error()))
	}
	if p.st, err = p.spec.New(); err != nil {
		return nil, usageErr("%v", err)
	}
	p.pb, _ = p.st.(*search.PreemptionBounding)
	p.split = (p.spec.Splittable() || p.spec.Portfolio()) && a.v.GetString("profile") == ""
	p.shard, p.shards, _ = parseShard(a.v.GetString("shard"))
	switch {
	case p.shards > 1 && p.spec.Sampled():
		return nil, usageErr("--shard divides the exhaustive search, not --strategy %s (run the shards with different --seed values instead)", p.spec.Strategy)
	case p.shards > 1 && !p.split:
		return nil, usageErr("--shard divides the exhaustive search: it cannot be combined with --preemptions, --delays, --visited, --livelock, --ltl or --profile")
	}
	return p, nil
}

// flagWords says a search.Spec's complaint in the words of find's flags.
func flagWords(msg string) string {
	r := strings.NewReplacer("a bound of preemptions bounds", "--preemptions bounds", "a bound of delays bounds", "--delays bounds",
		"the dpor reduction", "--reduction dpor", "a stateful search cannot be bounded by ",
		"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --",
		"a stateful search needs the full state graph: it cannot be combined with strategy ",
		"--visited, --livelock and --ltl need the full state graph: they cannot be combined with --strategy ",
		"(use strategy dfs)", "(use --strategy dfs)",
		"a stateful search", "--visited (and --livelock, --ltl)",
		"bounded by preemptions:", "--preemptions:", "bounded by delays:", "--delays:",
		"stateful search:", "stateful search (--visited, --livelock, --ltl):")
	return r.Replace(msg)
}

// describe is the strategy as shown in the coverage line: a part of a
// divided portfolio is a part of its exhaustive member's search.
func (p *plan) describe() string {
	if p.shards > 1 {
		return p.spec.Exhaustive().Describe()
	}
	return p.spec.Describe()
}

// sampled reports a random or PCT search.
func (p *plan) sampled() bool { return p.spec.Sampled() }

// seeded reports a search with a seed: random, PCT, the portfolio.
func (p *plan) seeded() bool { return p.spec.Sampled() || p.spec.Portfolio() && p.shards <= 1 }

// unit is what bounds a bounded search: "preemption" or "delay".
func (p *plan) unit() string { return strings.TrimSuffix(p.spec.BoundBy, "s") }

// why names the limit that stopped an incomplete search.
func (p *plan) why(res *search.Result, stop stopReason) string {
	switch {
	case stop == stopInterrupted:
		return "interrupted" + cutShort(res.Cut)
	case stop == stopBudget:
		return fmt.Sprintf("budget of %s spent", p.budget) + cutShort(res.Cut)
	case p.executions > 0 && res.Stats.Executions >= p.executions:
		return fmt.Sprintf("execution limit of %d reached", p.executions)
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

// stopReason is why an exploration ended before its strategy ran out.
type stopReason int

const (
	stopNone stopReason = iota
	stopInterrupted
	stopBudget
)

// coverage is the line that says what the search covered: exhaustive,
// bounded or sampled.
func (p *plan) coverage(res *search.Result, stop stopReason, maxDepth int) string {
	depth := ""
	if res.DepthLimited {
		depth = fmt.Sprintf(" up to depth %d", maxDepth)
	}
	switch {
	case p.sampled():
		return fmt.Sprintf("Search: sampled (%s): %s, %s; schedules not sampled may hide bugs.",
			p.describe(), plural64(res.Stats.Executions, "execution"), p.why(res, stop))
	case p.pb != nil:
		return "Search: " + p.boundedCoverage(res, stop, depth)
	case res.Complete && p.shards > 1:
		return fmt.Sprintf("Search: part %d of %d (--shard %d/%d) of an exhaustive search (%s): every schedule%s of this part explored; "+
			"the other parts are explored by the other shards.", p.shard+1, p.shards, p.shard, p.shards, p.describe(), depth)
	case res.Complete && p.spec.Portfolio():
		// The verdict is the exhaustive member's.
		how := "every schedule" + depth + " explored, up to the order of independent operations"
		if p.spec.Reduction == search.ReductionNone {
			how = "every schedule" + depth + " explored"
		}
		return fmt.Sprintf("Search: exhaustive (the portfolio's %s finished): %s.", p.spec.Exhaustive().Describe(), how)
	case res.Complete && p.spec.Reduction == search.ReductionDPOR:
		return fmt.Sprintf("Search: exhaustive (DFS with DPOR): every schedule%s explored, up to the order of independent operations.", depth)
	case res.Complete:
		return fmt.Sprintf("Search: exhaustive (DFS): every schedule%s explored.", depth)
	}
	if p.shards > 1 {
		return fmt.Sprintf("Search: part %d of %d (--shard %d/%d) of a %s search, incomplete: %s%s.", p.shard+1, p.shards, p.shard, p.shards,
			p.describe(), p.why(res, stop), explored(res))
	}
	return fmt.Sprintf("Search: %s, incomplete: %s%s.", p.describe(), p.why(res, stop), explored(res))
}

// boundedCoverage says which preemption (or delay) bounds were finished.
func (p *plan) boundedCoverage(res *search.Result, stop stopReason, depth string) string {
	bounds := p.pb.Bounds()
	var parts []string
	done := -1
	for _, b := range bounds {
		state := "complete"
		if !b.Complete {
			state = "incomplete, " + p.why(res, stop)
		} else {
			done = b.Preemptions
		}
		parts = append(parts, fmt.Sprintf("%d: %s, %s", b.Preemptions, plural64(b.Executions, "execution"), state))
	}
	var head string
	switch {
	case p.pb.Saturated():
		head = fmt.Sprintf("exhaustive (DFS by %ss): every schedule%s explored, none needs more than %s", p.unit(), depth,
			plural(done, p.unit()))
	case done >= 0:
		head = fmt.Sprintf("%s bounded: every schedule%s with at most %s explored", p.unit(), depth, plural(done, p.unit()))
	default:
		head = p.unit() + " bounded: no bound finished"
	}
	tail := ""
	if done < 0 && p.unit() == "preemption" && len(bounds) > 0 && bounds[0].Executions >= manyFreeSwitches {
		// Bound 0 alone is every order of the threads at each free
		// switch: with many threads it does not end.
		tail = " Switches when a thread blocks or ends are free under --preemptions, so with many threads even bound 0 " +
			"has more schedules than can be run; --delays K bounds those switches too."
	}
	return head + " (" + strings.Join(parts, "; ") + ")." + tail
}

// manyFreeSwitches is the number of executions without a preemption after
// which an unfinished bound 0 is worth explaining.
const manyFreeSwitches = 1000

// plural64 renders "1 execution", "3 executions".
func plural64(n int64, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
