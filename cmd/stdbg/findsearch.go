package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/hunt"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedprof"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/session"
	"github.com/stdbg/stdbg/stategraph"
	"github.com/stdbg/stdbg/wire"
)

// This file holds what is particular to find's search: the recorders that
// watch it (--profile, --graph), where it runs (inside a Go target, or
// from here, divided among copies of the program), and the result it
// prints and writes.

// finder is one find: its target and settings, and how its search went.
type finder struct {
	a        *app
	t        *session.Target
	s        *session.Session
	p        *plan
	outs     findOutputs
	maxDepth int
	// ctx stops the whole find (a signal).
	ctx  context.Context
	prog *progressLine
	// ex is the session's program, watched by the recorders asked for.
	ex    search.Executor
	prof  *schedprof.Recorder
	graph *stategraph.Recorder
	// inTarget reports a search run inside the target, its bugs
	// confirmed in fresh processes.
	inTarget bool
}

// recorders wraps the session's executor in the recorders asked for.
func (f *finder) recorders() search.Executor {
	var ex search.Executor = f.s.Checker
	if f.a.v.GetString("profile") != "" {
		f.s.Proc.SetFlags(f.s.Proc.Flags() | wire.FlagStacks)
		f.prof = schedprof.NewRecorder(f.s.Checker, f.s.Syms)
		f.prof.Binary = f.t.Binary
		ex = f.prof
	}
	if f.outs.graph != "" {
		f.graph = stategraph.NewRecorder(ex, f.s.Syms, graphLimit, f.a.stateful())
		ex = f.graph
	}
	return ex
}

// search is the hunt's search: the session's, with the recorders asked
// for; what it does otherwise than asked is said on stderr.
func (f *finder) search(searchCtx context.Context, opts search.Options) (*hunt.Explored, error) {
	a, s := f.a, f.s
	if f.prof != nil {
		// Stacks are for the profile: minimisation needs none.
		defer s.Proc.SetFlags(s.Proc.Flags() &^ wire.FlagStacks)
	}
	plan := &session.Plan{Spec: f.p.spec, Strategy: f.p.st, MaxDepth: f.maxDepth, All: a.v.GetBool("all"), MaxExecutions: f.p.executions,
		Budget: f.p.budget, Minimise: !a.v.GetBool("no-minimise"), MinimiseExecutions: int64(a.v.GetInt("minimise-executions")),
		Jobs: a.v.GetInt("jobs"), Shard: f.p.shard, Shards: f.p.shards,
		InTarget: a.v.GetBool("in-target"), Watched: a.stateful() || f.outs.graph != "" || a.v.GetString("profile") != ""}
	hooks := session.Hooks{Progress: opts.Progress, Minimising: f.prog.minimising, OnBug: opts.OnBug,
		Note: func(msg string) {
			if a.v.GetBool("quiet") && strings.HasPrefix(msg, "the program ended its process") {
				return
			}
			f.prog.clear()
			fmt.Fprintln(a.stderr, "stdbg: "+msg)
		}}
	explore, inTarget := s.Explorer(f.ctx, plan, f.ex, hooks)
	found, err := explore(searchCtx, opts)
	f.inTarget = *inTarget
	return found, err
}

// notModelledCoverage rewrites the coverage line of a search that ran out
// of schedules of a program with n constructs it does not model.
func notModelledCoverage(coverage string, n int) string {
	rest, ok := strings.CutPrefix(coverage, "Search: exhaustive ")
	if !ok {
		return coverage
	}
	verb := "are"
	if n == 1 {
		verb = "is"
	}
	return fmt.Sprintf("Search: complete over the modelled operations %s; not exhaustive: %s %s not modelled (below).",
		strings.TrimSuffix(rest, "."), plural(n, "construct"), verb)
}

// result is the document find prints.
func (f *finder) result(res *hunt.Result) *findResult {
	t, p := f.t, f.p
	why := stopNone
	switch {
	case res.Interrupted:
		why = stopInterrupted
	case res.BudgetSpent:
		why = stopBudget
	}
	out := &findResult{Target: t.Arg, Binary: t.Binary, MaxDepth: f.maxDepth, Stats: report.FromStats(res.Stats),
		Complete: res.Search.Complete, DepthLimited: res.Search.DepthLimited, Interrupted: res.Interrupted, Bugs: []*report.Report{},
		Strategy: p.spec.Strategy, Sampled: p.sampled(), Coverage: p.coverage(&res.Search, why, f.maxDepth), Scope: "thread operations",
		Notes: res.Notes, SearchedIn: "stdbg", scopeNote: scopeNote(t), NotModelled: t.Unmodelled}
	if out.Complete && len(t.Unmodelled) > 0 {
		// Exhaustive is a promise the search cannot make for what it
		// does not model.
		out.Coverage = notModelledCoverage(out.Coverage, len(t.Unmodelled))
	}
	if f.inTarget {
		out.SearchedIn = "target"
	}
	if t.Go {
		out.Scope = "goroutine operations"
	}
	if t.Memory {
		out.Scope, out.MemoryPoints = "thread operations and global and heap memory", true
	}
	if p.sampled() {
		out.Seed = p.spec.Seed
	}
	if p.pb != nil {
		out.Bounds = p.pb.Bounds()
	}
	for _, fd := range res.Findings {
		out.Bugs = append(out.Bugs, fd.Report)
	}
	return out
}

// writeFind prints the result and writes the files asked for.
func (a *app) writeFind(out *findResult, f *finder) error {
	if a.v.GetBool("json") {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(a.stdout, string(b))
	} else {
		a.printFind(out)
	}
	outs := f.outs
	if outs.sarif != "" {
		if err := writeSARIF(outs.sarif, out.Bugs, nil); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	if f.graph != nil {
		if err := writeGraph(outs.graph, f.graph, f.t.Arg); err != nil {
			return err
		}
	}
	if outs.html != "" {
		summary := []string{out.Coverage}
		if out.Complete {
			summary = append(summary, out.scopeNote)
		}
		if err := writeHTML(outs.html, f.t.Arg, out.Bugs, append(summary, report.FormatStats(out.Stats))); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	return nil
}
