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

// plan is how find searches: the strategy and its limits, from the
// strategy, pct-depth, seed, preemptions, executions and budget settings.
type plan struct {
	name       string // dfs, random or pct
	st         search.Strategy
	pb         *search.PreemptionBounding // set with --preemptions or --delays
	limit      int                        // --preemptions or --delays
	unit       string                     // "preemption" or "delay"
	sampled    bool
	seed       uint64
	pctDepth   int
	executions int64
	budget     time.Duration
	// reduction is the reduction the search uses: dpor or none. DPOR
	// replaces the exhaustive DFS (no preemption bound, not stateful);
	// every other search runs the schedules it chooses as they are.
	reduction string
	// split: the search may be divided among -j workers and --shard parts
	// (exhaustive searches without a profile).
	split bool
	// shard and shards: this search is part shard of shards (--shard).
	shard, shards int
	// notes explain settings the search does not use as given.
	notes []string
}

// plan builds the search of find from the settings.
func (a *app) plan() (*plan, error) {
	p := &plan{
		name:       a.v.GetString("strategy"),
		executions: int64(a.v.GetInt("executions")),
		budget:     a.v.GetDuration("budget"),
		pctDepth:   a.v.GetInt("pct-depth"),
	}
	k := a.v.GetInt("preemptions")
	p.unit = "preemption"
	if d := a.v.GetInt("delays"); d >= 0 {
		if k >= 0 {
			return nil, usageErr("--preemptions and --delays are two bounds of one search: give one")
		}
		k, p.unit = d, "delay"
	}
	p.reduction = "none"
	switch p.name {
	case "dfs":
		red := a.v.GetString("reduction")
		switch {
		case k >= 0:
			p.pb, p.limit = search.NewPreemptionBounding(k), k
			if p.unit == "delay" {
				p.pb = search.NewDelayBounding(k)
			}
			p.st = p.pb
			if red == "dpor" && a.explicit("reduction") {
				p.notes = append(p.notes, "--"+p.unit+"s: running every schedule within the bound (no DPOR)")
			}
		case red == "dpor" && a.stateful():
			// A visited set cuts executions at states whose
			// continuations DPOR has not planned (docs/liveness.md).
			p.st = search.NewDFS()
			if a.explicit("reduction") {
				p.notes = append(p.notes, "stateful search (--visited, --livelock, --ltl): running every schedule (--reduction none); DPOR is not sound with a visited set")
			}
		case red == "dpor":
			p.st, p.reduction = search.NewDPOR(), "dpor"
		default:
			p.st = search.NewDFS()
		}
		p.split = p.pb == nil && !a.stateful() && a.v.GetString("profile") == ""
		p.shard, p.shards, _ = parseShard(a.v.GetString("shard"))
		if p.shards > 1 && !p.split {
			return nil, usageErr("--shard divides the exhaustive search: it cannot be combined with --preemptions, --delays, --visited, --livelock, --ltl or --profile")
		}
		return p, nil
	case "random", "pct":
	default:
		return nil, usageErr("unknown strategy %q: use dfs, random or pct", p.name)
	}
	if k >= 0 {
		return nil, usageErr("--%ss bounds the dfs strategy, not %s", p.unit, p.name)
	}
	if _, shards, _ := parseShard(a.v.GetString("shard")); shards > 1 {
		return nil, usageErr("--shard divides the exhaustive search, not --strategy %s (run the shards with different --seed values instead)", p.name)
	}
	p.sampled = true
	if s := a.v.GetInt64("seed"); s != 0 {
		p.seed = uint64(s)
	} else {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("choosing a seed: %w", err)
		}
		// Keep it positive as an int64, so that --seed takes it back.
		p.seed = binary.LittleEndian.Uint64(b[:])>>1 | 1
	}
	if p.executions == 0 && p.budget == 0 {
		p.executions = defaultSampleExecutions
	}
	if p.name == "random" {
		p.st = search.NewRandom(p.seed)
	} else {
		p.st = search.NewPCT(p.pctDepth, p.seed)
	}
	return p, nil
}

// describe is the strategy as shown in the coverage line.
func (p *plan) describe() string {
	switch {
	case p.name == "random":
		return fmt.Sprintf("random walk, seed %d", p.seed)
	case p.name == "pct":
		return fmt.Sprintf("PCT with bug depth %d, seed %d", p.pctDepth, p.seed)
	case p.pb != nil:
		return fmt.Sprintf("DFS bounded to %s", plural(p.limit, p.unit))
	}
	if p.reduction == "dpor" {
		return "DFS with DPOR"
	}
	return "DFS"
}

// entryName is the strategy as recorded in the corpus.
func (p *plan) entryName() string {
	switch {
	case p.name == "pct":
		return fmt.Sprintf("pct (depth %d)", p.pctDepth)
	case p.pb != nil:
		return fmt.Sprintf("dfs (at most %s)", plural(p.limit, p.unit))
	}
	return p.name
}

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
		return "stopped at the first bug (--all goes on)"
	}
	return "stopped"
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
	case p.sampled:
		return fmt.Sprintf("Search: sampled (%s): %s, %s; schedules not sampled may hide bugs.",
			p.describe(), plural64(res.Stats.Executions, "execution"), p.why(res, stop))
	case p.pb != nil:
		return "Search: " + p.boundedCoverage(res, stop, depth)
	case res.Complete && p.shards > 1:
		return fmt.Sprintf("Search: part %d of %d (--shard %d/%d) of an exhaustive search (%s): every schedule%s of this part explored; "+
			"the other parts are explored by the other shards.", p.shard+1, p.shards, p.shard, p.shards, p.describe(), depth)
	case res.Complete && p.reduction == "dpor":
		return fmt.Sprintf("Search: exhaustive (DFS with DPOR): every schedule%s explored, up to the order of independent operations.", depth)
	case res.Complete:
		return fmt.Sprintf("Search: exhaustive (DFS): every schedule%s explored.", depth)
	}
	if p.shards > 1 {
		return fmt.Sprintf("Search: part %d of %d (--shard %d/%d) of a %s search, incomplete: %s.", p.shard+1, p.shards, p.shard, p.shards,
			p.describe(), p.why(res, stop))
	}
	return fmt.Sprintf("Search: %s, incomplete: %s.", p.describe(), p.why(res, stop))
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
		head = fmt.Sprintf("exhaustive (DFS by %ss): every schedule%s explored, none needs more than %s", p.unit, depth,
			plural(done, p.unit))
	case done >= 0:
		head = fmt.Sprintf("%s bounded: every schedule%s with at most %s explored", p.unit, depth, plural(done, p.unit))
	default:
		head = p.unit + " bounded: no bound finished"
	}
	tail := ""
	if done < 0 && p.unit == "preemption" && len(bounds) > 0 && bounds[0].Executions >= manyFreeSwitches {
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
