package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
)

// find --estimate runs probes only: Knuth's estimate of the executions and
// time an exhaustive search of the program would take.

// Defaults of find --estimate: the probes run, and the time they may take.
const (
	estimateProbes = 10000
	estimateBudget = 10 * time.Second
)

// runEstimate runs find --estimate on the target of args.
func (c *findCmd) runEstimate(args []string) error {
	p, err := c.plan(true, false)
	if err != nil {
		return err
	}
	if err := c.checkEstimate(p); err != nil {
		return err
	}
	return c.estimateSearch(args, p)
}

// checkEstimate refuses what --estimate cannot be combined with, in one
// line.
func (c *findCmd) checkEstimate(p *plan) error {
	a, outs := c.app, c.outs
	switch {
	case p.sampled():
		return usageErr("--estimate estimates an exhaustive search: --strategy %s never ends", p.Search.Strategy)
	case p.Search.Bounded():
		return usageErr("--estimate estimates an exhaustive search, not one bounded by --%s", p.Search.BoundBy)
	case a.s.stateful():
		return usageErr("--estimate estimates a stateless search: it cannot be combined with --visited, --livelock or --ltl")
	case p.Shards > 1:
		return usageErr("--estimate estimates the whole search: it cannot be combined with --shard")
	case a.s.All:
		return usageErr("--estimate runs no search: it cannot be combined with --all")
	}
	for _, o := range []struct{ flag, path string }{{"sarif", outs.sarif}, {"html", outs.html}, {"graph", outs.graph},
		{"profile", a.s.Profile}} {
		if o.path != "" {
			return usageErr("--estimate runs no search: it cannot be combined with --%s", o.flag)
		}
	}
	return nil
}

// estimateResult is the JSON document of find --estimate.
type estimateResult struct {
	Target string `json:"target"`
	// Search is the exhaustive search estimated; Reduction, its reduction.
	Search    string `json:"search"`
	Reduction string `json:"reduction"`
	MaxDepth  int    `json:"max_depth"`
	Probes    int    `json:"probes"`
	// Executions and Log10Executions are the estimated executions (the
	// first 0 when it does not fit a float64); RelError, the relative
	// standard error over the probes.
	Executions      float64 `json:"executions"`
	Log10Executions float64 `json:"log10_executions"`
	RelError        float64 `json:"relative_error"`
	Transitions     float64 `json:"transitions"`
	// Seconds is the estimated time of the search at the probes' pace.
	Seconds      float64 `json:"seconds"`
	DepthLimited bool    `json:"depth_limited"`
	// BugProbes counts the probes that ended in a bug.
	BugProbes int     `json:"bug_probes"`
	Elapsed   float64 `json:"elapsed_seconds"`
}

// estimateSearch estimates the search p of the target of args.
func (c *findCmd) estimateSearch(args []string, p *plan) error {
	a := c.app
	for _, n := range p.notes {
		fmt.Fprintf(a.stderr, "stdbg: %s\n", n)
	}
	stopper := newStopper()
	defer stopper.stop()
	t, err := a.resolve(args, c.run)
	if err != nil {
		return err
	}
	for _, w := range t.Warnings {
		fmt.Fprintln(a.stderr, "stdbg: warning:", w)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := a.startSession(t, session.Options{Stdout: io.Discard, Stderr: io.Discard, FastExit: true})
	if err != nil {
		return err
	}
	defer s.Close()

	probes := estimateProbes
	if n := a.s.Executions; n > 0 {
		probes = int(n)
	}
	budget := estimateBudget
	if a.explicit("budget") && p.Budget > 0 {
		budget = p.Budget
	}
	ctx, cancel := context.WithTimeout(stopper.ctx, budget)
	defer cancel()
	prog := newProgress(a.stderr, a.s.Quiet)
	defer prog.stop()
	maxDepth := a.maxDepth(t)
	start := time.Now()
	est, err := s.Estimate(ctx, &session.Estimate{Spec: p.Search, MaxDepth: maxDepth, Probes: probes, Seed: p.Search.Seed,
		Progress: func(e *search.Estimate) { prog.update(e.Stats) }})
	prog.stop() // no progress line among the results
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	x := p.Search.Exhaustive()
	out := &estimateResult{Target: t.Arg, Search: x.Describe(), Reduction: x.Reduction, MaxDepth: maxDepth, Probes: est.Probes,
		Log10Executions: est.Log10Executions, RelError: est.RelError, Transitions: est.Transitions,
		Seconds: est.Time.Seconds(), DepthLimited: est.DepthLimited, BugProbes: est.Bugs, Elapsed: time.Since(start).Seconds()}
	if !math.IsInf(est.Executions, 0) {
		out.Executions = est.Executions
	}
	if math.IsInf(out.Transitions, 0) {
		out.Transitions = 0
	}
	if a.s.JSON {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(a.stdout, string(b))
		return nil
	}
	c.printEstimate(out, p)
	return nil
}

// printEstimate prints an estimate in words.
func (c *findCmd) printEstimate(out *estimateResult, p *plan) {
	w := c.stdout
	whose := out.Search
	if p.Search.Portfolio() {
		whose += ", the portfolio's exhaustive member"
	}
	fmt.Fprintf(w, "Estimate of an exhaustive search (%s) of %s, from %s in %s:\n", whose, out.Target,
		plural(out.Probes, "random probe"), roughDuration(time.Duration(out.Elapsed*float64(time.Second))))
	spread := fmt.Sprintf("relative standard error %.0f%%", 100*out.RelError)
	if out.Probes < 2 {
		spread = "one probe: no spread known"
	}
	fmt.Fprintf(w, "  executions:  about %s (%s)\n", bigNumber(out.Log10Executions), spread)
	if out.Transitions > 0 {
		fmt.Fprintf(w, "  transitions: about %s\n", bigNumber(math.Log10(out.Transitions)))
	}
	secs := out.Seconds
	if out.Executions == 0 || secs > 100*365*24*3600 {
		fmt.Fprintln(w, "  time:        over 100 years at the probes' pace")
	} else {
		fmt.Fprintf(w, "  time:        about %s at the probes' pace (%.0f executions/s, one copy of the program)\n",
			roughDuration(time.Duration(secs*float64(time.Second))), out.Executions/math.Max(secs, 1e-9))
	}
	var notes []string
	if out.DepthLimited {
		notes = append(notes, fmt.Sprintf("probes were cut at the depth bound: the tree estimated is the tree up to depth %d", out.MaxDepth))
	}
	if out.RelError > 0.5 {
		notes = append(notes, "the probes disagree widely (an unbalanced tree): the estimate may be far off; more probes (--executions) narrow it")
	}
	if out.Reduction == search.ReductionDPOR {
		notes = append(notes, "DPOR runs one execution per class of schedules that differ only in the order of independent operations: "+
			"the estimate counts those classes (docs/estimate.md)")
	}
	notes = append(notes, "probes start every execution afresh; a search replays the start it shares with the execution before, faster: "+
		"its time is likely shorter")
	if out.BugProbes > 0 {
		notes = append(notes, fmt.Sprintf("%s ended in a bug: stdbg find reports it", plural(out.BugProbes, "probe")))
	}
	for _, n := range notes {
		fmt.Fprintln(w, "Note: "+n+".")
	}
}

// bigNumber renders 10^l: "29,000", "3.1 million", "4.2e+17", "10^358".
func bigNumber(l float64) string {
	switch {
	case math.IsInf(l, 0) || math.IsNaN(l):
		return "an unknown number"
	case l < 6:
		return withCommas(int64(math.Round(math.Pow(10, l))))
	case l < 9:
		return fmt.Sprintf("%.1f million", math.Pow(10, l-6))
	case l < 12:
		return fmt.Sprintf("%.1f billion", math.Pow(10, l-9))
	case l < 300:
		return fmt.Sprintf("%.1e", math.Pow(10, l))
	}
	return fmt.Sprintf("10^%.0f", l)
}

// withCommas renders n with thousands separated: 29160 -> "29,160".
func withCommas(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
