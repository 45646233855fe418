package cli

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
)

// defaultSampleExecutions bounds a random or PCT search given neither
// --executions nor --budget.
const defaultSampleExecutions = 10000

// plan is how stdbg find and stdbg test search: the session's plan (the
// hunt.Request, and where the search may run) that the settings ask for,
// and notes on what the search does otherwise than asked.
type plan struct {
	session.Plan
	notes []string
}

// stateful reports whether the settings ask for a stateful search.
func (s *Settings) stateful() bool { return s.Visited || s.Livelock || s.LTL != "" }

// searchSpec is the search the settings name (its seed not yet chosen).
// Without a strategy named, it is the portfolio, unless a reduction, a
// bound or a stateful search names the dfs (search.Spec.Normal).
func (a *app) searchSpec() (search.Spec, error) {
	s := &a.s
	spec := search.Spec{PCTDepth: s.PCTDepth, Stateful: s.stateful()}
	if a.explicit("strategy") || s.Strategy != search.StrategyPortfolio {
		spec.Strategy = s.Strategy
	}
	if a.explicit("reduction") || s.Reduction != search.ReductionDPOR {
		spec.Reduction = s.Reduction
	}
	if s.Preemptions >= 0 {
		spec.BoundBy, spec.Bound = search.BoundPreemptions, s.Preemptions
	}
	if s.Delays >= 0 {
		if spec.BoundBy != "" {
			return spec, usageErr("--preemptions and --delays are two bounds of one search: give one")
		}
		spec.BoundBy, spec.Bound = search.BoundDelays, s.Delays
	}
	if err := spec.Check(); err != nil {
		return spec, usageErr("%s", flagWords(err.Error()))
	}
	return spec, nil
}

// plan is the one function that turns the settings into the search
// request of stdbg find and stdbg test: the search (one search.Spec, from
// the strategy, reduction, preemptions, delays, pct-depth, seed and
// stateful settings, its seed chosen), its bounds (the depth bound left to
// the target's unless set), budget and minimisation, and where it may run
// (-j, --in-target; watched: a profile or a drawing watches every step).
// With divided, --shard divides the search (find); stdbg test divides its
// tests instead.
func (a *app) plan(divided, watched bool) (*plan, error) {
	s := &a.s
	spec, err := a.searchSpec()
	if err != nil {
		return nil, err
	}
	p := &plan{Plan: session.Plan{Request: s.request(), Jobs: s.Jobs, InTarget: s.InTarget, Watched: watched}}
	if !a.explicit("max-depth") {
		p.MaxDepth = 0 // the target's
	}
	if n, _, err := spec.Normal(); err == nil && (n.Sampled() || n.Portfolio()) {
		if s.Seed != 0 {
			spec.Seed = uint64(s.Seed)
		} else {
			var b [8]byte
			if _, err := rand.Read(b[:]); err != nil {
				return nil, fmt.Errorf("choosing a seed: %w", err)
			}
			// Keep it positive as an int64, so that --seed takes it back.
			spec.Seed = binary.LittleEndian.Uint64(b[:])>>1 | 1
		}
		if p.MaxExecutions == 0 && p.Budget == 0 && n.Sampled() {
			p.MaxExecutions = defaultSampleExecutions
		}
	}
	if p.Search, p.notes, err = spec.Normal(); err != nil {
		return nil, usageErr("%s", flagWords(err.Error()))
	}
	if p.Strategy, err = p.Search.New(); err != nil {
		return nil, usageErr("%v", err)
	}
	p.Shard, p.Shards = 0, 1
	if divided {
		p.Shard, p.Shards, _ = parseShard(s.Shard)
	}
	switch {
	case p.Shards > 1 && p.Search.Sampled():
		return nil, usageErr("--shard divides the exhaustive search, not --strategy %s (run the shards with different --seed values instead)", p.Search.Strategy)
	case p.Shards > 1 && (s.Profile != "" || !p.Search.Splittable() && !p.Search.Portfolio()):
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

// sampled reports a random or PCT search.
func (p *plan) sampled() bool { return p.Search.Sampled() }

// seeded reports a search with a seed: random, PCT, the portfolio.
func (p *plan) seeded() bool { return p.Search.Sampled() || p.Search.Portfolio() && p.Shards <= 1 }
