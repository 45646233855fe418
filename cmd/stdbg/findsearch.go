package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/hunt"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedprof"
	"github.com/stdbg/stdbg/search"
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
	t        *target
	s        *session
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
	var ex search.Executor = f.s.chk
	if f.a.v.GetString("profile") != "" {
		f.s.proc.SetFlags(f.s.proc.Flags() | wire.FlagStacks)
		f.prof = schedprof.NewRecorder(f.s.chk, f.s.syms)
		f.prof.Binary = f.t.binary
		ex = f.prof
	}
	if f.outs.graph != "" {
		f.graph = stategraph.NewRecorder(ex, f.s.syms, graphLimit, f.a.stateful())
		ex = f.graph
	}
	return ex
}

// search is the hunt's search: inside a Go target when it can run there,
// else from here. A Go program that does not repeat itself in a process
// that ran earlier executions is searched again with a fresh process for
// every execution.
func (f *finder) search(searchCtx context.Context, opts search.Options) (*hunt.Explored, error) {
	a, t, s, p := f.a, f.t, f.s, f.p
	if f.prof != nil {
		// Stacks are for the profile: minimisation needs none.
		defer s.proc.SetFlags(s.proc.Flags() &^ wire.FlagStacks)
	}
	if a.inTarget(t, p, f.outs) {
		found, err := a.exploreInTarget(f.ctx, t, s, p, f.maxDepth, opts, f.prog)
		switch {
		case err == nil:
			f.inTarget = true
			return &hunt.Explored{Result: found.Result, Minimised: found.Minimised, BudgetSpent: found.BudgetSpent}, nil
		case f.ctx.Err() != nil:
			return &hunt.Explored{}, nil
		}
		f.prog.clear()
		fmt.Fprintln(a.stderr, "stdbg:", inTargetFallback(err))
		if errors.Is(err, search.ErrNondeterministic) {
			a.noReuse = true
			s.proc.DisableReuse()
		}
	}
	res, err := a.explore(searchCtx, t, s, f.ex, p, opts)
	if t.goPkg && s.proc.Reused() > 0 &&
		(err != nil && errors.Is(err, search.ErrNondeterministic) || err == nil && !a.confirmFresh(s, res.Bugs, f.maxDepth)) {
		// A Go program runs execution after execution in one process:
		// one that keeps state from one to the next (package-level
		// variables) does not repeat itself. Start again, with a fresh
		// process for every execution.
		f.prog.clear()
		fmt.Fprintln(a.stderr, "stdbg: "+inTargetFallback(search.ErrNondeterministic))
		a.noReuse = true
		s.proc.DisableReuse()
		res, err = a.explore(searchCtx, t, s, f.ex, p, opts)
	}
	if !t.goPkg && s.proc.Contexts() &&
		(err != nil && errors.Is(err, search.ErrNondeterministic) || err == nil && len(res.Bugs) > 0 && !a.confirmFresh(s, res.Bugs, f.maxDepth)) {
		// The program's threads ran as contexts on one kernel thread:
		// a program that tells kernel threads apart (system calls made
		// without the C library) can behave otherwise than with real
		// threads, as in the fresh process the bug was replayed in.
		f.prog.clear()
		fmt.Fprintln(a.stderr, "stdbg: "+contextsFallback)
		s.proc.DisableContexts()
		res, err = a.explore(searchCtx, t, s, f.ex, p, opts)
	}
	if res == nil {
		res = &search.Result{}
	}
	if err != nil {
		err = fmt.Errorf("exploring %s: %w", t.arg, err)
	}
	return &hunt.Explored{Result: *res, BudgetSpent: searchCtx.Err() != nil}, err
}

// contextsFallback says why a C search runs again with real threads.
const contextsFallback = "the program does not behave the same with its threads run as contexts on one kernel thread " +
	"(does it ask the kernel which thread it is, without the C library?): searching again with real threads"

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
	out := &findResult{Target: t.arg, Binary: t.binary, MaxDepth: f.maxDepth, Stats: report.FromStats(res.Stats),
		Complete: res.Search.Complete, DepthLimited: res.Search.DepthLimited, Interrupted: res.Interrupted, Bugs: []*report.Report{},
		Strategy: p.spec.Strategy, Sampled: p.sampled(), Coverage: p.coverage(&res.Search, why, f.maxDepth), Scope: "thread operations",
		Notes: res.Notes, SearchedIn: "stdbg", scopeNote: scopeNote(t), NotModelled: t.unmodelled}
	if out.Complete && len(t.unmodelled) > 0 {
		// Exhaustive is a promise the search cannot make for what it
		// does not model.
		out.Coverage = notModelledCoverage(out.Coverage, len(t.unmodelled))
	}
	if f.inTarget {
		out.SearchedIn = "target"
	}
	if t.goPkg {
		out.Scope = "goroutine operations"
	}
	if t.memory {
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
		if err := writeGraph(outs.graph, f.graph, f.t.arg); err != nil {
			return err
		}
	}
	if outs.html != "" {
		summary := []string{out.Coverage}
		if out.Complete {
			summary = append(summary, out.scopeNote)
		}
		if err := writeHTML(outs.html, f.t.arg, out.Bugs, append(summary, report.FormatStats(out.Stats))); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	return nil
}
