package oracle

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Campaign runs the oracle over the generated programs of a range of seeds.
type Campaign struct {
	Lang Lang
	// Gen shapes the programs; Profiles, if any, replace it: the program
	// of seed s has the shape Profiles[s % len(Profiles)].
	Gen      GenOptions
	Profiles []GenOptions
	Limits   Limits
	// Select chooses the strategies compared on the program of a seed
	// (nil: all of them).
	Select func(seed uint64) func(name string) bool
	// Known names the recorded finding that explains a disagreement on
	// the program of a seed, "" if none: a known one is counted, neither
	// shrunk nor reported.
	Known func(p *Program, seed uint64, d Disagreement) string
	// ShrinkTries bounds the comparisons each shrinking runs; 0 does not
	// shrink.
	ShrinkTries int
	// MaxShrinks bounds how many disagreements of one signature (strategy
	// and what) are shrunk and reported; later ones are only counted.
	MaxShrinks int
	// OnFinding is called with each finding reported.
	OnFinding func(*Finding)
	// Batch is how many C programs are compiled into one executable.
	Batch int

	mu    sync.Mutex
	Stats CampaignStats
	batch *cBatch
}

// CampaignStats count what a campaign did.
type CampaignStats struct {
	Programs int   // generated
	Compared int   // compared (not skipped)
	Skipped  int   // too many schedules, or reaching the depth bound
	Bugs     int   // bugs (distinct keys) running every schedule found, summed
	Buggy    int   // programs with at least one bug
	Schedule int64 // executions running every schedule
	// BuggySchedules counts those that ended in a bug, on the programs
	// compared; BugKinds the programs with a bug of each kind.
	BuggySchedules, CompletedSchedules int64
	BugKinds                           map[string]int
	Other                              int64 // executions of the other strategies
	// Traces counts the Mazurkiewicz traces of the programs compared
	// (running every schedule); DPOR the executions DPOR ran on them (on
	// the programs where it ran); DPORPruned those it abandoned (sleep-set
	// blocked), DPORTwice those of a trace it had run already.
	Traces, DPOR, DPORPruned, DPORTwice int64
	// DPORExtraSeeds are the first programs on which DPOR ran more
	// executions than there are traces.
	DPORExtraSeeds []uint64
	// Disagreements by signature ("dpor missed"), Known by finding.
	Disagreements map[string]int
	Known         map[string]int
	// Memory counts the Memory programs (C, plain accesses): generated,
	// MemoryChecked their two modes compared (checkMemory), MemoryStrict
	// of those with all four requirements, MemoryRacy with a data race
	// in points mode; MemoryPoints and MemoryLogged the executions of
	// the two modes' searches.
	Memory, MemoryChecked, MemoryStrict, MemoryRacy int
	MemoryPoints, MemoryLogged                      int64
}

// String is a summary of the statistics.
func (s CampaignStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d programs, %d compared (%d skipped), %d with bugs (%d distinct bugs); %d schedules run to compare, %d executions of the other strategies; %d traces; DPOR: %d executions where it ran, %d abandoned, %d of a trace run before (more executions than traces on seeds %v)",
		s.Programs, s.Compared, s.Skipped, s.Buggy, s.Bugs, s.Schedule, s.Other, s.Traces, s.DPOR, s.DPORPruned, s.DPORTwice, s.DPORExtraSeeds)
	fmt.Fprintf(&b, "; %d of the %d schedules of the programs compared end in a bug; programs with a bug of each kind: %v",
		s.BuggySchedules, s.CompletedSchedules, s.BugKinds)
	if s.Memory > 0 {
		fmt.Fprintf(&b, "; Memory programs: %d, both modes compared on %d (%d strictly, %d with a race), %d executions with every access a point, %d logged",
			s.Memory, s.MemoryChecked, s.MemoryStrict, s.MemoryRacy, s.MemoryPoints, s.MemoryLogged)
	}
	for _, m := range []map[string]int{s.Disagreements, s.Known} {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			fmt.Fprintf(&b, "; %s: %d", k, m[k])
		}
	}
	return b.String()
}

// Program generates, compares and (on a new disagreement) shrinks and
// reports the program of seed. It returns the comparison and the new
// disagreements.
func (c *Campaign) Program(ctx context.Context, seed uint64) (*Result, []Disagreement, error) {
	p := Generate(c.Lang, seed, c.gen(seed))
	var sel func(string) bool
	if c.Select != nil {
		sel = c.Select(seed)
	}
	res, err := c.compare(ctx, p, seed, sel)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	s := &c.Stats
	if s.Disagreements == nil {
		s.Disagreements, s.Known, s.BugKinds = map[string]int{}, map[string]int{}, map[string]int{}
	}
	s.Programs++
	if res.Skipped != "" {
		s.Skipped++
	} else {
		s.Compared++
		s.Bugs += len(res.Reference.Bugs)
		if len(res.Reference.Bugs) > 0 {
			s.Buggy++
		}
		s.Traces += int64(len(res.Reference.Traces))
		s.BuggySchedules += res.Reference.BuggyRuns
		for _, n := range res.Reference.Traces {
			s.CompletedSchedules += int64(n)
		}
		kinds := map[string]bool{}
		for _, b := range res.Reference.Bugs {
			kinds[b.Outcome.Kind.String()] = true
		}
		for k := range kinds {
			s.BugKinds[k]++
		}
		for _, v := range res.Verdicts {
			if v.Strategy == "dpor" {
				s.DPOR += v.Stats.Executions
				s.DPORPruned += v.Stats.Pruned
				for _, n := range v.Traces {
					s.DPORTwice += int64(n - 1)
				}
				if v.Stats.Executions > int64(len(res.Reference.Traces)) {
					if len(s.DPORExtraSeeds) < 20 {
						s.DPORExtraSeeds = append(s.DPORExtraSeeds, seed)
					}
				}
			}
		}
	}
	if res.Reference != nil {
		s.Schedule += res.Reference.Stats.Executions
	}
	if p.Memory {
		s.Memory++
	}
	if m := res.Memory; m != nil {
		if m.Points != nil {
			s.MemoryPoints += m.Points.Stats.Executions
		}
		if m.Logged != nil && m.Logged != res.Reference {
			s.MemoryLogged += m.Logged.Stats.Executions
		}
		if m.Skipped == "" && m.Points != nil {
			s.MemoryChecked++
			if m.Strict {
				s.MemoryStrict++
			}
			if m.Racy() {
				s.MemoryRacy++
			}
		}
	}
	for _, v := range res.Verdicts {
		s.Other += v.Stats.Executions
	}
	var fresh []Disagreement
	var shrink []Disagreement
	for _, d := range res.Disagree {
		if c.Known != nil {
			k := c.Known(p, seed, d)
			if twin, ok := dporTwin(res, d); k == "" && ok {
				// A divided DPOR search misses what DPOR misses, for
				// the same reason.
				k = c.Known(p, seed, twin)
			}
			if k != "" {
				s.Known[k]++
				continue
			}
		}
		sig := string(c.Lang) + " " + d.Strategy + " " + d.What
		s.Disagreements[sig]++
		fresh = append(fresh, d)
		if _, ok := dporTwin(res, d); ok {
			// The divided DPOR misses what DPOR misses: shrink the
			// cause, not its consequence.
			continue
		}
		if s.Disagreements[sig] <= c.MaxShrinks {
			shrink = append(shrink, d)
		}
	}
	c.mu.Unlock()
	for _, d := range shrink {
		f := c.shrink(ctx, p, seed, d)
		if ctx.Err() != nil {
			return res, fresh, ctx.Err()
		}
		if c.OnFinding != nil {
			c.OnFinding(f)
		}
	}
	return res, fresh, nil
}

// gen is the shape of the program of seed.
func (c *Campaign) gen(seed uint64) GenOptions {
	if len(c.Profiles) > 0 {
		return c.Profiles[seed%uint64(len(c.Profiles))]
	}
	return c.Gen
}

// dporTwin returns, for a divided DPOR search's disagreement d, DPOR's
// own disagreement on the same bug, if it has one.
func dporTwin(res *Result, d Disagreement) (Disagreement, bool) {
	if d.Strategy != "split-dpor" && d.Strategy != "shard3-dpor" && d.Strategy != "j2-dpor" {
		return Disagreement{}, false
	}
	for _, e := range res.Disagree {
		if e.Strategy == "dpor" && strings.TrimSuffix(e.What, "-at-end") == strings.TrimSuffix(d.What, "-at-end") && e.Detail == d.Detail {
			return e, true
		}
	}
	return Disagreement{}, false
}

// compare runs the comparison on p, the program of seed.
func (c *Campaign) compare(ctx context.Context, p *Program, seed uint64, sel func(string) bool) (*Result, error) {
	if c.Lang == C && c.batch != nil {
		if t, ok := c.batch.target(seed); ok {
			res, err := compare(ctx, t, c.Limits, sel)
			if err != nil {
				return res, err
			}
			return withSpin(ctx, p, res, c.Limits, sel)
		}
	}
	return Compare(ctx, p, c.Limits, sel)
}

// shrink shrinks p while the comparison of d's strategy still disagrees
// with running every schedule in the same way.
func (c *Campaign) shrink(ctx context.Context, p *Program, seed uint64, d Disagreement) *Finding {
	only := func(name string) bool { return name == d.Strategy }
	keep := func(q *Program) bool {
		if ctx.Err() != nil {
			return false
		}
		r, err := Compare(ctx, q, c.Limits, only)
		if err != nil || r.Skipped != "" {
			return false
		}
		for _, e := range r.Disagree {
			if e.Strategy == d.Strategy && e.What == d.What {
				return true
			}
		}
		return false
	}
	small := p
	if c.ShrinkTries > 0 {
		small = Shrink(p, keep, c.ShrinkTries)
	}
	f := &Finding{Lang: c.Lang, Seed: seed, Original: p, Program: small, Disagreement: d}
	r, err := Compare(ctx, small, c.Limits, nil)
	if err == nil {
		f.Result = r
		for _, e := range r.Disagree {
			if e.Strategy == d.Strategy && e.What == d.What {
				f.Disagreement = e
			}
		}
	}
	return f
}
