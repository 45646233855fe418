package oracle

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/stdbg/stdbg/engine/search"
)

// target is a program ready to run under its runtime.
type target interface {
	lang() Lang
	// executor returns an executor of the program and the function that
	// releases it; with stateful set, its executions report program
	// states (search.Stateful).
	executor(stateful bool) (search.Executor, func(), error)
}

// Limits bound the work spent on one program.
type Limits struct {
	// MaxDepth is the depth bound of every search: far above the length
	// of the programs' executions, so that it never decides; a program
	// with an execution that reaches it is not compared.
	MaxDepth int
	// MaxExecutions bounds the reference search: a program with more
	// schedules is not compared.
	MaxExecutions int64
	// MinimiseExecutions bounds each minimisation of a reference bug.
	MinimiseExecutions int64
}

// DefaultLimits suit programs from DefaultGen.
var DefaultLimits = Limits{MaxDepth: 300, MaxExecutions: 5000, MinimiseExecutions: 300}

// Verdict is what one strategy reported on a program.
type Verdict struct {
	Strategy string
	// Bugs are the bugs found, by key (search.Outcome.Key).
	Bugs map[string]search.Bug
	// Traces counts the executions of each Mazurkiewicz trace run to their
	// end (search.TraceKey); nil when the strategy's traces are not counted.
	Traces map[string]int
	// events holds the first execution of each trace; bugRuns executions
	// that showed each bug.
	events  map[string][]search.Event
	bugRuns map[string][][]search.Event
	// BuggyRuns counts the executions counted in Traces that ended in a
	// bug.
	BuggyRuns int64
	Complete  bool
	Stats     search.Stats
}

// Keys returns the verdict's bug keys, sorted.
func (v *Verdict) Keys() []string {
	ks := make([]string, 0, len(v.Bugs))
	for k := range v.Bugs {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Disagreement is a difference between a strategy that claims
// completeness and running every schedule.
type Disagreement struct {
	Strategy string
	// What differs: "missed" (a bug running every schedule finds),
	// "missed-at-end" (one that only executions differing from one the
	// strategy ran in what ran before the end show: see endedElsewhere),
	// "missed-behind-race" and "trace-missed-behind-race" (missed by a
	// reduction on a program in logged mode that has a race: see
	// diffLogged),
	// "extra" (a bug running every schedule does not find), "incomplete"
	// (the search did not claim completeness), "error" (the search
	// failed), "trace-missed" and "trace-missed-at-end" (a Mazurkiewicz
	// trace no execution of the strategy belongs to), "trace-extra" (an
	// execution of a trace running every schedule never met),
	// "trace-count" (a strategy that runs every schedule ran a trace
	// another number of times); for Strategy "minimise": "changed" (the
	// minimised schedule shows another bug), "longer", "error" (the bug's
	// schedule did not reproduce it).
	What   string
	Detail string
}

// String returns "strategy: what: detail".
func (d Disagreement) String() string { return d.Strategy + ": " + d.What + ": " + d.Detail }

// Result is the comparison of every strategy on one program.
type Result struct {
	// Skipped says why the program was not compared ("" if it was): it has
	// too many schedules, or an execution reached the depth bound.
	Skipped   string
	Reference *Verdict
	Verdicts  []*Verdict
	// Memory is the comparison of a Memory program's two modes (nil for
	// other programs, or when "memory" was not selected).
	Memory   *MemoryCheck
	Disagree []Disagreement
}

// strategyDef is a search that claims completeness.
type strategyDef struct {
	name string
	only Lang // the runtime it runs on, "" for both
	// traces: how its trace keys compare with the reference's: "same" (it
	// runs every schedule, in another order), "cover" (a reduction: its
	// traces are the reference's, all of them), "" (not counted).
	traces string
	// reduces: it reduces by the dependency of operations (DPOR). In
	// logged mode it does not see plain accesses, which are no steps:
	// where there is a race it finds one, not every pair of accesses
	// that races (see anyRaceKeys).
	reduces bool
	run     func(ctx context.Context, t target, l Limits) (*Verdict, error)
}

// strategies are the searches compared with running every schedule.
var strategies = []strategyDef{
	{name: "dpor", traces: "cover", reduces: true, run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreCounted(ctx, t, search.NewDPOR(), l, false, 4*l.MaxExecutions)
	}},
	{name: "preemptions", traces: "same", run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreCounted(ctx, t, search.NewPreemptionBounding(1000), l, false, 4*l.MaxExecutions)
	}},
	{name: "delays", traces: "same", run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreCounted(ctx, t, search.NewDelayBounding(1000), l, false, 4*l.MaxExecutions)
	}},
	// The default search of stdbg find: DPOR with the sampling members
	// taking turns, sharing in transitions with no lead and short turns,
	// so that on programs this small the members really interleave (in
	// time, the lead would leave DPOR alone); complete when DPOR is.
	{name: "portfolio", traces: "", reduces: true, run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		st, err := search.Spec{Seed: 1}.New()
		if err != nil {
			return nil, err
		}
		p, ok := st.(*search.Portfolio)
		if !ok {
			return nil, fmt.Errorf("the default search is %T, not a portfolio", st)
		}
		p.Timed(nil)
		p.Lead, p.Slice = 0, 50
		return exploreCounted(ctx, t, p, l, false, 4*l.MaxExecutions)
	}},
	{name: "visited", traces: "", run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreCounted(ctx, t, search.NewDFS(), l, true, 4*l.MaxExecutions)
	}},
	{name: "split-dpor", traces: "", reduces: true, run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreSplit(ctx, t, search.NewDPOR, l, 1)
	}},
	{name: "split-none", traces: "", run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreSplit(ctx, t, search.NewDFS, l, 1)
	}},
	{name: "shard3-dpor", traces: "", reduces: true, run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreSplit(ctx, t, search.NewDPOR, l, 3)
	}},
	{name: "shard2-none", traces: "", run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreSplit(ctx, t, search.NewDFS, l, 2)
	}},
	// stdbg find -j 2 on a C program: two copies of the program explore
	// the parts at once. (A Go program searches in its own process, one
	// part per process: the shards above.)
	{name: "j2-dpor", traces: "", reduces: true, run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreParallel(ctx, t, search.NewDPOR, l, 2)
	}, only: C},
}

// StrategyNames are the names of the strategies compared, in order, then
// the checks of the minimiser, of a Memory program's two modes
// (checkMemory) and of spins against spins unrolled (checkSpin).
func StrategyNames() []string {
	var ns []string
	for _, s := range strategies {
		ns = append(ns, s.name)
	}
	return append(ns, "minimise", "memory", "spin")
}

// exploreCounted explores with st, counting its traces.
func exploreCounted(ctx context.Context, t target, st search.Strategy, l Limits, stateful bool, limit int64) (*Verdict, error) {
	ex, release, err := t.executor(stateful)
	if err != nil {
		return nil, err
	}
	defer release()
	c := &traceRecorder{Strategy: st, counts: map[string]int{}, events: map[string][]search.Event{},
		bugRuns: map[string][][]search.Event{}, seen: map[string]bool{}}
	res, err := search.Explore(ctx, ex, c, search.Options{All: true, MaxDepth: l.MaxDepth, Visited: stateful,
		MaxExecutions: limit})
	v := verdictOf(res)
	if !stateful {
		v.Traces, v.events, v.bugRuns, v.BuggyRuns = c.counts, c.events, c.bugRuns, c.buggy
	}
	return v, err
}

// traceRecorder counts the executions of each trace that ran to their end,
// as searchtest.TraceCounter does, and keeps the first of each.
type traceRecorder struct {
	search.Strategy
	counts map[string]int
	events map[string][]search.Event
	// bugRuns holds, for each bug, executions that showed it: the first
	// of each of their trace keys, up to maxBugRuns (an execution's trace
	// key does not always tell which bug it ends in: two Dones of a
	// WaitGroup commute, but the second one is the misuse).
	bugRuns map[string][][]search.Event
	seen    map[string]bool
	buggy   int64
}

// maxBugRuns bounds the executions kept for each bug.
const maxBugRuns = 64

// End counts the execution and passes the report on.
func (c *traceRecorder) End(r *search.Report) {
	if r.Outcome != nil && !r.Pruned && !r.DepthLimited {
		k := search.TraceKey(r.Trace)
		if c.counts[k] == 0 {
			c.events[k] = append([]search.Event(nil), r.Trace...)
		}
		if b := r.Outcome.Key(); r.Outcome.Kind.IsBug() && !c.seen[b+"\x00"+k] && len(c.bugRuns[b]) < maxBugRuns {
			c.seen[b+"\x00"+k] = true
			c.bugRuns[b] = append(c.bugRuns[b], append([]search.Event(nil), r.Trace...))
		}
		c.counts[k]++
		if r.Outcome.Kind.IsBug() {
			c.buggy++
		}
	}
	c.Strategy.End(r)
}

// exploreSplit explores as stdbg find -j and --shard do: the search divided
// into parts, the parts of each of shards explored in turn; the verdict is
// their union.
func exploreSplit(ctx context.Context, t target, newSt func() search.Strategy, l Limits, shards int) (*Verdict, error) {
	v := &Verdict{Bugs: map[string]search.Bug{}, Complete: true}
	for i := range shards {
		ex, release, err := t.executor(false)
		if err != nil {
			return nil, err
		}
		newEx := func(int) (search.Executor, func(), error) { return ex, func() {}, nil }
		res, err := search.ExploreSplit(ctx, newEx, newSt, search.Options{All: true, MaxDepth: l.MaxDepth,
			MaxExecutions: 4 * l.MaxExecutions}, search.Split{Workers: 1, Shard: i, Shards: shards})
		release()
		if err != nil {
			return v, fmt.Errorf("shard %d/%d: %w", i, shards, err)
		}
		sv := verdictOf(res)
		for k, b := range sv.Bugs {
			if _, ok := v.Bugs[k]; !ok {
				v.Bugs[k] = b
			}
		}
		v.Complete = v.Complete && sv.Complete
		v.Stats = v.Stats.Add(res.Stats)
	}
	return v, nil
}

// exploreParallel explores as stdbg find -j does on a C program: the
// search divided into parts, explored by workers at once, each with its
// own copy of the program.
func exploreParallel(ctx context.Context, t target, newSt func() search.Strategy, l Limits, workers int) (*Verdict, error) {
	newEx := func(int) (search.Executor, func(), error) {
		runtime.LockOSThread()
		ex, release, err := t.executor(false)
		if err != nil {
			runtime.UnlockOSThread()
			return nil, nil, err
		}
		return ex, func() { release(); runtime.UnlockOSThread() }, nil
	}
	res, err := search.ExploreSplit(ctx, newEx, newSt, search.Options{All: true, MaxDepth: l.MaxDepth,
		MaxExecutions: 4 * l.MaxExecutions}, search.Split{Workers: workers})
	return verdictOf(res), err
}

func verdictOf(res *search.Result) *Verdict {
	v := &Verdict{Bugs: map[string]search.Bug{}}
	if res == nil {
		return v
	}
	for _, b := range res.Bugs {
		v.Bugs[b.Outcome.Key()] = b
	}
	v.Complete, v.Stats = res.Complete && !res.DepthLimited, res.Stats
	return v
}

// compare runs the reference and then each selected strategy on t.
func compare(ctx context.Context, t target, l Limits, selected func(name string) bool) (*Result, error) {
	ref, err := exploreCounted(ctx, t, search.NewDFS(), l, false, l.MaxExecutions)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// Running every schedule failed: the program did not repeat
		// itself, or the runtime broke. A finding in itself.
		return &Result{Reference: ref, Disagree: []Disagreement{{Strategy: "none", What: "error", Detail: err.Error()}}}, nil
	}
	ref.Strategy = "none"
	res := &Result{Reference: ref}
	switch {
	case ref.Stats.MaxDepthHit > 0:
		res.Skipped = fmt.Sprintf("an execution reached the depth bound %d", l.MaxDepth)
		return res, nil
	case !ref.Complete:
		res.Skipped = fmt.Sprintf("more than %d schedules", ref.Stats.Executions)
		return res, nil
	}
	refKeys := ref.Keys()
	for _, s := range strategies {
		if selected != nil && !selected(s.name) || s.only != "" && s.only != t.lang() {
			continue
		}
		v, err := s.run(ctx, t, l)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if v == nil {
			v = &Verdict{}
		}
		v.Strategy = s.name
		res.Verdicts = append(res.Verdicts, v)
		if err != nil {
			res.Disagree = append(res.Disagree, Disagreement{s.name, "error", err.Error()})
			continue
		}
		if !v.Complete {
			res.Disagree = append(res.Disagree, Disagreement{s.name, "incomplete",
				fmt.Sprintf("not exhaustive after %d executions", v.Stats.Executions)})
		}
		switch {
		case s.reduces && logged(t):
			res.Disagree = append(res.Disagree, diffLogged(s.name, ref, v)...)
		case s.name == "visited":
			// A stateful search makes no thread wait after a spin's
			// turn (it cuts the turns that come back to a state): it
			// has no livelock of a spin to tell.
			r, keys := withoutSpinLivelocks(ref)
			res.Disagree = append(res.Disagree, diffBugs(s.name, keys, r, v)...)
		default:
			res.Disagree = append(res.Disagree, diffBugs(s.name, refKeys, ref, v)...)
		}
		td := diffTraces(s.name, s.traces, ref, v)
		if s.reduces && logged(t) && hasRace(ref) {
			// (No trace is promised either: see diffLogged.)
			for i := range td {
				if td[i].What == "trace-missed" {
					td[i].What = "trace-missed-behind-race"
				}
			}
		}
		res.Disagree = append(res.Disagree, td...)
	}
	if selected == nil || selected("minimise") {
		d, err := checkMinimise(ctx, t, ref, l)
		if err != nil {
			return nil, err
		}
		res.Disagree = append(res.Disagree, d...)
	}
	if selected == nil || selected("memory") {
		mc, d, err := checkMemory(ctx, t, ref, l)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			res.Disagree = append(res.Disagree, Disagreement{"memory", "error", err.Error()})
		}
		res.Memory = mc
		res.Disagree = append(res.Disagree, d...)
	}
	return res, nil
}

// logged tells whether t is a Memory program run in logged mode, with the
// race detector (ctarget.MemoryLogEnv).
func logged(t target) bool {
	ct, ok := t.(*cTarget)
	return ok && ct.logged && ct.races
}

// anyRace is the key of every data race in anyRaceKeys.
const anyRace = "data-race@(any pair)"

// anyRaceKeys returns v with its data races under one key, anyRace: for a
// reduction by the operations in logged mode, which promises a race where
// there is one (the program's first race shows in some schedule of its
// operations) but not every pair of plain accesses that race. Two
// transitions that run one after the other in one execution and the
// other way round in another, their operations independent, are
// unordered: if their plain accesses conflict, the execution that runs
// both ends in a race, not always of the same pair (the first conflicting
// access the later transition made); if they do not, both orders reach
// the same state. (Unless the first to run ends the execution: see
// diffLogged.)
func anyRaceKeys(v *Verdict) *Verdict {
	c := *v
	c.Bugs = map[string]search.Bug{}
	for _, k := range v.Keys() {
		b := v.Bugs[k]
		if b.Outcome.Kind == search.DataRace {
			k = anyRace
		}
		if _, ok := c.Bugs[k]; !ok {
			c.Bugs[k] = b
		}
	}
	return &c
}

// diffLogged compares the bugs of a reduction by the operations with the
// reference's on a program in logged mode: its races as one bug
// (anyRaceKeys). On a program with a race, a bug it misses is
// "missed-behind-race": two transitions whose operations are independent
// and whose plain accesses conflict run in one order only, and in the
// other the first may end the execution in a failure before the second
// runs, with no race yet (finding F11); and the race that ends an
// execution hides from the reduction what would have come after.
func diffLogged(name string, ref, v *Verdict) []Disagreement {
	r := anyRaceKeys(ref)
	ds := diffBugs(name, r.Keys(), r, anyRaceKeys(v))
	if !hasRace(ref) {
		return ds
	}
	for i, d := range ds {
		if (d.What == "missed" || d.What == "missed-at-end") && d.Detail != anyRace {
			ds[i].What = "missed-behind-race"
		}
	}
	return ds
}

// diffBugs compares a verdict's bugs with the reference's keys. A bug
// missed is "missed-at-end" when an execution that shows it differs from
// one the strategy ran only in which pending operations ran before the
// end (see endedElsewhere), "missed" otherwise.
func diffBugs(name string, refKeys []string, ref, v *Verdict) []Disagreement {
	var ds []Disagreement
	keys := v.Keys()
	for _, k := range refKeys {
		if slices.Contains(keys, k) {
			continue
		}
		what := "missed"
		if v.events != nil {
			for _, run := range ref.bugRuns[k] {
				if endedElsewhere(run, v.events) {
					what = "missed-at-end"
					break
				}
			}
		}
		ds = append(ds, Disagreement{name, what, k})
	}
	for _, k := range keys {
		if !slices.Contains(refKeys, k) {
			ds = append(ds, Disagreement{name, "extra", fmt.Sprintf("%s (schedule %v)", k, v.Bugs[k].Schedule)})
		}
	}
	return ds
}

// diffTraces compares the traces of a strategy with the reference's: one
// disagreement per kind of difference, with their number and the shortest
// example.
func diffTraces(name, how string, ref, v *Verdict) []Disagreement {
	if how == "" || v.Traces == nil {
		return nil
	}
	found := map[string][]string{}
	for k := range v.Traces {
		if _, ok := ref.Traces[k]; !ok {
			found["trace-extra"] = append(found["trace-extra"], k)
		}
	}
	for k, n := range ref.Traces {
		m, ok := v.Traces[k]
		switch {
		case !ok && endedElsewhere(ref.events[k], v.events):
			found["trace-missed-at-end"] = append(found["trace-missed-at-end"], k)
		case !ok:
			found["trace-missed"] = append(found["trace-missed"], k)
		case how == "same" && m != n:
			found["trace-count"] = append(found["trace-count"], k)
		}
	}
	var ds []Disagreement
	for what, ks := range found {
		sort.Slice(ks, func(i, j int) bool { return len(ks[i]) < len(ks[j]) || len(ks[i]) == len(ks[j]) && ks[i] < ks[j] })
		ds = append(ds, Disagreement{name, what, fmt.Sprintf("%d traces, e.g. %s", len(ks), shortTrace(ks[0]))})
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].What < ds[j].What })
	return ds
}

// endedElsewhere reports that a trace differs from one of others only in
// where the execution ended: cut to what both ran of each thread, they are
// the same trace. The operations one of them ran and the other did not
// were pending when the other ended (an assertion failed, the checked
// function returned, a deadlock), so the difference is whether DPOR
// ordered them before that end.
func endedElsewhere(trace []search.Event, others map[string][]search.Event) bool {
	for _, o := range others {
		if a, b, ok := commonPrefix(trace, o); ok && search.TraceKey(a) == search.TraceKey(b) {
			return true
		}
	}
	return false
}

// commonPrefix cuts two executions to the events of each thread that both
// ran (as many as the shorter ran), and reports whether they ran the same
// number of events of each thread (then they are not "cut elsewhere").
func commonPrefix(a, b []search.Event) ([]search.Event, []search.Event, bool) {
	ca, cb := countByThread(a), countByThread(b)
	same := true
	keep := map[int]int{}
	for t, n := range ca {
		keep[t] = min(n, cb[t])
		same = same && n == cb[t]
	}
	for t, n := range cb {
		same = same && n == ca[t]
		if _, ok := ca[t]; !ok {
			keep[t] = 0
		}
	}
	if same {
		return nil, nil, false
	}
	return cut(a, keep), cut(b, keep), true
}

func countByThread(es []search.Event) map[int]int {
	m := map[int]int{}
	for _, e := range es {
		m[e.Step.Thread]++
	}
	return m
}

func cut(es []search.Event, keep map[int]int) []search.Event {
	seen := map[int]int{}
	var out []search.Event
	for _, e := range es {
		if seen[e.Step.Thread] < keep[e.Step.Thread] {
			out = append(out, e)
		}
		seen[e.Step.Thread]++
	}
	return out
}

func shortTrace(k string) string {
	if len(k) > 400 {
		return k[:400] + "..."
	}
	return k
}

// checkMinimise minimises each bug of the reference and checks that the
// result shows the same bug.
func checkMinimise(ctx context.Context, t target, ref *Verdict, l Limits) ([]Disagreement, error) {
	if l.MinimiseExecutions <= 0 || len(ref.Bugs) == 0 {
		return nil, nil
	}
	ex, release, err := t.executor(false)
	if err != nil {
		return nil, err
	}
	defer release()
	var ds []Disagreement
	for _, k := range ref.Keys() {
		b := ref.Bugs[k]
		m, err := search.Minimise(ctx, ex, b, search.MinimiseOptions{MaxDepth: l.MaxDepth, MaxExecutions: l.MinimiseExecutions, Exhaustive: true})
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			ds = append(ds, Disagreement{"minimise", "error", fmt.Sprintf("%s (schedule %v): %v", k, b.Schedule, err)})
		case m.Outcome.Key() != k:
			ds = append(ds, Disagreement{"minimise", "changed", fmt.Sprintf("%s became %s (schedule %v)", k, m.Outcome.Key(), m.Schedule)})
		case len(m.Schedule) > len(m.Original):
			ds = append(ds, Disagreement{"minimise", "longer", fmt.Sprintf("%s: %v is longer than %v", k, m.Schedule, m.Original)})
		}
	}
	return ds, nil
}

// summary is a one-line account of a result.
func (r *Result) summary() string {
	var b strings.Builder
	if r.Reference != nil {
		fmt.Fprintf(&b, "every schedule: %d executions, %d traces, bugs %q", r.Reference.Stats.Executions, len(r.Reference.Traces), r.Reference.Keys())
	}
	for _, v := range r.Verdicts {
		fmt.Fprintf(&b, "; %s: %d executions", v.Strategy, v.Stats.Executions)
	}
	if r.Memory != nil {
		b.WriteString("; " + r.Memory.summary())
	}
	return b.String()
}
