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

// sampled reports a random or PCT search.
func (p *plan) sampled() bool { return p.spec.Sampled() }

// seeded reports a search with a seed: random, PCT, the portfolio.
func (p *plan) seeded() bool { return p.spec.Sampled() || p.spec.Portfolio() && p.shards <= 1 }
